/*
 * vm/cpj/cpjprims.c -- checkpoint-*j's private primitives: the %cpj-...
 * the prelude's driver calls (doc/internals.md section 19 lists them),
 * each checking its arguments and calling the folder's other files
 * (see vm/cpj/cpj.h; the driver is in stdlib/prelude.vlad, the segment
 * prototypes in vm/exec/vm.c)
 */
#include "config.h"
#include "vm/cpj/cpj.h"

#include <math.h>
#include "vm/ad/ad.h"
#include "vm/ad/walk.h"
#include "vm/core/cont.h"
#include "vm/core/except.h"
#include "vm/core/limits.h"
#include "vm/core/object.h"
#include "vm/core/print.h"
#include "vm/cpj/cpjfirst.h"
#include "vm/cpj/cpjlog.h"
#include "vm/cpj/cpjplan.h"
#include "vm/cpj/cpjstats.h"
#include "vm/cpj/cpjstrat.h"

/* A budget plan's pilot tapes n / PILOT_FRACTION steps, at most
   PILOT_MAX (%cpj-pilot-steps) */
#define PILOT_MAX 4096
#define PILOT_FRACTION 16
/* ... except that a run of at most SHORT_RUN steps under a budget of at
   least SHORT_RUN_BUDGET is planned as one base case with no pilot */
#define SHORT_RUN 1000
#define SHORT_RUN_BUDGET ((int64_t)1 << 20)
/* The driver's frames whose dead registers %cpj-hold, %cpj-release and
   %cpj-count-leaf clear (vm/core/cont.h): those of the level that calls them
   and of the level under it */
#define CLEAR_FRAMES 6

/* What the driver's primitives clear each time (vm/core/cont.h): the stack
   slots above their arguments ('from') that earlier calls left, and the
   dead registers of the driver's frames under them -- else a deep
   recursion of the driver keeps alive the states and cotangents of the
   levels it has finished with. */
static void clear_stale(VladState *S, Value *from)
{
    vl_cont_clear_above(S, from);
    vl_cont_clear_dead(S, CLEAR_FRAMES);
}
/* ===== The driver's primitives ===== */

static Value make_segment(VladState *S, int which, int nfree,
                          const Value *free)
{
    Closure *c = vl_gc_alloc(sizeof(Closure) + (size_t)nfree * sizeof(Value));
    c->proto = S->control[which];
    for (int k = 0; k < nfree; k++)
        c->free[k] = free[k];
    return vl_obj(VT_CLOSURE, c);
}

static void check_log(VladState *S, Value log)
{
    if (log.tag != VT_RAW || log.aux != VL_RAW_LOG)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected an effect log, got %s",
                          vl_print_to_string(S, log, 60));
}

/* (%cpj-runner pos log): the RUN segment from a state at pos. */
static Value p_runner(VladState *S, Value *args)
{
    vl_cpj_step_count(S, args[0]);
    check_log(S, args[1]);
    return make_segment(S, CTL_SEG_RUN, 2, args);
}

/* (%cpj-advancer pos log m): the ADV segment by m steps. */
static Value p_advancer(VladState *S, Value *args)
{
    vl_cpj_step_count(S, args[0]);
    check_log(S, args[1]);
    vl_cpj_step_count(S, args[2]);
    Value free[4] = {args[0], args[1], args[2], S->advance_value};
    return make_segment(S, CTL_SEG_ADV, 4, free);
}

/* (%cpj-pilot-advancer pos log m): the same for a pilot, whose
   re-execution measures a tape and communicates nothing, even in its
   sweep (its log is vl_cpj_pilot_log's copy). */
static Value p_pilot_advancer(VladState *S, Value *args)
{
    check_log(S, args[1]);
    Value a[3] = {args[0], vl_cpj_pilot_log(S, args[1]), args[2]};
    return p_advancer(S, a);
}

/* A base (>= 1) argument. */
static int64_t base_arg(VladState *S, Value v)
{
    /* up to VL_EXACT_INT_MAX, as base=N is parsed (a step count stops at
       VL_POSITION_MAX) */
    double x = IS_REAL(v) ? vl_object_primal(v) : -1;
    int64_t b = x >= 1 && x == floor(x) && x <= (double)VL_EXACT_INT_MAX
                ? (int64_t)x : 0;
    if (b < 1)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected a base of at least one "
                          "step, got %s", vl_print_to_string(S, v, 60));
    return b;
}

/* (%cpj-leaf? n base): whether an interval of n steps is a base case. */
static Value p_leafp(VladState *S, Value *args)
{
    int64_t n = vl_cpj_step_count(S, args[0]);
    return vl_bool(n <= base_arg(S, args[1]));
}

static Value same_leaf(VladState *S, Value a, Value b, void *ud)
{
    (void)S, (void)b, (void)ud;
    return a;
}

/* (%cpj-check-cotangent y ybar): ybar, once it is known to have the shape
   of the value y (checked before any reverse sweep, so that a mismatch
   is checkpoint-*j's error rather than that of a *j of the driver). */
static Value p_check_cotangent(VladState *S, Value *args)
{
    vl_walk_zip(S, args[0], args[1], same_leaf, NULL, "checkpoint-*j",
                "cotangent");
    return args[1];
}

/* (%cpj-activate x): x with its plain reals marked active (vm/core/value.h):
   what depends on them is what the base cases differentiate. */
static Value p_activate(VladState *S, Value *args)
{
    return vl_ad_activate(S, args[0]);
}

/* (%cpj-count-leaf n): count a base case of n steps; returns n. */
static Value p_count_leaf(VladState *S, Value *args)
{
    int64_t n = vl_cpj_step_count(S, args[0]);
    clear_stale(S, args + 1);           /* what the last one left */
    vl_cpj_count_leaf(S, n);
    return args[0];
}

