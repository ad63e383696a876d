/*
 * vm/cpj/cpjfirst.c -- checkpoint-*j: the first run in chunks, keeping states
 * (see vm/cpj/cpjfirst.h)
 *
 * Under a budget, the outermost checkpoint-*j does not run (f x) once
 * just to count its steps and then again to place its first checkpoints:
 * its first run is made of REC segments (vm/exec/vm.c), each an advance of
 * the state to the next multiple of a spacing k, recording the effect
 * log as the one-piece first run would (the log is carried from chunk to
 * chunk, positions are those of the whole run).  The states at the chunk
 * ends are kept, thinned as in online checkpointing: when more than
 * KEEP_MAX are held or their bytes pass the budget's share, the spacing
 * doubles and only the first state of each new spacing interval stays.
 * At the end the run's length is known; the plan (vm/cpj/cpjplan.c, %cpj-plan)
 * then picks, by dynamic programming, the kept states that start the
 * segments the reversal reverses right to left (each with the slots the
 * states to its left leave), and releases the others.  A reversal with
 * no kept state is the plan without a first run in chunks, so the choice
 * is never worse than counting first.
 *
 * The driver (stdlib/prelude.vlad) keeps the kept states in a VLAD list:
 * a capture of the driver resumed twice, or differentiated, sees them as
 * any other value it holds.
 */
#include "config.h"
#include "vm/cpj/cpjfirst.h"

#include <math.h>

#include "vm/cpj/cpjstats.h"
#include "vm/cpj/cpjstrat.h"

#include "vm/core/contseg.h"
#include "vm/core/except.h"
#include "vm/core/limits.h"
#include "vm/core/object.h"
#include "vm/core/print.h"

/* The first spacing, in steps: a run no longer is one chunk, and is then
   planned exactly as after a counting run. */
#define FIRST_SPACING 1024
#define KEEP_MAX VL_CPJ_KEEP_MAX  /* (vm/cpj/cpjplan.h) */
/* The first run measures the data of one state in MEASURE_EVERY it keeps
   (a walk over it); the others take the last measure.  The plan measures
   those it keeps that were not (kept_count in vm/cpj/cpjplan.c). */
#define MEASURE_EVERY 8
#define MEASURE_SPAN 4

static Checkpoint *state_arg(VladState *S, Value v)
{
    if (!IS_CKPT(v))
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected a checkpoint, got %s",
                          vl_print_to_string(S, v, 60));
    return AS_CKPT(v);
}

static Value cons(Value a, Value b)
{
    Value items[2] = {a, b};
    return vl_object_tuple(items, 2);
}

/* (%cpj-online?): whether this run's first run goes in chunks: the
   outermost run (nested runs are re-executed in other contexts: their
   plan must not depend on measures, vm/cpj/cpjplan.c) under a budget. */
static Value p_online(VladState *S, Value *args)
{
    (void)args;
    return vl_bool(S->nseg == 0 && vl_cpj_run_strategy(S)->budget > 0);
}

/* (%cpj-empty-log): the raw log of a first run that has read nothing. */
static Value p_empty_log(VladState *S, Value *args)
{
    (void)S, (void)args;
    return vl_raw_ptr(VL_RAW_LOG_LIST, NULL);
}

/* (%cpj-recorder pos log k): the REC segment from a state at pos, with
   the raw log so far, to the next multiple of the spacing k (0: the
   first spacing). */
static Value p_recorder(VladState *S, Value *args)
{
    int64_t pos = vl_cpj_step_count(S, args[0]);
    int64_t k = vl_cpj_step_count(S, args[2]);
    if (k < 1)
        k = FIRST_SPACING;
    if (args[1].tag != VT_RAW || args[1].aux != VL_RAW_LOG_LIST)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected an effect log, got %s",
                          vl_print_to_string(S, args[1], 60));
    Closure *c = vl_gc_alloc(sizeof(Closure) + 4 * sizeof(Value));
    c->proto = S->control[CTL_SEG_REC];
    c->free[0] = args[0];
    c->free[1] = args[1];
    c->free[2] = vl_num((double)((pos / k + 1) * k - pos));
    c->free[3] = S->advance_value;
    return vl_obj(VT_CLOSURE, c);
}

/* (%cpj-finished? u): whether the run has ended at state u. */
static Value p_finished(VladState *S, Value *args)
{
    return vl_bool(state_arg(S, args[0])->finished);
}

/* (%cpj-recorded u log): the first run has ended at u: (list y n log),
   the finished log, and the stats a one-piece first run keeps. */
static Value p_recorded(VladState *S, Value *args)
{
    Checkpoint *k = state_arg(S, args[0]);
    if (!k->finished || args[1].tag != VT_RAW
        || args[1].aux != VL_RAW_LOG_LIST)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected a finished run, got %s",
                          vl_print_to_string(S, args[0], 60));
    return vl_cpj_first_result(S, k->result, k->position, args[1]);
}

