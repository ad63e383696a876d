/*
 * vm/gc.c -- allocation and the Boehm GC interface
 *
 * The only file that includes <gc.h>.  Boehm's heap is process-wide; it is
 * the one thing interpreter states share.  The out-of-memory hook is set by
 * the state that is running (vm/except.c installs one that raises
 * VLAD_ERR_MEMORY); with no hook an allocation failure returns NULL from the
 * collector and we fall back to a last-resort message-free path that the
 * hook owner must never reach.
 */
#include "config.h"
#include "vm/gc.h"
#include "vm/features.h"

#include <gc.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>

static VlOomHook oom_hook;
static void *oom_ud;
static size_t peak_heap;

/* The heap limit.  Boehm grows the heap by about a third at a time; when
   that no longer fits under GC_set_max_heap_size it adds the smallest
   section it can (64 KiB) at each allocation that finds the heap full, so
   an evaluation running into the limit ends up spread over a hundred tiny
   sections, the first block of each holding its newest objects.  The
   collector itself keeps words that point at the start of recently added
   sections (its mmap hint -- the end of the last chunk it mapped is the
   start of the chunk mapped before -- and copies of its section table
   left in vector registers, spilled to the stack by the dynamic linker),
   and it scans its own data and the stack conservatively: those objects
   stay "reachable", and with them everything they lead to -- for a list
   built by consing, the whole list.  The garbage of the failed evaluation
   then survives every collection and later evaluations fail at once.
   So once the heap has grown past 3/4 of the limit, the rest of the limit
   is added at once (the flag is set by the resize callback, which runs
   with the collector's lock held, and acted on by the next allocation).
   (GC_expand_hp also raises the heap size the collector aims at: from
   then on it fills the heap before collecting -- only for programs
   already using 3/4 of their limit.)  This is not a guarantee -- any
   false reference can pin part of a chain for a while -- but it removes
   the systematic one. */
static size_t max_heap;
static volatile int reserve_pending;
static GC_on_heap_resize_proc next_on_heap_resize;
#define MIN_SECTION_BYTES ((size_t)64 * 1024)

static void ignore_warning(char *msg, GC_word arg)
{
    (void)msg;
    (void)arg;
}

static void GC_CALLBACK on_heap_resize(GC_word size)
{
    if (max_heap > 0 && size > max_heap / 4 * 3
        && size + MIN_SECTION_BYTES <= max_heap)
        reserve_pending = 1;
    if (next_on_heap_resize != NULL)
        next_on_heap_resize(size);
}

static void reserve_rest(void)
{
    reserve_pending = 0;
    size_t heap = GC_get_heap_size();
    if (max_heap > heap)
        (void)GC_expand_hp(max_heap - heap);
}

void vl_gc_init(void)
{
    static int done;
    if (!done) {
        GC_INIT();
        next_on_heap_resize = GC_get_on_heap_resize();
        GC_set_on_heap_resize(on_heap_resize);
        /* libvlad never prints: Boehm's warnings are dropped */
        GC_set_warn_proc(ignore_warning);
        done = 1;
    }
}

void vl_gc_set_oom_hook(VlOomHook hook, void *ud)
{
    oom_hook = hook;
    oom_ud = ud;
}

static void *checked(void *p)
{
    if (VL_UNLIKELY(p == NULL) && oom_hook != NULL)
        oom_hook(oom_ud);
    if (VL_UNLIKELY(reserve_pending))
        reserve_rest();
    return p;
}

/* Allocation failed: collect everything (sweeping eagerly, so whole free
   blocks are found for any size) and try once more. */
#define RETRY(expr) ((p = (expr)) != NULL ? p : (GC_gcollect_and_unmap(), (expr)))

void vl_gc_set_max_heap(size_t bytes)
{
    max_heap = bytes;
    reserve_pending = 0;
    GC_set_max_heap_size((GC_word)bytes);
}

void *vl_gc_alloc(size_t size)
{
    void *p;
    return checked(RETRY(GC_MALLOC(size)));
}

void *vl_gc_alloc_atomic(size_t size)
{
    void *p;
    return checked(RETRY(GC_MALLOC_ATOMIC(size)));
}

void *vl_gc_alloc_atomic_touched(size_t size)
{
    void *p;
    p = checked(RETRY(GC_MALLOC_ATOMIC(size)));
#if defined(MADV_POPULATE_WRITE)
    /* one system call maps the pages that would otherwise fault one by
       one on first write; failure (an old kernel) changes nothing */
    uintptr_t page = 4096, lo = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(page - 1);
    if (p != NULL && hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#endif
    return p;
}

void *vl_gc_grow(void *items, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return items;
    size_t ncap = *cap ? *cap * 2 : 8;
    void *a = vl_gc_alloc(ncap * size);
    if (n)
        memcpy(a, items, n * size);
    *cap = ncap;
    return a;
}

void *vl_gc_realloc(void *p, size_t size)
{
    return checked(GC_REALLOC(p, size));
}

void *vl_gc_alloc_uncollectable(size_t size)
{
    return GC_MALLOC_UNCOLLECTABLE(size);
}

void vl_gc_free(void *p)
{
    GC_FREE(p);
}

char *vl_gc_strndup(const char *s, size_t n)
{
    char *d = vl_gc_alloc_atomic(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *vl_gc_strdup(const char *s)
{
    return vl_gc_strndup(s, strlen(s));
}

size_t vl_gc_heap_size(void)
{
    size_t h = GC_get_heap_size();
    if (h > peak_heap)
        peak_heap = h;
    return h;
}

size_t vl_gc_peak_heap_size(void)
{
    vl_gc_heap_size();
    return peak_heap;
}

size_t vl_gc_free_bytes(void)
{
    return GC_get_free_bytes();
}

void vl_gc_collect(void)
{
    GC_gcollect();
}
