/*
 * vm/core/limits.h -- the runtime's limits and magic numbers, each defined
 * once with why it has its value
 *
 * Step counts are int64_t; the reals a program sees are doubles.  The
 * bounds below keep every sum of two counts inside int64_t and every
 * count a program can read back exact as a double.  (Compile-time
 * switches, VL_POLL_QUANTUM and VL_MAX_STACK among them, are in
 * vm/core/features.h.)  Internal header.
 */
#ifndef VL_LIMITS_H
#define VL_LIMITS_H

#include <stdint.h>

/* 2^62: the most steps anything counts.  A checkpoint of k >= 2^62 steps
   sets no limit at all (CKPT_BEGIN, vm/exec/vm.c): no computation runs
   that long, and now + k, both below 2^62, cannot overflow.  A step
   count read from a checkpoint file lies within +-2^62
   (vm/persist/ckptload.c). */
#define VL_STEPS_MAX ((int64_t)1 << 62)

/* 2^62 - 1: a count past any that can happen, so that adding another
   count to it stays inside int64_t: the deadline of no limit
   (vm/core/delim.c, CKPT_BEGIN) and a binomial coefficient too large to
   matter (vm/cpj/cpj.c, beta: it saturates there). */
#define VL_COUNT_SATURATED (INT64_MAX / 2)

/* 2^53: every integer up to it is exactly a double, so a number a
   strategy names (base=N, a count in a strategy value) is at most this,
   and a value doubled stays exact while it is below half of it
   (vm/cpj/cpj.c, vm/cpj/cpjfirst.c). */
#define VL_EXACT_INT_MAX ((int64_t)1 << 53)

/* The most steps checkpoint-*j counts in one run, its positions and step
   counts (vm/cpj/cpj.c, vl_cpj_step_count; checked again when a
   checkpoint file is read): a round number below 2^53 (about 9.007e15),
   so that a position plus a count is still an exact real. */
#define VL_POSITION_MAX 9e15

/* The longest autosave interval, in seconds (vlad_set_autosave refuses a
   longer one, a checkpoint file's is checked against it): about 31
   years, longer than any program runs, and a finite bound a file's
   number can be held to.  (vlad_set_autosave's message writes it "1e9".) */
#define VL_AUTOSAVE_MAX_SECONDS 1e9

/* Stack slots above a frame's nregs that are always there (the VM makes
   sure of them when it enters a closure, vm/exec/vm.c, and when it writes
   frames back, vm/core/cont.c): an inline operation whose primitive was
   rebound builds the call block of the user's procedure (header, callee,
   two operands: 4 slots) at base + nregs without checking; 8 is that
   with room to spare. */
#define VL_STACK_SLACK 8

_Static_assert(VL_STEPS_MAX - 1 <= INT64_MAX - (VL_STEPS_MAX - 1),
               "two step counts below VL_STEPS_MAX add up inside int64_t");
_Static_assert(VL_COUNT_SATURATED <= INT64_MAX - VL_COUNT_SATURATED,
               "a count added to the saturated count stays in int64_t");
_Static_assert((int64_t)VL_POSITION_MAX < VL_EXACT_INT_MAX,
               "checkpoint-*j's positions must be exact reals");
_Static_assert(VL_STACK_SLACK >= 4, "an inline call block has 4 slots");

#endif
