/*
 * vm/cont.c -- capturing the continuation into checkpoints and back
 *
 * See vm/cont.h for the representation.  Capture walks the frame chain
 * from the pending application down to the delimiter, copying for each
 * frame only the registers its prototype marks live at the call it is
 * waiting on; reinstalling writes the frames back above a new base and
 * re-establishes the step limits and counters of delimiter frames.
 */
#include "config.h"
#include "vm/cont.h"

#include <string.h>
#include "vm/ad.h"
#include "vm/cpj.h"
#include "vm/except.h"
#include "vm/vm.h"
#include "vm/vm.h"

#define SLACK 8

/* ===== Limits ===== */

static void recompute_mins(VladState *S, size_t from);

void vl_cont_push_limit(VladState *S, int64_t deadline, size_t frame)
{
    S->limits = vl_gc_grow(S->limits, S->nlimits, &S->limits_cap,
                           sizeof(Limit));
    Limit *l = &S->limits[S->nlimits];
    l->deadline = deadline;
    l->frame = frame;
    l->deferred = 0;
    S->nlimits++;
    recompute_mins(S, S->nlimits - 1);
}

/* min_deadline of limits from index 'from' up. */
static void recompute_mins(VladState *S, size_t from)
{
    for (size_t k = from; k < S->nlimits; k++) {
        Limit *l = &S->limits[k];
        l->min_deadline = l->deadline;
        if (k > 0 && S->limits[k - 1].min_deadline < l->deadline)
            l->min_deadline = S->limits[k - 1].min_deadline;
    }
}

/* Whether a *j runs above the frame of limit l (an advance stopping there
   would split the *j). */
static int starj_above(const VladState *S, const Limit *l)
{
    for (size_t k = S->nad; k-- > 0;)
        if (S->ad[k].reverse && S->ad[k].frame > l->frame)
            return 1;
    return 0;
}

int vl_cont_defer(VladState *S, Limit *l)
{
    if (l->frame == SIZE_MAX)
        return 0;
    const Value *base = S->stack + l->frame;
    if (AS_CLOSURE(base[-1])->proto != S->control[CTL_ADVANCE]
        || !starj_above(S, l))
        return 0;
    l->deferred = 1;
    l->deadline = INT64_MAX / 2;
    recompute_mins(S, (size_t)(l - S->limits));
    return 1;
}

void vl_cont_undefer(VladState *S, int64_t now)
{
    for (size_t k = 0; k < S->nlimits; k++)
        if (S->limits[k].deferred && !starj_above(S, &S->limits[k])) {
            S->limits[k].deferred = 0;
            S->limits[k].deadline = now;
        }
    recompute_mins(S, 0);
}

void vl_cont_pop_limit(VladState *S)
{
    if (S->nlimits > 0)
        S->nlimits--;
}

int64_t vl_cont_anchor(VladState *S, int64_t now)
{
    int64_t a = now + VL_POLL_QUANTUM;
    if (S->nlimits > 0 && S->limits[S->nlimits - 1].min_deadline < a)
        a = S->limits[S->nlimits - 1].min_deadline;
    return a;
}

/* ===== Finished checkpoints ===== */

Value vl_cont_finished(VladState *S, Value v)
{
    (void)S;
    Checkpoint *k = vl_gc_alloc(sizeof *k);
    k->finished = 1;
    k->result = v;
    k->bytes = sizeof *k;
    return vl_obj(VT_CKPT, k);
}

/* ===== Capture ===== */

/* The registers live in a frame of 'p' waiting at the call before
   'ret_ip': '*n' runs of consecutive registers, in order (vm/object.h). */
static const LiveRun *live_set(const Proto *p, const Instr *ret_ip,
                               uint32_t *n)
{
    size_t pc = (size_t)(ret_ip - p->code) - 1;
    *n = p->liveat[pc + 1] - p->liveat[pc];
    return &p->liveruns[p->liveat[pc]];
}

