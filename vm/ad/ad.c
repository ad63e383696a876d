/*
 * vm/ad/ad.c -- forward and reverse mode (see vm/ad/ad.h for the invariants)
 *
 * Lifting.  vl_ad_binary / vl_ad_unary pick the innermost tag among their
 * operands, split each operand into its primal and its perturbation (dual)
 * or tape identity at that tag, compute the primal result by recursion and
 * the partial derivatives from the rule table below, and build a dual
 * (tangent = sum of partial * operand tangent) or a tape node (parents
 * with partials).  Partials are reals computed with the same lifted
 * operations, so they carry outer perturbations: forward-over-reverse and
 * reverse-over-reverse need nothing more.
 *
 * Derivative rules (one place, read by both modes):
 *   +: 1, 1        -: 1, -1         *: b, a        /: 1/b, -a/b^2
 *   atan(y,x): x/(x^2+y^2), -y/(x^2+y^2)
 *   expt(b,e): e*b^(e-1), b^e*log(b) (0 when b = 0)
 *   modulo(a,b): 1, -floor(a/b)
 *   sqrt: 1/(2 sqrt x)  exp: exp x  log: 1/x  sin: cos x  cos: -sin x
 *   floor: 0
 */
#include "config.h"
#include "vm/ad/ad.h"
#include "vm/ad/adfast.h"
#include "vm/ad/adsweep.h"
#include "vm/core/contseg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vm/core/delimregs.h"
#include "vm/core/except.h"
#include "vm/core/print.h"
#include "vm/ad/walk.h"

/* ===== Tapes that end ===== */

int vl_ad_tape_private(const VladState *S, const AdFrame *f)
{
    return f->reverse && f->escapes == S->escapes;
}

/* The bytes of the slots of a chunk of capacity cap. */
static size_t chunk_bytes(uint32_t cap)
{
    return VL_TAPE_CHUNK_SLOTS(cap) * sizeof(TapeSlot);
}

void vl_ad_release_tape(VladState *S, const AdFrame *f)
{
    if (!vl_ad_tape_private(S, f)) {
        /* left to the collector: from now on its chunks count as any
           other memory in scheduling collections (vm/core/gc.c) */
        for (TapeChunk *c = f->chunk; c != NULL && c->managed; c = c->prev) {
            c->managed = 0;
            vl_gc_unmanage(chunk_bytes(c->cap));
        }
        return;
    }
    for (TapeChunk *c = f->chunk, *prev; c != NULL; c = prev) {
        prev = c->prev;
        if (c->managed)
            vl_gc_free_managed(c->slots, chunk_bytes(c->cap));
        else
            vl_gc_free(c->slots);
        if (c->exts != NULL)
            vl_gc_free(c->exts);
        vl_gc_free(c);
    }
}

/* Rank of a tag: 1 + its position among active invocations, 0 if it is
   not active. */
static size_t rank_of(VladState *S, int64_t tag)
{
    for (size_t k = S->nad; k-- > 0;)
        if (S->ad[k].tag == tag)
            return k + 1;
    return 0;
}

static inline AdFrame *frame_of(VladState *S, int64_t tag)
{
    if (S->nad && S->ad[S->nad - 1].tag == tag)
        return &S->ad[S->nad - 1];
    for (size_t k = S->nad; k-- > 0;)
        if (S->ad[k].tag == tag)
            return &S->ad[k];
    return NULL;
}

/* ===== Building reals ===== */

/* Whether dual v is a PlainDual (vm/core/object.h). */
static int plain_dual(Value v)
{
    return (v.aux & VL_AUX_BITS) != 0;
}

static int64_t dual_tag(Value v)
{
    return plain_dual(v) ? (int64_t)(v.aux & VL_AUX_BITS)
                         : ((const Dual *)v.as.obj)->tag;
}

static Value dual_primal(Value v)
{
    return plain_dual(v) ? vl_num(((const PlainDual *)v.as.obj)->primal)
                         : ((const Dual *)v.as.obj)->primal;
}

static Value dual_tangent(Value v)
{
    return plain_dual(v) ? vl_num(((const PlainDual *)v.as.obj)->tangent)
                         : ((const Dual *)v.as.obj)->tangent;
}

static int64_t tag_of(Value v)
{
    if (v.tag == VT_DUAL)
        return dual_tag(v);
    if (v.tag == VT_TAPE)
        return ((TapeChunk *)v.as.obj)->tag;
    return -1;
}

/* Real v marked active (vm/core/value.h): the results of j* and *j, and the
   parts of the suspended invocations of a checkpoint, which the walks
   keep as reals of the state whatever they depend on. */
static inline Value marked(Value v)
{
    return vl_real_mark(v, 1);
}

/* The ordinal in its chunk of tape node v. */
static inline uint32_t ordinal_of(Value v)
{
    return v.aux & VL_AUX_BITS;
}


static Value make_dual(VladState *S, int64_t tag, Value primal,
                       Value tangent)
{
    if (primal.tag == VT_NUM && tangent.tag == VT_NUM
        && tag <= VL_PLAIN_DUAL_MAX_TAG) {
        PlainDual *p = vl_ad_new_plain_dual(S);
        p->primal = primal.as.num;
        p->tangent = tangent.as.num;
        Value v = vl_obj(VT_DUAL, p);
        v.aux = (uint32_t)tag;
        return v;
    }
    Dual *d = vl_gc_alloc(sizeof *d);
    d->primal = primal;
    d->tangent = tangent;
    d->tag = tag;
    return vl_obj(VT_DUAL, d);
}

static const TapeSlot *slot_of(Value v)
{
    return &((const TapeChunk *)v.as.obj)->slots[ordinal_of(v)];
}

/* The record of general node j of chunk c. */
static const TapeExt *ext_of(const TapeChunk *c, uint32_t j)
{
    return c->exts[j];
}

/* The plain primal of node i of the tape that chunk c ends (i is on the
   prefix c sees: a parent of one of c's nodes). */
static double primal_at_index(void *c, uint32_t i)
{
    const TapeChunk *x = c;
    if (VL_UNLIKELY(i >= x->base + x->used))    /* not a parent (a saved
                                                   tape forged so) */
        return 0;
    while (i < x->base)
        x = x->prev;
    return x->slots[i - x->base].primal;
}

/* The parents and partials of compact node t of chunk c (a leaf: none;
   a slot holding a partial: -1). */
static int slot_partials(const TapeChunk *c, const TapeSlot *t, uint32_t *p,
                         double *d)
{
    return vl_tape_decode(t, p, d, primal_at_index, (void *)c);
}

static uint32_t index_of(Value v)
{
    return ((const TapeChunk *)v.as.obj)->base + ordinal_of(v);
}

static int is_general(const TapeSlot *t)
{
    return t->parent == VL_TAPE_GENERAL;
}

/* The VL_TAPE_CONT slots among slots[0 .. n) of c. */
static uint32_t conts_upto(const TapeChunk *c, uint32_t n)
{
    if (n == c->used)
        return c->conts;
    uint32_t k = 0;
    for (uint32_t j = 0; j < n; j++)
        k += c->slots[j].parent == VL_TAPE_CONT;
    return k;
}

uint64_t vl_ad_tape_nodes(const TapeChunk *chunk, uint32_t n)
{
    if (chunk == NULL)
        return 0;
    return (uint64_t)chunk->base + n - chunk->conts_before
           - conts_upto(chunk, n);
}

/* Start a new chunk at the end of f's tape: the current one is full or is
   shared with another continuation. */
