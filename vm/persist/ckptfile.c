/*
 * vm/persist/ckptfile.c -- the checkpoint file format: framing, integers, CRC
 * (see vm/persist/ckptfile.h)
 */
#include "config.h"
#include "vm/persist/ckptfile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vm/core/except.h"
#include "vm/core/unit.h"

/* ===== Writing ===== */

void vl_ckptfile_put(CkptOut *o, const void *p, size_t n)
{
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->len + n)
            cap *= 2;
        unsigned char *d = vl_gc_alloc_atomic(cap);
        if (o->len > 0)
            memcpy(d, o->data, o->len);
        if (o->data != NULL)
            vl_gc_free(o->data);
        o->data = d;
        o->cap = cap;
    }
    memcpy(o->data + o->len, p, n);
    o->len += n;
}

void vl_ckptfile_put_byte(CkptOut *o, unsigned b)
{
    unsigned char c = (unsigned char)b;
    vl_ckptfile_put(o, &c, 1);
}

void vl_ckptfile_put_u(CkptOut *o, uint64_t x)
{
    unsigned char buf[10];
    size_t n = 0;
    do {
        unsigned char c = x & 0x7f;
        x >>= 7;
        buf[n++] = c | (x ? 0x80 : 0);
    } while (x);
    vl_ckptfile_put(o, buf, n);
}

void vl_ckptfile_put_i(CkptOut *o, int64_t x)
{
    vl_ckptfile_put_u(o, ((uint64_t)x << 1) ^ (uint64_t)(x >> 63));
}

void vl_ckptfile_put_real(CkptOut *o, double x)
{
    vl_ckptfile_put(o, &x, sizeof x);       /* little-endian (the header) */
}

void vl_ckptfile_put_str(CkptOut *o, const char *s, size_t n)
{
    vl_ckptfile_put_u(o, n);
    vl_ckptfile_put(o, s, n);
}

/* ===== Reading ===== */

void vl_ckptfile_bad(CkptIn *in, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *m = vl_except_vformat(fmt, ap);
    va_end(ap);
    vl_except_at(in->S, VLAD_ERR_IO, (SrcPos){in->name, 0, 0},
                 "not a valid checkpoint file: %s", m);
}

unsigned vl_ckptfile_get_byte(CkptIn *in)
{
    if (in->p >= in->end)
        vl_ckptfile_bad(in, "it ends too early");
    return *in->p++;
}

uint64_t vl_ckptfile_get_u(CkptIn *in)
{
    uint64_t x = 0;
    for (int shift = 0;; shift += 7) {
        unsigned c = vl_ckptfile_get_byte(in);
        if (shift == 63 && (c & 0x7e))
            vl_ckptfile_bad(in, "an integer is too large");
        x |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return x;
        if (shift == 63)
            vl_ckptfile_bad(in, "an integer is too large");
    }
}

uint64_t vl_ckptfile_get_max(CkptIn *in, uint64_t max, const char *what)
{
    uint64_t x = vl_ckptfile_get_u(in);
    if (x > max)
        vl_ckptfile_bad(in, "%s out of range (%llu > %llu)", what,
                        (unsigned long long)x, (unsigned long long)max);
    return x;
}

int64_t vl_ckptfile_get_i(CkptIn *in)
{
    uint64_t z = vl_ckptfile_get_u(in);
    return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

double vl_ckptfile_get_real(CkptIn *in)
{
    double x;
    memcpy(&x, vl_ckptfile_get_bytes(in, sizeof x), sizeof x);
    return x;
}

const unsigned char *vl_ckptfile_get_bytes(CkptIn *in, size_t n)
{
    if ((size_t)(in->end - in->p) < n)
        vl_ckptfile_bad(in, "it ends too early");
    const unsigned char *p = in->p;
    in->p += n;
    return p;
}

char *vl_ckptfile_get_str(CkptIn *in, size_t max, size_t *len)
{
    size_t n = (size_t)vl_ckptfile_get_max(in, max, "a string's length");
    const unsigned char *p = vl_ckptfile_get_bytes(in, n);
    if (memchr(p, 0, n) != NULL)
        vl_ckptfile_bad(in, "a string holds a NUL byte");
    if (len != NULL)
        *len = n;
    return vl_gc_strndup((const char *)p, n);
}

/* ===== CRC and framing ===== */

uint32_t vl_ckptfile_crc32(const unsigned char *p, size_t n)
{
    /* a table made on the stack for each call (1 KB, 2048 steps): no
       state shared between calls or threads; bit by bit for short
       inputs */
    uint32_t c = 0xFFFFFFFFu;
    if (n < 4096) {
        for (size_t i = 0; i < n; i++) {
            c ^= p[i];
            for (int k = 0; k < 8; k++)
                c = (c >> 1) ^ (0xEDB88320u & -(c & 1));
        }
        return ~c;
    }
    uint32_t table[256];
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t t = b;
        for (int k = 0; k < 8; k++)
            t = (t >> 1) ^ (0xEDB88320u & -(t & 1));
        table[b] = t;
    }
    for (size_t i = 0; i < n; i++)
        c = (c >> 8) ^ table[(c ^ p[i]) & 0xFF];
    return ~c;
}

