/*
 * vm/ad/tape.h -- how a tape node records its partial derivatives
 *
 * The layout of tape slots and chunks is in vm/core/object.h; this header owns
 * their encoding: the rule codes (partials that the reverse sweep computes
 * again from the node's primal and its parents' primals, read from the
 * tables of vm/core/math1.h and vm/core/math2.h), writing a compact node
 * (vl_tape_put) and reading one back (vl_tape_decode), which the fast
 * paths (vm/ad/adfast.h), the general path (vm/ad/ad.c) and the sweep
 * (vm/ad/adsweep.c) share.  Internal header.
 */
#ifndef VL_TAPE_H
#define VL_TAPE_H

#include <float.h>
#include <math.h>
#include <string.h>
#include "vm/core/state.h"

/* How the partials of a compact node are found.  A rule computes them,
   in the reverse sweep, from the node's primal y and its parents'
   primals x0, x1, exactly as the operation computed them: they are not
   stored.  Partials no rule gives (x * c, atan, expt, a host
   primitive's...) are stored, each in a slot of its own after the node
   (VL_TAPE_CONT, the partial in its 'primal'), or, for a node of one
   parent whose partial is a float exactly (x * 0.5, x * i, x / 4), in
   the node's own slot (VL_TAPE_FLOAT). */
