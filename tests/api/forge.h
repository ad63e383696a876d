/*
 * tests/api/forge.h -- writing checkpoint files by hand, for the tests
 * of the loader (tests/api/test-api-forged.c, tests/unit/test-ckpt-load.c)
 *
 * A Buf collects a payload: records (vm/persist/ckptfile.h), each a kind byte and
 * fields in LEB128 (b_u; signed ones zigzagged, b_i), reals (b_real) and
 * strings (b_str); forge_frame puts a header (a legitimate file's first
 * 32 bytes: this build's) and a recomputed CRC-32 around it.  The
 * forge_* builders write the payloads of the outside attack's
 * reproducers (issue 31), at any size.
 */
#ifndef VLAD_FORGE_H
#define VLAD_FORGE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Buf { unsigned char *d; size_t n, cap; } Buf;

static void b_put(Buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->d = realloc(b->d, b->cap);
        if (b->d == NULL)
            abort();
    }
    memcpy(b->d + b->n, p, n);
    b->n += n;
}
static void b_byte(Buf *b, unsigned x) { unsigned char c = (unsigned char)x; b_put(b, &c, 1); }
static void b_u(Buf *b, uint64_t x)
{
    do { unsigned char c = x & 0x7f; x >>= 7; b_byte(b, c | (x ? 0x80 : 0)); } while (x);
}
static void b_i(Buf *b, int64_t x) { b_u(b, ((uint64_t)x << 1) ^ (uint64_t)(x >> 63)); }
static void b_real(Buf *b, double x) { b_put(b, &x, 8); }
static void b_strn(Buf *b, const char *s, size_t n) { b_u(b, n); b_put(b, s, n); }
static void b_str(Buf *b, const char *s) { b_strn(b, s, strlen(s)); }

/* record kinds / value tags (vm/persist/ckptfile.h, vm/core/value.h; a unit test that
   includes those first sees theirs) */
#ifndef VL_CKPTFILE_H
enum { R_END, R_UNIT, R_PAIR, R_CLOSURE, R_FILL, R_DUAL, R_CHUNK, R_LOG,
       R_LOGENTRY, R_RUN, R_SEG, R_CKPT, R_GLOBAL, R_INFO, R_PROGRAM,
       R_TEXT, R_LCLOSURE };
enum { VT_UNDEF, VT_NIL, VT_BOOL, VT_NUM, VT_PAIR, VT_CLOSURE, VT_PRIM,
       VT_CKPT, VT_DUAL, VT_TAPE, VT_RAW, VT_SYM, VT_STR, VT_VOID };
enum { X_RAW_INT = 0x40, X_RAW_LOG, X_RAW_LOGLIST, X_RAW_TAPE_END, X_PLAIN_DUAL };
enum { CTL_ENTRY, CTL_CHECKPOINT, CTL_PRIMOPS, CTL_RESUME, CTL_JSTAR,
       CTL_STARJ, CTL_SEG_FIRST, CTL_SEG_RUN, CTL_SEG_ADV, CTL_SEG_REC,
       CTL_ADVANCE, CTL_STARJ_ACTIVE, CTL_UNDERFLOW };
#endif
#define TAPE_NONE 0xFFFFFFFFu
#define TAPE_GENERAL 0xFFFFFFFEu
#define TAPE_CONT 0xFFFFFFFDu

static uint32_t crc32_ieee(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & -(c & 1));
    }
    return ~c;
}

/* Recompute the payload length and the CRC of a whole file in place. */
static void refresh(unsigned char *f, size_t len)
{
    uint64_t p = len - 36;
    for (int k = 0; k < 8; k++) f[24 + k] = (unsigned char)(p >> (8 * k));
    uint32_t crc = crc32_ieee(f, len - 4);
    for (int k = 0; k < 4; k++) f[len - 4 + k] = (unsigned char)(crc >> (8 * k));
}

/* The file of payload 'pl' under 'header' (malloc'ed, '*len' bytes). */
static unsigned char *forge_frame(const unsigned char *header, const Buf *pl,
                                  size_t *len)
{
    *len = 32 + pl->n + 4;
    unsigned char *f = malloc(*len);
    if (f == NULL)
        abort();
    memcpy(f, header, 32);
    memcpy(f + 32, pl->d, pl->n);
    refresh(f, *len);
    return f;
}

/* 'n' copies of s between 'before' and 'after' (malloc'ed). */
static char *forge_repeat(const char *s, size_t n, const char *before,
                          const char *after)
{
    size_t k = strlen(s), a = strlen(before), b = strlen(after);
    char *t = malloc(a + k * n + b + 1);
    if (t == NULL)
        abort();
    memcpy(t, before, a);
    for (size_t i = 0; i < n; i++)
        memcpy(t + a + i * k, s, k);
    memcpy(t + a + k * n, after, b + 1);
    return t;
}

