/*
 * vm/spill.c -- checkpoint-*j's held states in files (spill=DIR; see
 * vm/spill.h for the policy and what stays in memory)
 *
 * Owns the spill files of a state (one per directory used, made and
 * unlinked at once), the copies in them (each found again through a weak
 * link to its Checkpoint: a copy whose Checkpoint is garbage gives its
 * space back), and the cache of held states in memory, least recently
 * used first out.
 */
#include "config.h"
#include "vm/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vm/ckptload.h"
#include "vm/ckptsave.h"
#include "vm/except.h"

typedef struct SpillFile {
    int fd;
    const char *dir;
    int64_t end;                /* where the next copy goes */
    size_t copies;              /* copies it holds */
    struct SpillFile *next;
} SpillFile;

/* A state's copy in a file. */
typedef struct SpillRec {
    SpillFile *file;
    int64_t offset, len;
    int64_t bytes;              /* the state's bytes in memory */
    Value *ext;                 /* the externals it names */
    size_t next;
    void **link;                /* the Checkpoint (unscanned memory: a
                                   weak link), NULL once it is garbage */
} SpillRec;

typedef struct Spill {
    const char *dir;            /* NULL: off */
    int64_t allowance;
    SpillFile *files;           /* open, the one written now first */
    SpillRec **recs;            /* every copy */
    size_t nrecs, recs_cap;
    size_t swept_at;            /* collections when last swept */
    Checkpoint **cache;         /* held states in memory */
    size_t ncache, cache_cap;
    int64_t cache_bytes;
    uint64_t clock;
    SpillCounts counts;
    CkptScratch scratch;        /* the saver's and loader's tables, and */
    unsigned char *buf;         /* a buffer to read copies into, kept */
    size_t buf_cap;
} Spill;

static Spill *spill_of(VladState *S)
{
    if (S->spill == NULL)
        S->spill = vl_gc_alloc(sizeof(Spill));
    return S->spill;
}

/* ===== Files ===== */

static VL_NORETURN void fail(VladState *S, const char *dir, const char *what,
                             int err)
{
    vl_except_runtime(S, VLAD_ERR_IO, "checkpoint-*j: spill=%s: %s: %s", dir,
                      what, strerror(err));
}

static SpillFile *open_file(VladState *S, const char *dir)
{
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
    return f;
}

/* Write (or read) n bytes at offset 'off' of fd: 0, or the errno. */
static int io_at(int fd, unsigned char *p, size_t n, int64_t off, int out)
{
    while (n > 0) {
        ssize_t k = out ? pwrite(fd, p, n, (off_t)off)
                          : pread(fd, p, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : out ? ENOSPC : EIO;
        p += k;
        n -= (size_t)k;
        off += k;
    }
    return 0;
}

/* The space of a copy no Checkpoint needs any more. */
static void free_copy(Spill *sp, SpillRec *r)
{
    SpillFile *f = r->file;
    f->copies--;
    if (f->copies == 0) {
        if (ftruncate(f->fd, 0) == 0)
            f->end = 0;
        if (f != sp->files) {           /* an earlier directory's */
            for (SpillFile **p = &sp->files; *p != NULL; p = &(*p)->next)
                if (*p == f) {
                    *p = f->next;
                    break;
                }
            (void)close(f->fd);
        }
        return;
    }
#if defined(FALLOC_FL_PUNCH_HOLE) && defined(FALLOC_FL_KEEP_SIZE)
    (void)fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                    (off_t)r->offset, (off_t)r->len);
#endif
}

