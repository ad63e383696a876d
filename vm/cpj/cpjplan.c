/*
 * vm/cpj/cpjplan.c -- checkpoint-*j's planner: the plans of fixed
 * schedules and of budgets, the kept states a reversal starts from,
 * %cpj-plan (see vm/cpj/cpjplan.h; the split rules are vm/cpj/cpjstrat.c's)
 */
#include "config.h"
#include "vm/cpj/cpjplan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vm/ad/walk.h"
#include "vm/core/except.h"
#include "vm/core/limits.h"
#include "vm/core/object.h"
#include "vm/core/print.h"
#include "vm/persist/spill.h"
#include "vm/cpj/cpjstats.h"
#include "vm/cpj/cpjstrat.h"

#define DEFAULT_BASE VL_CPJ_DEFAULT_BASE
#define HEAP_SHARE VL_CPJ_HEAP_SHARE

/* The base units of n steps (the last one possibly shorter). */
static int64_t units(int64_t base, int64_t n)
{
    return (n + base - 1) / base;
}

/* The plan of n steps with the given base and slots (capped at the
   units, which split the same beyond: vl_cpj_binomial_split). */
static CpjPlan fixed_plan(int64_t n, int64_t base, int64_t slots)
{
    int64_t t = units(base, n);
    CpjPlan p = {slots < t ? slots : (t > 0 ? t : 1), base, 0, 0, 0, 0};
    p.reexec = (double)base * vl_cpj_binomial_cost(t, p.slots);
    return p;
}

/* The re-executed steps of an interval of n steps with the given base
   and slots, reversed by the binomial rule. */
static double interval_cost(int64_t n, int64_t base, int64_t slots)
{
    if (units(base, n) <= 1)
        return 0;               /* a base case */
    if (slots < 1)
        return INFINITY;
    return fixed_plan(n, base, slots).reexec;
}

/* Which kept states a reversal starts segments from (vm/cpj/cpj.h). */

/* The predicted work of reversing a segment of n steps with the given
   slots: its re-executed steps, and per_case steps for each base case. */
static double segment_work(int64_t n, int64_t base, int64_t slots,
                           double per_case)
{
    return interval_cost(n, base, slots) + per_case * (double)units(base, n);
}

int vl_cpj_choose_kept(int64_t n, int64_t base, int64_t slots,
                       double per_case, const int64_t *q, int c,
                       int *chosen, double *reexec, double *work)
{
    /* best[i][j]: the least work from kept state i (0: the start, 1..c:
       q[i - 1]) to the end when i is the j-th state chosen (j slots
       taken to its left, itself included; the start takes none);
       next[i][j]: the next state chosen, c + 1 for none. */
    int m = c + 1;
    int64_t jmax = slots < m ? slots : m;
    size_t cells = (size_t)m * (size_t)(jmax + 1);
    double *best = malloc(cells * sizeof *best);
    int *next = malloc(cells * sizeof *next);
    if (best == NULL || next == NULL) {
        free(best);
        free(next);
        *reexec = interval_cost(n, base, slots);
        *work = segment_work(n, base, slots, per_case);
        return 0;
    }
#define AT(i, j) ((size_t)(i) * (size_t)(jmax + 1) + (size_t)(j))
    for (int i = c; i >= 0; i--) {
        int64_t pos = i == 0 ? 0 : q[i - 1];
        for (int64_t j = i < jmax ? i : jmax; j >= (i > 0); j--) {
            double b = segment_work(n - pos, base, slots - j, per_case);
            int nx = c + 1;
            if (j + 1 <= jmax)
                for (int i2 = i + 1; i2 <= c; i2++) {
                    double rest = best[AT(i2, j + 1)];
                    if (rest >= b)
                        continue;
                    double here = segment_work(q[i2 - 1] - pos, base,
                                               slots - j, per_case);
                    if (here + rest < b) {
                        b = here + rest;
                        nx = i2;
                    }
                }
            best[AT(i, j)] = b;
            next[AT(i, j)] = nx;
        }
    }
    /* the path from the start, and its re-executed steps */
    int k = 0;
    int64_t pos = 0;
    double total = 0;
    for (int i = 0, j = 0;; j++) {
        int nx = next[AT(i, j)];
        int64_t end = nx <= c ? q[nx - 1] : n;
        total += interval_cost(end - pos, base, slots - j);
        if (nx > c)
            break;
        chosen[k++] = nx - 1;
        pos = end;
        i = nx;
    }
    *reexec = total;
    *work = best[AT(0, 0)];
#undef AT
    free(best);
    free(next);
    return k;
}

