/*
 * vm/cpj/cpjstats.c -- checkpoint-*j's state between its primitives'
 * calls: the held states, the statistics of --stats and vlad_get_stats,
 * progress reports (see vm/cpj/cpjstats.h)
 */
#include "config.h"
#include "vm/cpj/cpjlog.h"
#include "vm/cpj/cpjstats.h"

#include "vm/ad/walk.h"
#include "vm/core/delim.h"
#include "vm/core/gc.h"
#include "vm/core/object.h"
#include "vm/persist/spill.h"

/* Under spill=DIR with a budget, a collection each time this share of
   the budget has been allocated (half of what the plan leaves the
   collector: the heap is live data, plus that much), and at least
   TIGHT_MIN bytes */
#define TIGHT_SHARE ((1 - VL_CPJ_HEAP_SHARE) / 2)
#define TIGHT_MIN ((double)(256 << 10))

/* ===== State ===== */

void vl_cpj_init(VladState *S)
{
    S->cpj = vl_gc_alloc(sizeof *S->cpj);
    S->cpj->strategy = vl_cpj_default();
    S->cpj->open_mark = -1;
    vl_cpj_msglog_init(S);
}

/* The outermost run under spill=DIR has ended (or was abandoned): the
   collector runs as before. */
static void leave_tight(Cpj *c)
{
    if (c->tight) {
        vl_gc_tight_leave();
        c->tight = 0;
    }
}

void vl_cpj_reset(VladState *S)
{
    vl_spill_reset(S);
    leave_tight(S->cpj);
    S->cpj->live = 0;
    S->cpj->live_bytes = 0;
    S->cpj->outermost_open = 0;
    S->cpj->open_mark = -1;
}

void vl_cpj_progress_counting(VladState *S, int64_t now)
{
    if (S->nseg > 0 && !S->seg[0].replay
        && !vl_delim_hidden_above(S, S->seg[0].frame))
        /* the outermost checkpoint-*j's first run (not a checkpoint-*j
           in it beyond its own first run, whose steps the first run does
           not count): total not yet known */
        S->config.progress(S->config.userdata, now - S->seg[0].anchor, 0);
}

/* The outermost run's base case being swept has ended (or the run): its
   peak bytes. */
static void close_base_case(VladState *S)
{
    Cpj *c = S->cpj;
    if (c->open_mark < 0)
        return;
    int64_t bytes = c->open_live_bytes + c->run_log_bytes
                    + ((int64_t)S->tape_bytes - c->open_mark);
    if (bytes > c->stats.last_peak_bytes)
        c->stats.last_peak_bytes = bytes;
    if (bytes > c->stats.peak_bytes)
        c->stats.peak_bytes = bytes;
    c->open_mark = -1;
}

void vl_cpj_count_held(VladState *S, Value u)
{
    Cpj *c = S->cpj;
    if (!IS_CKPT(u))
        return;
    Checkpoint *k = AS_CKPT(u);
    k->held = 1;
    c->live++;
    c->live_bytes += (int64_t)k->bytes;
    if (c->live > c->stats.peak_live_checkpoints)
        c->stats.peak_live_checkpoints = c->live;
    if (c->live_bytes > c->stats.peak_checkpoint_bytes)
        c->stats.peak_checkpoint_bytes = c->live_bytes;
    /* spill=DIR: the states of the outermost run only.  A run inside
       another's segment is part of the enclosing run's states, whose
       walks (tapifying a state, zipping it with its cotangent) must meet
       the same objects in every re-execution: a state of the inner run
       brought back from a file is a copy, which would not be shared any
       more with what the inner driver holds beside it. */
    if (c->strategy.spill != NULL && S->nseg == 0) {
        if (!vl_spill_on(S))    /* (vlad_set_checkpoint since the start) */
            vl_spill_config(S, c->strategy.spill, 0);
        vl_spill_held(S, k, (int64_t)k->bytes
                            + (k->data_measured || k->data_bytes > 0
                               ? k->data_bytes : c->snapshot_data));
    }
}

void vl_cpj_count_released(VladState *S, Value u)
{
    Cpj *c = S->cpj;
    if (IS_CKPT(u) && AS_CKPT(u)->held && c->live > 0) {
        c->live--;
        c->live_bytes -= (int64_t)AS_CKPT(u)->bytes;
        if (c->live_bytes < 0)
            c->live_bytes = 0;
    }
    if (IS_CKPT(u)) {
        AS_CKPT(u)->held = 0;   /* released once: counted once */
        vl_spill_released(S, AS_CKPT(u));
    }
}

/* ===== What a state weighs ===== */

static Value count_active(VladState *S, Value a, Value b, void *ud)
{
    (void)S, (void)b;
    if (vl_real_marked(a))
        ++*(int64_t *)ud;
    return a;
}

/* The bytes the data of state u takes beyond its frames: its reals that
   depend on the input (vm/core/value.h, "Activity"), each in a heap cell. */
int64_t vl_cpj_snapshot_data_bytes(VladState *S, Value u)
{
    int64_t reals = 0;
    vl_walk_map(S, u, count_active, &reals);
    return reals * VL_CPJ_DATA_BYTES_PER_REAL;
}

/* ===== The outermost run ===== */

void vl_cpj_outermost_start(VladState *S)
{
    /* an outermost run under spill=DIR: the collector runs once the part
       of the budget that is not data has been allocated (vm/core/gc.h), not
       every 4 MiB -- the heap stays close to what is live */
    Cpj *c = S->cpj;
    if (S->nseg == 0) {
        c->log_before = c->stats.message_log_bytes;
        c->run_log_bytes = 0;
    }
    if (S->nseg == 0 && c->strategy.spill != NULL) {
        /* its file is made now (a directory that will not do is an error
           at once); until the plan, the first run's states all go there
           but the newest */
        vl_spill_config(S, c->strategy.spill, 0);
        if (!c->tight && c->strategy.budget > 0) {
            double share = (double)c->strategy.budget * TIGHT_SHARE;
            vl_gc_tight_enter(share > TIGHT_MIN ? (size_t)share
                                                : TIGHT_MIN);
            c->tight = 1;
        }
    }
}

void vl_cpj_count_leaf(VladState *S, int64_t n)
{
    Cpj *c = S->cpj;
    c->stats.base_cases++;
    c->stats.base_steps += n;
    if (S->nseg == 0 && c->outermost_open) {
        close_base_case(S);
        /* the snapshots held, with the data each reaches, and the
           working state (the start of this base case) */
        c->open_live_bytes = (vl_spill_on(S) ? vl_spill_cached_bytes(S)
                              : c->live_bytes + c->live * c->snapshot_data)
                             + c->stats.plan_snapshot_bytes;
        c->open_mark = (int64_t)S->tape_bytes;
    }
    if (S->nseg == 0 && S->config.progress != NULL) {
        /* the outermost run (inner ones run inside its segments) */
        c->progress_done += n;
        S->config.progress(S->config.userdata, c->progress_done,
                           c->progress_total);
    }
}

void vl_cpj_outermost_end(VladState *S)
{
    Cpj *c = S->cpj;
    if (S->nseg == 0 && c->outermost_open) {
        close_base_case(S);
        c->stats.last_reexec_steps = c->stats.advanced_steps
                                     - c->advanced_before;
        SpillCounts sc = vl_spill_counts(S);
        c->stats.last_spill_bytes_written = sc.bytes_written
                                            - c->spill_written_before;
        c->stats.last_spill_bytes_read = sc.bytes_read
                                         - c->spill_read_before;
        leave_tight(c);
        c->outermost_open = 0;
    }
}
