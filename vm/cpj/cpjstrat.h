/*
 * vm/cpj/cpjstrat.h -- checkpoint-*j's strategies (vm/cpj/cpjstrat.c):
 * their split rules, what a budget leaves the collector, the strategy of
 * the running run, the step counts the driver passes.  Internal to vm/cpj/ (the rest of the
 * runtime goes through vm/cpj/cpj.h).
 */
#ifndef VL_CPJSTRAT_H
#define VL_CPJSTRAT_H

#include "vm/cpj/cpj.h"

/* The base of a fixed schedule when SPEC gives none, in steps. */
#define VL_CPJ_DEFAULT_BASE 1000

/* A row of the table of strategies (vm/cpj/cpjstrat.c): what SPEC, the
   driver's primitives and --stats need to know of a strategy. */
typedef struct CpjStrategyRow {
    const char *name;           /* in SPEC, --stats, the REPL's completion
                                   (vlad_checkpoint_strategy) */
    int slots;                  /* takes slots=S, and is then planned with
                                   the binomial rule's slots (%cpj-plan) */
    int budget;                 /* takes budget=BYTES and spill=DIR, and is
                                   planned from the budget without slots=S */
    /* the split point, in steps, of an interval of n > base steps, with
       the plan's slots (0 when the row takes none) and base: %cpj-split */
    int64_t (*split)(int64_t n, int64_t slots, int64_t base);
} CpjStrategyRow;

/* The row of st's strategy. */
VL_INTERNAL const CpjStrategyRow *vl_cpj_strategy(const CpjStrategy *st);

/* The split rules: the split point, in steps, of an interval of n > base
   steps (a row of the table of strategies, vm/cpj/cpjstrat.c, names
   one): bisection, m = floor(n / 2); binomial, the revolve rule with
   'slots' slots in units of base steps. */
VL_INTERNAL int64_t vl_cpj_split_bisection(int64_t n, int64_t slots,
                                           int64_t base);
VL_INTERNAL int64_t vl_cpj_split_binomial(int64_t n, int64_t slots,
                                          int64_t base);

/* The binomial (revolve) split, in units, of an interval of t >= 2 units
   with s slots (see vm/cpj/cpjstrat.c): O(log t) work whatever t and s are. */
VL_INTERNAL int64_t vl_cpj_binomial_split(int64_t t, int64_t s);

/* T(t, s): the units the binomial rule re-executes to reverse t units
   with s slots (the revolve optimum), in closed form; a double because
   it can pass 2^63 (s = 1 is quadratic). */
VL_INTERNAL double vl_cpj_binomial_cost(int64_t t, int64_t s);

/* gcd(a, b) of a, b >= 0 (gcd(0, b) = b). */
VL_INTERNAL int64_t vl_cpj_gcd(int64_t a, int64_t b);

/* The share of a budget a plan fills with data: the collector needs the
   rest (the heap holds garbage beside the live data until it collects:
   on the rotation benchmark, l = 3203, peak RSS grew by 1.5 x the data
   planned, bench/cpj/run) */
#define VL_CPJ_HEAP_SHARE (2.0 / 3.0)

/* The strategy of the innermost running checkpoint-*j: the value its
   %cpj-hide frame keeps, parsed and checked (the configured one when no
   run is under way). */
VL_INTERNAL const CpjStrategy *vl_cpj_run_strategy(VladState *S);

/* A step count the driver passed: a whole number (the primal of a real
   an enclosing *j or j* made of it), else checkpoint-*j's error. */
VL_INTERNAL int64_t vl_cpj_step_count(VladState *S, Value v);

#endif
