/*
 * vm/cpj/cpj.h -- checkpoint-*j: strategies, segments, the effect log, stats
 *
 * checkpoint-*j itself is a short recursive driver in the prelude
 * (stdlib/prelude.vlad, "Checkpointed reverse mode"), compiled like any
 * VLAD code, so its pending work lives in continuation frames.  It rests
 * on the native pieces declared here:
 *
 * - Strategies: a parsed SPEC (bisection or binomial, slots, base) and its
 *   split rule (vl_cpj_binomial_split), chosen outside the program.
 * - Segments: four hand-assembled prototypes (vm/exec/vm.c) that run a piece
 *   of the computation: FIRST runs (f x) once and measures it, REC is a
 *   chunk of a first run that goes in chunks (vm/cpj/cpjfirst.c), RUN resumes
 *   a state to the end, ADV advances a state by m steps into a new state
 *   (a checkpoint).  A segment frame knows the step position, counted from
 *   the start of (f x), at which it started, so every step inside it has a
 *   position that is the same in every re-execution.
 * - The effect log: while a segment runs, S->seg holds an entry for
 *   it (innermost last; saved into and restored from checkpoints like the
 *   AD stack).  The first run of a checkpoint-*j records what read-real
 *   returned, keyed by position; re-executions replay it, and output is
 *   performed only when no enclosing segment is a re-execution.
 */
#ifndef VL_CPJ_H
#define VL_CPJ_H

#include "vm/core/contseg.h"
#include "vm/core/state.h"

typedef enum CpjKind { CPJ_BISECTION, CPJ_BINOMIAL } CpjKind;

typedef struct CpjStrategy {
    CpjKind kind;
    int64_t slots;          /* binomial: slots=S, or 0: planned from budget */
    int64_t base;           /* intervals of at most base steps use *j;
                               0: planned from the budget (binomial) or
                               1000 (bisection, binomial with slots=S) */
    int64_t budget;         /* binomial without slots=: the bytes of live
                               snapshots plus the tape being swept */
    const char *spill;      /* with a budget: the directory the snapshots
                               beyond it go to (vm/persist/spill.h); NULL: none */
    int all_steps;          /* steps=all: every step a run takes counts,
                               not only its first run's (vm/exec/vm.c) */
} CpjStrategy;

typedef struct Cpj {
    CpjStrategy strategy;
    CpjStrategy run;            /* the strategy of the running run, */
    Value run_value;            /* parsed from this value of its frame */
    int64_t live, live_bytes;   /* checkpoints held by drivers now */
    int64_t progress_done;      /* the outermost run: steps reversed, */
    int64_t progress_total;     /* of its primal steps */
    /* the outermost run's base case being swept (peak_bytes): the tape
       bytes recorded when it started (-1: none open), the snapshot
       bytes live then; the data bytes each snapshot reaches (pilot) */
    int64_t open_mark, open_live_bytes, snapshot_data;
    int64_t advanced_before;    /* stats.advanced_steps when it began */
    int outermost_open;         /* an outermost run is between its plan
                                   and its end */
    int64_t spill_written_before, spill_read_before;  /* at its plan */
    int tight;                  /* it asked the collector to run more often
                                   (vl_gc_tight_enter: spill=DIR) */
    VladCpjStats stats;
} Cpj;

/* The name of strategy i (0, 1, ...), NULL past the last. */
VL_INTERNAL const char *vl_cpj_strategy_name(int i);

/* Parse SPEC ("bisection", "binomial,slots=8,base=500", ...).  Returns 0
   and a message in 'err' when it is malformed. */
VL_INTERNAL int vl_cpj_parse(const char *spec, CpjStrategy *out, char *err,
                             size_t errlen);

/* The binomial (revolve) split, in units, of an interval of t >= 2 units
   with s slots (see vm/cpj/cpjprims.c): O(log t) work whatever t and s are. */
VL_INTERNAL int64_t vl_cpj_binomial_split(int64_t t, int64_t s);

/* T(t, s): the units the binomial rule re-executes to reverse t units
   with s slots (the revolve optimum), in closed form; a double because
   it can pass 2^63 (s = 1 is quadratic). */
