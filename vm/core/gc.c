/*
 * vm/core/gc.c -- allocation and the Boehm GC interface
 *
 * The only file that includes <gc.h>.  Boehm's heap is process-wide; it is
 * the one thing interpreter states share.  The out-of-memory hook is set by
 * the state that is running (vm/core/except.c installs one that raises
 * VLAD_ERR_MEMORY); with no hook an allocation failure returns NULL from the
 * collector and we fall back to a last-resort message-free path that the
 * hook owner must never reach.
 */
#include "config.h"
#include "vm/core/gc.h"
#include "vm/core/features.h"
#include "parser/cstack.h"

/* Boehm's thread support: the collector must know every thread that
   holds pointers into its heap (it stops them and scans their stacks).
   Threads created by the host are registered by vl_gc_thread_attach. */
#ifndef GC_THREADS
#define GC_THREADS 1
#endif
#include <gc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

/* The out-of-memory hook is per thread: each thread runs (at most) one
   state at a time, and an allocation that fails must raise the error in
   the state of the thread that made it. */
/* initial-exec: a plain offset from the thread pointer, not a call to
   __tls_get_addr, on every protected call (a few bytes of the static TLS
   space glibc keeps spare, also for a library loaded with dlopen) */
#if defined(__GNUC__)
#define VL_TLS _Thread_local __attribute__((tls_model("initial-exec")))
#else
#define VL_TLS _Thread_local
#endif
static VL_TLS VlOomHook oom_hook;
static VL_TLS void *oom_ud;
static size_t peak_heap;               /* under heap_lock */
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

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
static size_t max_heap;                /* under heap_lock */
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

/* Threads registered with the collector by vl_gc_thread_attach: a flag
   per thread (a cache of GC_thread_is_registered), and a key whose
   destructor unregisters the thread when it exits (a thread the collector
   still lists after its stack is gone would crash the next collection). */
static VL_TLS int thread_attached;
static pthread_key_t detach_key;
static int detach_key_ok;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void detach_thread(void *unused)
{
    (void)unused;
    thread_attached = 0;
    GC_unregister_my_thread();
}

/* Collections no more often than once per this many bytes allocated:
   Boehm's own rule (a fraction of the heap) makes a small heap collect
   every few hundred KiB, and forward mode allocates a dual per operation
   -- each collection's fixed cost (roots, stacks) then dominates. */
#define MIN_BYTES_BETWEEN_COLLECTIONS ((size_t)4 << 20)
/* Above that, collect once a sixth of the heap has been allocated
   (Boehm's default is a third): the heap, and so the resident memory of a
   long checkpoint-*j, stays closer to what is live (bench/cpj: 20.1 ->
   16.2 MiB at l = 3203, for the same time).  Not under a heap limit:
   there the heap grows as the reserve logic above expects with Boehm's
   default, and with 6 the garbage of an evaluation that ran out of
   memory stayed pinned (tests/unit/test-heap-limit, in the sanitizer
   build, every time). */
#define FREE_SPACE_DIVISOR 6
#define FREE_SPACE_DIVISOR_LIMITED 3
/* A big live heap is marked again at every collection, and with a
   sixth of it allocated between collections, a program that keeps a big
   structure live while it allocates short-lived objects (forward mode
   over a long list: bench/ad listing1 at N = 10^6, 32 MB live) spent
   most of its time marking the same structure.  So above this many
   live bytes the divisor falls in proportion, down to 2 (allocate as
   much as is live between collections: the heap is then about twice
   what is live, the usual rule of Lua and Go). */
#define BIG_LIVE_BYTES ((size_t)24 << 20)
#define FREE_SPACE_DIVISOR_BIG_MIN 2
static int divisor_from_env;    /* GC_FREE_SPACE_DIVISOR was set */
/* Evaluations that asked for collections more often than
   MIN_BYTES_BETWEEN_COLLECTIONS (vl_gc_tight_enter), and the least
   they asked for; under heap_lock. */
static int tight_count;
static size_t tight_min;
static volatile int heap_limited;

