/*
 * vm/persist/spill.c -- checkpoint-*j's held states in files (spill=DIR; see
 * vm/persist/spill.h for the policy, what stays in memory and the records'
 * frame)
 *
 * Owns the spill files of a state (one per directory in use, at most
 * VL_SPILL_FILES open, made and unlinked at once), the records in them
 * (each found again through a weak link to its Checkpoint: a record
 * whose Checkpoint is garbage gives its space back; each checked, when
 * read back, to be the one written there), and the cache of held states
 * in memory, least recently used first out.
 */
#include "config.h"
#include "vm/persist/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "vm/persist/ckptload.h"
#include "vm/persist/ckptsave.h"
#include "vm/core/except.h"

typedef struct SpillFile {
    int fd;
    const char *dir;
    const char *name;           /* "the spill file in DIR" */
    int64_t end;                /* where the next record goes */
    size_t copies;              /* records it holds */
    struct SpillFile *next;
} SpillFile;

/* A state's record in a file. */
typedef struct SpillRec {
    SpillFile *file;            /* NULL: lost ('lost' says why) */
    int64_t offset, len;        /* the whole record: frame and payload */
    uint64_t serial;            /* its number, in the frame */
    int64_t bytes;              /* the state's bytes in memory */
    Value *ext;                 /* the externals it names */
    size_t next;
    void **link;                /* the Checkpoint (unscanned memory: a
                                   weak link), NULL once it is garbage */
    const char *lost;           /* the error that brings it back: its
                                   file was damaged when it was moved */
} SpillRec;

typedef struct Spill {
    const char *dir;            /* NULL: off */
    int64_t allowance;
    SpillFile *files;           /* open, the one written now first */
    size_t nfiles;
    SpillRec **recs;            /* every record */
    size_t nrecs, recs_cap;
    size_t swept_at;            /* collections when last swept */
    int used, check;            /* spilled since the last top-level reset;
                                   a reset since then: the next run's
                                   start collects and closes dead files */
    uint64_t serial;            /* records written so far */
    uint64_t key[2];            /* of the records' MAC; never written */
    int keyed;
    Checkpoint **cache;         /* held states in memory */
    size_t ncache, cache_cap;
    int64_t cache_bytes;
    uint64_t clock;
    SpillCounts counts;
    CkptScratch scratch;        /* the saver's and loader's tables, and */
    unsigned char *buf;         /* a buffer to read records into, kept */
    size_t buf_cap;
} Spill;

static Spill *spill_of(VladState *S)
{
    if (S->spill == NULL)
        S->spill = vl_gc_alloc(sizeof(Spill));
    return S->spill;
}

/* ===== The records' frame: SipHash-2-4 and the checks ===== */

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND \
    do { \
        v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
        v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
        v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
        v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
    } while (0)

static uint64_t get64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
#else
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = x << 8 | p[i];
    return x;
#endif
}

static void put64(unsigned char *p, uint64_t x)
{
    for (int i = 0; i < 8; i++, x >>= 8)
        p[i] = (unsigned char)x;
}

