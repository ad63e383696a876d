/*
 * vm/core/features.h -- internal compile-time switches, each documented
 *
 * VL_NO_STEP_COUNT   Compile the step counter out of the dispatch loop.
 *                    Only for the benchmark that measures what counting
 *                    costs (configure --disable-step-counting); such a vlad
 *                    cannot honour primops/checkpoint/limits and reports so.
 * VL_COMPUTED_GOTO   Dispatch with GNU computed goto instead of a switch
 *                    (default under __GNUC__).
 * VL_POLL_QUANTUM    Steps between polls of the asynchronous interrupt flag
 *                    (vlad_interrupt).  Limits are exact whatever its value;
 *                    it only bounds how late an interrupt is noticed.
 * VL_MAX_STACK       Default largest continuation stack, in value slots
 *                    (16 bytes each); deeper recursion is a clean error.
 */
#ifndef VL_FEATURES_H
#define VL_FEATURES_H

#if defined(__GNUC__) && !defined(VL_NO_COMPUTED_GOTO)
#define VL_COMPUTED_GOTO 1
#endif

#ifndef VL_POLL_QUANTUM
#define VL_POLL_QUANTUM 4096
#endif

#ifndef VL_MAX_STACK
#define VL_MAX_STACK ((size_t)1 << 27)
#endif

#if defined(__GNUC__)
#define VL_LIKELY(x) __builtin_expect(!!(x), 1)
#define VL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define VL_NORETURN __attribute__((noreturn))
#define VL_NOINLINE __attribute__((noinline))
#else
#define VL_LIKELY(x) (x)
#define VL_UNLIKELY(x) (x)
#define VL_NORETURN
#define VL_NOINLINE
#endif

#endif