static double per_case_work(int64_t snapshot, int64_t per_step);

/* Under spill=DIR, the slots of a base b plan with 'room' bytes beside
   its tape: VL_CPJ_SPILL_CACHE snapshots (or as many as fit) stay in
   memory, the other held states are in files and cost
   VL_CPJ_SPILLED_BYTES each in memory.  A state is held at each split
   and nearly each is written once and read back once (SPILL_PASSES
   passes over its bytes, in steps at the tape's bytes per step): the
   slots (doubling, up to what fits) that predict the least work,
   re-executed steps and I/O. */
#define SPILL_PASSES 4.0
static CpjPlan spill_plan(int64_t n, int64_t b, double room, int64_t snapshot,
                          int64_t per_step)
{
    int64_t t = units(b, n);
    double io = SPILL_PASSES * (double)snapshot
                / (double)(per_step > 1 ? per_step : 1);
    int64_t c = (int64_t)(room / (double)snapshot);
    if (c > VL_CPJ_SPILL_CACHE)
        c = VL_CPJ_SPILL_CACHE;
    if (c > t)
        c = t;
    double rest = room - (double)c * (double)snapshot;
    int64_t smax = c + (int64_t)(rest / VL_CPJ_SPILLED_BYTES);
    if (smax > t)
        smax = t;
    CpjPlan best = fixed_plan(n, b, c);
    for (int64_t s = c; s < smax;) {
        s = s < smax / 2 ? 2 * s : smax;
        CpjPlan p = fixed_plan(n, b, s);
        p.io = io * (double)(t - 1) * (1.0 - (double)c / (double)s);
        if (p.reexec + p.io < best.reexec + best.io)
            best = p;
    }
    best.cache = c;
    return best;
}

/* One candidate of a budget plan: base b, the slots that fit beside its
   tape (or, with spill=DIR, that pay for their I/O).  Returns 0 when not
   even one snapshot does. */
static int plan_for_base(const CpjStrategy *st, int64_t n, int64_t b,
                         int64_t snapshot, int64_t per_step, CpjPlan *out)
{
    /* (with spill=DIR, where the rest of memory is small, the reverse
       sweep's sensitivities count too: a double for each 16-byte slot of
       the tape, vm/ad/adsweep.c) */
    double tape = (double)(b < n ? b : n) * (double)per_step
                  * (st->spill != NULL ? 1.5 : 1.0);
    double room = (double)st->budget * HEAP_SHARE - tape;
    if (room < (double)snapshot)
        return 0;
    double fit = room / (double)snapshot;
    if (st->spill != NULL) {
        *out = spill_plan(n, b, room, snapshot, per_step);
        out->peak_bytes = (int64_t)((double)out->cache * (double)snapshot
                                    + (double)(out->slots - out->cache)
                                      * VL_CPJ_SPILLED_BYTES + tape);
    } else {
        *out = fixed_plan(n, b, fit >= (double)n ? n : (int64_t)fit);
        out->peak_bytes = (int64_t)((double)out->slots * (double)snapshot
                                    + tape);
    }
    return 1;
}

/* The work of each base case beyond its steps (tapifying its start
   state, the cotangent copies of its end state), in steps: about two
   passes over a snapshot's bytes, at the tape's bytes per step. */