static void new_chunk(VladState *S, AdFrame *f)
{
    TapeChunk *c = f->chunk;
    TapeChunk *nc = vl_gc_alloc(sizeof *nc);
    /* the largest power of two at most a quarter of the tape so far and
       twice the chunk it follows, between 16 and 8192 slots: the unused
       end of the newest chunk is at most a fifth of the tape's bytes
       and at most what the tape's last piece recorded (a piece resumed
       from a checkpoint starts a chunk of 16 slots, and a long tape
       before it does not make it start a big one), and chunks come in
       few sizes, which the collector reuses well */
    uint32_t cap = 16;
    if (c != NULL && c->used == f->n) {
        uint32_t limit = (c->base + f->n) / 4;
        if (limit > 2 * c->cap)
            limit = 2 * c->cap;
        while (cap * 2 <= limit && cap < 8192)
            cap *= 2;
    }
    /* cap slots for nodes to start in, and two spare ones for the
       partials of the last (vl_ad_append) */
    nc->slots = vl_gc_alloc_managed(chunk_bytes(cap));
    nc->managed = 1;
    nc->prev = c;
    nc->prev_n = f->n;
    nc->base = c != NULL ? c->base + f->n : 0;
    nc->conts_before = c != NULL ? c->conts_before + conts_upto(c, f->n) : 0;
    nc->tag = f->tag;
    nc->compact_tag = f->tag;
    nc->cap = cap;
    nc->general = c != NULL && c->general;
    nc->comms_any = c != NULL && c->comms_any;
    S->tape_bytes += chunk_bytes(cap) + sizeof *nc;
    if (nc->base > VL_TAPE_INDEX_MASK - 4 - cap)
        vl_except_runtime(S, VLAD_ERR_MEMORY,
                          "*j: the tape is full (%u operations)",
                          (unsigned)nc->base);
    f->chunk = nc;
    f->n = 0;
}

/* A node of f's tape with a plain primal and plain partials, which
   follow 'rule' (vm/ad/tape.h). */
static Value compact_node(VladState *S, AdFrame *f, double primal,
                          uint32_t p0, double d0, uint32_t p1, double d1,
                          int rule)
{
    Value v;
    if (!vl_ad_append(S, f, primal, p0, d0, p1, d1, rule, 0, &v)) {
        new_chunk(S, f);
        (void)vl_ad_append(S, f, primal, p0, d0, p1, d1, rule, 0, &v);
    }
    return v;
}

/* A node of tape 'tag' with parents given as tape values, whose partials
   follow 'rule' when they are plain (it decides the slots the node takes
   in any case, vm/ad/ad.h). */
static Value make_node(VladState *S, int64_t tag, Value primal, int n,
                       const Value *parents, const Value *partials,
                       int rule)
{
    AdFrame *f = frame_of(S, tag);
    if (f == NULL)          /* its invocation has ended: a constant */
        return primal;
    int plain = primal.tag == VT_NUM;
    for (int k = 0; k < n; k++)
        plain &= partials[k].tag == VT_NUM;
    if (plain)
        return compact_node(S, f, primal.as.num,
                            n > 0 ? index_of(parents[0]) : VL_TAPE_NONE,
                            n > 0 ? partials[0].as.num : 0,
                            n > 1 ? index_of(parents[1]) : VL_TAPE_NONE,
                            n > 1 ? partials[1].as.num : 0, rule);
    TapeExt *e = vl_gc_alloc(sizeof *e);
    e->primal = primal;
    e->nparents = (uint32_t)n;
    for (int k = 0; k < n; k++) {
        e->parents[k] = index_of(parents[k]);
        e->partials[k] = partials[k];
    }
    TapeChunk *c = f->chunk;
    if (c == NULL || c->used != f->n || c->used >= c->cap) {
        new_chunk(S, f);
        c = f->chunk;
    }
    if (c->exts == NULL) {
        size_t bytes = VL_TAPE_CHUNK_SLOTS(c->cap) * sizeof(TapeExt *);
        c->exts = vl_gc_alloc(bytes);
        S->tape_bytes += bytes;
    }
    uint32_t j = f->n;
    c->exts[j] = e;
    c->general = 1;
    c->compact_tag = 0;
    S->tape_bytes += sizeof *e;
    S->tape_nodes++;
    TapeSlot *t = &c->slots[j];
    t->primal = vl_object_primal(primal);
    t->parent = VL_TAPE_GENERAL;
    t->parent1 = VL_TAPE_NONE;
    /* the slots a compact node would take for its partials, unused: a
       tape has the same layout whether or not its reals carry other
       perturbations, so that the tape of a *j suspended in a checkpoint
       and the tape in its (co)tangent, made by another run, correspond
       slot by slot (through_tape) */
    uint32_t slots = vl_tape_node_slots(
        rule, n, n > 0 ? vl_object_primal(partials[0]) : 0);
    for (uint32_t k = 1; k < slots; k++)
        t[k] = (TapeSlot){0, VL_TAPE_CONT, 0};
    c->conts += slots - 1;
    c->used = f->n = j + slots;
    Value v = vl_obj(VT_TAPE, c);
    v.aux = j;
    return v;
}

/* ===== Lifted arithmetic ===== */

/* The product of AD's own bookkeeping (a partial derivative times a
   tangent or a sensitivity), on doubles and, lifted, on any real: an exact
   zero factor makes it exactly zero whatever the other is (0 * inf and
   0 * NaN are not NaN), and that zero is -0, which adding leaves every
   sum unchanged: a term with a zero factor is as if it were not there.
   Sums of such terms start from +0.  So the value of a derivative is the
   same whether its reals carry outer perturbations or not (and whether
   checkpoint-*j splits the computation or not): see doc/reference.md. */
enum { AD_MULZ = IN__COUNT };



static Value add(VladState *S, Value a, Value b)
{
    return vl_ad_binary(S, IN_ADD, a, b);
}

static Value mul_z(VladState *S, Value a, Value b)
{
    return vl_ad_binary(S, AD_MULZ, a, b);
}

/* +0 + v: v itself unless its innermost primal is -0 */
static Value plus_zero(VladState *S, Value v)
{
    if (v.tag == VT_NUM)
        return vl_num(0.0 + v.as.num);
    double p = vl_object_primal(v);
    return p == 0 && signbit(p) ? add(S, vl_num(0), v) : v;
}

/* Choose the innermost tag among the operands. */
static int64_t pick_tag(VladState *S, Value a, Value b, int *is_a, int *is_b)
{
    int64_t ta = tag_of(a), tb = tag_of(b);
    int64_t t;
    if (ta < 0)
        t = tb;
    else if (tb < 0 || ta == tb)
        t = ta;
    else {
        size_t ra = rank_of(S, ta), rb = rank_of(S, tb);
        t = ra > rb || (ra == rb && ta > tb) ? ta : tb;
    }
    *is_a = ta == t;
    *is_b = tb == t;
    return t;
}

/* The primal of 'v' at the chosen tag (the value itself when 'v' does not
   carry that tag). */
static Value primal_at(Value v, int at)
{
    if (!at)
        return v;
    if (v.tag == VT_DUAL)
        return dual_primal(v);
    const TapeSlot *t = slot_of(v);
    return is_general(t) ? ext_of(v.as.obj, ordinal_of(v))->primal
                         : vl_num(vl_tape_primal(v));
}

/* Build the result at tag 't' from primal 'y', operands and partials. */
static Value lift_result(VladState *S, int64_t t, int reverse, Value y,
                         Value a, int is_a, Value da, Value b, int is_b,
                         Value db, int rule)
{
    if (!reverse) {
        /* +0 + mulz(da, a') + mulz(db, b'), as vl_ad_binary_fast */
        Value tan;
        if (is_a && is_b)
            tan = add(S, mul_z(S, da, dual_tangent(a)),
                      mul_z(S, db, dual_tangent(b)));
        else
            tan = is_a ? mul_z(S, da, dual_tangent(a))
                       : mul_z(S, db, dual_tangent(b));
        return make_dual(S, t, y, plus_zero(S, tan));
    }
    Value parents[2], partials[2];
    int n = 0;
    if (is_a) {
        parents[n] = a;
        partials[n++] = da;
    }
    if (is_b) {
        parents[n] = b;
        partials[n++] = db;
    }
    return make_node(S, t, y, n, parents, partials, rule);
}