VL_INTERNAL double vl_cpj_binomial_cost(int64_t t, int64_t s);

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
/* The default strategy: binomial, planned from VL_CPJ_DEFAULT_BUDGET. */
#define VL_CPJ_DEFAULT_BUDGET ((int64_t)32 << 20)
VL_INTERNAL CpjStrategy vl_cpj_default(void);

/* The strategy of a run that starts now, as a value (kind slots base
   budget spill): that of the run it is inside, else the configured one;
   and the strategy of the innermost running checkpoint-*j: the value its
   %cpj-hide frame keeps, parsed and checked (the configured one when no
   run is under way).  See vm/cpj/cpjprims.c, "The strategy of a run". */
VL_INTERNAL Value vl_cpj_start_strategy(VladState *S);
/* Whether a run of strategy value 'st' counts all its steps (steps=all;
   a value that is not a strategy does not -- the run's own check says
   why, vl_cpj_run_strategy). */
VL_INTERNAL int vl_cpj_counts_all(Value st);
VL_INTERNAL const CpjStrategy *vl_cpj_run_strategy(VladState *S);

/* Under spill=DIR, what a held state costs in memory while it is in a
   file: its Checkpoint, its record (vm/persist/spill.c) and the driver's frame
   that holds it (measured on the rotation benchmark: about 500 bytes) */
#define VL_CPJ_SPILLED_BYTES 512
/* ... and the held states it keeps in memory: the ones the driver is
   about to use again */
#define VL_CPJ_SPILL_CACHE 2

/* The share of a budget a plan fills with data: the collector needs the
   rest (the heap holds garbage beside the live data until it collects:
   on the rotation benchmark, l = 3203, peak RSS grew by 1.5 x the data
   planned, bench/cpj/run) */
#define VL_CPJ_HEAP_SHARE (2.0 / 3.0)

/* A step count the driver passed: a whole number (the primal of a real
   an enclosing *j or j* made of it), else checkpoint-*j's error. */
VL_INTERNAL int64_t vl_cpj_step_count(VladState *S, Value v);

/* The bytes the data of state u takes beyond its frames (vm/cpj/cpjprims.c): the
   bytes a real of it takes on the heap (the pair or closure slot holding
   it, a Value of 16 bytes, and its share of the cell: a pair is two
   Values) for each real that depends on the input. */
#define VL_CPJ_DATA_BYTES_PER_REAL 32
VL_INTERNAL int64_t vl_cpj_snapshot_data_bytes(VladState *S, Value u);

/* Count checkpoint u as held by a driver (peaks in the stats), or no
   longer: the bookkeeping of %cpj-hold and %cpj-release. */
VL_INTERNAL void vl_cpj_count_held(VladState *S, Value u);
VL_INTERNAL void vl_cpj_count_released(VladState *S, Value u);

/* The most states the first run in chunks keeps at once. */
#define VL_CPJ_KEEP_MAX 64
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

/* Allocate S->cpj with the default strategy. */
VL_INTERNAL void vl_cpj_init(VladState *S);

/* Forget the held checkpoints (a top-level form ends). */
VL_INTERNAL void vl_cpj_reset(VladState *S);



/* A first run (in one piece or in chunks) has ended with y after n steps:
   (list y n log), its log finished, counted in the stats. */
VL_INTERNAL Value vl_cpj_first_result(VladState *S, Value y, int64_t n,
                                      Value raw_log);

/* At a poll of the step counter ('now' steps), with a progress callback:
   report the steps the outermost checkpoint-*j's first run has counted
   so far (total 0), when that is what runs. */
VL_INTERNAL void vl_cpj_progress_counting(VladState *S, int64_t now);

/* Effects.  Output is performed only when this returns 1. */
VL_INTERNAL int vl_cpj_may_output(VladState *S);

/* Input: 1 and the value to return when a re-execution replays it; 0 when
   the input must really be read, after which vl_cpj_record_input records
   the value read. */
VL_INTERNAL int vl_cpj_replay_input(VladState *S, Value *out);
VL_INTERNAL void vl_cpj_record_input(VladState *S, Value v);

/* Install the driver's primitives (%cpj-...). */
VL_INTERNAL void vl_cpj_install(VladState *S);

#endif