static double per_case_work(int64_t snapshot, int64_t per_step)
{
    return 2.0 * (double)(snapshot > 1 ? snapshot : 1)
           / (double)(per_step > 1 ? per_step : 1);
}

int vl_cpj_plan_budget(const CpjStrategy *st, int64_t n, int64_t snapshot,
                       int64_t per_step, CpjPlan *out, int64_t *min_bytes)
{
    if (snapshot < 1)
        snapshot = 1;
    if (per_step < 1)
        per_step = 1;
    int64_t bmin = st->base > 0 ? st->base : 1;
    *min_bytes = (int64_t)ceil((double)(snapshot + (bmin < n ? bmin
                                                    : (n > 0 ? n : 1))
                                                   * per_step) / HEAP_SHARE);
    double per_case = per_case_work(snapshot, per_step);
    int found = 0;
    double best = 0;
    /* bases from bmin up, each a quarter more than the last */
    for (int64_t b = bmin;; b += b / 4 > 0 ? b / 4 : 1) {
        CpjPlan p;
        if (st->base == 0 && b > n)
            b = n > 0 ? n : 1;  /* the whole run is one base case */
        if (plan_for_base(st, n, b, snapshot, per_step, &p)) {
            double cost = p.reexec + per_case * (double)units(p.base, n)
                          + p.io;
            if (!found || cost < best) {
                *out = p;
                best = cost;
                found = 1;
            }
        } else {
            break;          /* larger bases leave even less room */
        }
        if (st->base > 0 || b >= n || b > VL_EXACT_INT_MAX / 2)
            break;
    }
    return found;
}

/* The states a first run in chunks kept (vm/cpj/cpjfirst.c), newest first:
   how many, and the most bytes one holds (frames and data). */
static size_t kept_count(VladState *S, Value kept, int64_t *max_bytes,
                         int64_t *max_data)
{
    size_t c = 0;
    for (Value l = kept; IS_PAIR(l); l = AS_PAIR(l)->cdr) {
        Value u = AS_PAIR(l)->car;
        if (!IS_CKPT(u))
            continue;
        c++;
        if (!AS_CKPT(u)->data_measured && !AS_CKPT(u)->away) {
            AS_CKPT(u)->data_bytes = vl_cpj_snapshot_data_bytes(S, u);
            AS_CKPT(u)->data_measured = 1;
        }
        int64_t b = (int64_t)AS_CKPT(u)->bytes + AS_CKPT(u)->data_bytes;
        if (b > *max_bytes)
            *max_bytes = b;
        if (AS_CKPT(u)->data_bytes > *max_data)
            *max_data = AS_CKPT(u)->data_bytes;
    }
    return c;
}

/* Of the kept states, those the plan's reversal starts segments from
   (the rightmost first; the others released), its predicted re-execution in
   plan->reexec; none when 'use' is 0.  Under a budget with no base
   given, the plan's base may change to a power-of-two multiple or
   fraction of the kept states' spacing (their positions' gcd), which
   makes the segments whole base units, when that predicts less work. */