/* How many registers the runs 'l[0 .. n-1]' hold. */
static uint32_t live_count(const LiveRun *l, uint32_t n)
{
    uint32_t c = 0;
    for (uint32_t q = 0; q < n; q++)
        c += l[q].count;
    return c;
}

/* Iterating over the live registers r of the runs 'l[0 .. n-1]':
   for (uint32_t q = 0, r = live_first(l, n); q < n;
        r = live_next(l, n, &q, r)); q is the run of r. */
static int live_first(const LiveRun *l, uint32_t n)
{
    return n > 0 ? l[0].first : 0;
}

static int live_next(const LiveRun *l, uint32_t n, uint32_t *q, int r)
{
    if (r + 1 < l[*q].first + l[*q].count)
        return r + 1;
    return ++*q < n ? l[*q].first : 0;
}

Checkpoint *vl_cont_capture(VladState *S, size_t delim, Value *fb,
                            int nargs, int64_t now)
{
    Value *stop = S->stack + delim;
    S->escapes++;
    /* count the frames between the pending application and the delimiter */
    uint32_t nframes = 0;
    size_t nvalues = 0;
    Value *above = fb + 2;
    for (;;) {
        Value *caller = above - above[-2].aux;
        if (caller == stop)
            break;
        const Proto *p = AS_CLOSURE(caller[-1])->proto;
        uint32_t nruns;
        const LiveRun *l = live_set(p, above[-2].as.ptr, &nruns);
        nvalues += live_count(l, nruns);
        nframes++;
        above = caller;
    }
    Checkpoint *k = vl_gc_alloc(sizeof *k);
    k->nframes = nframes;
    k->frames = vl_gc_alloc((nframes ? nframes : 1) * sizeof(CapFrame));
    k->values = vl_gc_alloc((nvalues ? nvalues : 1) * sizeof(Value));
    k->callee = fb[1];
    k->arg = vl_value_tuple(fb + 2, nargs);
    /* fill frames top-down, storing them bottom-first; values are laid
       out bottom-first too */
    size_t vend = nvalues;
    above = fb + 2;
    for (uint32_t f = nframes; f-- > 0;) {
        Value *caller = above - above[-2].aux;
        Closure *c = AS_CLOSURE(caller[-1]);
        const Proto *p = c->proto;
        const Instr *rip = above[-2].as.ptr;
        uint32_t nruns;
        const LiveRun *l = live_set(p, rip, &nruns);
        uint32_t nl = live_count(l, nruns);
        vend -= nl;
        CapFrame *cf = &k->frames[f];
        cf->closure = c;
        cf->ret_pc = (uint32_t)(rip - p->code);
        cf->delta = above[-2].aux;
        cf->first = (uint32_t)vend;
        cf->nlive = nl;
        size_t j = vend;
        uint32_t q = 0;
        for (int r = live_first(l, nruns); q < nruns;
             r = live_next(l, nruns, &q, r)) {
            Value v = caller[r];
            if (p->kind == PK_STARJ && r == p->ctlreg + 2) {
                /* the tape of this *j, kept in S->ad while it runs: its
                   last node (a tape value, which walks over the
                   checkpoint map with the rest of the tape: vm/ad.c,
                   through_tape), or raw (chunk, fill) when its chunk has
                   none */
                size_t at = (size_t)(caller - S->stack);
                for (size_t a = S->nad; a-- > 0;)
                    if (S->ad[a].frame == at) {
                        v = vl_raw(0);
                        v.as.ptr = S->ad[a].chunk;
                        v.aux = S->ad[a].n;
                        if (S->ad[a].chunk != NULL && S->ad[a].n > 0) {
                            v.tag = VT_TAPE;
                            v.aux--;
                        }
                        break;
                    }
            }
            if (r == p->ctlreg && p->kind == PK_CHECKPOINT)
                v = vl_raw(v.as.i - now);       /* remaining steps */
            else if (r == p->ctlreg && (p->kind == PK_PRIMOPS
                                        || p->kind == PK_SEGMENT))
                v = vl_raw(now - v.as.i);       /* steps so far */
            k->values[j++] = v;
        }
        above = caller;
    }
    /* the limits of delimiters inside the segment, and the firing one */
    while (S->nlimits > 0 && S->limits[S->nlimits - 1].frame != SIZE_MAX
           && S->limits[S->nlimits - 1].frame >= delim)
        S->nlimits--;
    while (S->nad > 0 && S->ad[S->nad - 1].frame >= delim)
        S->nad--;
    vl_cpj_pop_from(S, delim);
    k->steps_at = now;
    k->bytes = sizeof *k + nframes * sizeof(CapFrame)
               + nvalues * sizeof(Value);
    return k;
}