uint64_t vl_ckptfile_build_id(VladState *S)
{
    if (S->ckpt_build_id == 0) {
        uint64_t h = vl_fnv(VL_FNV_INIT, PACKAGE_VERSION,
                            sizeof PACKAGE_VERSION);
        for (size_t k = 0; k < S->nprelude_units; k++) {
            uint64_t u = vl_unit_hash(S->prelude_units[k]);
            h = vl_fnv(h, &u, sizeof u);
        }
        S->ckpt_build_id = h != 0 ? h : 1;
    }
    return S->ckpt_build_id;
}

static void put_le(unsigned char *p, uint64_t x, int n)
{
    for (int k = 0; k < n; k++)
        p[k] = (unsigned char)(x >> (8 * k));
}

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t x = 0;
    for (int k = 0; k < n; k++)
        x |= (uint64_t)p[k] << (8 * k);
    return x;
}

static int little_endian(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}

void vl_ckptfile_frame(VladState *S, const CkptOut *payload, CkptOut *file)
{
    unsigned char h[VL_CKPT_HEADER];
    memcpy(h, VL_CKPT_MAGIC, 8);
    put_le(h + 8, VL_CKPT_FORMAT, 4);
    h[12] = (unsigned char)sizeof(void *);
    h[13] = little_endian() ? 1 : 2;
    h[14] = (unsigned char)sizeof(double);
    h[15] = 0;
    put_le(h + 16, vl_ckptfile_build_id(S), 8);
    put_le(h + 24, payload->len, 8);
    vl_ckptfile_put(file, h, sizeof h);
    vl_ckptfile_put(file, payload->data, payload->len);
    unsigned char t[VL_CKPT_TRAILER];
    put_le(t, vl_ckptfile_crc32(file->data, file->len), 4);
    vl_ckptfile_put(file, t, sizeof t);
}

const unsigned char *vl_ckptfile_open(CkptIn *in, const unsigned char *data,
                                      size_t len, size_t *plen)
{
    if (len < 8 || memcmp(data, VL_CKPT_MAGIC, 8) != 0)
        vl_ckptfile_bad(in, "no VLADCKPT at its start");
    if (len < VL_CKPT_HEADER + VL_CKPT_TRAILER)
        vl_ckptfile_bad(in, "it is truncated (%zu bytes)", len);
    uint64_t format = get_le(data + 8, 4);
    if (format != VL_CKPT_FORMAT)
        vl_ckptfile_bad(in, "it is in format %llu; this vlad reads format %u",
                        (unsigned long long)format, VL_CKPT_FORMAT);
    if (data[12] != sizeof(void *) || data[13] != (little_endian() ? 1 : 2)
        || data[14] != sizeof(double) || data[15] != 0)
        vl_ckptfile_bad(in, "it was saved on another architecture (%u-byte "
                        "words, %s-endian); this one has %u-byte words and is "
                        "%s-endian", data[12], data[13] == 1 ? "little" : "big",
                        (unsigned)sizeof(void *),
                        little_endian() ? "little" : "big");
    uint64_t p = get_le(data + 24, 8);
    if (p != len - VL_CKPT_HEADER - VL_CKPT_TRAILER)
        vl_ckptfile_bad(in, "it is %s (%zu bytes; its header says %llu)",
                        p > len - VL_CKPT_HEADER - VL_CKPT_TRAILER
                        ? "truncated" : "longer than its contents",
                    len, (unsigned long long)(p + VL_CKPT_HEADER
                                              + VL_CKPT_TRAILER));
    uint32_t crc = (uint32_t)get_le(data + len - VL_CKPT_TRAILER, 4);
    if (crc != vl_ckptfile_crc32(data, len - VL_CKPT_TRAILER))
        vl_ckptfile_bad(in, "it is damaged (its checksum does not match)");
    if (get_le(data + 16, 8) != vl_ckptfile_build_id(in->S))
        vl_ckptfile_bad(in, "it was saved by another version or build of vlad "
                        "(this is vlad " PACKAGE_VERSION ")");
    *plen = (size_t)p;
    in->p = data + VL_CKPT_HEADER;
    in->end = in->p + p;
    return in->p;
}
