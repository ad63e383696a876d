/*
 * vm/cpj/cpjplan.h -- checkpoint-*j's planner (vm/cpj/cpjplan.c): the
 * budget's plans, the kept states a reversal starts from, %cpj-plan.  Internal to vm/cpj/ (the rest of the runtime goes through
 * vm/cpj/cpj.h; tests/unit/test-cpj.c checks the rules).
 */
#ifndef VL_CPJPLAN_H
#define VL_CPJPLAN_H

#include "vm/cpj/cpjstats.h"

/* A plan: the slots and base of one run of n steps under the budget
   strategy 'st', from what a snapshot holds ('snapshot' bytes) and what
   the tape takes per step ('per_step' bytes), the pair minimizing the
   predicted work among those within st->budget.  Returns 0 when even one
   snapshot and a base case of one step (or of st->base steps) exceed the
   budget, with the minimum in *min_bytes. */
typedef struct CpjPlan {
    int64_t slots, base;
    double reexec;              /* predicted re-executed steps */
    int64_t peak_bytes;         /* predicted peak bytes (in memory) */
    double io;                  /* spill=DIR: the predicted work of
                                   writing and reading states, in steps */
    int64_t cache;              /* spill=DIR: the held states kept in
                                   memory (the others are in files) */
} CpjPlan;
VL_INTERNAL int vl_cpj_plan_budget(const CpjStrategy *st, int64_t n,
                                   int64_t snapshot, int64_t per_step,
                                   CpjPlan *out, int64_t *min_bytes);

/* Under spill=DIR, what a held state costs in memory while it is in a
   file: its Checkpoint, its record (vm/persist/spill.c) and the driver's frame
   that holds it (measured on the rotation benchmark: about 500 bytes) */
#define VL_CPJ_SPILLED_BYTES 512
/* ... and the held states it keeps in memory: the ones the driver is
   about to use again */
#define VL_CPJ_SPILL_CACHE 2

/* The first run in chunks (vm/cpj/cpjfirst.c); the plan (here) picks which
   of the c states the
   first run kept at positions q[0] < q[1] < ... < q[c - 1] (all in
   (0, n)) a reversal with the given base and slots starts segments from,
   to do the least work: re-executed steps, and per_case more for each
   base case.  The chosen indices in 'chosen' (ascending), their count
   returned, the predicted re-executed steps in *reexec and the work in
   *work. */
VL_INTERNAL int vl_cpj_choose_kept(int64_t n, int64_t base, int64_t slots,
                                   double per_case, const int64_t *q, int c,
                                   int *chosen, double *reexec,
                                   double *work);

/* (%cpj-plan n pilot kept): (list slots base from) for a run of n steps
   of the running run's strategy (vm/cpj/cpjplan.c). */
VL_INTERNAL Value vl_cpj_plan(VladState *S, Value n, Value pilot, Value kept);

#endif
