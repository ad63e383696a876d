/*
 * vm/cpj/cpj.h -- checkpoint-*j: the module's one interface
 *
 * checkpoint-*j itself is a short recursive driver in the prelude
 * (stdlib/prelude.vlad, "Checkpointed reverse mode"), compiled like any
 * VLAD code, so its pending work lives in continuation frames.  The
 * driver, the VM pieces it stands on and the C side of this folder are
 * one module; this header says in one place what crosses its edge.  The
 * other headers of vm/cpj/ are internal to the folder: only its .c files
 * (and its unit tests) include them.
 *
 * WHAT THE DRIVER NEEDS FROM THE VM
 *
 * - Private primitives (bound in the prelude environment only; the table
 *   of doc/internals.md section 19 lists every one, tests/doc/internals.sh
 *   checks it):
 *     vm/exec/vm.c binds the control prototypes %cpj-first (CTL_SEG_FIRST:
 *     the first, measuring run), %cpj-*j (CTL_STARJ_ACTIVE: *j of the
 *     base cases) and %cpj-hide (CTL_HIDE: the run's delimiter);
 *     vm/cpj/cpjprims.c installs the %cpj-... of the planner, the held
 *     states and the segments, vm/cpj/cpjfirst.c those of the first run
 *     in chunks (both through vl_cpj_install).
 * - Segments: hand-assembled prototypes of vm/exec/vm.c (CTL_SEG_FIRST,
 *   CTL_SEG_REC, CTL_SEG_RUN, CTL_SEG_ADV, CTL_ADVANCE, CTL_HIDE; indices in
 *   vm/core/state.h) made of the opcodes SEG_BEGIN/SEG_END (a segment: its
 *   entry in S->seg, CpjSeg of vm/core/delim.h, with the step position it
 *   started at, so that every step inside has a position that is the same
 *   in every re-execution) and HIDE_BEGIN/HIDE_END (a run: its strategy
 *   value kept in the frame, the steps beyond its first run hidden);
 *   vm/core/opcodes.h documents them.  FIRST runs (f x) once and measures
 *   it, REC is a chunk of a first run that goes in chunks, RUN resumes a
 *   state to the end, ADV advances a state by m steps into a new state (a
 *   checkpoint, vm/core/contseg.h).
 * - Hooks: the spill hook, S->spill_hooks (SpillHooks, vm/core/state.h):
 *   the readers of a checkpoint below vm/persist/ (vl_contseg_present,
 *   vm/core/contseg.h) bring a held state back from its spill file
 *   through it; vm/persist/spill.c fills it (vl_spill_init) when the state
 *   opens.  This folder calls vm/persist/spill.h directly (held,
 *   released, configured per run).
 *
 * WHAT IT GIVES BACK (every vl_cpj_* the rest of the runtime calls, by
 * caller; all of them below)
 *
 * - the dispatch loop (vm/exec/vm.c): vl_cpj_start_strategy and
 *   vl_cpj_counts_all (HIDE_BEGIN), vl_cpj_first_result (SEG_END),
 *   vl_cpj_progress_counting (a poll);
 * - the primitives (vm/exec/prims.c, vm/api/apihost.c): the effect log,
 *   vl_cpj_may_output, vl_cpj_replay_input, vl_cpj_record_input;
 * - the top level (vm/exec/toplevel.c): vl_cpj_init, vl_cpj_install,
 *   vl_cpj_reset;
 * - the API (vm/api/api.c): vl_cpj_default, vl_cpj_parse,
 *   vl_cpj_strategy_name, and S->cpj's strategy and stats (Cpj, below).
 *
 * INSIDE (vm/cpj/, bottom up: each file calls only those above it here)
 *
 *   cpjlog.c    the effect log: read-real recorded and replayed, output
 *               suppressed in re-executions
 *   cpjstrat.c  the table of strategies (one row each: name, options, split
 *               rule), parsing a SPEC, the split rules (bisection,
 *               binomial/revolve), the strategy of a run
 *   cpjstats.c  held states and what they weigh, the statistics, progress,
 *               the outermost run's start and end
 *   cpjplan.c   the budget's plans, the kept states a reversal starts from,
 *               %cpj-plan
 *   cpjfirst.c  the first run in chunks, keeping states
 *   cpjprims.c  the driver's private primitives (%cpj-...)
 */