/* (define (mk a0 ... a<n-1>) (lambda (z) (list a0 ... a<n-1> z))): its
   lambda captures n values (malloc'ed). */
static char *forge_mk_text(int n)
{
    size_t cap = (size_t)n * 16 + 100, m = 0;
    char *t = malloc(cap);
    if (t == NULL)
        abort();
    m += (size_t)snprintf(t + m, cap - m, "(define (mk");
    for (int i = 0; i < n; i++)
        m += (size_t)snprintf(t + m, cap - m, " a%d", i);
    m += (size_t)snprintf(t + m, cap - m, ") (lambda (z) (list");
    for (int i = 0; i < n; i++)
        m += (size_t)snprintf(t + m, cap - m, " a%d", i);
    snprintf(t + m, cap - m, " z)))\n");
    return t;
}

/* A pending checkpoint record (closure 7.0), no frames. */
static void forge_pending(Buf *b, uint64_t closure)
{
    b_byte(b, R_CKPT); b_byte(b, 0);
    b_byte(b, VT_CLOSURE); b_u(b, closure);
    b_byte(b, VT_NUM); b_u(b, 0); b_real(b, 7.0);
    b_u(b, 0); b_i(b, 0); b_i(b, 0); b_i(b, 0); b_byte(b, 0);
}

/* H1: the text 'text', 'reps' units of its form 'form' (each = 1: one
   unit of each of its first 'reps' forms), all of code hash 'hash', and
   a checkpoint of (p 7), p the second procedure of the last unit. */
static void forge_units(Buf *b, const char *text, uint64_t form,
                        uint64_t reps, int each, uint64_t hash)
{
    b_byte(b, R_TEXT); b_str(b, "t.vlad"); b_str(b, text);
    for (uint64_t k = 0; k < reps; k++) {
        b_byte(b, R_UNIT); b_byte(b, 0); b_u(b, 0); b_u(b, 0);
        b_u(b, each ? k : form); b_u(b, hash);
    }
    b_byte(b, R_CLOSURE); b_u(b, reps); b_u(b, 1);
    b_byte(b, R_FILL); b_u(b, reps + 1);
    forge_pending(b, reps + 1);
    b_byte(b, R_END); b_byte(b, VT_CKPT); b_u(b, reps + 2);
}

/* R1: the text of forge_mk_text (code hash 'hash'), 'k' closures of its
   lambda, each filled at once or never; a finished checkpoint. */
static void forge_closures(Buf *b, const char *text, uint64_t hash, size_t k,
                           int nfree, int filled)
{
    b_byte(b, R_TEXT); b_str(b, "t.vlad"); b_str(b, text);
    b_byte(b, R_UNIT); b_byte(b, 0); b_u(b, 0); b_u(b, 0); b_u(b, 0);
    b_u(b, hash);
    for (size_t j = 0; j < k; j++) {
        b_byte(b, R_CLOSURE); b_u(b, 2); b_u(b, 2);     /* the lambda */
        if (filled) {
            b_byte(b, R_FILL); b_u(b, 2 + j);
            for (int i = 0; i < nfree; i++) {
                b_byte(b, VT_NUM); b_u(b, 0); b_real(b, i);
            }
        }
    }
    b_byte(b, R_CKPT); b_byte(b, 1); b_byte(b, VT_NUM); b_u(b, 0);
    b_real(b, 0); b_i(b, 0); b_i(b, 0); b_byte(b, 0);
    b_byte(b, R_END); b_byte(b, VT_CKPT); b_u(b, 2 + k);
}

/* H2: the payload of a saved (checkpoint r n n), r a non-tail recursion
   -- it ends R_END, VT_CKPT k: checkpoint k on sequence k - 1 over run
   k - 2 -- with 'nseg' more sequences over the first 'count' frames of
   the run; 0 when the payload does not end so. */
static int forge_sequences(Buf *b, const unsigned char *pl, size_t plen,
                           size_t nseg, uint64_t count)
{
    if (plen < 4 || pl[plen - 3] != R_END || pl[plen - 2] != VT_CKPT
        || pl[plen - 1] < 2 || pl[plen - 1] >= 128)
        return 0;
    uint64_t run = pl[plen - 1] - 2;
    b_put(b, pl, plen - 3);
    for (size_t k = 0; k < nseg; k++) {
        b_byte(b, R_SEG); b_u(b, 0); b_u(b, 0); b_u(b, run + 1);
        b_u(b, 0); b_u(b, count);
    }
    b_put(b, pl + plen - 3, 3);
    return 1;
}

#endif
