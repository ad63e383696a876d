/*
 * vm/core/delim.c -- the delimiters' side stacks (see vm/core/delim.h): step
 * limits, AD invocations and checkpoint-*j segments
 */
#include "config.h"
#include "vm/core/delim.h"

#include <stdint.h>
#include "vm/core/delimregs.h"
#include "vm/core/limits.h"

/* ===== Step limits ===== */

static void recompute_mins(VladState *S, size_t from);

void vl_delim_push_limit(VladState *S, int64_t deadline, size_t frame)
{
    S->limits = vl_gc_grow(S->limits, S->nlimits, &S->limits_cap,
                           sizeof(Limit));
    Limit *l = &S->limits[S->nlimits];
    l->deadline = deadline;
    l->frame = frame;
    l->deferred = 0;
    l->barrier = 0;
    l->hides = 0;
    S->nlimits++;
    recompute_mins(S, S->nlimits - 1);
}

/* The top-level limit (--step-limit), or NULL.  It counts every step,
   those a barrier hides too: it bounds the work of an evaluation. */
static Limit *toplevel_limit(VladState *S)
{
    return S->nlimits > 0 && S->limits[0].frame == SIZE_MAX ? &S->limits[0]
                                                            : NULL;
}

/* min_deadline of limits from index 'from' up. */
static void recompute_mins(VladState *S, size_t from)
{
    const Limit *top = toplevel_limit(S);
    for (size_t k = from; k < S->nlimits; k++) {
        Limit *l = &S->limits[k];
        l->min_deadline = l->deadline;
        int64_t below = k == 0 ? l->deadline
                        : !l->barrier ? S->limits[k - 1].min_deadline
                        : top != NULL ? top->deadline : l->deadline;
        if (below < l->min_deadline)
            l->min_deadline = below;
    }
}

int vl_delim_starj_above(const VladState *S, size_t frame)
{
    for (size_t k = S->nad; k-- > 0;)
        if (S->ad[k].reverse && S->ad[k].frame > frame)
            return 1;
    return 0;
}

int vl_delim_defer(VladState *S, Limit *l)
{
    if (l->frame == SIZE_MAX)
        return 0;
    const Value *base = S->stack + l->frame;
    if (AS_CLOSURE(base[-1])->proto != S->control[CTL_ADVANCE]
        || !vl_delim_starj_above(S, l->frame))
        return 0;
    l->deferred = 1;
    l->deadline = VL_COUNT_SATURATED;
    recompute_mins(S, (size_t)(l - S->limits));
    return 1;
}

void vl_delim_undefer(VladState *S, int64_t now)
{
    for (size_t k = 0; k < S->nlimits; k++)
        if (S->limits[k].deferred
            && !vl_delim_starj_above(S, S->limits[k].frame)) {
            S->limits[k].deferred = 0;
            S->limits[k].deadline = now;
        }
    recompute_mins(S, 0);
}

Limit *vl_delim_fired(VladState *S, int64_t now)
{
    for (size_t l = S->nlimits; l-- > 0;) {
        if (S->limits[l].barrier) {
            Limit *top = toplevel_limit(S);
            return top != NULL && top->deadline <= now ? top : NULL;
        }
        if (S->limits[l].deadline <= now)
            return &S->limits[l];
    }
    return NULL;
}

void vl_delim_rewind(VladState *S, int64_t steps)
{
    Limit *top = toplevel_limit(S);
    S->poll_due -= steps;           /* the next poll as many steps ahead */
    if (top != NULL && steps != 0) {
        top->deadline -= steps;
        recompute_mins(S, 0);
    }
}

/* ===== Hiding: the steps of checkpoint-*j beyond its first run ===== */

void vl_delim_push_barrier(VladState *S, size_t frame, int up, int hides)
{
    vl_delim_push_limit(S, VL_COUNT_SATURATED, frame);
    Limit *l = &S->limits[S->nlimits - 1];
    l->barrier = up && hides;
    l->hides = hides;
    recompute_mins(S, S->nlimits - 1);
}

Limit *vl_delim_barrier_below(VladState *S, size_t frame)
{
    for (size_t k = S->nlimits; k-- > 0;) {
        const Value *b = S->limits[k].frame == SIZE_MAX
                         ? NULL : S->stack + S->limits[k].frame;
        if (S->limits[k].frame < frame && b != NULL
            && AS_CLOSURE(b[-1])->proto->kind == PK_HIDE)
            return &S->limits[k];
    }
    return NULL;
}

int vl_delim_hidden_above(const VladState *S, size_t frame)
{
    for (size_t k = S->nlimits; k-- > 0;)
        if (S->limits[k].frame != SIZE_MAX && S->limits[k].frame > frame
            && S->limits[k].barrier)
            return 1;
    return 0;
}

void vl_delim_set_barrier(VladState *S, Limit *l, int up)
{
    l->barrier = up;
    recompute_mins(S, (size_t)(l - S->limits));
}

void vl_delim_pop_limit(VladState *S)
{
    if (S->nlimits > 0)
        S->nlimits--;
}

