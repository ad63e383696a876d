/*
 * vm/cpj/cpjlog.c -- checkpoint-*j's effect log: a first run records what
 * read-real returned, keyed by step position; re-executions replay it,
 * and output is performed only outside re-executions (see vm/cpj/cpj.h,
 * "Effects")
 */
#include "config.h"
#include "vm/cpj/cpj.h"
#include "vm/cpj/cpjlog.h"

#include "vm/core/delimregs.h"
#include "vm/core/except.h"
#include "vm/core/object.h"

/* ===== The effect log ===== */


/* The first run has ended: its log (a raw list in the frame's register,
   newest first) as a finished, searchable log. */
static Value finish_log(VladState *S, Value raw_list)
{
    size_t n = 0;
    for (const LogEntry *e = raw_list.as.ptr; e != NULL; e = e->next)
        n++;
    Log *l = vl_gc_alloc(sizeof *l);
    l->n = n;
    l->first_nad = S->nad;
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

/* Record v in the first run of segment e. */
static void record_in(VladState *S, CpjSeg *e, Value v)
{
    Value *frame = S->stack + e->frame;
    Value *slot = frame + AS_CLOSURE(frame[-1])->proto->ctlreg + VL_SEG_LOG;
    LogEntry *n = vl_gc_alloc(sizeof *n);
    n->pos = position(S, e);
    n->value = v;
    n->next = (LogEntry *)slot->as.ptr;
    slot->as.ptr = n;
}

/* Record v in the first runs from the innermost segment down to (not
   including) segment 'stop'. */
static void record_down_to(VladState *S, size_t stop, Value v)
{
    for (size_t k = S->nseg; k-- > stop;)
        record_in(S, &S->seg[k], v);
}

/* The innermost replaying segment, + 1; 0 when none replays. */
static size_t replaying_seg(const VladState *S)
{
    size_t k = S->nseg;
    while (k > 0 && !S->seg[k - 1].replay)
        k--;
    return k;
}

/* The entry segment e's first run logged at this step: the next one
   after the last read when that was at this step too (a receive's
   adjoint, in a sweep, is one step with many messages); 'what' names it
   in the error when there is none. */
static Value replay_entry(VladState *S, CpjSeg *e, const char *what)
{
    const Log *l = e->log.as.ptr;
    int64_t p = position(S, e);
    size_t lo;
    if (p == e->cursor_pos)
        lo = e->cursor + 1;
    else {
        size_t hi = l->n;
        lo = 0;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (l->pos[mid] < p)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    if (lo >= l->n || l->pos[lo] != p)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: a re-execution %s at step %lld, "
                          "where the first run did not", what,
                          (long long)p);
    e->cursor_pos = p;
    e->cursor = lo;
    return l->values[lo];
}

int vl_cpj_replay_input(VladState *S, Value *out)
{
    size_t k = replaying_seg(S);
    if (k == 0)
        return 0;
    Value v = replay_entry(S, &S->seg[k - 1], "read input");
    if (v.tag == VT_RAW)
        vl_except_runtime(S, VLAD_ERR_RUNTIME, "checkpoint-*j: a "
                          "re-execution read input where the first run "
                          "received a message");
    *out = v;
    record_down_to(S, k, *out);
    return 1;
}

void vl_cpj_record_input(VladState *S, Value v)
{
    record_down_to(S, 0, v);
}

/* ===== Messages (S->msglog_hooks, for vm/ad/admsg.c) ===== */

/* The AD invocations below segment e. */
static size_t floor_of(const VladState *S, const CpjSeg *e)
{
    size_t n = 0;
    while (n < S->nad && S->ad[n].frame < e->frame)
        n++;
    return n;
}

static int msg_replaying(VladState *S, MsgReplay *r)
{
    size_t k = replaying_seg(S);
    if (k == 0)
        return 0;
    const CpjSeg *e = &S->seg[k - 1];
    const Log *l = e->log.as.ptr;
    r->first = l->first_nad;
    r->floor = floor_of(S, e);
    r->pilot = l->pilot;
    return 1;
}

static const MsgLogged *msg_replay(VladState *S, const char *who)
{
    size_t k = replaying_seg(S);
    (void)who;
    Value v = replay_entry(S, &S->seg[k - 1], "received a message");
    if (v.tag != VT_RAW || v.aux != VL_RAW_MSG)
        vl_except_runtime(S, VLAD_ERR_RUNTIME, "checkpoint-*j: a "
                          "re-execution received a message where the first "
                          "run read input");
    return v.as.ptr;
}

static size_t msg_recorders(VladState *S, size_t *floors, size_t cap)
{
    size_t k = replaying_seg(S);
    for (size_t i = k; i < S->nseg && i - k < cap; i++)
        floors[i - k] = floor_of(S, &S->seg[i]);
    return S->nseg - k;
}

static void msg_record(VladState *S, size_t i, const MsgLogged *m)
{
    size_t k = replaying_seg(S) + i;
    if (k >= S->nseg)
        return;
    MsgLogged *copy = vl_gc_alloc(sizeof *copy);
    *copy = *m;
    VladCpjStats *st = &S->cpj->stats;
    st->messages_logged++;
    st->message_log_bytes += (int64_t)(m->len + m->nfloor * sizeof(Value)
                                       + sizeof *copy + sizeof(LogEntry));
    record_in(S, &S->seg[k], vl_raw_ptr(VL_RAW_MSG, copy));
}

void vl_cpj_msglog_init(VladState *S)
{
    S->msglog_hooks = (MsgLogHooks){msg_replaying, msg_replay,
                                    msg_recorders, msg_record};
}

Value vl_cpj_pilot_log(VladState *S, Value log)
{
    (void)S;
    Log *l = vl_gc_alloc(sizeof *l);
    *l = *(const Log *)log.as.ptr;
    l->pilot = 1;
    return vl_raw_ptr(VL_RAW_LOG, l);
}