int vl_ad_binary_fast(VladState *S, int op, Value a, Value b, Value *out)
{
    if (a.tag == VT_TAPE || b.tag == VT_TAPE) {
        int64_t tag = tag_of(a.tag == VT_TAPE ? a : b);
        VlAdNode n;
        if (!vl_ad_node_binary(op, a, b, tag, &n))
            return 0;
        AdFrame *f = frame_of(S, tag);
        *out = vl_real_mark(f == NULL ? vl_num(n.y)
                                      : compact_node(S, f, n.y, n.p0, n.d0,
                                                     n.p1, n.d1, n.rule),
                            vl_ad_mark2(a, b) != 0);
        return 1;
    }
    int64_t tag;
    double r, t;
    if (!vl_ad_dual_binary(op, a, b, &tag, &r, &t))
        return 0;
    *out = vl_real_mark(make_dual(S, tag, vl_num(r), vl_num(t)),
                        vl_ad_mark2(a, b) != 0);
    return 1;
}

/* The general cases of vl_ad_binary and vl_ad_unary recurse on the C
   stack once per level of nested perturbations (an operand whose primal
   and tangent carry inner tags): stop cleanly before the stack ends. */
static void check_stack(VladState *S)
{
    if (VL_UNLIKELY(vl_cstack_exhausted(&S->cstack)))
        vl_except_runtime(S, VLAD_ERR_MEMORY, "derivatives nested too "
                          "deeply (the C stack is exhausted at depth %zu)",
                          S->nad);
}

/* The walks of j*, *j and checkpoint-*j through a checkpoint's suspended
   duals and tapes, and the relabeling of a resumed one (fresh tags),
   recurse once per suspended level (a checkpoint taken 10^5 nested j*
   deep): the same guard. */
static void check_walk_stack(VladState *S)
{
    if (VL_UNLIKELY(vl_cstack_exhausted(&S->cstack)))
        vl_except_runtime(S, VLAD_ERR_MEMORY, "derivatives nested too "
                          "deeply (the C stack is exhausted walking the "
                          "derivatives a checkpoint holds suspended)");
}

static Value binary_general(VladState *S, int op, Value a, Value b);

Value vl_ad_binary(VladState *S, int op, Value a, Value b)
{
    if (a.tag == VT_NUM && b.tag == VT_NUM)
        return vl_num_marked(vl_ad_plain2(op, a.as.num, b.as.num),
                             a.aux | b.aux);
    Value r;
    if (vl_ad_binary_fast(S, op, a, b, &r))
        return r;
    return vl_real_mark(binary_general(S, op, a, b),
                        vl_real_marked(a) | vl_real_marked(b));
}

/* The lifted reading of the operations of vm/core/math1.h's and vm/core/math2.h's
   derivatives, for the general paths below: on VLAD reals, by the lifted
   operations themselves, so that a derivative is itself differentiable
   (nested derivatives). */
#define VLM_K(c) vl_num(c)
#define VLM_ADD(a, b) vl_ad_binary(S, IN_ADD, (a), (b))
#define VLM_SUB(a, b) vl_ad_binary(S, IN_SUB, (a), (b))
#define VLM_MUL(a, b) vl_ad_binary(S, IN_MUL, (a), (b))
#define VLM_DIV(a, b) vl_ad_binary(S, IN_DIV, (a), (b))
#define VLM_NEG(a) vl_ad_binary(S, IN_SUB, vl_num(0), (a))
#define VLM_FN(ID, a) vl_ad_unary(S, IN_##ID, (a))
#define VLM_FN2(ID, a, b) vl_ad_binary(S, IN_##ID, (a), (b))
#define VLM_IF_NONZERO(g, e) (vl_object_primal(g) == 0 ? vl_num(0) : (e))
#define VLM_IF(p, g, h, e, f) \
    (p(vl_object_primal(g), vl_object_primal(h)) ? (e) : (f))
#define VLM_ONE_MINUS_SQ(a) lifted_one_minus_sq(S, (a))
#define VLM_SECH2(x, y) lifted_sech2(S, (x), (y))
#define VLM_SCALE(a, b) \
    vl_num(vl_math_scale(vl_object_primal(a), vl_object_primal(b)))
#define VLM_SUMSQ(a, b) lifted_sumsq(S, (a), (b))

/* The operations of the tables that use an operand twice or choose a
   formula by a primal, lifted: the same operations, in the same order,
   as their plain readings (vm/core/math1.h, vm/core/math2.h), so that the primal
   of a lifted derivative is the plain one bit for bit; what they compute
   from primals (an error term, a sign, a scale) is a constant here. */
static Value lifted_one_minus_sq(VladState *S, Value a)
{
    double err = vl_math_sq_err(vl_object_primal(a));
    Value d = vl_ad_binary(S, IN_MUL, a, a);
    d = vl_ad_binary(S, IN_SUB, vl_num(1), d);
    return vl_ad_binary(S, IN_SUB, d, vl_num(err));
}

static Value lifted_sech2(VladState *S, Value x, Value y)
{
    double px = vl_object_primal(x);
    if (fabs(px) < 20) {
        Value t = vl_ad_unary(S, IN_COSH, x);
        t = vl_ad_binary(S, IN_DIV, vl_num(1), t);
        return vl_ad_binary(S, IN_MUL, t, t);
    }
    double sign = px < 0 ? -1 : 1;      /* -|x| is -sign x, |y| sign y */
    Value v = vl_ad_binary(S, IN_MUL, vl_num(-sign), x);
    v = vl_ad_unary(S, IN_EXP, v);
    Value s = vl_ad_binary(S, IN_MUL, vl_num(sign), y);
    s = vl_ad_binary(S, IN_ADD, vl_num(1), s);
    s = vl_ad_binary(S, IN_MUL, v, s);
    return vl_ad_binary(S, IN_MUL, s, s);
}

static Value lifted_sumsq(VladState *S, Value a, Value b)
{
    Value s = VLM_SCALE(a, b);
    Value as = vl_ad_binary(S, IN_MUL, a, s);
    Value bs = vl_ad_binary(S, IN_MUL, b, s);
    Value q = vl_ad_binary(S, IN_MUL, as, as);
    return vl_ad_binary(S, IN_ADD, q, vl_ad_binary(S, IN_MUL, bs, bs));
}

static Value binary_general(VladState *S, int op, Value a, Value b)
{
    check_stack(S);
    int is_a, is_b;
    int64_t t = pick_tag(S, a, b, &is_a, &is_b);
    int reverse = (is_a ? a : b).tag == VT_TAPE;
    Value ap = primal_at(a, is_a), bp = primal_at(b, is_b);
    Value y = vl_ad_binary(S, op, ap, bp);
    Value da = vl_num(0), db = vl_num(0);
    /* vm/core/math2.h's partials, lifted (the lifted reading above): each
       only for an argument that is active at this level */
#define VLM_A ap
#define VLM_B bp
#define VLM_VAL y
#define VLM_T sh
#define VL_MATH2_GENERAL_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) \
    case IN_##ID: {                                              \
        Value sh = (T);                                          \
        (void)sh;                                                \
        if (is_a)                                                \
            da = (DA);                                           \
        if (is_b)                                                \
            db = (DB);                                           \
        break;                                                   \
    }
    switch (op == AD_MULZ ? IN_MUL : op) {
    VL_MATH2(VL_MATH2_GENERAL_)
    default:
        da = db = vl_num(NAN);  /* not a binary operation */
        break;
    }
#undef VL_MATH2_GENERAL_
#undef VLM_A
#undef VLM_B
#undef VLM_VAL
#undef VLM_T
    return lift_result(S, t, reverse, y, a, is_a, da, b, is_b, db,
                       vl_tape_rule2(op, is_a, is_b));
}

