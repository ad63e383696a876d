/*
 * vm/core/cont.c -- capturing the continuation into checkpoints and back
 *
 * See vm/core/cont.h for the representation.  Capture walks the frame chain
 * from the pending application down to the delimiter, copying for each
 * frame only the registers its prototype marks live at the call it is
 * waiting on, and referring to the sequence of each underflow frame it
 * meets; reinstalling writes the delimiter frames back above a new base,
 * re-establishes their step limits, counters and AD and checkpoint-*j
 * entries, and puts an underflow frame for each stretch of other frames;
 * UNDERFLOW copies those back a few at a time.  It also owns the
 * continuation stack's storage: growing it, and giving it back.
 */
#include "config.h"
#include "vm/core/cont.h"

#include <string.h>
#include "vm/core/compile.h"
#include "vm/core/delim.h"
#include "vm/core/delimregs.h"
#include "vm/core/except.h"
#include "vm/core/limits.h"


/* ===== The stack ===== */

void vl_cont_reserve(VladState *S, size_t off, size_t need)
{
    if (off + need <= S->stack_size)
        return;
    size_t n = S->stack_size ? S->stack_size : VL_STACK_INITIAL;
    while (n < off + need)
        n *= 2;
    if (n > S->max_stack) {
        if (off + need > S->max_stack)
            vl_except_runtime(S, VLAD_ERR_MEMORY,
                              "stack overflow: the continuation needs more "
                              "than %zu slots (recursion too deep)",
                              S->max_stack);
        n = S->max_stack;
    }
    Value *ns = vl_gc_alloc(n * sizeof(Value));
    if (S->stack != NULL) {
        memcpy(ns, S->stack, S->stack_size * sizeof(Value));
        vl_gc_free_pages(S->stack, S->stack_size * sizeof(Value));
    }
    S->stack = ns;
    S->stack_size = n;
    if (n > S->peak_stack_size)
        S->peak_stack_size = n;
}

void vl_cont_ensure(VladState *S, Value **base, size_t need)
{
    size_t off = (size_t)(*base - S->stack);
    if (off + need <= S->stack_size)
        return;
    vl_cont_reserve(S, off, need);
    *base = S->stack + off;
}

void vl_cont_release_stack(VladState *S)
{
    if (S->stack_size > VL_STACK_INITIAL) {     /* a deep recursion grew it */
        vl_gc_free_pages(S->stack, S->stack_size * sizeof(Value));
        S->stack = NULL;
        S->stack_size = 0;
    } else if (S->stack != NULL) {
        memset(S->stack, 0, S->stack_size * sizeof(Value));
    }
}

void vl_cont_clear_dead(VladState *S, int frames)
{
    const Value *lo = S->stack, *hi = S->stack + S->stack_size;
    Value *base = S->vm_base;
    const Instr *ip = S->vm_ip;
    const Closure *cl = S->vm_cl;
    if (base == NULL || ip == NULL || cl == NULL)
        return;
    if (ip[-1].op == OP_TAILCALL)       /* that frame is being replaced */
        frames++;
    else
        goto clear;
    for (; frames > 0; frames--) {
        /* down to the frame that called this one */
        if (base - 2 < lo || base > hi || base[-2].tag != VT_RAW)
            return;
        Value h = base[-2];
        ip = (const Instr *)h.as.ptr;
        base -= h.aux;
        if (base - 1 < lo || !IS_CLOSURE(base[-1]))
            return;
        cl = AS_CLOSURE(base[-1]);
    clear:;
        const Proto *p = cl->proto;
        if (p->unit == NULL || ip <= p->code || ip > p->code + p->ncode
            || !vl_compile_is_call_capable(ip[-1].op))
            return;                     /* control frames: bookkeeping */
        int top = ip[-1].op == OP_CALL || ip[-1].op == OP_RESUME
                  ? ip[-1].a : p->nregs;
        uint32_t n;
        const LiveRun *l = vl_proto_live_set(p, ip, &n);
        int r = 0;
        for (uint32_t q = 0; q <= n && r < top; q++) {
            int end = q < n ? l[q].first : top;
            for (; r < end && r < top; r++)
                base[r] = NIL_VAL;
            if (q < n)
                r = l[q].first + l[q].count;
        }
    }
}

