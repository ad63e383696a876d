/*
 * vm/core/gc.h -- the only interface to the Boehm collector
 *
 * Every heap allocation of vlad goes through these wrappers (vm/core/gc.c is the
 * only file that includes <gc.h>).  Memory from vl_gc_alloc is zeroed and
 * scanned for pointers; memory from vl_gc_alloc_atomic is neither zeroed nor
 * scanned and must hold no pointer to a GC object (strings, bytecode,
 * double arrays).  Allocation failure is reported by returning NULL only from
 * the *_try variants; the plain variants raise VLAD_ERR_MEMORY through the
 * installed out-of-memory hook (see vl_gc_set_oom_hook), so callers never
 * check for NULL.
 */
#ifndef VL_GC_H
#define VL_GC_H

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__) && !defined(_WIN32)
#define VL_INTERNAL __attribute__((visibility("hidden")))
#else
#define VL_INTERNAL
#endif

/* Initialise the collector once per process (idempotent, thread-safe;
   also done when the library is loaded). */
VL_INTERNAL void vl_gc_init(void);

/* Make sure the calling thread is registered with the collector (every
   public entry point that touches the heap calls it first).  A thread
   registered here is unregistered when it exits.  0 if the collector
   refused (the thread's stack could not be found) or if there are fewer
   than VL_CSTACK_RESERVE bytes of stack below the caller (parser/cstack.h;
   vl_toplevel_attach_error says which). */
VL_INTERNAL int vl_gc_thread_attach(void);

/* Zeroed, scanned memory; never returns NULL (calls the OOM hook, which
   must not return, when the collector has no memory left). */
VL_INTERNAL void *vl_gc_alloc(size_t size);

/* The heap limit of a running evaluation.  The (process-wide) heap is
   bounded by the smallest limit of the evaluations that run at the time,
   in any thread; none: unbounded.  Allocations that would grow it beyond
   fail (the out-of-memory hook).  Once the heap has grown past 3/4 of the
   bound, the rest is added in one piece (see vm/core/gc.c: the garbage of an
   evaluation that ran out of memory must stay collectable).  The record
   belongs to the caller (one per state) and starts zeroed. */
typedef struct VlHeapLimit {
    size_t bytes;
    int active;
    struct VlHeapLimit *next;
} VlHeapLimit;
/* Set 'l' to 'bytes' (0: no limit) and count it while it is active. */
VL_INTERNAL void vl_gc_limit_enter(VlHeapLimit *l, size_t bytes);
/* Stop counting 'l' (no-op if it is not active). */
VL_INTERNAL void vl_gc_limit_leave(VlHeapLimit *l);

/* Unzeroed, unscanned memory for pointer-free data; never returns NULL. */
VL_INTERNAL void *vl_gc_alloc_atomic(size_t size);

/* Resize a block obtained from vl_gc_alloc (contents kept, new part zeroed
   as far as Boehm guarantees: callers clear what they rely on). */
/* The same for a large block about to be written in full: its pages are
   mapped at once instead of faulting in one by one. */
VL_INTERNAL void *vl_gc_alloc_atomic_touched(size_t size);

/* The same, for memory the caller will usually free itself with
   vl_gc_free_managed (with the same size): its allocation does not bring
   the next collection closer (vm/core/gc.c).  Memory the caller drops instead
   is collected as any other. */
VL_INTERNAL void *vl_gc_alloc_managed(size_t size);
VL_INTERNAL void vl_gc_free_managed(void *p, size_t size);
/* Hands memory from vl_gc_alloc_managed (of that size) to the collector
   instead of freeing it. */
VL_INTERNAL void vl_gc_unmanage(size_t size);

/* The one way arrays grow.  'items' holds n items of 'size' bytes and
   has room for *cap (it may be a local array, which is then left alone):
   it is returned while need <= *cap, else a copy of its n items with
   room for *cap doubled (8 from 0) until need fits, *cap updated;
   scanned memory, or pointer-free when 'atomic'. */