Value vl_ad_lift(VladState *S, int n, const Value *args, VlAdRule rule,
                 void *ctx)
{
    Value a = args[0], b = n > 1 ? args[1] : vl_num(0);
    int is_a, is_b;
    int64_t t = pick_tag(S, a, b, &is_a, &is_b);
    if (t < 0)
        return rule(S, ctx, -1, args);
    int reverse = (is_a ? a : b).tag == VT_TAPE;
    Value p[2] = {primal_at(a, is_a), primal_at(b, is_b)};
    Value y = rule(S, ctx, -1, p);
    Value da = is_a ? rule(S, ctx, 0, p) : vl_num(0);
    Value db = n > 1 && is_b ? rule(S, ctx, 1, p) : vl_num(0);
    return lift_result(S, t, reverse, y, a, is_a, da, b, is_b && n > 1, db,
                       VL_RULE_EXPLICIT);
}

static Value unary_general(VladState *S, int op, Value a);

Value vl_ad_unary(VladState *S, int op, Value a)
{
    if (a.tag == VT_NUM)
        return vl_num_marked(vl_inline_math1(op, a.as.num), a.aux);
    return vl_real_mark(unary_general(S, op, a), vl_real_marked(a));
}

static Value unary_general(VladState *S, int op, Value a)
{
    double x = 0, dx = 0;
    int64_t t = -1;
    if (a.tag == VT_TAPE ? !is_general(slot_of(a))
                         : vl_ad_dual_operand(a, &t, &x, &dx)) {
        x = a.tag == VT_TAPE ? slot_of(a)->primal : x;
        double y, d;
        vl_ad_partial1(op, x, &y, &d);
        if (a.tag == VT_DUAL)
            return make_dual(S, t, vl_num(y),
                             vl_num(0.0 + vl_ad_mulz(d, dx)));
        AdFrame *f = frame_of(S, tag_of(a));
        return f == NULL ? vl_num(y)
                         : compact_node(S, f, y, index_of(a), d,
                                        VL_TAPE_NONE, 0, vl_tape_rule1(op));
    }
    check_stack(S);
    t = tag_of(a);
    int reverse = a.tag == VT_TAPE;
    Value ap = primal_at(a, 1);
    Value y = vl_ad_unary(S, op, ap);
    Value d;
    /* vm/core/math1.h's derivative, lifted (the lifted reading above) */
#define VLM_ARG ap
#define VLM_VAL y
#define VL_MATH1_GENERAL_(ID, NAME, FN, DERIV) \
    case IN_##ID:                                \
        d = (DERIV);                             \
        break;
    switch (op) {
    VL_MATH1(VL_MATH1_GENERAL_)
    default:
        d = vl_num(NAN);    /* not a unary math function */
        break;
    }
#undef VL_MATH1_GENERAL_
#undef VLM_ARG
#undef VLM_VAL
    return lift_result(S, t, reverse, y, a, 1, d, NIL_VAL, 0, NIL_VAL,
                       vl_tape_rule1(op));
}

#include "vm/ad/mathundef.h"      /* the end of the lifted reading */

/* ===== Fresh tags (vm/ad/ad.h) ===== */

/* The j* and *j frames of k: among its delimiter frames, which the
   segments of its sequence that hold some name (the same ones a
   reinstall copies at once): fn(S, ud, run, f) for each. */
static void each_ad_frame(VladState *S, const Checkpoint *k,
                          void (*fn)(VladState *, void *, const ContRun *,
                                     uint32_t),
                          void *ud)
{
    if (k->finished)
        return;
    for (const ContSeg *s = k->seq; s != NULL && s->hooks; s = s->below) {
        if (s->hook_lo < 0)
            continue;
        for (uint32_t f = (uint32_t)s->hook_lo; f <= (uint32_t)s->hook_hi;
             f++) {
            const Proto *p = s->run->frames[f].closure->proto;
            if (p->kind == PK_JSTAR || p->kind == PK_STARJ)
                fn(S, ud, s->run, f);
        }
    }
}

/* Fresh tags: the relabeling being made, and the tag asked for. */
typedef struct Fresh {
    VlRelabel *rl;
    int64_t tag;
} Fresh;

static void fresh_find(VladState *S, void *ud, const ContRun *run,
                       uint32_t f)
{
    Fresh *fr = ud;
    const Proto *p = run->frames[f].closure->proto;
    int64_t t = vl_contseg_run_reg(run, f, p->ctlreg + VL_AD_TAG)->as.i;
    if (fr->tag >= 0 ? t != fr->tag : !vl_ad_active(S, t))
        return;
    if (fr->rl == NULL)
        fr->rl = vl_ad_relabel_new();
    vl_ad_relabel_add(fr->rl, t, ++S->next_tag);
}

/* In the relabeled copy (whose runs are its own): the frame's raw tag,
   and a *j's raw tape end. */
static void fresh_patch(VladState *S, void *ud, const ContRun *run,
                        uint32_t f)
{
    Fresh *fr = ud;
    const Proto *p = run->frames[f].closure->proto;
    Value *t = vl_contseg_run_reg(run, f, p->ctlreg + VL_AD_TAG);
    t->as.i = vl_ad_relabel_tag(fr->rl, t->as.i);
    if (p->kind != PK_STARJ)
        return;
    Value *end = vl_contseg_run_reg(run, f, p->ctlreg + VL_STARJ_TAPE_END);
    if (end->tag == VT_RAW && end->as.ptr != NULL)
        end->as.ptr = vl_ad_relabel_tape(S, fr->rl, (TapeChunk *)end->as.ptr);
}

const Checkpoint *vl_ad_fresh_tags(VladState *S, const Checkpoint *k,
                                   int64_t tag)
{
    vl_contseg_present(S, k);                   /* (spill=DIR) */
    Fresh fr = {NULL, tag};
    each_ad_frame(S, k, fresh_find, &fr);
    if (fr.rl == NULL)
        return k;
    /* the walk relabels the reals and tapes of a copy of k (flat: its run
       is its own, vm/ad/walk.c); its frames' raw tags and tape ends follow */
    Checkpoint *nk = AS_CKPT(vl_ad_relabel(S, fr.rl,
                                           vl_obj(VT_CKPT, (void *)k)));
    each_ad_frame(S, nk, fresh_patch, &fr);
    return nk;
}

/* ===== j* ===== */

typedef struct TagCtx {
    int64_t tag;
    VlSweep *sw;            /* *j: plain sensitivities (vm/ad/adsweep.c), or */
    Value *sens;            /* any sensitivities, by node index */
    int nonplain;           /* a cotangent leaf that is not a plain real */
    uint32_t count;
    int active_only;        /* tapify: only reals marked active */
    struct TapeCopy *copies;    /* suspended tapes copied in this walk */
    size_t ncopies, copies_cap;
    const char *who, *what;     /* a zip: the operator, the argument */
} TagCtx;

/* The walks of this file, each with its own memo of tape copies. */
static Value ad_map(VladState *S, Value v, WalkLeaf leaf, TagCtx *c)
{
    c->ncopies = 0;
    return vl_walk_map(S, v, leaf, c);
}

static Value ad_zip(VladState *S, Value a, Value b, WalkLeaf leaf,
                    TagCtx *c, const char *who, const char *what)
{
    c->ncopies = 0;
    c->who = who;
    c->what = what;
    return vl_walk_zip(S, a, b, leaf, c, who, what);
}

/* A leaf that is a dual of another, suspended invocation (a checkpoint
   taken inside j* holds such values) keeps that perturbation outermost,
   so that it still ranks first when the inner invocation resumes: the
   walk goes through it to its primal and its tangent, both reals of the
   state.  Its (co)tangent has the same form: a dual of the same tag whose
   parts are the (co)tangents of the parts (a plain real r stands for the
   dual (r, 0)). */
static int suspended_dual(VladState *S, Value v, int64_t tag)
{
    return v.tag == VT_DUAL && dual_tag(v) != tag
           && rank_of(S, dual_tag(v)) == 0;
}

/* The part of the (co)tangent 'bar' that goes with the primal (tangent
   = 0) or the tangent of a suspended dual.  Its tag need not be the
   dual's (two runs of one computation give their j* different tags); a
   dual of an active invocation is a perturbed real, not a pair. */