void vl_cont_clear_above(VladState *S, Value *from)
{
    if (S->stack == NULL || from < S->stack
        || from >= S->stack + S->stack_size)
        return;
    Value *end = S->stack + S->stack_size, *last = from;
    size_t zeros = 0;
    for (Value *p = from; p < end && zeros < VL_STACK_GAP; p++) {
        if (p->tag != 0 || p->aux != 0 || p->as.i != 0) {
            last = p + 1;
            zeros = 0;
        } else {
            zeros++;
        }
    }
    if (last > from)
        memset(from, 0, (size_t)(last - from) * sizeof(Value));
}

/* ===== Finished checkpoints ===== */

Value vl_cont_finished(VladState *S, Value v)
{
    (void)S;
    Checkpoint *k = vl_gc_alloc(sizeof *k);
    k->finished = 1;
    k->result = v;
    k->bytes = VL_SEG_CKPT_BYTES;
    return vl_obj(VT_CKPT, k);
}

/* ===== Capture ===== */

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

/* How many registers are live in a frame of 'p' waiting at the call
   before 'ret_ip'. */
static uint32_t count_live(const Proto *p, const Instr *ret_ip)
{
    uint32_t n;
    const LiveRun *l = vl_proto_live_set(p, ret_ip, &n);
    return live_count(l, n);
}

/* The value register r of the frame at 'caller' keeps in a checkpoint:
   step counts of delimiters relative to 'now', the tape of a *j. */