enum {
    VL_RULE_EXPLICIT = 0,
    /* unary rules (parent1 holds the rule) */
    VL_RULE_ONE,            /* 1: x + c, c + x, x - c */
    VL_RULE_MINUS_ONE,      /* -1: c - x */
    VL_RULE_RDIV,           /* -(y / x0): c / x */
    /* the unary math functions, in the order of vm/core/math1.h: the
       derivative of its row, x0 the parent's primal */
    VL_RULE_MATH1_FIRST,
    VL_RULE_MATH1_LAST = VL_RULE_MATH1_FIRST + IN_MATH1_LAST
                         - IN_MATH1_FIRST,
    /* binary rules: the rows of vm/core/math2.h marked VLM_TAPED, which are
       among its first 4 (parent1's top 2 bits hold the row, rule -
       VL_RULE_BINARY_FIRST): its partials, x0 and x1 the parents'
       primals */
    VL_RULE_BINARY_FIRST,
    VL_RULE_BINARY_LAST = VL_RULE_BINARY_FIRST + 3
};
#define VL_MATH2_TAPED_FIRST4_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) \
    _Static_assert(TAPE(VL_M2_##ID < 4, 1),                           \
                   "a VLM_TAPED row must be among vm/core/math2.h's first 4");
VL_MATH2(VL_MATH2_TAPED_FIRST4_)
#undef VL_MATH2_TAPED_FIRST4_

/* A communication record (a slot whose parent is VL_TAPE_COMM,
   vm/ad/admsg.h): 'primal' is the peer rank, parent1 the kind <<
   VL_MSG_KIND_SHIFT | m; the nodes it concerns are the m (the inputs and
   outputs of a collective: 2m) before it on its tape. */
enum {
    VL_MSG_SEND = 1,        /* m copies of the reals sent */
    VL_MSG_RECV,            /* m leaves: the reals received */
    VL_MSG_ALLREDUCE,       /* m copies of the inputs, m leaves: the sums */
    VL_MSG_BCAST_ROOT,      /* the root: m copies of its value, m leaves */
    VL_MSG_BCAST            /* the others: m leaves */
};
#define VL_MSG_KIND_SHIFT 28
#define VL_MSG_COUNT_MAX ((1u << VL_MSG_KIND_SHIFT) - 1)

/* Whether d is a float exactly (bit for bit, once widened again: the
   conversions keep the sign of a zero and infinities).  A NaN is not. */
static inline int vl_tape_is_float(double d)
{
    if (d >= -FLT_MAX && d <= FLT_MAX)
        return (double)(float)d == d;
    return isinf(d);
}

/* The rule of a binary op (VL_IS_MATH2, or IN__COUNT: vm/ad/ad.c's
   strong-zero product, whose partials are the product's) whose operands
   a, b are parents (pa, pb) or constants at the tape's level: with two
   parents, its row's when the row is VLM_TAPED; with one, the unary
   rules of the common cases; else its partials are stored. */
static inline int vl_tape_rule2(int op, int pa, int pb)
{
    if (op == IN__COUNT)
        op = IN_MUL;
    if (pa && pb) {
        switch (op) {
#define VL_MATH2_RULE_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) \
        case IN_##ID:                                          \
            return TAPE(VL_RULE_BINARY_FIRST + IN_##ID, VL_RULE_EXPLICIT);
        VL_MATH2(VL_MATH2_RULE_)
#undef VL_MATH2_RULE_
        default:
            return VL_RULE_EXPLICIT;
        }
    }
    switch (op) {
    case IN_ADD: return VL_RULE_ONE;
    case IN_SUB: return pa ? VL_RULE_ONE : VL_RULE_MINUS_ONE;
    case IN_DIV: return pb ? VL_RULE_RDIV : VL_RULE_EXPLICIT;
    default: return VL_RULE_EXPLICIT;
    }
}

/* The rule of a unary math function (VL_IS_MATH1). */
static inline int vl_tape_rule1(int op)
{
    return VL_RULE_MATH1_FIRST + (op - IN_MATH1_FIRST);
}

/* The slots of a node of n parents whose partials follow 'rule' (the
   first partial d0 when they are stored). */
static inline uint32_t vl_tape_node_slots(int rule, int n, double d0)
{
    if (rule != VL_RULE_EXPLICIT || (n == 1 && vl_tape_is_float(d0)))
        return 1;
    return 1 + (uint32_t)n;
}

/* Write compact node t: primal y, parents p0, p1 (VL_TAPE_NONE when
   absent; p1 only with p0) whose partials d0, d1 follow 'rule'.  Returns
   the slots it takes. */
static inline uint32_t vl_tape_put(TapeSlot *t, double y, uint32_t p0,
                                   double d0, uint32_t p1, double d1,
                                   int rule)
{
    t->primal = y;
    if (VL_LIKELY(rule != VL_RULE_EXPLICIT)) {  /* p0 is a parent */
        if (rule < VL_RULE_BINARY_FIRST) {
            t->parent = p0;
            t->parent1 = (uint32_t)rule;
        } else {
            t->parent = p0 | (uint32_t)VL_TAPE_BINARY << VL_TAPE_INDEX_BITS;
            t->parent1 = p1 | (uint32_t)(rule - VL_RULE_BINARY_FIRST)
                                  << VL_TAPE_INDEX_BITS;
        }
        return 1;
    }
    if (p0 == VL_TAPE_NONE) {
        t->parent = t->parent1 = VL_TAPE_NONE;
        return 1;
    }
    int n = 1 + (p1 != VL_TAPE_NONE);
    uint32_t slots = vl_tape_node_slots(rule, n, d0);
    if (slots == 1) {                   /* one partial, a float exactly */
        float f = (float)d0;
        t->parent = p0 | (uint32_t)VL_TAPE_FLOAT << VL_TAPE_INDEX_BITS;
        memcpy(&t->parent1, &f, sizeof f);
        return 1;
    }
    t->parent = p0 | (uint32_t)VL_TAPE_EXPLICIT << VL_TAPE_INDEX_BITS;
    t->parent1 = p1;
    t[1] = (TapeSlot){d0, VL_TAPE_CONT, 0};
    if (n == 2)
        t[2] = (TapeSlot){d1, VL_TAPE_CONT, 0};
    return slots;
}

/* The primal of node i of a tape, for the rules that read a parent's:
   the caller's lookup (vm/ad/ad.c through the chunks, vm/ad/adsweep.c through
   its directory), given its context. */
typedef double (*VlTapePrimal)(void *ctx, uint32_t i);

/* The parents p[] and partials d[] of compact node t, its partials
   computed by its rule where it has one: the number of parents (0 for a
   leaf), or -1 for a slot holding a partial (VL_TAPE_CONT).  Inlined with
   a constant 'primal', one switch on the slot's class and rule. */
static inline int vl_tape_decode(const TapeSlot *t, uint32_t *p, double *d,
                                 VlTapePrimal primal, void *ctx)
{
    uint32_t p0 = t->parent, q = t->parent1;
    double y = t->primal;
    switch (p0 >> VL_TAPE_INDEX_BITS) {
    case VL_TAPE_UNARY:
        p[0] = p0;
        switch (q) {
        case VL_RULE_ONE: d[0] = 1; break;
        case VL_RULE_MINUS_ONE: d[0] = -1; break;
        case VL_RULE_RDIV:
        default:            /* (no other rule is recorded) */
            d[0] = -(y / primal(ctx, p0));
            break;
        /* vm/core/math1.h's derivatives: the argument is read only by the
           rules that use it */
#define VLM_ARG primal(ctx, p0)
#define VLM_VAL y
#include "vm/ad/mathplain.h"
#define VL_MATH1_RULE_(ID, NAME, FN, D) \
        case VL_RULE_MATH1_FIRST + (IN_##ID - IN_MATH1_FIRST): \
            d[0] = (D); \
            break;
        VL_MATH1(VL_MATH1_RULE_)
#undef VL_MATH1_RULE_
#include "vm/ad/mathundef.h"
        }
        return 1;
    case VL_TAPE_BINARY:
        p[0] = p0 & VL_TAPE_INDEX_MASK;
        p[1] = q & VL_TAPE_INDEX_MASK;
        /* vm/core/math2.h's partials of the VLM_TAPED rows (the others
           are never recorded so: their code is dropped, q >> 30 < 4) */
#define VLM_A primal(ctx, p[0])
#define VLM_B primal(ctx, p[1])
#define VLM_VAL y
#define VLM_T sh
#include "vm/ad/mathplain.h"
#define VL_MATH2_RULE_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) \
        case VL_M2_##ID:                                       \
            if (TAPE(1, 0)) {                                  \
                double sh = (T), d0 = (DA), d1 = (DB);         \
                (void)sh;                                      \
                d[0] = d0;                                     \
                d[1] = d1;                                     \
            }                                                  \
            break;
        switch ((int)(q >> VL_TAPE_INDEX_BITS)) {
        VL_MATH2(VL_MATH2_RULE_)
        default:
            break;
        }
#undef VL_MATH2_RULE_
#include "vm/ad/mathundef.h"
        return 2;
    case VL_TAPE_EXPLICIT:
        p[0] = p0 & VL_TAPE_INDEX_MASK;
        d[0] = t[1].primal;
        if (q == VL_TAPE_NONE)
            return 1;
        p[1] = q;
        d[1] = t[2].primal;
        return 2;
    default:
        if (p0 >= VL_TAPE_COMM) {   /* a leaf (or general, or a
                                       communication record) */
            p[0] = p[1] = VL_TAPE_NONE;
            d[0] = d[1] = 0;
            return p0 == VL_TAPE_CONT ? -1 : 0;
        }
        {                                                   /* FLOAT */
            float f;
            memcpy(&f, &q, sizeof f);
            p[0] = p0 & VL_TAPE_INDEX_MASK;
            d[0] = f;
        }
        return 1;
    }
}

#endif