static void set_divisor(int limited)
{
    heap_limited = limited;
    if (!divisor_from_env)
        GC_set_free_space_divisor(limited ? FREE_SPACE_DIVISOR_LIMITED
                                          : FREE_SPACE_DIVISOR);
}

/* After each collection (with the allocation lock held: only the
   unsynchronised statistics and a plain store are allowed here). */
static void GC_CALLBACK on_collection_event(GC_EventType e)
{
    if (e != GC_EVENT_RECLAIM_END || divisor_from_env || heap_limited)
        return;
    struct GC_prof_stats_s st;
    if (GC_get_prof_stats_unsafe(&st, sizeof st) < sizeof st)
        return;
    size_t live = st.heapsize_full - st.free_bytes_full - st.unmapped_bytes;
    size_t d = FREE_SPACE_DIVISOR;
    if (live > BIG_LIVE_BYTES) {
        d = FREE_SPACE_DIVISOR * BIG_LIVE_BYTES / live;
        if (d < FREE_SPACE_DIVISOR_BIG_MIN)
            d = FREE_SPACE_DIVISOR_BIG_MIN;
    }
    GC_set_free_space_divisor((GC_word)d);
}

static void init_once_fn(void)
{
    /* one marker thread: parallel marking wakes helper threads at every
       collection, which costs more CPU than it saves on vlad's heaps
       (and the machines it runs on have few cores) */
    if (getenv("GC_MARKERS") == NULL)       /* Boehm's own knob */
        GC_set_markers_count(1);
    GC_INIT();
    GC_set_min_bytes_allocd(MIN_BYTES_BETWEEN_COLLECTIONS);
    divisor_from_env = getenv("GC_FREE_SPACE_DIVISOR") != NULL;
    set_divisor(0);
    /* threads the host creates (without GC_pthread_create) may then
       register themselves: vl_gc_thread_attach */
    GC_allow_register_threads();
    detach_key_ok = pthread_key_create(&detach_key, detach_thread) == 0;
    next_on_heap_resize = GC_get_on_heap_resize();
    GC_set_on_heap_resize(on_heap_resize);
    GC_set_on_collection_event(on_collection_event);
    /* libvlad never prints: Boehm's warnings are dropped */
    GC_set_warn_proc(ignore_warning);
    thread_attached = 1;        /* GC_INIT registered this thread */
}

void vl_gc_init(void)
{
    (void)pthread_once(&init_once, init_once_fn);
}

/* Initialise the collector when the library is loaded: that runs on the
   process's main thread (for a program linked with libvlad), which is
   where Boehm must be initialised -- it takes the main thread's stack
   for the stack of the thread that initialises it.  vl_gc_init stays
   idempotent for a library loaded some other way. */
#if defined(__GNUC__)
__attribute__((constructor)) static void init_at_load(void)
{
    vl_gc_init();
}
#endif

int vl_gc_thread_attach(void)
{
    /* the collector needs stack below every allocation (it clears 16 KiB
       below the allocating frame and collects there): a call with less
       than VL_CSTACK_RESERVE bytes of stack below it is refused */
    if (VL_UNLIKELY(vl_cstack_short(VL_CSTACK_HERE(), VL_CSTACK_RESERVE)))
        return 0;
    if (VL_LIKELY(thread_attached))
        return 1;
    vl_gc_init();
    if (GC_thread_is_registered()) {
        thread_attached = 1;
        return 1;
    }
    struct GC_stack_base sb;
    if (GC_get_stack_base(&sb) != GC_SUCCESS)
        return 0;
    int r = GC_register_my_thread(&sb);
    if (r != GC_SUCCESS && r != GC_DUPLICATE)
        return 0;
    thread_attached = 1;
    /* unregistered when the thread exits (only threads libvlad itself
       registered: the host's own registrations are the host's) */
    if (r == GC_SUCCESS && detach_key_ok)
        (void)pthread_setspecific(detach_key, &detach_key);
    return 1;
}

void vl_gc_set_oom_hook(VlOomHook hook, void *ud)
{
    oom_hook = hook;
    oom_ud = ud;
}