static Value part_of(VladState *S, Value bar, int tangent)
{
    if (bar.tag == VT_DUAL && rank_of(S, dual_tag(bar)) == 0)
        return tangent ? dual_tangent(bar) : dual_primal(bar);
    return tangent ? vl_num(0) : bar;
}

static Value through_dual(VladState *S, Value y, Value bar, WalkLeaf leaf,
                          void *ud)
{
    check_walk_stack(S);     /* the leaf recurses into nested duals */
    Value p = leaf(S, marked(dual_primal(y)), part_of(S, bar, 0), ud);
    Value q = leaf(S, marked(dual_tangent(y)), part_of(S, bar, 1), ud);
    return vl_real_mark(make_dual(S, dual_tag(y), p, q), vl_real_marked(y));
}

/* A leaf that is a node of a suspended *j's tape: a checkpoint taken
   inside a *j holds that tape (the *j frame's last node, vm/core/cont.c, and
   the nodes in its registers).  Every primal and partial recorded on it
   is a real of the state, so the walk maps the tape to a copy of the same
   tag and the same layout (a node keeps its tape index, so parents stay
   as they are) whose nodes are general, each part mapped by the leaf.
   A node value (chunk, k) sees slots 0..k of its chunk and the prefix of
   the tape before it; only what the state's values see is copied (a
   resume may have extended a chunk in place since: those nodes are not
   the state's), and a chunk copied for one value is extended for another
   that sees more of it.  A chunk is copied once per walk, so all the
   values of the state that point into one tape point into one copy, and
   the copy of the frame's last node is where the resumed *j goes on
   recording.  The (co)tangent of such a node is a node of a tape of the
   same layout whose parts are the (co)tangents of the parts.  The walk
   pairs slots by tape index (two runs may cut their tapes into chunks
   differently); where both tapes have a slot it must record the same
   parents, else the (co)tangent comes from another computation (a shape
   error).  A slot the (co)tangent's tape does not have, and every part of
   a (co)tangent that is not a suspended tape node (such as a plain 0),
   count as 0. */
static int suspended_tape(VladState *S, Value v, int64_t tag)
{
    return v.tag == VT_TAPE && tag_of(v) != tag
           && rank_of(S, tag_of(v)) == 0;
}

typedef struct TapeCopy {
    const TapeChunk *a;         /* the chunk copied */
    WalkLeaf leaf;
    TapeChunk *copy;
} TapeCopy;

/* The part of a tape that a node value sees: chunk c's slots [0, limit),
   oldest chunk first in a span list. */
typedef struct TapeSpan {
    const TapeChunk *c;
    uint32_t limit;
} TapeSpan;

static TapeChunk *copied(const TagCtx *c, const TapeChunk *a, WalkLeaf leaf)
{
    for (size_t k = c->ncopies; k-- > 0;)
        if (c->copies[k].a == a && c->copies[k].leaf == leaf)
            return c->copies[k].copy;
    return NULL;
}

/* The spans that node v sees, oldest first; their number in *n. */
static TapeSpan *spans_of(Value v, size_t *n)
{
    size_t k = 0;
    for (const TapeChunk *x = v.as.obj; x != NULL; x = x->prev)
        k++;
    TapeSpan *s = vl_gc_alloc(k * sizeof *s);      /* holds pointers */
    *n = k;
    uint32_t limit = ordinal_of(v) + 1;
    for (const TapeChunk *x = v.as.obj; x != NULL;
         limit = x->prev_n, x = x->prev)
        s[--k] = (TapeSpan){x, limit};
    return s;
}

/* The chunk holding tape index i among n spans, or NULL; its ordinal
   there in *j. */
static const TapeChunk *span_slot(const TapeSpan *s, size_t n, uint32_t i,
                                  uint32_t *j)
{
    size_t lo = 0, hi = n;          /* s[lo].c->base <= i, if any */
    if (n == 0 || i < s[0].c->base)
        return NULL;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].c->base <= i)
            lo = mid;
        else
            hi = mid;
    }
    *j = i - s[lo].c->base;
    return *j < s[lo].limit ? s[lo].c : NULL;
}

/* The primal and partials recorded in slot j of chunk c as reals (marked
   active: checkpoint-*j's tapify keeps every one of them), their
   parents; the number of parents, or -1 for a slot holding a partial. */
static int slot_parts(const TapeChunk *c, uint32_t j, Value *primal,
                      Value *partials, uint32_t *parents)
{
    const TapeSlot *t = &c->slots[j];
    if (is_general(t)) {
        const TapeExt *e = ext_of(c, j);
        *primal = marked(e->primal);
        for (uint32_t k = 0; k < e->nparents; k++) {
            partials[k] = marked(e->partials[k]);
            parents[k] = e->parents[k];
        }
        return (int)e->nparents;
    }
    double d[2];
    int n = slot_partials(c, t, parents, d);
    if (n < 0)
        return -1;
    *primal = vl_num_marked(t->primal, VL_ACTIVE);
    for (int k = 0; k < n; k++)
        partials[k] = vl_num_marked(d[k], VL_ACTIVE);
    return n;
}

static VL_NORETURN void layout_mismatch(VladState *S, const TagCtx *c)
{
    vl_except_runtime(S, VLAD_ERR_RUNTIME,
                      "%s: the %s does not have the shape of the value: the "
                      "tape of a *j suspended in a checkpoint is laid out "
                      "differently in it", c->who ? c->who : "*j",
                      c->what ? c->what : "cotangent");
}

/* A copy of chunk a after 'prev' (the copy of a's predecessor), with no
   slot yet. */
static TapeChunk *new_copy(VladState *S, const TapeChunk *a, TapeChunk *prev)
{
    TapeChunk *nc = vl_gc_alloc(sizeof *nc);
    *nc = *a;
    nc->prev = prev;
    nc->exts = vl_gc_alloc(VL_TAPE_CHUNK_SLOTS(a->cap) * sizeof(TapeExt *));
    nc->general = 1;
    nc->compact_tag = 0;
    nc->managed = 0;
    nc->used = 0;
    nc->conts = 0;
    size_t bytes = chunk_bytes(a->cap);
    nc->slots = vl_gc_alloc_atomic(bytes);
    memset(nc->slots, 0, bytes);
    S->tape_bytes += bytes + sizeof *nc
                     + VL_TAPE_CHUNK_SLOTS(a->cap) * sizeof(TapeExt *);
    return nc;
}

/* Copy slots [nc->used, limit) of chunk a into its copy nc, each part
   mapped by the leaf with the part of the counterpart slot of the
   (co)tangent's tape (spans b, nb; none when nb = 0). */
static void extend_copy(VladState *S, TagCtx *c, const TapeChunk *a,
                        TapeChunk *nc, uint32_t limit, const TapeSpan *b,
                        size_t nb, WalkLeaf leaf)
{
    for (uint32_t j = nc->used; j < limit; j++) {
        Value pa, da[2], pb, db[2];
        uint32_t p[2], q[2];
        if (a->slots[j].parent == VL_TAPE_COMM) {   /* a record, as it is */
            nc->slots[j] = a->slots[j];
            nc->used = j + 1;
            continue;
        }
        int n = slot_parts(a, j, &pa, da, p);
        uint32_t jb;
        const TapeChunk *tb = span_slot(b, nb, a->base + j, &jb);
        int m = tb != NULL ? slot_parts(tb, jb, &pb, db, q) : 0;
        if (tb != NULL && (m != n || (n > 0 && p[0] != q[0])
                           || (n > 1 && p[1] != q[1])))
            layout_mismatch(S, c);
        nc->used = j + 1;
        if (n < 0) {                /* a slot holding a partial */
            nc->slots[j] = a->slots[j];
            nc->conts++;
            continue;
        }
        if (tb == NULL) {
            pb = vl_num(0);
            m = 0;
        }
        TapeExt *e = vl_gc_alloc(sizeof *e);
        nc->exts[j] = e;        /* reachable before the leaf allocates */
        e->primal = vl_num(0);
        e->nparents = (uint32_t)n;
        for (int k = 0; k < n; k++) {
            e->parents[k] = p[k];
            e->partials[k] = vl_num(0);
        }
        TapeSlot *t = &nc->slots[j];
        t->parent = VL_TAPE_GENERAL;
        t->parent1 = VL_TAPE_NONE;
        S->tape_bytes += sizeof *e;
        e->primal = leaf(S, pa, pb, c);
        for (int k = 0; k < n; k++)
            e->partials[k] = leaf(S, da[k], k < m ? db[k] : vl_num(0), c);
        t->primal = vl_object_primal(e->primal);
    }
}