int64_t vl_delim_anchor(VladState *S, int64_t now)
{
    int64_t a = now + VL_POLL_QUANTUM;
    if (S->poll_due < a)
        a = S->poll_due;
    if (S->nlimits > 0 && S->limits[S->nlimits - 1].min_deadline < a)
        a = S->limits[S->nlimits - 1].min_deadline;
    return a;
}

/* ===== AD invocations ===== */

void vl_delim_push_ad(VladState *S, int64_t tag, int reverse, size_t frame,
                      TapeChunk *chunk, uint32_t n)
{
    S->ad = vl_gc_grow(S->ad, S->nad, &S->ad_cap, sizeof(AdFrame));
    AdFrame *f = &S->ad[S->nad++];
    f->tag = tag;
    f->reverse = reverse;
    f->frame = frame;
    f->chunk = chunk;
    f->n = n;
    f->escapes = S->escapes;
}

AdFrame *vl_delim_top_ad(VladState *S)
{
    return S->nad ? &S->ad[S->nad - 1] : NULL;
}

void vl_delim_pop_ad(VladState *S)
{
    if (S->nad)
        S->nad--;
}

/* ===== checkpoint-*j segments ===== */

void vl_delim_push_seg(VladState *S, size_t frame, int64_t anchor,
                       int replay, Value log)
{
    S->seg = vl_gc_grow(S->seg, S->nseg, &S->seg_cap, sizeof(CpjSeg));
    CpjSeg *e = &S->seg[S->nseg++];
    e->frame = frame;
    e->anchor = anchor;
    e->replay = replay;
    e->log = log;
    e->cursor_pos = -1;
    e->cursor = 0;
}

void vl_delim_pop_segs(VladState *S, size_t frame)
{
    while (S->nseg > 0 && S->seg[S->nseg - 1].frame >= frame)
        S->nseg--;
}

/* ===== Capture, reinstall, reset ===== */

void vl_delim_cut(VladState *S, size_t delim)
{
    while (S->nlimits > 0 && S->limits[S->nlimits - 1].frame != SIZE_MAX
           && S->limits[S->nlimits - 1].frame >= delim)
        S->nlimits--;
    while (S->nad > 0 && S->ad[S->nad - 1].frame >= delim)
        S->nad--;
    vl_delim_pop_segs(S, delim);
}

/* Re-establish what the delimiter frame just written at 'b' keeps
   outside the stack: absolute step counts and the limit of a checkpoint
   frame, the AD stack entry of a j* or *j, the segment entry of a
   checkpoint-*j. */
void vl_delim_reinstall(VladState *S, const Proto *p, Value *b,
                        int64_t now)
{
    Value *c = b + p->ctlreg;               /* vm/core/delimregs.h */
    if (p->kind == PK_CHECKPOINT) {
        c[VL_CKPT_DEADLINE] = vl_raw(now + c[VL_CKPT_DEADLINE].as.i);
        vl_delim_push_limit(S, c[VL_CKPT_DEADLINE].as.i,
                            (size_t)(b - S->stack));
    } else if (p->kind == PK_PRIMOPS) {
        c[VL_PRIMOPS_START] = vl_raw(now - c[VL_PRIMOPS_START].as.i);
    } else if (p->kind == PK_SEGMENT) {
        c[VL_SEG_ANCHOR] = vl_raw(now - c[VL_SEG_ANCHOR].as.i);
    } else if (p->kind == PK_HIDE) {
        /* the steps counted go on from here; the barrier is down while
           a first run's segment (above) runs */
        c[VL_HIDE_ORIGIN] = vl_raw(now - c[VL_HIDE_ORIGIN].as.i);
        vl_delim_push_barrier(S, (size_t)(b - S->stack),
                              c[VL_HIDE_COUNTED].as.i != 0,
                              c[VL_HIDE_HIDES].as.i != 0);
    }
    if (p->kind == PK_JSTAR) {
        vl_delim_push_ad(S, c[VL_AD_TAG].as.i, 0, (size_t)(b - S->stack),
                         NULL, 0);
    } else if (p->kind == PK_SEGMENT) {
        vl_delim_push_seg(S, (size_t)(b - S->stack), c[VL_SEG_ANCHOR].as.i,
                    p != S->control[CTL_SEG_FIRST]
                    && p != S->control[CTL_SEG_REC], c[VL_SEG_LOG]);
    } else if (p->kind == PK_STARJ) {
        Value end = c[VL_STARJ_TAPE_END];   /* see capture_value */
        vl_delim_push_ad(S, c[VL_AD_TAG].as.i, 1, (size_t)(b - S->stack),
                   (TapeChunk *)end.as.ptr,
                   end.tag == VT_TAPE ? (end.aux & VL_AUX_BITS) + 1
                                      : end.aux);
        vl_delim_top_ad(S)->escapes = UINT64_MAX;  /* shares the tape */
    }
}

void vl_delim_reset(VladState *S)
{
    S->nlimits = 0;
    S->nad = 0;
    S->nseg = 0;
}
