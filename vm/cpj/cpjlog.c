/*
 * vm/cpj/cpjlog.c -- checkpoint-*j's effect log: a first run records what
 * read-real returned, keyed by step position; re-executions replay it,
 * and output is performed only outside re-executions (see vm/cpj/cpj.h,
 * "Effects")
 */
#include "config.h"
#include "vm/cpj/cpj.h"

#include "vm/core/delimregs.h"
#include "vm/core/except.h"
#include "vm/core/object.h"

/* ===== The effect log ===== */


/* The first run has ended: its log (a raw list in the frame's register,
   newest first) as a finished, searchable log. */
static Value finish_log(VladState *S, Value raw_list)
{
    (void)S;
    size_t n = 0;
    for (const LogEntry *e = raw_list.as.ptr; e != NULL; e = e->next)
        n++;
    Log *l = vl_gc_alloc(sizeof *l);
    l->n = n;
    l->pos = vl_gc_alloc_atomic((n ? n : 1) * sizeof(int64_t));
    l->values = vl_gc_alloc((n ? n : 1) * sizeof(Value));
    size_t k = n;
    for (const LogEntry *e = raw_list.as.ptr; e != NULL; e = e->next) {
        k--;
        l->pos[k] = e->pos;
        l->values[k] = e->value;
    }
    return vl_raw_ptr(VL_RAW_LOG, l);
}

Value vl_cpj_first_result(VladState *S, Value y, int64_t n, Value raw_log)
{
    VladCpjStats *st = &S->cpj->stats;
    st->calls++;
    st->primal_steps += n;
    if (S->nseg == 0) {
        S->cpj->progress_done = 0;
        S->cpj->progress_total = n;
    }
    Value items[4] = {y, vl_num((double)n), finish_log(S, raw_log),
                      NIL_VAL};
    return vl_object_tuple(items, 4);
}

static int64_t position(VladState *S, const CpjSeg *e)
{
    return S->steps - e->anchor;
}

int vl_cpj_may_output(VladState *S)
{
    for (size_t k = 0; k < S->nseg; k++)
        if (S->seg[k].replay)
            return 0;
    return 1;
}

/* Record v in the first runs from the innermost segment down to (not
   including) segment 'stop'. */
static void record_down_to(VladState *S, size_t stop, Value v)
{
    for (size_t k = S->nseg; k-- > stop;) {
        CpjSeg *e = &S->seg[k];
        Value *frame = S->stack + e->frame;
        Value *slot = frame + AS_CLOSURE(frame[-1])->proto->ctlreg
                      + VL_SEG_LOG;
        LogEntry *n = vl_gc_alloc(sizeof *n);
        n->pos = position(S, e);
        n->value = v;
        n->next = (LogEntry *)slot->as.ptr;
        slot->as.ptr = n;
    }
}

int vl_cpj_replay_input(VladState *S, Value *out)
{
    size_t k = S->nseg;
    while (k > 0 && !S->seg[k - 1].replay)
        k--;
    if (k == 0)
        return 0;
    const CpjSeg *e = &S->seg[k - 1];
    const Log *l = e->log.as.ptr;
    int64_t p = position(S, e);
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->pos[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == l->n || l->pos[lo] != p)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: a re-execution read input at "
                          "step %lld, where the first run read none",
                          (long long)p);
    *out = l->values[lo];
    record_down_to(S, k, *out);
    return 1;
}

void vl_cpj_record_input(VladState *S, Value v)
{
    record_down_to(S, 0, v);
}

