/*
 * parser/cstack.h -- the C stack guard
 *
 * The expander and the compiler recurse on the C stack once per level of
 * nesting of the program's code (an expression inside an expression, a
 * pattern inside a pattern, a lambda inside a lambda), and arithmetic on
 * nested perturbations once per level of perturbation.  Rather than a
 * fixed depth, which would be too small for some stacks and too large for
 * others (a sanitizer build's frames are several times bigger), they
 * check the actual address of their frame against a limit computed from
 * the real bounds of the running thread's stack, and stop with a clean
 * error before it is exhausted (doc/hardening.md, section 3).
 *
 * A VlCStack belongs to its owner (the VladState, or the frame of
 * vl_expand_toplevel when it is called without one): no global state.
 * vl_cstack_enter sets its limit at an entry point: the bottom of the
 * running thread's stack (pthread_getattr_np, cached per thread, else
 * getrlimit(RLIMIT_STACK) counted from the entry) plus a reserve for what
 * runs below a check without checking again (the collector: Boehm clears
 * 16 KiB below an allocation and collects on the allocating thread; a
 * signal frame; reporting the error).  The stack is assumed to grow
 * downwards (true of every platform vlad builds on).
 *
 * vl_cstack_short tells how little stack is left below a call: an
 * evaluation (vm/exec/toplevel.c run_protected) is refused with an error below
 * VL_CSTACK_MIN bytes, and any other API call that touches the heap
 * (vl_gc_thread_attach) below VL_CSTACK_RESERVE -- the collector alone
 * could not run there -- instead of crashing.
 */
#ifndef VL_CSTACK_H
#define VL_CSTACK_H

#include <stddef.h>
#include <stdint.h>
#include "vm/core/gc.h"

typedef struct VlCStack {
    uintptr_t limit;      /* frames below this address: too deep */
} VlCStack;

/* The least reserve kept below the limit (an eighth of the stack, up to
   1 MiB, when that is more), and the least free stack below an API call
   that evaluates (the reserve and the frames from the entry point to the
   first check: reading, expanding, compiling, running, printing), in KiB;
   measured in doc/hardening.md, section 3.  Sanitizers make frames several
   times bigger (AddressSanitizer's redzones). */
#if defined(__SANITIZE_ADDRESS__)
#define VL_CSTACK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VL_CSTACK_SANITIZED 1
#endif
#endif
#ifdef VL_CSTACK_SANITIZED
#define VL_CSTACK_RESERVE_KIB 64
#define VL_CSTACK_MIN_KIB 96
#else
#define VL_CSTACK_RESERVE_KIB 40
#define VL_CSTACK_MIN_KIB 48
#endif
#define VL_CSTACK_RESERVE ((size_t)VL_CSTACK_RESERVE_KIB * 1024)
#define VL_CSTACK_MIN ((size_t)VL_CSTACK_MIN_KIB * 1024)

#ifdef __GNUC__
#define VL_CSTACK_HERE() ((uintptr_t)__builtin_frame_address(0))
#else
#define VL_CSTACK_HERE() vl_cstack_here()
VL_INTERNAL uintptr_t vl_cstack_here(void);
#endif

/* Set the limit of 'cs' for an entry point at the caller's frame. */
VL_INTERNAL void vl_cstack_enter(VlCStack *cs);

/* The bytes of stack below the caller's frame ('here') when fewer than
   'need' (at least 1), else 0; 0 too when the stack's bounds are unknown.
   Cheap after the first call on a thread. */
VL_INTERNAL size_t vl_cstack_short(uintptr_t here, size_t need);

/* Whether the caller's frame is too deep in the C stack to recurse
   further. */
static inline int vl_cstack_exhausted(const VlCStack *cs)
{
    return VL_CSTACK_HERE() < cs->limit;
}

#endif
