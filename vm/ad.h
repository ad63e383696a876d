/*
 * vm/ad.h -- automatic differentiation: dual numbers, tapes, lifting
 *
 * A real is a plain double (VT_NUM), a dual number (VT_DUAL: forward
 * mode) or a tape node (VT_TAPE: reverse mode).  Each invocation of j* or
 * *j has a unique tag; its perturbation (dual) or its tape nodes carry that
 * tag.  Primal and tangent of a dual, and the primal and partials of a
 * tape node, are themselves reals, possibly carrying other tags: that is
 * how nesting works.
 *
 * Invariant (no perturbation confusion): a lifted operation looks at the
 * tags of its operands and handles the one of the INNERMOST active
 * invocation first, treating every other value as a constant at that
 * level; it recurses on primals for the rest.  "Innermost" is the position
 * in S->ad (the stack of active invocations, which follows the
 * continuation stack: it is saved into and restored from checkpoints), not
 * the tag's number, so a checkpoint taken inside j* and resumed inside
 * another invocation nests correctly.  Tags of finished invocations rank
 * below every active one.
 *
 * Tapes are persistent: a node points to the node created before it on the
 * same tape, so a checkpoint resumed twice extends the same prefix twice
 * without interference; the reverse sweep keeps sensitivities in a side
 * array indexed by creation index, never in the nodes.
 */
#ifndef VL_AD_H
#define VL_AD_H

#include "vm/state.h"

typedef struct Dual {
    Value primal;           /* first field: vl_value_primal relies on it */
    Value tangent;          /* a real */
    int64_t tag;
} Dual;

typedef struct TapeNode {
    Value primal;           /* first field */
    int64_t tag;
    struct TapeNode *prev;  /* node created just before on the same tape */
    uint32_t index;         /* creation index on its tape */
    uint32_t nparents;      /* 0 (an input), 1 or 2 */
    struct TapeNode *parents[2];
    Value partials[2];      /* d(this)/d(parent), reals */
} TapeNode;

/* One active invocation of j* or *j (an entry of S->ad). */
typedef struct AdFrame {
    int64_t tag;
    int reverse;            /* *j */
    size_t frame;           /* stack index of its delimiter frame */
    TapeNode *head;         /* *j: last node created on its tape */
    uint32_t count;         /* *j: nodes on its tape */
} AdFrame;

/* A binary arithmetic InlineId on plain doubles (modulo is floored, its
   zero takes the divisor's sign). */
VL_INTERNAL double vl_ad_plain2(int op, double a, double b);

/* Lifted arithmetic on any reals (InlineId ops). */
VL_INTERNAL Value vl_ad_binary(VladState *S, int op, Value a, Value b);
VL_INTERNAL Value vl_ad_unary(VladState *S, int op, Value a);

/* The stack of active invocations. */
VL_INTERNAL void vl_ad_push(VladState *S, int64_t tag, int reverse,
                            size_t frame, TapeNode *head, uint32_t count);
VL_INTERNAL AdFrame *vl_ad_top(VladState *S);
VL_INTERNAL void vl_ad_pop(VladState *S);

/* j*: bundle x with its tangent; unbundle the result into (list y y'). */
VL_INTERNAL Value vl_ad_bundle(VladState *S, int64_t tag, Value x, Value dx);
VL_INTERNAL Value vl_ad_jstar_result(VladState *S, int64_t tag, Value y);

/* *j: tapify the input; run the reverse sweep and build (list y x`). */
VL_INTERNAL Value vl_ad_tapify(VladState *S, int64_t tag, Value x);
VL_INTERNAL Value vl_ad_starj_result(VladState *S, int64_t tag, Value xnodes,
                                     Value y, Value ybar, TapeNode *head,
                                     uint32_t count);

#endif
