/*
 * vm/ad/adfast.h -- the inline fast paths of lifted arithmetic
 *
 * Owns the per-operation rules on plain doubles (the value and partial
 * derivatives of + - * / and of the unary functions, and the strong-zero
 * product of AD's bookkeeping) and the cases the VM's dispatch loop
 * handles without a call: operands that are plain reals and plain duals
 * of one tag (forward mode), or plain reals and compact nodes of the
 * innermost *j's tape appended in place (reverse mode).  Anything else
 * -- nested perturbations, general nodes, a tape that must start a new
 * chunk, a dual block to allocate -- returns 0 and takes the general path
 * of vm/ad/ad.c, which gives the same results.  Internal header.
 */
#ifndef VLAD_VM_ADFAST_H
#define VLAD_VM_ADFAST_H

#include <math.h>
#include <string.h>
#include "vm/ad/tape.h"

/* The product of AD's own bookkeeping (a partial derivative times a
   tangent or a sensitivity): an exact zero factor makes it -0 whatever
   the other is (doc/reference.md §8).  A product that is neither zero nor
   NaN has no zero factor, so the test costs one comparison. */
static inline double vl_ad_mulz(double a, double b)
{
    double p = a * b;
    if (VL_LIKELY(fabs(p) > 0))
        return p;
    return a == 0 || b == 0 ? -0.0 : p;
}

/* A binary op (VL_IS_MATH2, or IN__COUNT: the strong-zero product) on
   doubles: vm/core/math2.h's value. */
static inline double vl_ad_plain2(int op, double a, double b)
{
    return op == IN__COUNT ? vl_ad_mulz(a, b) : vl_math2_value(op, a, b);
}

/* A binary op on doubles, the four common ones inline. */
static inline double vl_ad_plain2_inline(int op, double a, double b)
{
    switch (op) {
    case IN_ADD: return a + b;
    case IN_SUB: return a - b;
    case IN_MUL: return a * b;
    case IN_DIV: return a / b;
    default: return vl_ad_plain2(op, a, b);
    }
}

/* Partial derivatives of a binary op (VL_IS_MATH2, or IN__COUNT: vm/ad/ad.c's
   strong-zero product, whose partials are the product's) at plain (a, b)
   with result y: vm/core/math2.h's row. */
static inline void vl_ad_partials2(int op, double a, double b, double y,
                                   double *da, double *db)
{
#define VLM_A a
#define VLM_B b
#define VLM_VAL y
#define VLM_T t
#include "vm/ad/mathplain.h"
#define VL_MATH2_PARTIALS_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) \
    case IN_##ID: {                                               \
        double t = (T);                                           \
        (void)t;                                                  \
        *da = (DA);                                               \
        *db = (DB);                                               \
        return;                                                   \
    }
    switch (op == IN__COUNT ? IN_MUL : op) {
    VL_MATH2(VL_MATH2_PARTIALS_)
    default:
        *da = *db = NAN;    /* not a binary operation */
        return;
    }
#undef VL_MATH2_PARTIALS_
#include "vm/ad/mathundef.h"
}

/* The value y and derivative d of a unary math function (VL_IS_MATH1) at
   x: vm/core/math1.h's row. */
static inline void vl_ad_partial1(int op, double x, double *y, double *d)
{
    double s, c;
    if (VL_LIKELY(op == IN_SQRT)) {     /* the common one, without the
                                           switch's jump table */
        *y = sqrt(x);
        *d = 0.5 / *y;
        return;
    }
    switch (op) {
    case IN_SIN:            /* sincos gives the same bits as sin, cos: one
                               call for both (tests/unit/test-math1.c
                               checks it against the table's row) */
        sincos(x, &s, &c);
        *y = s;
        *d = c;
        return;
    case IN_COS:
        sincos(x, &s, &c);
        *y = c;
        *d = 0 - s;
        return;
    default:
        break;
    }
#define VLM_ARG x
#define VLM_VAL (*y)
#include "vm/ad/mathplain.h"
#define VL_MATH1_PARTIAL_(ID, NAME, FN, D) \
    case IN_##ID:                           \
        *y = FN(x);                         \
        *d = (D);                           \
        return;
    switch (op) {
    VL_MATH1(VL_MATH1_PARTIAL_)
    default:
        *y = *d = NAN;      /* not a unary math function */
        return;
    }
#undef VL_MATH1_PARTIAL_
#include "vm/ad/mathundef.h"
}