static Value choose_kept(VladState *S, Value kept, size_t c, int64_t n,
                         CpjPlan *plan, int64_t snapshot, int64_t per_step,
                         int use)
{
    const CpjStrategy *st = vl_cpj_run_strategy(S);
    Value *v = vl_gc_alloc((c ? c : 1) * sizeof(Value));
    int64_t *q = vl_gc_alloc_atomic((c ? c : 1) * sizeof(int64_t));
    int *chosen = vl_gc_alloc_atomic((c ? c : 1) * sizeof(int));
    int *trial = vl_gc_alloc_atomic((c ? c : 1) * sizeof(int));
    size_t i = c;
    int64_t g = 0;
    for (Value l = kept; IS_PAIR(l) && i > 0; l = AS_PAIR(l)->cdr)
        if (IS_CKPT(AS_PAIR(l)->car)) {
            v[--i] = AS_PAIR(l)->car;
            q[i] = AS_CKPT(v[i])->position;
            g = vl_cpj_gcd(g, q[i]);
        }
    int k = 0;
    if (use && c > 0 && c <= 4 * VL_CPJ_KEEP_MAX) {
        double per_case = per_case_work(snapshot, per_step);
        CpjPlan cand[3] = {*plan};
        int ncand = 1;
        if (st->base == 0 && g > 0) {
            int64_t b = g;
            while (b > plan->base && b > 1)
                b /= 2;
            while (b * 2 <= plan->base)
                b *= 2;
            for (int64_t x = b; x <= 2 * b; x += b)
                if (x != plan->base
                    && plan_for_base(st, n, x, snapshot, per_step,
                                     &cand[ncand]))
                    ncand++;
        }
        double best = INFINITY;
        for (int a = 0; a < ncand; a++) {
            double reexec, work;
            int got = vl_cpj_choose_kept(n, cand[a].base, cand[a].slots,
                                         per_case, q, (int)c, trial,
                                         &reexec, &work);
            if (work < best) {
                best = work;
                *plan = cand[a];
                plan->reexec = reexec;
                k = got;
                memcpy(chosen, trial, (size_t)got * sizeof *chosen);
            }
        }
    }
    Value out = NIL_VAL;
    for (size_t r = 0, j = 0; r < c; r++) {
        if (j < (size_t)k && chosen[j] == (int)r) {
            j++;
            Value items[2] = {v[r], out};
            out = vl_object_tuple(items, 2);
        } else {
            vl_cpj_count_released(S, v[r]);
        }
    }
    return out;                 /* the rightmost first */
}

/* %cpj-plan (vm/cpj/cpjplan.h): (list slots base from) for a run of n
   steps, also kept in the stats when the run is outermost.  'pilot' is #f or,
   from the driver's %cpj-pilot, (list u bytes): the state u a pilot
   reached and the tape bytes it recorded getting there.  'kept': the
   states a first run in chunks kept (vm/cpj/cpjfirst.c), newest first, of
   which 'from' lists those the reversal starts segments from, the
   rightmost first. */