#ifndef VL_CPJ_H
#define VL_CPJ_H

#include "vm/core/contseg.h"
#include "vm/core/state.h"

/* A strategy's kind: its index in the table of strategies
   (vm/cpj/cpjstrat.c), the number a run's strategy value, a saved file
   and VladCpjStats.plan_kind keep, so rows are only ever added at the
   end.  The two first have names here (for the default and the unit
   tests); a new row needs none. */
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

/* S->cpj: the configured strategy (set by the API) and the statistics
   (read by it); the rest is vm/cpj/cpjstats.c's. */
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
    int64_t log_before;         /* stats.message_log_bytes at its start, */
    int64_t run_log_bytes;      /* and its first run's log (at its plan):
                                   held to its end, part of the budget */
    VladCpjStats stats;
} Cpj;

/* ===== For the dispatch loop (vm/exec/vm.c) ===== */

/* The strategy of a run that starts now, as a value (kind slots base
   budget all spill): that of the run it is inside, else the configured
   one (HIDE_BEGIN keeps it in the run's frame; vm/cpj/cpjstrat.c, "The
   strategy of a run"). */
VL_INTERNAL Value vl_cpj_start_strategy(VladState *S);
/* Whether a run of strategy value 'st' counts all its steps (steps=all;
   a value that is not a strategy does not -- the run's own check says
   why, vl_cpj_run_strategy). */
VL_INTERNAL int vl_cpj_counts_all(Value st);

/* A first run (in one piece or in chunks) has ended with y after n steps:
   (list y n log), its log finished, counted in the stats. */
VL_INTERNAL Value vl_cpj_first_result(VladState *S, Value y, int64_t n,
                                      Value raw_log);

/* At a poll of the step counter ('now' steps), with a progress callback:
   report the steps the outermost checkpoint-*j's first run has counted
   so far (total 0), when that is what runs. */
VL_INTERNAL void vl_cpj_progress_counting(VladState *S, int64_t now);

/* ===== For the primitives (vm/exec/prims.c, vm/api/apihost.c) ===== */

/* Effects.  Output is performed only when this returns 1. */
VL_INTERNAL int vl_cpj_may_output(VladState *S);

/* Input: 1 and the value to return when a re-execution replays it; 0 when
   the input must really be read, after which vl_cpj_record_input records
   the value read. */
VL_INTERNAL int vl_cpj_replay_input(VladState *S, Value *out);
VL_INTERNAL void vl_cpj_record_input(VladState *S, Value v);

/* ===== For the top level (vm/exec/toplevel.c) ===== */

/* Allocate S->cpj with the default strategy. */
VL_INTERNAL void vl_cpj_init(VladState *S);

/* Install the driver's primitives (%cpj-..., of vm/cpj/cpjprims.c and
   vm/cpj/cpjfirst.c). */
VL_INTERNAL void vl_cpj_install(VladState *S);

/* Forget the held checkpoints (a top-level form ends). */
VL_INTERNAL void vl_cpj_reset(VladState *S);

/* ===== For the API (vm/api/api.c) ===== */

/* The name of strategy i (0, 1, ...), NULL past the last: the names of
   SPEC, of --stats and of the REPL's completion. */
VL_INTERNAL const char *vl_cpj_strategy_name(int i);

/* Parse SPEC ("bisection", "binomial,slots=8,base=500", ...).  Returns 0
   and a message in 'err' when it is malformed. */
VL_INTERNAL int vl_cpj_parse(const char *spec, CpjStrategy *out, char *err,
                             size_t errlen);

/* The default strategy: binomial, planned from VL_CPJ_DEFAULT_BUDGET. */
#define VL_CPJ_DEFAULT_BUDGET ((int64_t)32 << 20)
VL_INTERNAL CpjStrategy vl_cpj_default(void);

#endif
