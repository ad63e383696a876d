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

static int bit(const uint64_t *s, int r)
{
    return (int)((s[r >> 6] >> (r & 63)) & 1);
}

static const uint64_t *live_set(const Proto *p, const Instr *ret_ip)
{
    size_t pc = (size_t)(ret_ip - p->code) - 1;
    return &p->live[pc * p->livewords];
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
        const uint64_t *l = live_set(p, above[-2].as.ptr);
        for (int r = 0; r < p->nregs; r++)
            nvalues += (size_t)bit(l, r);
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
        const uint64_t *l = live_set(p, rip);
        uint32_t nl = 0;
        for (int r = 0; r < p->nregs; r++)
            nl += (uint32_t)bit(l, r);
        vend -= nl;
        CapFrame *cf = &k->frames[f];
        cf->closure = c;
        cf->ret_pc = (uint32_t)(rip - p->code);
        cf->delta = above[-2].aux;
        cf->first = (uint32_t)vend;
        cf->nlive = nl;
        size_t j = vend;
        for (int r = 0; r < p->nregs; r++) {
            if (!bit(l, r))
                continue;
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

/* The value of register r of captured frame cf of k (which must be live
   there), in k's values. */
static Value *frame_reg(const Checkpoint *k, const CapFrame *cf, int r)
{
    const Proto *p = cf->closure->proto;
    const uint64_t *l = live_set(p, p->code + cf->ret_pc);
    size_t j = cf->first;
    for (int q = 0; q < r; q++)
        j += (size_t)bit(l, q);
    return &k->values[j];
}

const Checkpoint *vl_cont_fresh_tags(VladState *S, const Checkpoint *k,
                                     int64_t tag)
{
    if (k->finished)
        return k;
    VlRelabel *rl = NULL;
    for (uint32_t f = 0; f < k->nframes; f++) {
        const Proto *p = k->frames[f].closure->proto;
        if (p->kind != PK_JSTAR && p->kind != PK_STARJ)
            continue;
        int64_t t = frame_reg(k, &k->frames[f], p->ctlreg)->as.i;
        if (tag >= 0 ? t != tag : !vl_ad_active(S, t))
            continue;
        if (rl == NULL)
            rl = vl_ad_relabel_new();
        vl_ad_relabel_add(rl, t, ++S->next_tag);
    }
    if (rl == NULL)
        return k;
    /* the walk relabels the reals and tapes of a copy of k (its values
       are its own); its frames' raw tags and tape ends follow */
    Checkpoint *nk = AS_CKPT(vl_ad_relabel(S, rl, vl_obj(VT_CKPT,
                                                         (void *)k)));
    for (uint32_t f = 0; f < nk->nframes; f++) {
        const Proto *p = nk->frames[f].closure->proto;
        if (p->kind != PK_JSTAR && p->kind != PK_STARJ)
            continue;
        Value *t = frame_reg(nk, &nk->frames[f], p->ctlreg);
        t->as.i = vl_ad_relabel_tag(rl, t->as.i);
        if (p->kind != PK_STARJ)
            continue;
        Value *end = frame_reg(nk, &nk->frames[f], p->ctlreg + 2);
        if (end->tag == VT_RAW && end->as.ptr != NULL)
            end->as.ptr = vl_ad_relabel_tape(S, rl, (TapeChunk *)end->as.ptr);
    }
    return nk;
}

/* Push the side-stack entry of delimiter frame b of prototype p: its
   limit, AD invocation or checkpoint-*j segment. */
static void reinstall_delimiter(VladState *S, const Proto *p, Value *b)
{
    if (p->kind == PK_JSTAR)
        vl_ad_push(S, b[p->ctlreg].as.i, 0, (size_t)(b - S->stack), NULL, 0);
    else if (p->kind == PK_SEGMENT)
        vl_cpj_push(S, (size_t)(b - S->stack), b[p->ctlreg].as.i,
                    p != S->control[CTL_SEG_FIRST], b[p->ctlreg - 1]);
    else if (p->kind == PK_STARJ) {
        Value end = b[p->ctlreg + 2];       /* see vl_cont_capture */
        vl_ad_push(S, b[p->ctlreg].as.i, 1, (size_t)(b - S->stack),
                   (TapeChunk *)end.as.ptr,
                   end.tag == VT_TAPE ? (end.aux & VL_AUX_BITS) + 1
                                      : end.aux);
        vl_ad_top(S)->escapes = UINT64_MAX;  /* shares the tape */
    }
}

Value *vl_cont_reinstall(VladState *S, const Checkpoint *k, Value **base,
                         const Instr *ret_ip, int dest, int64_t now)
{
    k = vl_cont_fresh_tags(S, k, -1);          /* finding W1 */
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
        const uint64_t *l = live_set(p, rip);
        size_t j = cf->first;
        for (int r = 0; r < p->nregs; r++) {
            if (!bit(l, r)) {
                b[r] = UNDEF_VAL;
                continue;
            }
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
        reinstall_delimiter(S, p, b);
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
