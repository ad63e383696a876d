/*
 * parser/cstack.h -- the C stack guard
 *
 * The expander and the compiler recurse on the C stack once per level of
 * nesting of the program's code (an expression inside an expression, a
 * pattern inside a pattern, a lambda inside a lambda).  Rather than a
 * fixed depth, which would be too small for some stacks and too large for
 * others (a sanitizer build's frames are several times bigger), they
 * check the actual address of their frame against a limit computed from
 * the real bounds of the running thread's stack, and stop with a clean
 * error before it is exhausted (doc/hardening.md, section 3).
 *
 * A VlCStack belongs to its owner (the VladState, or the frame of
 * vl_expand_toplevel when it is called without one): no global state.
 * vl_cstack_enter records the position at an entry point and sets a
 * provisional limit VL_CSTACK_PROBE bytes below it, so that ordinary,
 * shallow calls never ask the system anything; the first check that goes
 * below it computes the exact limit (vl_cstack_slow: the thread's stack
 * bounds from pthread_getattr_np, else getrlimit(RLIMIT_STACK) and the
 * entry position) and checks again.  The stack is assumed to grow
 * downwards (true of every platform vlad builds on).
 *
 * The limit leaves a reserve at the bottom of the stack for what runs
 * between two checks and for reporting the error: the larger of an eighth
 * of the stack and 256 KiB (at most half of a very small stack).
 */
#ifndef VL_CSTACK_H
#define VL_CSTACK_H

#include <stdint.h>
#include "vm/gc.h"

typedef struct VlCStack {
    uintptr_t limit;      /* frames below this address: vl_cstack_slow */
    uintptr_t entry;      /* frame address at the entry point */
    int exact;            /* 'limit' is the real one, not the probe */
} VlCStack;

/* Bytes of stack used below the entry point before the exact limit is
   computed. */
#define VL_CSTACK_PROBE ((uintptr_t)64 * 1024)

#ifdef __GNUC__
#define VL_CSTACK_HERE() ((uintptr_t)__builtin_frame_address(0))
#else
#define VL_CSTACK_HERE() vl_cstack_here()
VL_INTERNAL uintptr_t vl_cstack_here(void);
#endif

/* Record the caller's position as the entry point of 'cs'. */
VL_INTERNAL void vl_cstack_enter(VlCStack *cs);

/* The exact check behind vl_cstack_exhausted: 1 when 'here' is below the
   real limit. */
VL_INTERNAL int vl_cstack_slow(VlCStack *cs, uintptr_t here);

/* Whether the caller's frame is too deep in the C stack to recurse
   further. */
static inline int vl_cstack_exhausted(VlCStack *cs)
{
    uintptr_t here = VL_CSTACK_HERE();
    return here < cs->limit && vl_cstack_slow(cs, here);
}

#endif