/* Give back the space of the copies whose Checkpoint is garbage (once
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

/* Write k's copy (once) and clear its fields. */
static void send_away(VladState *S, Spill *sp, Checkpoint *k)
{
    if (k->spill == NULL) {
        SpillFile *f = sp->files;
        size_t next;
        Value *ext = vl_ckpt_save_local(S, k, &sp->scratch, &next);
        if (ext == NULL) {      /* it holds what AD walks into: stays */
            cache_remove(sp, k);
            k->pinned = 1;
            sp->counts.pinned++;
            return;
        }
        const CkptOut file = sp->scratch.file;
        int err = io_at(f->fd, file.data, file.len, f->end, 1);
        if (err != 0)
            fail(S, f->dir, "cannot write a state", err);
        SpillRec *r = vl_gc_alloc(sizeof *r);
        r->file = f;
        r->offset = f->end;
        r->len = (int64_t)file.len;
        r->bytes = k->cache_bytes;
        r->ext = ext;
        r->next = next;
        r->link = vl_gc_alloc_atomic(sizeof *r->link);
        *r->link = k;
        if (!vl_gc_weak_link(r->link, k))
            vl_except_runtime(S, VLAD_ERR_MEMORY, "checkpoint-*j: out of "
                              "memory for a spilled state");
        f->end += r->len;
        f->copies++;
        sp->recs = vl_gc_grow(sp->recs, sp->nrecs, &sp->recs_cap,
                              sizeof *sp->recs);
        sp->recs[sp->nrecs++] = r;
        k->spill = r;
        sp->counts.written++;
        sp->counts.bytes_written += r->len;
    }
    cache_remove(sp, k);
    k->callee = NIL_VAL;
    k->arg = NIL_VAL;
    k->seq = NULL;
    k->away = 1;
}

/* S->ckpt_back: k's fields from its copy.  A held state joins the cache
   again (sent away by the next hold if need be, never here: a walk or a
   save may be reading other states). */
static void bring_back(VladState *S, Checkpoint *k)
{
    SpillRec *r = k->spill;
    if (!k->away || r == NULL)
        return;
    Spill *sp = spill_of(S);
    if ((size_t)r->len > sp->buf_cap) {
        if (sp->buf != NULL)
            vl_gc_free(sp->buf);
        sp->buf = NULL;
        sp->buf_cap = 0;
        sp->buf = vl_gc_alloc_atomic((size_t)r->len * 2);
        sp->buf_cap = (size_t)r->len * 2;
    }
    int err = io_at(r->file->fd, sp->buf, (size_t)r->len, r->offset, 0);
    if (err != 0)
        fail(S, r->file->dir, "cannot read a state back", err);
    Value v = vl_ckpt_load_local(S, sp->buf, (size_t)r->len, "a spill file",
                                 r->ext, r->next, &sp->scratch);
    if (!IS_CKPT(v))
        vl_except_runtime(S, VLAD_ERR_RUNTIME, "checkpoint-*j: a spilled "
                          "state came back as %s", vl_value_kind(v));
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
    S->ckpt_back = bring_back;
}

int vl_spill_on(const VladState *S)
{
    return S->spill != NULL && ((const Spill *)S->spill)->dir != NULL;
}

void vl_spill_config(VladState *S, const char *dir, int64_t allowance)
{
    Spill *sp = spill_of(S);
    sp->allowance = allowance;
    if (dir == NULL) {
        sp->dir = NULL;
        return;
    }
    if (sp->files == NULL || strcmp(sp->files->dir, dir) != 0) {
        SpillFile *f = open_file(S, dir);
        /* the files of earlier directories that hold no copy: closed */
        for (SpillFile **p = &sp->files; *p != NULL;) {
            if ((*p)->copies == 0) {
                (void)close((*p)->fd);
                *p = (*p)->next;
            } else {
                p = &(*p)->next;
            }
        }
        f->next = sp->files;
        sp->files = f;
    }
    sp->dir = sp->files->dir;
}

void vl_spill_held(VladState *S, Checkpoint *k, int64_t bytes)
{
    Spill *sp = spill_of(S);
    if (sp->dir == NULL || k->finished)
        return;
    sweep(sp);
    vl_seg_present(S, k);
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
    /* with a copy in the file, its fields go at once: whatever still
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