static Value through_tape(VladState *S, Value y, Value bar, WalkLeaf leaf,
                          void *ud)
{
    check_walk_stack(S);     /* the leaf recurses into nested tapes */
    TagCtx *c = ud;
    size_t nb = 0;
    const TapeSpan *b = suspended_tape(S, bar, c->tag) ? spans_of(bar, &nb)
                                                       : NULL;
    /* the (co)tangent's node stands where y does on a tape of the same
       layout: at the same tape index */
    if (b != NULL && index_of(bar) != index_of(y))
        layout_mismatch(S, c);
    /* the chunks y sees that are not copied yet, newest first; then the
       newest copied one, extended as far as y sees it */
    TapeSpan *todo = NULL;
    size_t n = 0, cap = 0;
    TapeChunk *prev = NULL, *copy_y = NULL;
    uint32_t limit = ordinal_of(y) + 1;
    for (const TapeChunk *x = y.as.obj; x != NULL;
         limit = x->prev_n, x = x->prev) {
        if ((prev = copied(c, x, leaf)) != NULL) {
            if (prev->used < limit)
                extend_copy(S, c, x, prev, limit, b, nb, leaf);
            if (x == y.as.obj)
                copy_y = prev;
            break;
        }
        todo = vl_gc_grow(todo, n, &cap, sizeof *todo);
        todo[n++] = (TapeSpan){x, limit};
    }
    while (n-- > 0) {
        TapeChunk *nc = new_copy(S, todo[n].c, prev);
        c->copies = vl_gc_grow(c->copies, c->ncopies, &c->copies_cap,
                               sizeof(TapeCopy));
        c->copies[c->ncopies++] = (TapeCopy){todo[n].c, leaf, nc};
        extend_copy(S, c, todo[n].c, nc, todo[n].limit, b, nb, leaf);
        prev = nc;
        if (n == 0)
            copy_y = nc;
    }
    Value v = vl_obj(VT_TAPE, copy_y);
    v.aux = y.aux;
    return v;
}

#define THROUGH_SUSPENDED(leaf)                                         \
    do {                                                                \
        if (suspended_dual(S, y, ((TagCtx *)ud)->tag))                  \
            return through_dual(S, y, bar, leaf, ud);                   \
        if (suspended_tape(S, y, ((TagCtx *)ud)->tag))                  \
            return through_tape(S, y, bar, leaf, ud);                   \
    } while (0)

static Value leaf_bundle(VladState *S, Value y, Value bar, void *ud)
{
    THROUGH_SUSPENDED(leaf_bundle);
    return vl_real_mark(make_dual(S, ((TagCtx *)ud)->tag, y, bar),
                        vl_real_marked(y));
}

Value vl_ad_bundle(VladState *S, int64_t tag, Value x, Value dx)
{
    TagCtx c = {.tag = tag};
    return ad_zip(S, x, dx, leaf_bundle, &c, "j*", "tangent");
}

static Value leaf_primal(VladState *S, Value y, Value bar, void *ud)
{
    THROUGH_SUSPENDED(leaf_primal);
    return marked(primal_at(y, tag_of(y) == ((TagCtx *)ud)->tag));
}

static Value leaf_tangent(VladState *S, Value y, Value bar, void *ud)
{
    THROUGH_SUSPENDED(leaf_tangent);
    if (y.tag == VT_DUAL && dual_tag(y) == ((TagCtx *)ud)->tag)
        return marked(dual_tangent(y));
    return vl_num_marked(0, VL_ACTIVE);
}

/* A checkpoint met by the walks of j*'s result that holds a j* of the
   same tag suspended is relabeled first (vm/ad/ad.h, "Fresh tags"). */
static Value ckpt_jstar(VladState *S, Value k, void *ud)
{
    const Checkpoint *nk = vl_ad_fresh_tags(S, AS_CKPT(k),
                                              ((TagCtx *)ud)->tag);
    return vl_obj(VT_CKPT, (void *)nk);
}

Value vl_ad_jstar_result(VladState *S, int64_t tag, Value y)
{
    TagCtx c = {.tag = tag};
    c.ncopies = 0;
    Value primal = vl_walk_map_hook(S, y, leaf_primal, &c, ckpt_jstar);
    c.ncopies = 0;
    Value tangent = vl_walk_map_hook(S, y, leaf_tangent, &c, ckpt_jstar);
    return vl_object_list2(primal, tangent);
}

/* ===== *j ===== */

static Value leaf_tapify(VladState *S, Value y, Value bar, void *ud)
{
    THROUGH_SUSPENDED(leaf_tapify);
    if (((TagCtx *)ud)->active_only && !vl_real_marked(y))
        return y;           /* a constant of the computation */
    return vl_real_mark(make_node(S, ((TagCtx *)ud)->tag, y, 0, NULL, NULL,
                                  VL_RULE_EXPLICIT),
                        vl_real_marked(y));
}

Value vl_ad_tapify(VladState *S, int64_t tag, Value x, int active_only)
{
    TagCtx c = {.tag = tag, .active_only = active_only};
    return ad_map(S, x, leaf_tapify, &c);
}

static Value leaf_activate(VladState *S, Value y, Value bar, void *ud)
{
    (void)S;
    (void)bar;
    (void)ud;
    return marked(y);
}

Value vl_ad_activate(VladState *S, Value x)
{
    return vl_walk_map(S, x, leaf_activate, NULL);
}

/* Sensitivities: a zero-filled array of Values (VT_UNDEF reads as 0). */
static void accumulate(VladState *S, Value *dst, Value v)
{
    if (dst->tag == VT_UNDEF)
        *dst = plus_zero(S, v);
    else if (dst->tag == VT_NUM && v.tag == VT_NUM)
        dst->as.num += v.as.num;
    else
        *dst = add(S, *dst, v);
}

/* The index of y on the tape being swept, or VL_TAPE_NONE. */
static uint32_t swept_index(const TagCtx *c, Value y)
{
    if (y.tag != VT_TAPE || tag_of(y) != c->tag)
        return VL_TAPE_NONE;
    uint32_t i = index_of(y);
    return i < c->count ? i : VL_TAPE_NONE;
}

static Value leaf_seed(VladState *S, Value y, Value bar, void *ud)
{
    THROUGH_SUSPENDED(leaf_seed);
    Value ybar = bar;
    TagCtx *c = ud;
    uint32_t i = swept_index(c, y);
    if (i == VL_TAPE_NONE)
        return y;
    if (c->sw == NULL)
        accumulate(S, &c->sens[i], ybar);
    else if (ybar.tag == VT_NUM)
        *vl_adsweep_sens(c->sw, i) += ybar.as.num;
    else
        c->nonplain = 1;
    return y;
}

static Value leaf_extract(VladState *S, Value y, Value bar, void *ud)
{
    THROUGH_SUSPENDED(leaf_extract);
    TagCtx *c = ud;
    uint32_t i = swept_index(c, y);
    if (i == VL_TAPE_NONE)
        return vl_num_marked(0, VL_ACTIVE);
    if (c->sw != NULL)
        return vl_num_marked(*vl_adsweep_sens(c->sw, i), VL_ACTIVE);
    return c->sens[i].tag == VT_UNDEF ? vl_num_marked(0, VL_ACTIVE)
                                      : marked(c->sens[i]);
}