static int64_t kept_bytes(const Checkpoint *k)
{
    return (int64_t)k->bytes + k->data_bytes;
}

/* (%cpj-keep u k kept): the first run reached state u (at a multiple of
   the spacing k) with the states 'kept' (newest first) held:
   (list k' kept'), u kept and the list thinned to fit. */
static Value p_keep(VladState *S, Value *args)
{
    Checkpoint *u = state_arg(S, args[0]);
    int64_t k = vl_cpj_step_count(S, args[1]);
    if (k < 1)
        k = FIRST_SPACING;
    /* measured: when none of the last MEASURE_EVERY - 1 kept was */
    u->data_measured = 1;
    int seen = 0;
    for (Value l = args[2]; IS_PAIR(l) && seen < MEASURE_EVERY - 1;
         l = AS_PAIR(l)->cdr, seen++) {
        Checkpoint *e = state_arg(S, AS_PAIR(l)->car);
        if (e->data_measured) {     /* the newest kept has the last */
            u->data_measured = 0;
            u->data_bytes = AS_CKPT(AS_PAIR(args[2])->car)->data_bytes;
            break;
        }
    }
    if (u->data_measured) {
        /* a walk over the state's data: chunks at least MEASURE_SPAN
           times as long as the reals it visits keep its cost a fraction
           of the run's (a state that grows with the run) */
        u->data_bytes = vl_cpj_snapshot_data_bytes(S, args[0]);
        double reals = (double)u->data_bytes / VL_CPJ_DATA_BYTES_PER_REAL;
        while ((double)k < MEASURE_SPAN * reals && k < VL_EXACT_INT_MAX / 2)
            k *= 2;
    }
    vl_cpj_count_held(S, args[0]);
    /* a chunk's end is a poll of the step counter the first run's
       progress reports would otherwise miss (vm/cpj/cpjstats.c) */
    if (S->nseg == 0 && S->config.progress != NULL)
        S->config.progress(S->config.userdata, u->position, 0);
    /* oldest first */
    Value list = cons(args[0], args[2]);
    size_t c = 0;
    for (Value l = list; IS_PAIR(l); l = AS_PAIR(l)->cdr)
        c++;
    Value *v = vl_gc_alloc((c ? c : 1) * sizeof(Value));
    int64_t bytes = 0;
    size_t i = c;
    for (Value l = list; IS_PAIR(l); l = AS_PAIR(l)->cdr) {
        v[--i] = AS_PAIR(l)->car;
        bytes += kept_bytes(state_arg(S, v[i]));
    }
    /* (under spill=DIR the states beyond the budget go to files: only
       their number is bounded) */
    const CpjStrategy *st = vl_cpj_run_strategy(S);
    double room = st->spill != NULL ? INFINITY
                  : (double)st->budget * VL_CPJ_HEAP_SHARE;
    while (c > 0 && (c > KEEP_MAX || (double)bytes > room)) {
        if (k >= VL_EXACT_INT_MAX / 2) {
            /* the spacing cannot double any more (positions past any
               real run's: a forged saved state): keep none */
            for (size_t r = 0; r < c; r++)
                vl_cpj_count_released(S, v[r]);
            c = 0;
            break;
        }
        if (c == 1) {           /* one state is more than the budget:
                                   keep none, try again twice as far */
            vl_cpj_count_released(S, v[0]);
            c = 0;
            k = k < VL_EXACT_INT_MAX / 2 ? 2 * k : k;
            break;
        }
        /* double the spacing; keep the first state of each interval */
        k = k < VL_EXACT_INT_MAX / 2 ? 2 * k : k;
        size_t w = 0;
        int64_t last = 0;
        bytes = 0;
        for (size_t r = 0; r < c; r++) {
            int64_t cell = AS_CKPT(v[r])->position / k;
            if (cell > last) {
                last = cell;
                v[w++] = v[r];
                bytes += kept_bytes(AS_CKPT(v[r]));
            } else {
                vl_cpj_count_released(S, v[r]);
            }
        }
        c = w;
    }
    Value out = NIL_VAL;
    for (size_t r = 0; r < c; r++)
        out = cons(v[r], out);
    return vl_object_list2(vl_num((double)k), out);
}

static const PrimInfo first_prims[] = {
    {"%cpj-online?", p_online, 0, -1},
    {"%cpj-empty-log", p_empty_log, 0, -1},
    {"%cpj-recorder", p_recorder, 3, -1},
    {"%cpj-finished?", p_finished, 1, -1},
    {"%cpj-recorded", p_recorded, 2, -1},
    {"%cpj-keep", p_keep, 3, -1},
};

void vl_cpj_install_first(VladState *S)
{
    vl_state_install_prims(S, first_prims,
                           sizeof first_prims / sizeof first_prims[0]);
}