uint64_t vl_spill_mac(const uint64_t key[2], const unsigned char *head,
                      size_t nhead, const unsigned char *p, size_t n)
{
    uint64_t v0 = key[0] ^ 0x736f6d6570736575ull;
    uint64_t v1 = key[1] ^ 0x646f72616e646f6dull;
    uint64_t v2 = key[0] ^ 0x6c7967656e657261ull;
    uint64_t v3 = key[1] ^ 0x7465646279746573ull;
    uint64_t b = ((uint64_t)nhead + n) << 56;
    for (size_t i = 0; i + 8 <= nhead + n; i += 8) {
        uint64_t w = i < nhead ? get64(head + i) : get64(p + (i - nhead));
        v3 ^= w;
        SIPROUND;
        SIPROUND;
        v0 ^= w;
    }
    for (size_t i = 0; i < n % 8; i++)         /* (nhead % 8 == 0) */
        b |= (uint64_t)p[n - n % 8 + i] << (8 * i);
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* The key: random, from the system; failing that, from the clock, the
   process and an address (still unknown to whoever writes the file
   without reading this process's memory, if far less so). */
static void make_key(Spill *sp)
{
    unsigned char b[16] = {0};
    size_t got = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        while (got < sizeof b) {
            ssize_t k = read(fd, b + got, sizeof b - got);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                break;
            got += (size_t)k;
        }
        (void)close(fd);
    }
    sp->key[0] = get64(b);
    sp->key[1] = get64(b + 8);
    if (got < sizeof b) {
        struct timespec t;
        (void)clock_gettime(CLOCK_REALTIME, &t);
        sp->key[0] = (uint64_t)t.tv_sec * 1000000007u ^ (uint64_t)t.tv_nsec;
        (void)clock_gettime(CLOCK_MONOTONIC, &t);
        sp->key[1] = ((uint64_t)t.tv_nsec << 32 ^ (uint64_t)getpid())
                     ^ (uint64_t)(uintptr_t)sp;
    }
    sp->keyed = 1;
}

/* The frame of a record of 'n' bytes of payload at 'offset'. */
static void make_frame(const Spill *sp, unsigned char *fr, int64_t offset,
                       uint64_t serial, const unsigned char *p, size_t n)
{
    memcpy(fr, VL_SPILL_MAGIC, 8);
    put64(fr + 8, (uint64_t)offset);
    put64(fr + 16, serial);
    put64(fr + 24, (uint64_t)n);
    put64(fr + 32, vl_spill_mac(sp->key, fr, 32, p, n));
}

/* What is wrong with record r read into buf ('got' bytes of it there,
   the file 'size' bytes long), or NULL when it is the one written. */
static const char *frame_wrong(const Spill *sp, const SpillRec *r,
                               const unsigned char *buf, size_t got,
                               int64_t size)
{
    const unsigned char *fr = buf;
    if (got < (size_t)r->len)
        return vl_except_format("is cut short: the file ends at byte %lld",
                                (long long)size);
    size_t z = 0;
    while (z < VL_SPILL_FRAME && fr[z] == 0)
        z++;
    if (z == VL_SPILL_FRAME)
        return "is not a record: it reads as zeros";
    if (memcmp(fr, VL_SPILL_MAGIC, 8) != 0)
        return "is not a record: its frame is overwritten";
    uint64_t n = get64(fr + 24);
    if (n != (uint64_t)r->len - VL_SPILL_FRAME
        || get64(fr + 32) != vl_spill_mac(sp->key, fr, 32,
                                          fr + VL_SPILL_FRAME, (size_t)n))
        return "was changed after it was written: its checksum does not "
               "match";
    if (get64(fr + 8) != (uint64_t)r->offset || get64(fr + 16) != r->serial)
        return vl_except_format("holds another record: the one written "
                                "at offset %llu (records were moved)",
                                (unsigned long long)get64(fr + 8));
    return NULL;
}

/* ===== Files ===== */

static VL_NORETURN void fail(VladState *S, const char *dir, const char *what,
                             int err)
{
    vl_except_runtime(S, VLAD_ERR_IO, "checkpoint-*j: spill=%s: %s: %s", dir,
                      what, strerror(err));
}

static const char *damage(const char *dir, const SpillRec *r,
                          const char *what)
{
    return vl_except_format("checkpoint-*j: spill=%s: the spill file there "
                            "is damaged: the record at offset %lld (%lld "
                            "bytes) %s", dir, (long long)r->offset,
                            (long long)r->len, what);
}

static SpillFile *open_file(VladState *S, Spill *sp, const char *dir)
{
    if (!sp->keyed)
        make_key(sp);
    size_t n = strlen(dir);
    char *path = vl_gc_alloc_atomic(n + 24);
    snprintf(path, n + 24, "%s/vlad-spill-XXXXXX", dir);
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        fail(S, dir, "cannot make a file there", errno);
    (void)unlink(path);         /* gone with the process, whatever ends it */
    SpillFile *f = vl_gc_alloc(sizeof *f);
    f->fd = fd;
    f->dir = vl_gc_strdup(dir);
    f->name = vl_except_format("the spill file in %s", dir);
    f->next = sp->files;
    sp->files = f;
    sp->nfiles++;
    return f;
}

static void close_file(Spill *sp, SpillFile *f)
{
    for (SpillFile **p = &sp->files; *p != NULL; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            sp->nfiles--;
            break;
        }
    (void)close(f->fd);
}

/* Close the files that hold no record (but the one written now, if
   'keep'). */
static void close_empty(Spill *sp, int keep)
{
    SpillFile *f = sp->files != NULL && keep ? sp->files->next : sp->files;
    while (f != NULL) {
        SpillFile *next = f->next;
        if (f->copies == 0)
            close_file(sp, f);
        f = next;
    }
}

/* Write n bytes at offset 'off' of fd: 0, or the errno. */
static int write_at(int fd, const unsigned char *p, size_t n, int64_t off)
{
    while (n > 0) {
        ssize_t k = pwrite(fd, p, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : ENOSPC;
        p += k;
        n -= (size_t)k;
        off += k;
    }
    return 0;
}

/* Read up to n bytes at offset 'off' of fd into p: the count ('*err' 0),
   fewer at the end of the file, or with '*err' the errno. */
static size_t read_at(int fd, unsigned char *p, size_t n, int64_t off,
                      int *err)
{
    size_t got = 0;
    *err = 0;
    while (got < n) {
        ssize_t k = pread(fd, p + got, n - got, (off_t)(off + (int64_t)got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            *err = errno;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    return got;
}

/* sp->buf, of at least n bytes. */
static unsigned char *buffer(Spill *sp, size_t n)
{
    if (n > sp->buf_cap) {
        if (sp->buf != NULL)
            vl_gc_free(sp->buf);
        sp->buf = NULL;
        sp->buf_cap = 0;
        sp->buf = vl_gc_alloc_atomic(n * 2);
        sp->buf_cap = n * 2;
    }
    return sp->buf;
}

/* Record r, read into sp->buf and checked: NULL, or what is wrong (an
   error message; '*err' the errno of a failed read). */
static const char *read_record(Spill *sp, const SpillRec *r, int *err)
{
    size_t got = read_at(r->file->fd, buffer(sp, (size_t)r->len),
                         (size_t)r->len, r->offset, err);
    if (*err != 0)
        return "";
    struct stat st;
    int64_t size = got == (size_t)r->len ? 0
                   : fstat(r->file->fd, &st) == 0 ? (int64_t)st.st_size
                                                  : -1;
    const char *what = frame_wrong(sp, r, sp->buf, got, size);
    return what == NULL ? NULL : damage(r->file->dir, r, what);
}

/* Write a record of the payload p[0, n) (which may be in sp->buf, after
   the room of a frame) at the end of f: 0, or the errno. */
static int write_record(Spill *sp, SpillFile *f, SpillRec *r,
                        const unsigned char *p, size_t n)
{
    if (p != sp->buf + VL_SPILL_FRAME)
        memcpy(buffer(sp, VL_SPILL_FRAME + n) + VL_SPILL_FRAME, p, n);
    make_frame(sp, sp->buf, f->end, r->serial, sp->buf + VL_SPILL_FRAME, n);
    int err = write_at(f->fd, sp->buf, VL_SPILL_FRAME + n, f->end);
    if (err != 0)
        return err;
    r->file = f;
    r->offset = f->end;
    r->len = (int64_t)(VL_SPILL_FRAME + n);
    f->end += r->len;
    f->copies++;
    return 0;
}

/* The space of a record no Checkpoint needs any more. */
static void free_copy(Spill *sp, SpillRec *r)
{
    SpillFile *f = r->file;
    if (f == NULL)
        return;
    r->file = NULL;
    f->copies--;
    if (f->copies == 0) {
        if (ftruncate(f->fd, 0) == 0)
            f->end = 0;
        if (f != sp->files)             /* an earlier directory's */
            close_file(sp, f);
        return;
    }
#if defined(FALLOC_FL_PUNCH_HOLE) && defined(FALLOC_FL_KEEP_SIZE)
    (void)fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                    (off_t)r->offset, (off_t)r->len);
#endif
}

/* Give back the space of the records whose Checkpoint is garbage (once
   per collection: weak links are cleared by collections). */
static void sweep(Spill *sp)
{
    size_t now = vl_gc_collections();
    if (now == sp->swept_at)
        return;
    sp->swept_at = now;
    for (size_t i = 0; i < sp->nrecs;) {
        SpillRec *r = sp->recs[i];
        if (*r->link != NULL) {
            i++;
            continue;
        }
        free_copy(sp, r);
        sp->recs[i] = sp->recs[--sp->nrecs];
        sp->recs[sp->nrecs] = NULL;
    }
}

/* Collect, and close the files whose records are all garbage. */
static void collect(Spill *sp)
{
    vl_gc_collect();
    sweep(sp);
    close_empty(sp, 1);
}

/* Move the records of f that are still needed to the file written now,
   and close f.  A record that fails its check keeps the error for when
   it is brought back (nothing may need it). */
static void move_out(VladState *S, Spill *sp, SpillFile *f)
{
    SpillFile *to = sp->files;
    for (size_t i = 0; i < sp->nrecs; i++) {
        SpillRec *r = sp->recs[i];
        if (r->file != f)
            continue;
        int err;
        const char *wrong = read_record(sp, r, &err);
        if (wrong != NULL) {
            r->lost = err != 0 ? vl_except_format(
                                     "checkpoint-*j: spill=%s: cannot read "
                                     "a state back: %s", f->dir,
                                     strerror(err))
                               : wrong;
        } else {
            err = write_record(sp, to, r, sp->buf + VL_SPILL_FRAME,
                               (size_t)r->len - VL_SPILL_FRAME);
            if (err != 0)
                fail(S, to->dir, "cannot write a state", err);
            f->copies--;
            continue;
        }
        r->file = NULL;
        f->copies--;
    }
    close_file(sp, f);
}

/* ===== The cache of held states ===== */

static void cache_add(Spill *sp, Checkpoint *k, int64_t bytes)
{
    if (k->cache_bytes > 0 || k->pinned)
        return;
    k->cache_bytes = bytes > 0 ? bytes : 1;
    sp->cache = vl_gc_grow(sp->cache, sp->ncache, &sp->cache_cap,
                           sizeof *sp->cache);
    sp->cache[sp->ncache++] = k;
    sp->cache_bytes += k->cache_bytes;
}

static void cache_remove(Spill *sp, Checkpoint *k)
{
    if (k->cache_bytes == 0)
        return;
    for (size_t i = 0; i < sp->ncache; i++)
        if (sp->cache[i] == k) {
            sp->cache[i] = sp->cache[--sp->ncache];
            sp->cache[sp->ncache] = NULL;
            break;
        }
    sp->cache_bytes -= k->cache_bytes;
    k->cache_bytes = 0;
}

/* Write k's record (once) and clear its fields. */
static void send_away(VladState *S, Spill *sp, Checkpoint *k)
{
    if (k->spill == NULL) {
        SpillFile *f = sp->files;
        size_t next;
        Value *ext = vl_ckptsave_local(S, k, &sp->scratch, &next);
        if (ext == NULL) {      /* it holds what AD walks into: stays */
            cache_remove(sp, k);
            k->pinned = 1;
            sp->counts.pinned++;
            return;
        }
        const CkptOut file = sp->scratch.file;
        SpillRec *r = vl_gc_alloc(sizeof *r);
        r->serial = ++sp->serial;
        int err = write_record(sp, f, r, file.data, file.len);
        if (err != 0)
            fail(S, f->dir, "cannot write a state", err);
        r->bytes = k->cache_bytes;
        r->ext = ext;
        r->next = next;
        r->link = vl_gc_alloc_atomic(sizeof *r->link);
        *r->link = k;
        if (!vl_gc_weak_link(r->link, k))
            vl_except_runtime(S, VLAD_ERR_MEMORY, "checkpoint-*j: out of "
                              "memory for a spilled state");
        sp->recs = vl_gc_grow(sp->recs, sp->nrecs, &sp->recs_cap,
                              sizeof *sp->recs);
        sp->recs[sp->nrecs++] = r;
        k->spill = r;
        sp->used = 1;
        sp->counts.written++;
        sp->counts.bytes_written += r->len;
    }
    cache_remove(sp, k);
    k->callee = NIL_VAL;
    k->arg = NIL_VAL;
    k->seq = NULL;
    k->away = 1;
}

/* S->spill_hooks.bring_back: k's fields from its record.  A held state joins the
   cache again (sent away by the next hold if need be, never here: a walk
   or a save may be reading other states). */
static void bring_back(VladState *S, Checkpoint *k)
{
    SpillRec *r = k->spill;
    if (!k->away || r == NULL)
        return;
    Spill *sp = spill_of(S);
    if (r->file == NULL)
        vl_except_runtime(S, VLAD_ERR_IO, "%s", r->lost);
    int err;
    const char *wrong = read_record(sp, r, &err);
    if (err != 0)
        fail(S, r->file->dir, "cannot read a state back", err);
    if (wrong != NULL)
        vl_except_runtime(S, VLAD_ERR_IO, "%s", wrong);
    Value v = vl_ckptload_local(S, sp->buf + VL_SPILL_FRAME,
                                (size_t)r->len - VL_SPILL_FRAME,
                                r->file->name, r->ext, r->next,
                                &sp->scratch);
    if (!IS_CKPT(v))
        vl_except_runtime(S, VLAD_ERR_RUNTIME, "checkpoint-*j: a spilled "
                          "state came back as %s", vl_object_kind(v));
    const Checkpoint *c = AS_CKPT(v);
    k->callee = c->callee;
    k->arg = c->arg;
    k->seq = c->seq;
    k->away = 0;
    sp->counts.read++;
    sp->counts.bytes_read += r->len;
    if (k->held && sp->dir != NULL) {
        k->used_at = ++sp->clock;
        cache_add(sp, k, r->bytes);
    }
}

/* ===== Interface ===== */

void vl_spill_init(VladState *S)
{
    S->spill_hooks.bring_back = bring_back;
}

int vl_spill_on(const VladState *S)
{
    return S->spill != NULL && ((const Spill *)S->spill)->dir != NULL;
}

void vl_spill_config(VladState *S, const char *dir, int64_t allowance)
{
    Spill *sp = spill_of(S);
    sp->allowance = allowance;
    int collected = 0;
    if (sp->check) {            /* what the last runs left: closed when
                                   nothing refers to it any more */
        sp->check = 0;
        collect(sp);
        collected = 1;
    }
    if (dir == NULL) {
        sp->dir = NULL;
        if (collected)
            close_empty(sp, 0);
        return;
    }
    if (sp->files == NULL || strcmp(sp->files->dir, dir) != 0) {
        SpillFile *f = NULL;
        for (SpillFile **p = &sp->files; *p != NULL; p = &(*p)->next)
            if (strcmp((*p)->dir, dir) == 0) {
                f = *p;         /* this directory's: written again */
                *p = f->next;
                f->next = sp->files;
                sp->files = f;
                break;
            }
        if (f == NULL) {
            if (sp->nfiles >= VL_SPILL_FILES && !collected)
                collect(sp);
            (void)open_file(S, sp, dir);
            /* still too many: the records of the oldest go to the new
               file (states of suspended computations, which need them) */
            while (sp->nfiles > VL_SPILL_FILES) {
                SpillFile *old = sp->files;
                while (old->next != NULL)
                    old = old->next;
                move_out(S, sp, old);
            }
        }
        close_empty(sp, 1);
    }
    sp->dir = sp->files->dir;
}

void vl_spill_held(VladState *S, Checkpoint *k, int64_t bytes)
{
    Spill *sp = spill_of(S);
    if (sp->dir == NULL || k->finished)
        return;
    sweep(sp);
    vl_contseg_present(S, k);
    k->used_at = ++sp->clock;
    cache_add(sp, k, bytes);
    while (sp->cache_bytes > sp->allowance) {
        Checkpoint *lru = NULL;
        for (size_t i = 0; i < sp->ncache; i++) {
            Checkpoint *c = sp->cache[i];
            if (c != k && (lru == NULL || c->used_at < lru->used_at))
                lru = c;
        }
        if (lru == NULL)
            break;
        send_away(S, sp, lru);
    }
}

void vl_spill_released(VladState *S, Checkpoint *k)
{
    if (S->spill == NULL)
        return;
    cache_remove(S->spill, k);
    /* with a record in the file, its fields go at once: whatever still
       refers to it (a stale slot of the stack, a continuation captured
       meanwhile) then holds a small object, and can bring it back */
    if (k->spill != NULL && !k->away)
        send_away(S, S->spill, k);
}

int64_t vl_spill_cached_bytes(const VladState *S)
{
    return S->spill != NULL ? ((const Spill *)S->spill)->cache_bytes : 0;
}

SpillCounts vl_spill_counts(const VladState *S)
{
    SpillCounts none = {0, 0, 0, 0, 0};
    return S->spill != NULL ? ((const Spill *)S->spill)->counts : none;
}

void vl_spill_reset(VladState *S)
{
    Spill *sp = S->spill;
    if (sp == NULL)
        return;
    while (sp->ncache > 0)
        cache_remove(sp, sp->cache[sp->ncache - 1]);
    sp->cache_bytes = 0;
    if (sp->used) {
        sp->check = 1;
        sp->used = 0;
    }
}

void vl_spill_close(VladState *S)
{
    Spill *sp = S->spill;
    if (sp == NULL)
        return;
    for (size_t i = 0; i < sp->nrecs; i++)
        vl_gc_weak_unlink(sp->recs[i]->link);
    for (SpillFile *f = sp->files; f != NULL; f = f->next)
        (void)close(f->fd);
    S->spill = NULL;
}