Value vl_cpj_plan(VladState *S, Value nv, Value pilot, Value kept)
{
    Cpj *c = S->cpj;
    const CpjStrategy *st = vl_cpj_run_strategy(S);
    int64_t n = vl_cpj_step_count(S, nv);
    /* the outermost run's message log is held to its end: it takes its
       part of the budget (receive logging, doc/parallel.md) */
    CpjStrategy less;
    int64_t logb = S->nseg == 0 ? c->stats.message_log_bytes - c->log_before
                                : 0;
    if (S->nseg == 0)
        c->run_log_bytes = logb;
    if (logb > 0 && st->budget > 0) {
        if (logb >= st->budget)
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "checkpoint-*j: budget=%lld bytes is below "
                              "the %lld bytes of the messages its first run "
                              "received, which its re-executions replay",
                              (long long)st->budget, (long long)logb);
        less = *st;
        less.budget -= logb;
        st = &less;
    }
    CpjPlan plan = {0, st->base, 0, 0, 0, 0};
    int64_t snapshot = 0, per_step = 0, data = 0;
    int64_t kept_bytes = 0, kept_data = 0;
    size_t nkept = kept_count(S, kept, &kept_bytes, &kept_data);
    int use_kept = 0;
    if (st->budget > 0 && !IS_FALSE(pilot)) {
        Value u = IS_PAIR(pilot) ? AS_PAIR(pilot)->car : NIL_VAL;
        Value rest = IS_PAIR(pilot) ? AS_PAIR(pilot)->cdr : NIL_VAL;
        if (!IS_CKPT(u) || !IS_PAIR(rest))
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "checkpoint-*j: expected a pilot, got %s",
                              vl_print_to_string(S, pilot, 60));
        int64_t bytes = vl_cpj_step_count(S, AS_PAIR(rest)->car);
        int64_t m = AS_CKPT(u)->position;
        data = vl_cpj_snapshot_data_bytes(S, u);
        c->stats.pilot_steps += m;
        snapshot = (int64_t)AS_CKPT(u)->bytes + data;
        /* the kept states measure the run beyond the pilot's steps */
        if (kept_bytes > snapshot)
            snapshot = kept_bytes;
        if (kept_data > data)
            data = kept_data;
        use_kept = S->nseg == 0;
        per_step = (bytes + (m > 0 ? m : 1) - 1) / (m > 0 ? m : 1);
        int64_t min_bytes;
        if (!vl_cpj_plan_budget(st, n, snapshot, per_step, &plan,
                                &min_bytes))
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "checkpoint-*j: budget=%lld bytes is below "
                              "this computation's minimum, %lld bytes (one "
                              "snapshot of %lld bytes and a base case of "
                              "%lld steps at %lld tape bytes a step)",
                              (long long)st->budget, (long long)min_bytes,
                              (long long)snapshot,
                              (long long)(st->base > 0 ? st->base : 1),
                              (long long)per_step);
    } else if (st->budget > 0 && S->nseg > 0) {
        /* A run inside another one's segment is re-executed by it, in
           contexts that tape differently (its first run untaped, its base
           cases under a *j, whose nodes the tape bytes would count too):
           its plan must not depend on a measure.  Logarithmic slots of
           base units, 1000 steps unless base=N is given. */
        int64_t base = st->base > 0 ? st->base : DEFAULT_BASE;
        int64_t t = units(base, n), lg = 0;
        while (((int64_t)1 << lg) < t && lg < 62)
            lg++;
        plan = fixed_plan(n, base, lg + 4);
    } else if (st->budget > 0) {
        plan.slots = 1;         /* no pilot: a run of at most one step,
                                   or a short one (p_pilot_steps) */
        plan.base = st->base > 0 ? st->base : n > 0 ? n : 1;
    } else if (vl_cpj_strategy(st)->slots) {
        plan = fixed_plan(n, st->base, st->slots);
    }
    Value from = choose_kept(S, kept, nkept, n, &plan, snapshot,
                             per_step, use_kept);
    if (S->nseg == 0) {         /* the outermost run: its plan, its stats */
        VladCpjStats *x = &c->stats;
        x->plan_kind = st->kind;
        x->plan_kept = 0;
        for (Value l = from; IS_PAIR(l); l = AS_PAIR(l)->cdr)
            x->plan_kept++;
        x->plan_slots = plan.slots;
        x->plan_base = plan.base;
        x->plan_budget = st->budget + (st == &less ? logb : 0);
        x->plan_reexec_steps = (int64_t)plan.reexec;
        x->plan_peak_bytes = plan.peak_bytes > 0 ? plan.peak_bytes + logb
                                                  : 0;
        x->plan_snapshot_bytes = snapshot;
        x->plan_step_bytes = per_step;
        x->last_peak_bytes = 0;
        c->snapshot_data = data;
        /* spill=DIR: the held states in memory are what the budget
           leaves beside the tape of a base case */
        vl_spill_config(S, st->spill, plan.cache * snapshot);
        SpillCounts sc = vl_spill_counts(S);
        c->spill_written_before = sc.bytes_written;
        c->spill_read_before = sc.bytes_read;
        x->plan_spill = st->spill != NULL;
        x->last_spill_bytes_written = x->last_spill_bytes_read = 0;
        c->advanced_before = x->advanced_steps;
        c->open_mark = -1;
        c->outermost_open = 1;
    }
    Value items[4] = {vl_num((double)plan.slots), vl_num((double)plan.base),
                      from, NIL_VAL};
    return vl_object_tuple(items, 4);
}