/* A forward-mode operand: a plain real (tag -1, tangent 0) or a plain
   dual; 0 for anything else. */
static inline int vl_ad_dual_operand(Value v, int64_t *tag, double *x,
                                     double *dx)
{
    if (v.tag == VT_NUM) {
        *tag = -1;
        *x = v.as.num;
        *dx = 0;
        return 1;
    }
    if (v.tag != VT_DUAL || !(v.aux & VL_AUX_BITS))
        return 0;
    const PlainDual *d = v.as.obj;
    *tag = v.aux & VL_AUX_BITS;
    *x = d->primal;
    *dx = d->tangent;
    return 1;
}

/* A binary op on plain reals and plain duals of one tag, at least one of
   them a dual: the dual's tag, the value r and the tangent t (a sum of
   strong-zero products from +0, vm/ad/ad.c); 0 for other operands. */
static inline int vl_ad_dual_binary(int op, Value a, Value b, int64_t *tag,
                                    double *r, double *t)
{
    int64_t ta, tb;
    double x, y, dx, dy, da, db;
    if (!vl_ad_dual_operand(a, &ta, &x, &dx)
        || !vl_ad_dual_operand(b, &tb, &y, &dy)
        || (ta < 0 && tb < 0) || (ta >= 0 && tb >= 0 && ta != tb))
        return 0;
    *r = vl_ad_plain2_inline(op, x, y);
    vl_ad_partials2(op, x, y, *r, &da, &db);
    if (ta >= 0 && tb >= 0) {
        /* a sum that is neither zero nor NaN has no product that is NaN,
           and a zero product adds nothing to a nonzero other: it is the
           sum of the strong-zero products (one test instead of two) */
        double s = da * dx + db * dy;
        *t = VL_LIKELY(fabs(s) > 0) ? s
                                    : vl_ad_mulz(da, dx) + vl_ad_mulz(db, dy);
    } else
        *t = ta >= 0 ? vl_ad_mulz(da, dx) : vl_ad_mulz(db, dy);
    *t = 0.0 + *t;
    *tag = ta >= 0 ? ta : tb;
    return 1;
}

/* A reverse-mode operand: a plain real (index VL_TAPE_NONE) or a compact
   node of the tape of *j invocation 'tag' with its index on that tape; 0
   for anything else. */
static inline int vl_ad_node_operand(Value v, int64_t tag, double *x,
                                     uint32_t *index)
{
    if (v.tag == VT_NUM) {
        *x = v.as.num;
        *index = VL_TAPE_NONE;
        return 1;
    }
    if (v.tag != VT_TAPE)
        return 0;
    const TapeChunk *c = v.as.obj;
    uint32_t k = v.aux & VL_AUX_BITS;
    if (c->compact_tag != tag)
        return 0;
    *x = c->slots[k].primal;
    *index = c->base + k;
    return 1;
}

/* The node a binary op makes from plain reals and compact nodes of the
   tape 'tag' -- the caller knows one operand is a node (a binary op of
   two plain reals never comes here): its value, and its parents with
   their partials (the present ones first, VL_TAPE_NONE after) and the
   rule that gives the partials (vm/ad/tape.h). */
typedef struct VlAdNode {
    double y;
    uint32_t p0, p1;        /* parents */
    double d0, d1;          /* their partials */
    int rule;
} VlAdNode;

static inline int vl_ad_node_binary(int op, Value a, Value b, int64_t tag,
                                    VlAdNode *n)
{
    double x, y, da, db;
    uint32_t pa, pb;
    if (!vl_ad_node_operand(a, tag, &x, &pa)
        || !vl_ad_node_operand(b, tag, &y, &pb))
        return 0;
    n->y = vl_ad_plain2_inline(op, x, y);
    int rule = vl_tape_rule2(op, pa != VL_TAPE_NONE, pb != VL_TAPE_NONE);
    /* the partials matter only when stored: a rule computes them again
       in the sweep */
    if (rule == VL_RULE_EXPLICIT)
        vl_ad_partials2(op, x, y, n->y, &da, &db);
    else
        da = db = 0;
    if (pa == VL_TAPE_NONE)
        *n = (VlAdNode){n->y, pb, VL_TAPE_NONE, db, 0, rule};
    else if (pb == VL_TAPE_NONE)
        *n = (VlAdNode){n->y, pa, VL_TAPE_NONE, da, 0, rule};
    else
        *n = (VlAdNode){n->y, pa, pb, da, db, rule};
    return 1;
}