void vl_gc_get_oom_hook(VlOomHook *hook, void **ud)
{
    *hook = oom_hook;
    *ud = oom_ud;
}

/* Under AddressSanitizer (make sanitize-check), a block vlad frees
   explicitly (the tape of a *j that ended, vl_gc_free) is first filled
   with 0xA5 bytes: whatever still reads it afterwards reads
   pointers that fault and reals that are wrong, rather than the old
   contents until the block is reused.  (Poisoning it for the sanitizer
   cannot be done: the collector clears reused blocks with the
   sanitizer's checked memset.)  Elsewhere this does nothing. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VL_SCRIBBLE_FREED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define VL_SCRIBBLE_FREED 1
#endif
static void scribble(void *p)
{
#if defined(VL_SCRIBBLE_FREED)
    if (p != NULL)
        memset(p, 0xA5, GC_size(p));
#else
    (void)p;
#endif
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

/* The heap limits of the evaluations running now, in any thread; the
   collector's maximum is the smallest (Boehm has one heap). */
static VlHeapLimit *limits;            /* under heap_lock */

static void apply_limits(void)
{
    size_t m = 0;
    for (VlHeapLimit *l = limits; l != NULL; l = l->next)
        if (m == 0 || l->bytes < m)
            m = l->bytes;
    max_heap = m;
    reserve_pending = 0;
    GC_set_max_heap_size((GC_word)m);
    set_divisor(m > 0);
}

void vl_gc_limit_enter(VlHeapLimit *l, size_t bytes)
{
    pthread_mutex_lock(&heap_lock);
    if (l->active) {
        for (VlHeapLimit **p = &limits; *p != NULL; p = &(*p)->next)
            if (*p == l) {
                *p = l->next;
                break;
            }
    }
    l->active = bytes > 0;
    l->bytes = bytes;
    if (l->active) {
        l->next = limits;
        limits = l;
    }
    apply_limits();
    pthread_mutex_unlock(&heap_lock);
}

void vl_gc_limit_leave(VlHeapLimit *l)
{
    if (!l->active)
        return;
    pthread_mutex_lock(&heap_lock);
    for (VlHeapLimit **p = &limits; *p != NULL; p = &(*p)->next)
        if (*p == l) {
            *p = l->next;
            break;
        }
    l->active = 0;
    l->next = NULL;
    apply_limits();
    pthread_mutex_unlock(&heap_lock);
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

/* Memory whose end the caller usually manages: Boehm schedules a
   collection by the bytes allocated since the last one, less those
   allocated "uncollectable" (GC_non_gc_bytes, only used to schedule
   collections).  A *j's tape grows by hundreds of MB and is all live
   until its sweep, after which the *j frees it (vm/ad/ad.c): collecting
   because it grew only marks the live heap again (bench/ad listing1,
   N = 10^5: 10 collections in *j, 2 in the primal).  So its chunks are
   counted there too while they live.  A tape the *j cannot free (one
   shared with a checkpoint) is handed to the collector when the *j ends
   (vl_gc_unmanage).  A tape whose *j never ends (unwound by an error or
   captured into a checkpoint and dropped) stays counted: only the count
   since the last collection matters, so that merely delays the next
   collection by its size once. */
/* GC_non_gc_bytes += *delta (a signed byte count), not below 0; under
   the allocation lock (GC_call_with_alloc_lock). */
static void *adjust_non_gc_bytes(void *delta)
{
    GC_word n = GC_get_non_gc_bytes();
    ptrdiff_t d = *(const ptrdiff_t *)delta;
    GC_set_non_gc_bytes(d >= 0 ? n + (GC_word)d
                        : n > (GC_word)-d ? n - (GC_word)-d : 0);
    return NULL;
}

static void adjust_non_gc(ptrdiff_t delta)
{
    (void)GC_call_with_alloc_lock(adjust_non_gc_bytes, &delta);
}

void *vl_gc_alloc_managed(size_t size)
{
    void *p = vl_gc_alloc_atomic_touched(size);
    if (p != NULL)
        adjust_non_gc((ptrdiff_t)size);
    return p;
}

void vl_gc_free_managed(void *p, size_t size)
{
    scribble(p);            /* before the free: another thread may be
                               given the block as soon as it is free */
    GC_FREE(p);
    vl_gc_unmanage(size);
}

void vl_gc_unmanage(size_t size)
{
    adjust_non_gc(-(ptrdiff_t)size);
}

void *vl_gc_reserve_more(void *items, size_t n, size_t need, size_t *cap,
                         size_t size, int atomic)
{
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need)
        ncap *= 2;
    void *a = atomic ? vl_gc_alloc_atomic(ncap * size)
                     : vl_gc_alloc(ncap * size);
    if (n)
        memcpy(a, items, n * size);
    *cap = ncap;
    return a;
}