static Value capture_value(VladState *S, const Proto *p, const Value *caller,
                           int r, int64_t now)
{
    Value v = caller[r];
    if (p->kind == PK_STARJ && r == p->ctlreg + VL_STARJ_TAPE_END) {
        /* the tape of this *j, kept in S->ad while it runs: its last node
           (a tape value, which walks over the checkpoint map with the rest
           of the tape: vm/ad/ad.c, through_tape), or raw (chunk, fill) when
           its chunk has none */
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
    if (p->kind == PK_CHECKPOINT && r == p->ctlreg + VL_CKPT_DEADLINE)
        v = vl_raw(v.as.i - now);       /* remaining steps */
    else if ((p->kind == PK_PRIMOPS && r == p->ctlreg + VL_PRIMOPS_START)
             || (p->kind == PK_SEGMENT && r == p->ctlreg + VL_SEG_ANCHOR))
        v = vl_raw(now - v.as.i);       /* steps so far */
    else if (p->kind == PK_HIDE && r == p->ctlreg + VL_HIDE_ORIGIN) {
        /* the steps counted so far (vm/exec/vm.c, count_first_run) */
        int64_t counted = caller[p->ctlreg + VL_HIDE_COUNTED].as.i;
        v = vl_raw(counted > 0 ? counted - 1 : now - v.as.i);
    }
    return v;
}

/* An underflow frame met by a capture: its sequence, and how many copied
   frames lie under it. */
typedef struct Lazy {
    const ContSeg *seq;
    uint32_t at;
} Lazy;

static Checkpoint *capture(VladState *S, size_t delim, Value *fb, int nargs,
                           int64_t now, int cut)
{
    Value *stop = S->stack + delim;
    /* What a capture inside a *j's extent makes is a value, and values
       leave a *j only through its result, which vl_ad_starj_result copies
       (reals by their primals): the *j may still free its tape when it
       ends (vl_ad_release_tape).  Except when a *j is suspended in the
       captured frames: its tape end is kept as it is, and that tape's
       general nodes may hold nodes of the tapes of the *j's below it,
       which must then be left to the collector (an escape). */
    if (vl_delim_starj_above(S, delim))
        S->escapes++;
    /* count the frames between the pending application and the delimiter
       (underflow frames apart) */
    uint32_t nframes = 0;
    size_t nvalues = 0, nlazy = 0;
    Value *above = fb + 2;
    for (;;) {
        Value *caller = above - above[-2].aux;
        if (caller == stop)
            break;
        const Proto *p = AS_CLOSURE(caller[-1])->proto;
        if (vl_contseg_is_underflow(S, p)) {
            nlazy++;
        } else {
            nvalues += count_live(p, above[-2].as.ptr);
            nframes++;
        }
        above = caller;
    }
    ContRun *run = vl_contseg_run(nframes, nvalues);
    Lazy local[8];
    Lazy *lazy = nlazy <= 8 ? local : vl_gc_alloc(nlazy * sizeof *lazy);
    Checkpoint *k = vl_gc_alloc(sizeof *k);
    k->callee = fb[1];
    k->arg = vl_object_tuple(fb + 2, nargs);
    /* fill frames top-down, storing them bottom-first; values are laid
       out bottom-first too */
    size_t vend = nvalues, li = nlazy;
    uint32_t f = nframes;
    above = fb + 2;
    for (;;) {
        Value *caller = above - above[-2].aux;
        if (caller == stop)
            break;
        Closure *c = AS_CLOSURE(caller[-1]);
        const Proto *p = c->proto;
        if (vl_contseg_is_underflow(S, p)) {
            lazy[--li] = (Lazy){vl_contseg_lazy(S, caller), f};
            above = caller;
            continue;
        }
        const Instr *rip = above[-2].as.ptr;
        uint32_t nruns;
        const LiveRun *l = vl_proto_live_set(p, rip, &nruns);
        uint32_t nl = live_count(l, nruns);
        vend -= nl;
        CapFrame *cf = &run->frames[--f];
        cf->closure = c;
        cf->ret_pc = (uint32_t)(rip - p->code);
        cf->delta = above[-2].aux;
        cf->first = (uint32_t)vend;
        cf->nlive = nl;
        size_t j = vend;
        uint32_t q = 0;
        for (int r = live_first(l, nruns); q < nruns;
             r = live_next(l, nruns, &q, r))
            run->values[j++] = capture_value(S, p, caller, r, now);
        above = caller;
    }
    /* the sequence, bottom-up: copied frames, the sequence of the
       underflow frame over them, ... */
    const ContSeg *seq = NULL;
    uint32_t pos = 0;
    for (size_t i = 0; i <= nlazy; i++) {
        uint32_t at = i < nlazy ? lazy[i].at : nframes;
        const ContSeg *ref = i < nlazy ? lazy[i].seq : NULL;
        if (at > pos && run->whole.run == NULL)     /* the first range */
            seq = vl_contseg_init(S, &run->whole, seq, run, pos, at - pos, ref,
                                  1);
        else
            seq = vl_contseg_make(S, seq, run, pos, at - pos, ref, 1);
        pos = at;
    }
    k->seq = seq;
    /* the delimiters inside the segment, and the firing one, leave the
       side stacks */
    if (cut)
        vl_delim_cut(S, delim);
    k->steps_at = now;
    k->nframes = vl_contseg_frames(k->seq);
    k->bytes = vl_contseg_bytes(k->nframes, vl_contseg_values(k->seq));
    return k;
}

Checkpoint *vl_cont_capture(VladState *S, size_t delim, Value *fb,
                            int nargs, int64_t now)
{
    return capture(S, delim, fb, nargs, now, 1);
}

Checkpoint *vl_cont_snapshot(VladState *S, size_t delim, Value *fb,
                             int nargs, int64_t now)
{
    return capture(S, delim, fb, nargs, now, 0);
}

/* ===== Reinstall ===== */

static size_t frame_slots(const CapFrame *cf)
{
    size_t n = cf->closure->proto->nregs;
    return cf->delta > n ? cf->delta : n;
}

/* Write frames [a, b) of 'run' from stack index '*at' up (the header of
   the first is in place), each with the header of the frame above it;
   '*at' becomes the base above the last.  'delimiters': re-establish
   theirs (reinstall_delimiter). */
static void place_frames(VladState *S, size_t *at, const ContRun *run,
                         uint32_t a, uint32_t b, int delimiters, int64_t now)
{
    size_t need = 2 + VL_STACK_SLACK;
    for (uint32_t f = a; f < b; f++)
        need += frame_slots(&run->frames[f]);
    vl_cont_reserve(S, *at, need);
    Value *base = S->stack + *at;
    for (uint32_t f = a; f < b; f++) {
        const CapFrame *cf = &run->frames[f];
        const Proto *p = cf->closure->proto;
        base[-1] = vl_obj(VT_CLOSURE, cf->closure);
        const Instr *rip = p->code + cf->ret_pc;
        uint32_t nruns, q = 0;
        const LiveRun *l = vl_proto_live_set(p, rip, &nruns);
        const Value *v = run->values + cf->first;
        for (int r = 0; r < p->nregs; r++)
            base[r] = UNDEF_VAL;
        for (int r = live_first(l, nruns); q < nruns;
             r = live_next(l, nruns, &q, r))
            base[r] = *v++;
        if (delimiters && vl_contseg_delimiter(S, p))
            vl_delim_reinstall(S, p, base, now);
        Value *next = base + cf->delta;
        next[-2] = vl_raw(0);
        next[-2].aux = cf->delta;
        next[-2].as.ptr = rip;
        base = next;
    }
    *at = (size_t)(base - S->stack);
}

/* Registers of an underflow frame: R0 its sequence, R1 the frames of its
   top range still to copy, R2.. the call block of the frame above. */
#define UNDERFLOW_BLOCK 2

/* The most slots one underflow copies (at least one frame). */
#define UNDERFLOW_CHUNK 128

/* Write the frames of 'seq' (no delimiter among them) at stack index
   '*at' (their header in place), and the header of the frame above them;
   '*at' becomes that frame's base.  One run of at most UNDERFLOW_CHUNK
   slots is copied at once; else an underflow frame stands for them. */
static void place_lazy(VladState *S, size_t *at, const ContSeg *seq)
{
    if (seq->below == NULL && seq->ref == NULL) {
        size_t slots = 0;
        uint32_t f = seq->first;
        while (f < seq->first + seq->count && slots <= UNDERFLOW_CHUNK)
            slots += frame_slots(&seq->run->frames[f++]);
        if (slots <= UNDERFLOW_CHUNK) {
            place_frames(S, at, seq->run, seq->first, f, 0, 0);
            return;
        }
    }
    vl_cont_reserve(S, *at, UNDERFLOW_BLOCK + 2 + VL_STACK_SLACK);
    Value *base = S->stack + *at;
    base[-1] = S->underflow_value;
    base[0] = vl_raw(0);
    base[0].as.ptr = seq;
    base[1] = vl_raw(seq->count);
    Value *next = base + UNDERFLOW_BLOCK + 2;
    next[-2] = vl_raw(0);
    next[-2].aux = UNDERFLOW_BLOCK + 2;
    next[-2].as.ptr = S->control[CTL_UNDERFLOW]->code + 1;
    *at = (size_t)(next - S->stack);
}

Value *vl_cont_reinstall(VladState *S, const Checkpoint *k, Value **base,
                         const Instr *ret_ip, int dest, int64_t now)
{
    vl_contseg_present(S, k);                   /* (spill=DIR) */
    size_t boff = (size_t)(*base - S->stack);
    size_t at = boff + (size_t)dest + 2;
    vl_cont_reserve(S, at, 3 + VL_STACK_SLACK);
    Value *b = S->stack + at;
    b[-2] = vl_raw(0);
    b[-2].aux = (uint32_t)dest + 2;
    b[-2].as.ptr = ret_ip;
    /* the segments whose ranges hold delimiters: the top one and those
       below it down to the last with one (refs never hold any) */
    const ContSeg *local[16];
    const ContSeg **spine = local;
    size_t n = 0, cap = 16;
    const ContSeg *s = k->seq;
    for (; s != NULL && s->hooks; s = s->below) {
        spine = vl_gc_grow(spine, n, &cap, sizeof *spine);
        spine[n++] = s;
    }
    /* bottom-up: each stretch of plain frames becomes an underflow frame,
       delimiters and the frames between them are copied */
    const ContSeg *lazy = s;
    while (n-- > 0) {
        s = spine[n];
        if (s->hook_lo >= 0) {
            uint32_t lo = (uint32_t)s->hook_lo, hi = (uint32_t)s->hook_hi;
            lazy = vl_contseg_make(S, lazy, s->run, s->first, lo - s->first,
                                   NULL, 0);
            if (lazy != NULL)
                place_lazy(S, &at, lazy);
            place_frames(S, &at, s->run, lo, hi + 1, 1, now);
            lazy = vl_contseg_make(S, NULL, s->run, hi + 1,
                                   s->first + s->count - hi - 1, NULL, 0);
        } else {
            lazy = vl_contseg_make(S, lazy, s->run, s->first, s->count,
                                   NULL, 0);
        }
        lazy = vl_contseg_cat(S, lazy, s->ref);
    }
    if (lazy != NULL)
        place_lazy(S, &at, lazy);
    vl_cont_reserve(S, at, 1 + VL_STACK_SLACK);
    *base = S->stack + boff;
    Value *fb = S->stack + at - 2;
    fb[1] = k->callee;
    fb[2] = k->arg;
    return fb;
}

/* ===== Underflow ===== */

Value *vl_cont_underflow(VladState *S, Value *ubase)
{
    size_t uoff = (size_t)(ubase - S->stack);
    const ContSeg *h = ubase[0].as.ptr;
    uint32_t cnt = (uint32_t)ubase[1].as.i;
    /* the frames: b ++ h, with h's range on top; refs on top are opened
       (each step takes one level of nesting; no recursion) */
    const ContSeg *b = NULL;
    for (;;) {
        if (h->ref != NULL) {
            b = vl_contseg_cat(S, b, h->below);
            b = vl_contseg_make(S, b, h->run, h->first, h->count, NULL, 0);
            h = h->ref;
            cnt = h->count;
            continue;
        }
        if (cnt > 0)
            break;
        h = vl_contseg_cat(S, b, h->below);     /* (never: a range is not
                                               empty) */
        b = NULL;
        if (h == NULL)
            return S->stack + uoff;
        cnt = h->count;
    }
    /* copy the top of the range, [c, top) */
    uint32_t top = h->first + cnt, c = top;
    size_t slots = 0;
    do {
        c--;
        slots += frame_slots(&h->run->frames[c]);
    } while (c > h->first && slots < UNDERFLOW_CHUNK);
    const ContSeg *rest;
    if (c > h->first)
        rest = b == NULL ? h
                         : vl_contseg_make(S, vl_contseg_cat(S, b, h->below),
                                           h->run, h->first, c - h->first,
                                           NULL, 0);
    else
        rest = vl_contseg_cat(S, b, h->below);
    size_t at = uoff;
    if (rest != NULL) {             /* the underflow frame stays */
        ubase[0].as.ptr = rest;
        ubase[1] = vl_raw(rest == h ? c - h->first : rest->count);
        at += UNDERFLOW_BLOCK + 2;
        Value *next = S->stack + at;
        next[-2] = vl_raw(0);
        next[-2].aux = UNDERFLOW_BLOCK + 2;
        next[-2].as.ptr = S->control[CTL_UNDERFLOW]->code + 1;
    }                               /* else the frames replace it */
    place_frames(S, &at, h->run, c, top, 0, 0);
    return S->stack + at;
}