/* Append a compact node to the innermost *j's tape f when its current
   chunk can take it in place; 0 otherwise.  Its partials d0, d1 follow
   'rule' (vm/ad/tape.h: stored only when it is VL_RULE_EXPLICIT).  The new
   node value carries 'mark' (0 or VL_ACTIVE) in its aux. */
static inline int vl_ad_append(VladState *S, AdFrame *f, double y,
                               uint32_t p0, double d0, uint32_t p1,
                               double d1, int rule, uint32_t mark,
                               Value *out)
{
    TapeChunk *c = f->chunk;
    uint32_t n = f->n;
    /* a chunk has two spare slots after its capacity, for the partials
       of a node that starts in the last */
    if (VL_UNLIKELY(c == NULL || c->used != n || n >= c->cap))
        return 0;
    uint32_t slots = vl_tape_put(&c->slots[n], y, p0, d0, p1, d1, rule);
    c->conts += slots - 1;
    S->tape_nodes++;
    vl_store_obj(out, VT_TAPE, n | mark, c);
    c->used = f->n = n + slots;
    return 1;
}

/* Temporary duals.  Forward mode makes a dual per operation, and in an
   expression such as (sqrt (* y y)) the product is read once, by the
   operation it is an operand of, and is then dead.  The compiler flags
   such operations (VL_X_TEMP, vm/core/compile.c's mark_temps: the reader is an
   inline operation, and between the two only inline operations and loads
   run, straight-line, fewer than VL_TEMP_DUALS - 1 of them arithmetic
   that may make a temporary), and their plain duals go to a ring of
   VL_TEMP_DUALS slots in the state instead of the heap: half of the
   allocation of listing1's j*, and of the collections it brings.  A
   temporary must not outlive its reader: every path that could keep an
   operand (the general path of vm/ad/ad.c, a call to a user's binding of an
   inline primitive) first copies temporaries to the heap (vl_ad_untemp;
   the VM, before calling a user's binding, copies those of the whole
   frame, as the call is a step at which a checkpoint may capture it).
   The fast paths below only read their operands, and so do the
   comparisons and predicates (primals only), which take temporaries as
   they are. */
static inline int vl_ad_is_temp(const VladState *S, Value v)
{
    return v.tag == VT_DUAL
           && (uintptr_t)v.as.obj - (uintptr_t)S->temp_duals
                  < sizeof S->temp_duals;
}

/* Plain duals are carved from pointer-free blocks (the collector keeps a
   block while any dual in it is reachable): cheaper than one allocation
   each, as forward mode makes one per operation (16 bytes: the tag is in
   the value, vm/core/object.h).  A block is 16 KiB:
   Boehm finds each such block with a search of its free lists costing
   about 2,000 instructions, which at 4 KiB blocks was 12% of j*'s
   instructions (bench/ad newton, callgrind); a long-lived dual keeps at
   most this much memory with it. */
#define VL_DUALS_PER_BLOCK 1024

/* A new plain dual from the current block (a new block when it is used
   up). */
static inline PlainDual *vl_ad_new_plain_dual(VladState *S)
{
    if (S->dual_left == 0) {
        S->dual_next = vl_gc_alloc_atomic(VL_DUALS_PER_BLOCK
                                          * sizeof(PlainDual));
        S->dual_left = VL_DUALS_PER_BLOCK;
    }
    S->dual_left--;
    return S->dual_next++;
}

/* A heap copy of the temporary dual v: the same tag and mark. */
static inline Value vl_ad_untemp_copy(VladState *S, Value v)
{
    PlainDual *p = vl_ad_new_plain_dual(S);
    *p = *(const PlainDual *)v.as.obj;
    v.as.obj = p;
    return v;
}

/* v, or a heap copy of v if it is a temporary dual. */
static inline Value vl_ad_untemp(VladState *S, Value v)
{
    return VL_UNLIKELY(vl_ad_is_temp(S, v)) ? vl_ad_untemp_copy(S, v) : v;
}

/* A plain dual carrying 'mark' (0 or VL_ACTIVE): the next slot of the
   ring of temporaries when 'temp' (VL_X_TEMP), else from the current
   block of the bump allocator; 0 when the block is used up (the general
   path allocates the next). */