/* Propagate the sensitivity s of node j of chunk c to its parents. */
static void backprop(VladState *S, Value *sens, const TapeChunk *c,
                     uint32_t j, Value s)
{
    const TapeSlot *t = &c->slots[j];
    if (!is_general(t)) {
        uint32_t p[2];
        double dk[2];
        int n = slot_partials(c, t, p, dk);
        for (int k = 0; k < n; k++) {
            if (VL_UNLIKELY(p[k] >= c->base + j))   /* not a parent: a
                                                       forged saved tape */
                continue;
            Value *dst = &sens[p[k]];
            double d = dk[k];
            if (s.tag == VT_NUM) {
                if (dst->tag == VT_NUM)
                    dst->as.num += vl_ad_mulz(d, s.as.num);
                else
                    accumulate(S, dst, vl_num(vl_ad_mulz(d, s.as.num)));
            } else
                accumulate(S, dst, mul_z(S, vl_num(d), s));
        }
        return;
    }
    const TapeExt *e = ext_of(c, j);
    for (uint32_t k = 0; k < e->nparents; k++)
        if (VL_LIKELY(e->parents[k] < c->base + j))
            accumulate(S, &sens[e->parents[k]], mul_z(S, e->partials[k], s));
}

/* The reverse sweep when every node is compact and every cotangent leaf
   plain: sensitivities are doubles, in segments (vm/ad/adsweep.c).  Returns
   0 (having done nothing that matters) when a cotangent leaf is not
   plain. */
/* The sensitivities of the sweeps, for the adjoint communication of a
   record (vm/ad/admsg.c). */
static Value plain_get(VladState *S, void *ctx, uint32_t i)
{
    (void)S;
    return vl_num(*vl_adsweep_sens(ctx, i));
}

static void plain_add(VladState *S, void *ctx, uint32_t i, Value v)
{
    if (v.tag != VT_NUM)        /* (no invocation is active: see below) */
        vl_except_runtime(S, VLAD_ERR_RUNTIME, "*j: a cotangent that "
                          "carries a derivative arrived in a plain sweep");
    *vl_adsweep_sens(ctx, i) += v.as.num;
}

static void plain_comm(VladState *S, VlSweep *sw, const TapeSlot *t,
                       uint32_t r)
{
    VlAdjointIO io = {plain_get, plain_add, sw};
    S->adjoint_comm(S, t, r, &io);
}

static Value general_get(VladState *S, void *ctx, uint32_t i)
{
    (void)S;
    Value v = ((Value *)ctx)[i];
    return v.tag == VT_UNDEF ? vl_num(0) : v;
}

static void general_add(VladState *S, void *ctx, uint32_t i, Value v)
{
    accumulate(S, &((Value *)ctx)[i], v);
}

static int sweep_plain(VladState *S, TagCtx *c, Value y, Value ybar,
                       const TapeChunk *chunk, uint32_t n)
{
    c->sw = vl_adsweep_begin(chunk, n, S, plain_comm);
    ad_zip(S, y, ybar, leaf_seed, c, "*j", "cotangent");
    if (c->nonplain) {
        vl_adsweep_end(c->sw);
        c->sw = NULL;
        c->nonplain = 0;
        return 0;
    }
    vl_adsweep_run(c->sw);
    return 1;
}

Value vl_ad_starj_result(VladState *S, int64_t tag, Value xnodes, Value y,
                         Value ybar, TapeChunk *chunk, uint32_t n)
{
    uint32_t count = chunk != NULL ? chunk->base + n : 0;
    TagCtx c = {.tag = tag, .count = count};
    Value primal;
    /* fails only on a cotangent leaf that is not plain: the general sweep
       follows.  A tape that communicated is swept plainly only when no
       invocation is active around it: then the cotangents that arrive
       are plain too. */
    if ((chunk == NULL || !chunk->general)
        && (chunk == NULL || !chunk->comms_any || S->nad == 0)
        && sweep_plain(S, &c, y, ybar, chunk, n)) {
        Value xbar = ad_map(S, xnodes, leaf_extract, &c);
        primal = ad_map(S, y, leaf_primal, &c);
        vl_adsweep_end(c.sw);
        return vl_object_list2(primal, xbar);
    }
    c.sens = vl_gc_alloc((count ? count : 1) * sizeof(Value));
    ad_zip(S, y, ybar, leaf_seed, &c, "*j", "cotangent");
    for (; chunk != NULL; n = chunk->prev_n, chunk = chunk->prev) {
        Value *sens = c.sens + chunk->base;
        VlAdjointIO io = {general_get, general_add, c.sens};
        for (uint32_t k = n; k-- > 0;) {
            Value s = sens[k];
            if (VL_UNLIKELY(chunk->comms)
                && chunk->slots[k].parent == VL_TAPE_COMM) {
                S->adjoint_comm(S, &chunk->slots[k], chunk->base + k, &io);
                continue;
            }
            /* a zero sensitivity is propagated all the same: skipping it
               when it is a plain 0 but not when it is a perturbed real
               whose value is 0 would record nodes on an enclosing tape in
               one case and not the other, and tapes must have the same
               layout whatever perturbations their reals carry
               (through_tape) */
            if (s.tag == VT_UNDEF)
                continue;
            backprop(S, c.sens, chunk, k, s);
        }
    }
    Value xbar = ad_map(S, xnodes, leaf_extract, &c);
    primal = ad_map(S, y, leaf_primal, &c);
    vl_gc_free(c.sens);
    return vl_object_list2(primal, xbar);
}

/* ===== Fresh tags for a resumed execution ===== */

/* A checkpoint taken inside j* or *j holds that invocation's delimiter
   frame and reals carrying its tag.  Resumed while the same invocation
   is active -- the checkpoint resumed again inside its own resumed
   execution -- two live executions would share one tag, and the outer
   one would strip the inner one's perturbation as its own (finding W1).
   So vm/core/cont.c gives each such frame a fresh tag and maps the
   checkpoint's values with the relabeling below: duals of a mapped tag
   become duals of the new tag (a plain dual by its aux alone), the tape
   of a mapped *j is copied chunk by chunk under the new tag, and a tape
   whose general nodes hold mapped reals is copied where they do.  A
   value nothing changes is kept as it is. */
typedef struct RelabelTape {
    const TapeChunk *a;         /* a chunk met */
    TapeChunk *copy;            /* its relabeled copy (or a itself) */
} RelabelTape;

/* One tag replaced. */
typedef struct RelabelTag {
    int64_t from, to;
} RelabelTag;

struct VlRelabel {
    RelabelTag *tags;           /* sorted by 'from' once the walk starts */
    size_t n, cap;
    int sorted;
    RelabelTape *tapes;         /* chunks met: a hash table of
                                   tapes_cap entries, ntapes used */
    size_t ntapes, tapes_cap;
};

VlRelabel *vl_ad_relabel_new(void)
{
    return vl_gc_alloc(sizeof(VlRelabel));
}

void vl_ad_relabel_add(VlRelabel *r, int64_t from, int64_t to)
{
    r->tags = vl_gc_grow(r->tags, r->n, &r->cap, sizeof *r->tags);
    r->tags[r->n++] = (RelabelTag){from, to};
    r->sorted = 0;
}

static int cmp_from(const void *a, const void *b)
{
    int64_t x = ((const RelabelTag *)a)->from;
    int64_t y = ((const RelabelTag *)b)->from;
    return (x > y) - (x < y);
}

int vl_ad_active(VladState *S, int64_t tag)
{
    return rank_of(S, tag) != 0;
}

int64_t vl_ad_relabel_tag(VlRelabel *r, int64_t tag)
{
    if (!r->sorted) {
        qsort(r->tags, r->n, sizeof *r->tags, cmp_from);
        r->sorted = 1;
    }
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->tags[mid].from < tag)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n && r->tags[lo].from == tag ? r->tags[lo].to : tag;
}