void *vl_gc_grow(void *items, size_t n, size_t *cap, size_t size)
{
    return vl_gc_reserve(items, n, n + 1, cap, size, 0);
}

void *vl_gc_realloc(void *p, size_t size)
{
    return checked(GC_REALLOC(p, size));
}

void *vl_gc_alloc_uncollectable(size_t size)
{
    return GC_MALLOC_UNCOLLECTABLE(size);
}

void vl_gc_tight_enter(size_t min_bytes)
{
    pthread_mutex_lock(&heap_lock);
    if (tight_count++ == 0 || min_bytes < tight_min) {
        tight_min = min_bytes;
        GC_set_min_bytes_allocd(min_bytes);
    }
    pthread_mutex_unlock(&heap_lock);
}

void vl_gc_tight_leave(void)
{
    pthread_mutex_lock(&heap_lock);
    if (tight_count > 0 && --tight_count == 0)
        GC_set_min_bytes_allocd(MIN_BYTES_BETWEEN_COLLECTIONS);
    pthread_mutex_unlock(&heap_lock);
}

int vl_gc_weak_link(void **link, const void *obj)
{
    return GC_general_register_disappearing_link(link, obj) == GC_SUCCESS;
}

void vl_gc_weak_unlink(void **link)
{
    (void)GC_unregister_disappearing_link(link);
}

void vl_gc_free(void *p)
{
    scribble(p);
    GC_FREE(p);
}

void vl_gc_free_pages(void *p, size_t size)
{
#if defined(MADV_DONTNEED)
    /* before GC_FREE: once free, another thread may be given the block;
       the collector keeps nothing of its own inside a free block */
    uintptr_t page = 4096, lo = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(page - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
#else
    (void)size;
#endif
    GC_FREE(p);
}

char *vl_gc_strndup(const char *s, size_t n)
{
    char *d = vl_gc_alloc_atomic(n + 1);
    if (d == NULL)
        return NULL;            /* only without an out-of-memory hook */
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *vl_gc_strdup(const char *s)
{
    return vl_gc_strndup(s, strlen(s));
}

char *vl_gc_vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    char *s = vl_gc_alloc_atomic((size_t)n + 1);
    if (s != NULL)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

static void *get_non_gc_bytes(void *out)
{
    *(GC_word *)out = GC_get_non_gc_bytes();
    return NULL;
}

size_t vl_gc_unscheduled_bytes(void)
{
    GC_word n;
    (void)GC_call_with_alloc_lock(get_non_gc_bytes, &n);
    return (size_t)n;
}

size_t vl_gc_collections(void)
{
    return (size_t)GC_get_gc_no();
}

size_t vl_gc_heap_size(void)
{
    size_t h = GC_get_heap_size();
    pthread_mutex_lock(&heap_lock);
    if (h > peak_heap)
        peak_heap = h;
    pthread_mutex_unlock(&heap_lock);
    return h;
}

size_t vl_gc_peak_heap_size(void)
{
    vl_gc_heap_size();
    pthread_mutex_lock(&heap_lock);
    size_t p = peak_heap;
    pthread_mutex_unlock(&heap_lock);
    return p;
}

size_t vl_gc_free_bytes(void)
{
    return GC_get_free_bytes();
}

void vl_gc_collect(void)
{
    GC_gcollect();
}