static inline int vl_ad_put_dual(VladState *S, int64_t tag, double x,
                                 double dx, uint32_t mark, int temp,
                                 Value *out)
{
    /* tag is a plain dual operand's, so it fits in aux (vm/core/object.h) */
    PlainDual *p;
    if (temp) {
        p = (PlainDual *)S->temp_duals
            + (S->temp_next++ & (VL_TEMP_DUALS - 1));
    } else {
        if (VL_UNLIKELY(S->dual_left == 0))
            return 0;
        p = S->dual_next++;
        S->dual_left--;
    }
    p->primal = x;
    p->tangent = dx;
    vl_store_obj(out, VT_DUAL, (uint32_t)tag | mark, p);
    return 1;
}

/* The activity mark (0 or VL_ACTIVE) of a result of reals a and b: set
   when either is marked (vm/core/value.h). */
static inline uint32_t vl_ad_mark2(Value a, Value b)
{
    return (a.aux | b.aux) & VL_ACTIVE;
}

/* A binary op (VL_IS_MATH2) at least one of whose operands is not a
   plain real: done here when the fast path applies, else 0.  'temp':
   the result is a temporary (VL_X_TEMP). */
static inline int vl_ad_binary_inline(VladState *S, int op, Value a,
                                      Value b, int temp, Value *out)
{
    if (a.tag == VT_DUAL || b.tag == VT_DUAL) {
        int64_t tag;
        double r, t;
        return vl_ad_dual_binary(op, a, b, &tag, &r, &t)
               && vl_ad_put_dual(S, tag, r, t, vl_ad_mark2(a, b), temp,
                                 out);
    }
    VlAdNode n;
    if (S->nad == 0
        || !vl_ad_node_binary(op, a, b, S->ad[S->nad - 1].tag, &n))
        return 0;
    return vl_ad_append(S, &S->ad[S->nad - 1], n.y, n.p0, n.d0, n.p1, n.d1,
                        n.rule, vl_ad_mark2(a, b), out);
}

/* A unary math function (VL_IS_MATH1) on a plain dual or a compact node of
   the innermost *j's tape: done here when the fast path applies, else 0.
   'temp': as for vl_ad_binary_inline. */
static inline int vl_ad_unary_inline(VladState *S, int op, Value a,
                                     int temp, Value *out)
{
    double y, d;
    if (a.tag == VT_DUAL) {
        if (!(a.aux & VL_AUX_BITS))
            return 0;
        const PlainDual *p = a.as.obj;
        vl_ad_partial1(op, p->primal, &y, &d);
        return vl_ad_put_dual(S, a.aux & VL_AUX_BITS, y,
                              0.0 + vl_ad_mulz(d, p->tangent),
                              a.aux & VL_ACTIVE, temp, out);
    }
    if (a.tag != VT_TAPE || S->nad == 0)
        return 0;
    AdFrame *f = &S->ad[S->nad - 1];
    double x;
    uint32_t pa;
    if (!vl_ad_node_operand(a, f->tag, &x, &pa))
        return 0;
    int rule = vl_tape_rule1(op);
    if (rule == VL_RULE_EXPLICIT)
        vl_ad_partial1(op, x, &y, &d);
    else {                  /* the sweep's rule gives the partial */
        y = vl_inline_math1(op, x);
        d = 0;
    }
    return vl_ad_append(S, f, y, pa, d, VL_TAPE_NONE, 0, rule,
                        a.aux & VL_ACTIVE, out);
}

/* The plain primal of a real (a plain real, a dual of any depth or a
   tape node), for the comparisons, which act on primals, and for
   primal-only arithmetic (VL_X_PRIMAL), which must skip its node whatever
   perturbations its operands carry (a tape suspended in a checkpoint is
   laid out the same with and without an enclosing j* or *j); 0 for
   anything else. */
static inline int vl_ad_plain_primal(Value v, double *x)
{
    if (VL_LIKELY(v.tag == VT_TAPE)) {  /* the usual case: *j (comparisons
                                           of two plain reals never come
                                           here) */
        *x = vl_tape_primal(v);
        return 1;
    }
    switch (v.tag) {
    case VT_NUM: *x = v.as.num; return 1;
    case VT_DUAL:
        *x = v.aux & VL_AUX_BITS ? ((const PlainDual *)v.as.obj)->primal
                                 : vl_object_primal(v);
        return 1;
    default: return 0;
    }
}

#endif