static Value relabel_real(VladState *S, VlRelabel *r, Value v);

/* The chunks met are kept in an open-addressing table keyed by
   address (a tape resumed piece by piece has many chunks). */
static TapeChunk *relabel_seen(const VlRelabel *r, const TapeChunk *a)
{
    if (r->tapes_cap == 0)
        return NULL;
    for (size_t h = vl_walk_hash(a, r->tapes_cap);;
         h = (h + 1) & (r->tapes_cap - 1)) {
        if (r->tapes[h].a == NULL)
            return NULL;
        if (r->tapes[h].a == a)
            return r->tapes[h].copy;
    }
}

static void relabel_put(VlRelabel *r, const TapeChunk *a, TapeChunk *copy)
{
    if (2 * (r->ntapes + 1) > r->tapes_cap) {
        RelabelTape *old = r->tapes;
        size_t oc = r->tapes_cap;
        r->tapes_cap = oc ? 2 * oc : 64;
        r->tapes = vl_gc_alloc(r->tapes_cap * sizeof *r->tapes);
        r->ntapes = 0;
        for (size_t k = 0; k < oc; k++)
            if (old[k].a != NULL)
                relabel_put(r, old[k].a, old[k].copy);
    }
    size_t h = vl_walk_hash(a, r->tapes_cap);
    while (r->tapes[h].a != NULL)
        h = (h + 1) & (r->tapes_cap - 1);
    r->tapes[h] = (RelabelTape){a, copy};
    r->ntapes++;
}

/* Chunk a relabeled, its predecessor already done ('prev'). */
static TapeChunk *relabel_chunk(VladState *S, VlRelabel *r,
                                const TapeChunk *a, TapeChunk *prev)
{
    int64_t tag = vl_ad_relabel_tag(r, a->tag);
    TapeExt **exts = NULL;
    int changed = tag != a->tag || prev != a->prev;
    if (a->exts != NULL) {
        size_t n = VL_TAPE_CHUNK_SLOTS(a->cap);
        exts = vl_gc_alloc(n * sizeof *exts);
        for (uint32_t j = 0; j < a->used; j++) {
            const TapeExt *e = a->exts[j];
            exts[j] = (TapeExt *)e;
            if (e == NULL || !is_general(&a->slots[j]))
                continue;
            TapeExt ne = *e;
            int moved = 0;
            ne.primal = relabel_real(S, r, e->primal);
            moved |= memcmp(&ne.primal, &e->primal, sizeof(Value)) != 0;
            for (uint32_t k = 0; k < e->nparents; k++) {
                ne.partials[k] = relabel_real(S, r, e->partials[k]);
                moved |= memcmp(&ne.partials[k], &e->partials[k],
                                sizeof(Value)) != 0;
            }
            if (moved) {
                exts[j] = vl_gc_alloc(sizeof ne);
                *exts[j] = ne;
                changed = 1;
            }
        }
    }
    if (!changed) {
        if (exts != NULL)
            vl_gc_free(exts);
        return (TapeChunk *)a;
    }
    TapeChunk *nc = vl_gc_alloc(sizeof *nc);
    *nc = *a;
    nc->prev = prev;
    nc->exts = exts;
    nc->tag = tag;
    nc->compact_tag = a->compact_tag == a->tag ? tag : 0;
    nc->managed = 0;
    size_t bytes = chunk_bytes(a->cap);
    nc->slots = vl_gc_alloc_atomic(bytes);
    memcpy(nc->slots, a->slots, bytes);
    S->tape_bytes += bytes + sizeof *nc;
    return nc;
}

TapeChunk *vl_ad_relabel_tape(VladState *S, VlRelabel *r, TapeChunk *c)
{
    /* the chunks of c's tape not met yet, newest first (no C recursion
       along the tape) */
    TapeChunk **todo = NULL;
    size_t n = 0, cap = 0;
    TapeChunk *prev = NULL;
    for (TapeChunk *x = c; x != NULL; x = x->prev) {
        TapeChunk *seen = relabel_seen(r, x);
        if (seen != NULL) {
            prev = seen;
            break;
        }
        if (!x->general && vl_ad_relabel_tag(r, x->tag) == x->tag) {
            prev = x;           /* nothing here or before can change */
            break;
        }
        todo = vl_gc_grow(todo, n, &cap, sizeof *todo);
        todo[n++] = x;
    }
    while (n-- > 0) {
        TapeChunk *nc = relabel_chunk(S, r, todo[n], prev);
        relabel_put(r, todo[n], nc);
        prev = nc;
    }
    return prev;
}

/* Real v with the tags of r replaced (v itself when none is in it).  It
   recurses once per level of nested perturbations, as arithmetic does. */
static Value relabel_real(VladState *S, VlRelabel *r, Value v)
{
    if (v.tag == VT_TAPE) {
        TapeChunk *c = vl_ad_relabel_tape(S, r, v.as.obj);
        v.as.obj = c;
        return v;
    }
    if (v.tag != VT_DUAL)
        return v;
    int64_t tag = dual_tag(v), nt = vl_ad_relabel_tag(r, tag);
    if (plain_dual(v)) {
        if (nt == tag)
            return v;
        if (nt <= VL_PLAIN_DUAL_MAX_TAG) {
            v.aux = (v.aux & VL_ACTIVE) | (uint32_t)nt;
            return v;
        }
        return vl_real_mark(make_dual(S, nt, dual_primal(v),
                                      dual_tangent(v)), vl_real_marked(v));
    }
    check_walk_stack(S);
    Value p0 = dual_primal(v), t0 = dual_tangent(v);
    Value p = relabel_real(S, r, p0), t = relabel_real(S, r, t0);
    if (nt == tag && memcmp(&p, &p0, sizeof p) == 0
        && memcmp(&t, &t0, sizeof t) == 0)
        return v;
    return vl_real_mark(make_dual(S, nt, p, t), vl_real_marked(v));
}

static Value leaf_relabel(VladState *S, Value y, Value bar, void *ud)
{
    (void)bar;
    return relabel_real(S, ud, y);
}

Value vl_ad_relabel(VladState *S, VlRelabel *r, Value v)
{
    return vl_walk_map(S, v, leaf_relabel, r);
}

/* ===== Reals through messages (vm/ad/admsg.c) ===== */

Value vl_ad_msg_below(VladState *S, const AdFrame *f, Value v,
                      Value *tangent)
{
    (void)S;
    if (!f->reverse) {
        if (v.tag == VT_DUAL && dual_tag(v) == f->tag) {
            *tangent = dual_tangent(v);
            return dual_primal(v);
        }
        tangent->tag = VT_UNDEF;
        return v;
    }
    if (v.tag == VT_TAPE && tag_of(v) == f->tag)
        return primal_at(v, 1);
    return v;
}

Value vl_ad_msg_dual(VladState *S, const AdFrame *f, Value primal,
                     Value tangent)
{
    return make_dual(S, f->tag, primal, tangent);
}

Value vl_ad_msg_node(VladState *S, const AdFrame *f, Value v, Value below)
{
    if (v.tag == VT_TAPE && tag_of(v) == f->tag) {
        Value one = vl_num(1);
        return make_node(S, f->tag, below, 1, &v, &one, VL_RULE_ONE);
    }
    return make_node(S, f->tag, below, 0, NULL, NULL, VL_RULE_EXPLICIT);
}

void vl_ad_msg_record(VladState *S, AdFrame *f, int kind, int peer,
                      uint32_t m)
{
    TapeChunk *c = f->chunk;
    if (c == NULL || c->used != f->n || c->used >= c->cap) {
        new_chunk(S, f);
        c = f->chunk;
    }
    TapeSlot *t = &c->slots[f->n];
    t->primal = peer;
    t->parent = VL_TAPE_COMM;
    t->parent1 = (uint32_t)kind << VL_MSG_KIND_SHIFT | m;
    c->comms = c->comms_any = 1;
    S->tape_nodes++;
    c->used = ++f->n;
}