/* ===== Reinstall ===== */

Value *vl_cont_reinstall(VladState *S, const Checkpoint *k, Value **base,
                         const Instr *ret_ip, int dest, int64_t now)
{
    size_t need = (size_t)dest + 2 + 3 + SLACK;
    for (uint32_t f = 0; f < k->nframes; f++) {
        const Proto *p = k->frames[f].closure->proto;
        size_t d = k->frames[f].delta;
        need += d > p->nregs ? d : p->nregs;
    }
    need += SLACK;
    vl_cont_ensure(S, base, need);
    Value *b = *base + dest + 2;
    b[-2] = vl_raw(0);
    b[-2].aux = (uint32_t)dest + 2;
    b[-2].as.ptr = ret_ip;
    for (uint32_t f = 0; f < k->nframes; f++) {
        const CapFrame *cf = &k->frames[f];
        const Proto *p = cf->closure->proto;
        b[-1] = vl_obj(VT_CLOSURE, cf->closure);
        const Instr *rip = p->code + cf->ret_pc;
        uint32_t nruns, q = 0;
        const LiveRun *l = live_set(p, rip, &nruns);
        size_t j = cf->first;
        for (int r = 0; r < p->nregs; r++)
            b[r] = UNDEF_VAL;
        for (int r = live_first(l, nruns); q < nruns;
             r = live_next(l, nruns, &q, r)) {
            Value v = k->values[j++];
            if (r == p->ctlreg && p->kind == PK_CHECKPOINT) {
                v = vl_raw(now + v.as.i);
                vl_cont_push_limit(S, v.as.i, (size_t)(b - S->stack));
            } else if (r == p->ctlreg && (p->kind == PK_PRIMOPS
                                          || p->kind == PK_SEGMENT)) {
                v = vl_raw(now - v.as.i);
            }
            b[r] = v;
        }
        if (p->kind == PK_JSTAR)
            vl_ad_push(S, b[p->ctlreg].as.i, 0, (size_t)(b - S->stack),
                       NULL, 0);
        else if (p->kind == PK_SEGMENT)
            vl_cpj_push(S, (size_t)(b - S->stack), b[p->ctlreg].as.i,
                        p != S->control[CTL_SEG_FIRST], b[p->ctlreg - 1]);
        else if (p->kind == PK_STARJ)
        {
            Value end = b[p->ctlreg + 2];       /* see vl_cont_capture */
            vl_ad_push(S, b[p->ctlreg].as.i, 1, (size_t)(b - S->stack),
                       (TapeChunk *)end.as.ptr,
                       end.tag == VT_TAPE ? (end.aux & VL_AUX_BITS) + 1
                                          : end.aux);
            vl_ad_top(S)->escapes = UINT64_MAX;  /* shares the tape */
        }
        Value *next = b + cf->delta;
        next[-2] = vl_raw(0);
        next[-2].aux = cf->delta;
        next[-2].as.ptr = rip;
        b = next;
    }
    Value *fb = b - 2;
    fb[1] = k->callee;
    fb[2] = k->arg;
    return fb;
}