VL_INTERNAL void *vl_gc_reserve_more(void *items, size_t n, size_t need,
                                     size_t *cap, size_t size, int atomic);
static inline void *vl_gc_reserve(void *items, size_t n, size_t need,
                                  size_t *cap, size_t size, int atomic)
{
    /* the common case inline: the loops that call it run per item */
    if (need <= *cap)
        return items;
    return vl_gc_reserve_more(items, n, need, cap, size, atomic);
}
/* Room for one more: vl_gc_reserve(items, n, n + 1, cap, size, 0). */
VL_INTERNAL void *vl_gc_grow(void *items, size_t n, size_t *cap,
                             size_t size);

VL_INTERNAL void *vl_gc_realloc(void *p, size_t size);

/* Explicitly free a block known to be unreachable (optional). */
VL_INTERNAL void vl_gc_free(void *p);
/* The same for a large block of 'size' bytes, whose whole pages are given
   back to the system at once: the collector keeps a freed block mapped
   (and resident) until it reuses it, which for the old copy of a grown
   stack may be never. */
VL_INTERNAL void vl_gc_free_pages(void *p, size_t size);

/* An evaluation that holds to a small memory budget (checkpoint-*j with
   spill=DIR, vm/cpj/cpjstats.c) asks for a collection every 'min_bytes' bytes
   allocated instead of every 4 MiB (vm/core/gc.c), until it leaves; the heap
   then stays closer to what is live, for more collections.  Counted
   (the heap is the process's): the least asked for holds while any
   evaluation is in. */
VL_INTERNAL void vl_gc_tight_enter(size_t min_bytes);
VL_INTERNAL void vl_gc_tight_leave(void);

/* A weak link: *link (which must lie in memory the collector does not
   scan: vl_gc_alloc_atomic) is set to NULL by the collection that finds
   'obj' unreachable.  0 when the collector has no memory for it. */
VL_INTERNAL int vl_gc_weak_link(void **link, const void *obj);
/* Forget the link (before its memory is freed). */
VL_INTERNAL void vl_gc_weak_unlink(void **link);

/* Duplicate a C string into atomic GC memory. */
VL_INTERNAL char *vl_gc_strdup(const char *s);
VL_INTERNAL char *vl_gc_strndup(const char *s, size_t n);
/* Format into atomic GC memory (printf's formats); NULL if the memory
   cannot be had (only outside a protected call: inside, the out-of-memory
   hook raises). */
VL_INTERNAL char *vl_gc_vformat(const char *fmt, va_list ap);

/* The function called when an allocation fails (in the calling thread);
   it must not return (it longjmps to the innermost protected call).  'ud'
   is passed back.  Without one, the allocation returns NULL. */
typedef void (*VlOomHook)(void *ud);
VL_INTERNAL void vl_gc_set_oom_hook(VlOomHook hook, void *ud);
VL_INTERNAL void vl_gc_get_oom_hook(VlOomHook *hook, void **ud);

/* Zeroed, scanned memory that is never collected (for objects referenced
   only from memory the collector does not scan, such as a VladState held
   by a host); release it with vl_gc_free.  NULL when memory is exhausted. */
VL_INTERNAL void *vl_gc_alloc_uncollectable(size_t size);

/* Statistics: bytes currently in the GC heap, the peak seen so far, and
   the bytes of the heap that are free (as of the last collection). */
VL_INTERNAL size_t vl_gc_heap_size(void);
VL_INTERNAL size_t vl_gc_peak_heap_size(void);
VL_INTERNAL size_t vl_gc_free_bytes(void);
/* The bytes the collector does not count in scheduling collections:
   those of vl_gc_alloc_managed not yet freed or handed over, and of
   vl_gc_alloc_uncollectable (tests/unit/test-gc-managed). */
VL_INTERNAL size_t vl_gc_unscheduled_bytes(void);
/* The number of collections so far. */
VL_INTERNAL size_t vl_gc_collections(void);
VL_INTERNAL void vl_gc_collect(void);

#endif