/* (%cpj-pilot-steps n): the steps a plan's pilot tapes before a run of
   n steps, 0 when the strategy has no budget. */
static Value p_pilot_steps(VladState *S, Value *args)
{
    const CpjStrategy *st = vl_cpj_run_strategy(S);
    int64_t n = vl_cpj_step_count(S, args[0]);
    if (st->budget == 0 || n < 2 || S->nseg > 0)
        return vl_num(0);   /* (nested: see p_plan) */
    /* a short run under a budget of a megabyte or more is one base case
       without measuring (its tape would need a kilobyte a step to pass
       the budget) */
    if (st->base == 0 && n <= SHORT_RUN && st->budget >= SHORT_RUN_BUDGET)
        return vl_num(0);
    int64_t p = n / PILOT_FRACTION;
    return vl_num((double)(p < 1 ? 1 : p > PILOT_MAX ? PILOT_MAX : p));
}

/* (%cpj-tape-bytes): the bytes of the tape of the last *j to end, its own
   (not those of *j's around it: a measure that does not depend on the
   context, which a re-execution may not share), from its length: its
   slots, and the room its chunks leave for growth (up to a quarter). */
static Value p_tape_bytes(VladState *S, Value *args)
{
    (void)args;
    return vl_num((double)S->last_tape_slots * sizeof(TapeSlot) * 5 / 4);
}

/* (%cpj-plan n pilot kept): the plan of a run (vm/cpj/cpjplan.c). */
static Value p_plan(VladState *S, Value *args)
{
    return vl_cpj_plan(S, args[0], args[1], args[2]);
}

/* (%cpj-split n slots base): the split point of n > base steps. */
static Value p_split(VladState *S, Value *args)
{
    const CpjStrategy *st = vl_cpj_run_strategy(S);
    int64_t n = vl_cpj_step_count(S, args[0]);
    int64_t base = base_arg(S, args[2]);
    const CpjStrategyRow *row = vl_cpj_strategy(st);
    int64_t s = row->slots ? vl_cpj_step_count(S, args[1]) : 0;
    return vl_num((double)row->split(n, s, base));
}

/* (%cpj-start f x): the state before (f x), a checkpoint with no frames. */
static Value p_start(VladState *S, Value *args)
{
    vl_cpj_outermost_start(S);
    if (!IS_PROC(args[0]))
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected a procedure, got %s",
                          vl_print_to_string(S, args[0], 200));
    Checkpoint *k = vl_gc_alloc(sizeof *k);
    k->callee = args[0];
    k->arg = args[1];
    k->bytes = VL_SEG_CKPT_BYTES;
    return vl_obj(VT_CKPT, k);
}

/* (%checkpoint-input u): the argument of the pending application of u
   -- the driver's last call, which also ends an outermost run's stats. */
static Value p_input(VladState *S, Value *args)
{
    if (!IS_CKPT(args[0]) || AS_CKPT(args[0])->finished)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected a suspended checkpoint, "
                          "got %s", vl_print_to_string(S, args[0], 60));
    vl_cpj_outermost_end(S);
    vl_contseg_present(S, AS_CKPT(args[0]));
    return AS_CKPT(args[0])->arg;
}

/* (%cpj-position u): the step position of a state made by an advance (it
   may lie beyond the requested one: advances never stop inside a *j). */
static Value p_position(VladState *S, Value *args)
{
    if (!IS_CKPT(args[0]))
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected a checkpoint, got %s",
                          vl_print_to_string(S, args[0], 60));
    return vl_num((double)AS_CKPT(args[0])->position);
}

/* (%cpj-hold u m counted): a driver keeps u, reached by advancing m steps;
   'counted': u starts more than a base case, so it occupies a slot.  The
   checkpoint remembers whether it was counted, for %cpj-release. */
static Value p_hold(VladState *S, Value *args)
{
    clear_stale(S, args + 3);           /* what the advance left */
    S->cpj->stats.advanced_steps += vl_cpj_step_count(S, args[1]);
    if (!IS_FALSE(args[2]))
        vl_cpj_count_held(S, args[0]);
    return args[0];
}

/* (%cpj-release u k): the driver no longer needs u; returns k. */
static Value p_release(VladState *S, Value *args)
{
    vl_cpj_count_released(S, args[0]);
    /* the driver's recursion has returned from the level that held it */
    clear_stale(S, args + 2);
    return args[1];
}

static const PrimInfo cpj_prims[] = {
    {"%cpj-runner", p_runner, 2, -1},
    {"%cpj-advancer", p_advancer, 3, -1},
    {"%cpj-pilot-advancer", p_pilot_advancer, 3, -1},
    {"%cpj-leaf?", p_leafp, 2, -1},
    {"%cpj-check-cotangent", p_check_cotangent, 2, -1},
    {"%cpj-pilot-steps", p_pilot_steps, 1, -1},
    {"%cpj-tape-bytes", p_tape_bytes, 0, -1},
    {"%cpj-plan", p_plan, 3, -1},
    {"%cpj-split", p_split, 3, -1},
    {"%cpj-start", p_start, 2, -1},
    {"%checkpoint-input", p_input, 1, -1},
    {"%cpj-hold", p_hold, 3, -1},
    {"%cpj-position", p_position, 1, -1},
    {"%cpj-release", p_release, 2, -1},
    {"%cpj-count-leaf", p_count_leaf, 1, -1},
    {"%cpj-activate", p_activate, 1, -1},
};

void vl_cpj_install(VladState *S)
{
    vl_state_install_prims(S, cpj_prims,
                           sizeof cpj_prims / sizeof cpj_prims[0]);
    vl_cpj_install_first(S);
}
