/*
 * vm/ad.h -- automatic differentiation: dual numbers, tapes, lifting
 *
 * A real is a plain double (VT_NUM), a dual number (VT_DUAL: forward
 * mode; a Dual, or a PlainDual when aux's low 31 bits hold its tag) or a
 * tape node (VT_TAPE:
 * reverse mode).  Each invocation of j* or
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
 * Tapes are persistent (see TapeChunk): a checkpoint resumed twice
 * extends the same prefix twice without interference; the reverse sweep
 * keeps sensitivities by creation index outside the tape (vm/adsweep.c),
 * never in the nodes.
 */
#ifndef VL_AD_H
#define VL_AD_H

#include <float.h>
#include <math.h>
#include <string.h>
#include "vm/state.h"

typedef struct Dual {
    Value primal;           /* first field: vl_value_primal relies on it */
    Value tangent;          /* a real */
    int64_t tag;
} Dual;

/* The compact form of a dual whose primal and tangent are plain doubles
   and whose tag fits in 31 bits: a VT_DUAL value with the tag in aux's
   low bits (tags start at 1, so 0 there means a Dual; the top bit is the
   activity mark, vm/value.h), pointing at 16 bytes of pointer-free
   memory. */
typedef struct PlainDual {
    double primal;          /* first field */
    double tangent;
} PlainDual;
#define VL_PLAIN_DUAL_MAX_TAG ((int64_t)VL_AUX_BITS)

/* A tape is stored in chunks: arrays of fixed-size slots filled in
   creation order.  A node is named by its chunk and its ordinal in it
   (a VT_TAPE value has as.obj = chunk, aux = ordinal | the activity mark
   VL_ACTIVE, vm/value.h); its index on the
   tape, which the reverse sweep uses, is chunk->base + ordinal.  A chunk
   continues the tape prefix (prev, prev_n): its first node follows node
   prev_n - 1 of prev.  Appending at (chunk, n) writes in place only when n
   is the chunk's fill mark; otherwise (a checkpoint resumed a second time,
   extending an older prefix) a new chunk starts there.  So tapes stay
   persistent and recorded nodes never change. */
#define VL_TAPE_NONE 0xFFFFFFFFu        /* no parent */
#define VL_TAPE_GENERAL 0xFFFFFFFEu     /* parent of a general slot */
#define VL_TAPE_CONT 0xFFFFFFFDu        /* parent of a partial's slot */
/* Tape indices are below 2^30: the top two bits of a compact node's
   'parent' say how its partials are found (its class). */
#define VL_TAPE_INDEX_BITS 30
#define VL_TAPE_INDEX_MASK ((1u << VL_TAPE_INDEX_BITS) - 1)
enum {
    VL_TAPE_UNARY = 0,      /* one parent, partial by a unary rule */
    VL_TAPE_BINARY = 1,     /* two parents, partials by a binary rule */
    VL_TAPE_EXPLICIT = 2,   /* partials in the slots that follow */
    VL_TAPE_FLOAT = 3       /* one parent, its stored partial a float in
                               parent1 (tape indices stay below
                               VL_TAPE_INDEX_MASK - 4, so that this class
                               never reads as VL_TAPE_CONT or above) */
};

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
    /* the unary math functions, in the order of vm/math1.h: the
       derivative of its row, x0 the parent's primal */
    VL_RULE_MATH1_FIRST,
    VL_RULE_MATH1_LAST = VL_RULE_MATH1_FIRST + IN_MATH1_LAST
                         - IN_MATH1_FIRST,
    /* binary rules: the rows of vm/math2.h marked VLM_TAPED, which are
       among its first 4 (parent1's top 2 bits hold the row, rule -
       VL_RULE_BINARY_FIRST): its partials, x0 and x1 the parents'
       primals */
    VL_RULE_BINARY_FIRST,
    VL_RULE_BINARY_LAST = VL_RULE_BINARY_FIRST + 3
};
#define VL_MATH2_TAPED_FIRST4_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) \
    _Static_assert(TAPE(VL_M2_##ID < 4, 1),                           \
                   "a VLM_TAPED row must be among vm/math2.h's first 4");
VL_MATH2(VL_MATH2_TAPED_FIRST4_)
#undef VL_MATH2_TAPED_FIRST4_

/* Whether d is a float exactly (bit for bit, once widened again: the
   conversions keep the sign of a zero and infinities).  A NaN is not. */
static inline int vl_tape_is_float(double d)
{
    if (d >= -FLT_MAX && d <= FLT_MAX)
        return (double)(float)d == d;
    return isinf(d);
}

/* A node whose primal and partials carry other perturbations: the slot
   is marked VL_TAPE_GENERAL and its chunk's exts[ordinal] points at
   this record. */
typedef struct TapeExt {
    Value primal;
    Value partials[2];
    uint32_t parents[2];
    uint32_t nparents;
} TapeExt;

/* One slot: 16 bytes.  A compact node (plain primal and partials) takes
   one slot, and one more per stored partial (VL_RULE_EXPLICIT).  A
   general node (parent == VL_TAPE_GENERAL) takes as many slots as the
   compact node of the same operation would, so that a tape has the same
   layout whatever perturbations its reals carry (vm/ad.c,
   through_tape).  'primal' is always the plain primal (all
   perturbations removed); in a VL_TAPE_CONT slot, a stored partial. */
typedef struct TapeSlot {
    double primal;
    uint32_t parent;        /* parent 0's tape index | class << 30,
                               VL_TAPE_NONE (a leaf), VL_TAPE_GENERAL or
                               VL_TAPE_CONT */
    uint32_t parent1;       /* VL_TAPE_UNARY: the rule; VL_TAPE_BINARY:
                               parent 1's index | (rule -
                               VL_RULE_BINARY_FIRST) << 30; VL_TAPE_EXPLICIT: parent 1's index or
                               VL_TAPE_NONE */
} TapeSlot;

/* The rule of a binary op (VL_IS_MATH2, or IN__COUNT: vm/ad.c's
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
   the caller's lookup (vm/ad.c through the chunks, vm/adsweep.c through
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
        /* vm/math1.h's derivatives: the argument is read only by the
           rules that use it */
#define VLM_ARG primal(ctx, p0)
#define VLM_VAL y
#include "vm/mathplain.h"
#define VL_MATH1_RULE_(ID, NAME, FN, D) \
        case VL_RULE_MATH1_FIRST + (IN_##ID - IN_MATH1_FIRST): \
            d[0] = (D); \
            break;
        VL_MATH1(VL_MATH1_RULE_)
#undef VL_MATH1_RULE_
#include "vm/mathundef.h"
        }
        return 1;
    case VL_TAPE_BINARY:
        p[0] = p0 & VL_TAPE_INDEX_MASK;
        p[1] = q & VL_TAPE_INDEX_MASK;
        /* vm/math2.h's partials of the VLM_TAPED rows (the others
           are never recorded so: their code is dropped, q >> 30 < 4) */
#define VLM_A primal(ctx, p[0])
#define VLM_B primal(ctx, p[1])
#define VLM_VAL y
#define VLM_T sh
#include "vm/mathplain.h"
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
#include "vm/mathundef.h"
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
        if (p0 >= VL_TAPE_CONT) {               /* a leaf (or general) */
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

/* The slots allocated for a chunk of capacity cap: two spare ones after
   them for the partials of a node that starts in the last. */
#define VL_TAPE_CHUNK_SLOTS(cap) ((cap) + 2)

typedef struct TapeChunk {
    struct TapeChunk *prev; /* the chunk holding the preceding nodes */
    TapeExt **exts;         /* general nodes by ordinal, NULL while none */
    TapeSlot *slots;        /* pointer-free memory */
    int64_t tag;            /* the *j invocation this tape belongs to */
    int64_t compact_tag;    /* tag while every slot of this chunk is a
                               compact node's, else 0 (no invocation's):
                               the fast paths' one test (vm/adfast.h) */
    uint32_t base;          /* tape index of slots[0] */
    uint32_t prev_n;        /* nodes of prev that precede slots[0] */
    uint32_t used, cap;     /* fill mark, capacity */
    uint32_t conts;         /* VL_TAPE_CONT slots in slots[0 .. used) */
    uint32_t conts_before;  /* and on the tape before slots[0] */
    int general;            /* a general node is in this chunk or before */
    int managed;            /* slots from vl_gc_alloc_managed, not yet
                               handed to the collector (vl_ad_release_tape) */
} TapeChunk;

/* The plain primal of a VT_TAPE value. */
static inline double vl_tape_primal(Value v)
{
    const TapeSlot *t =
        &((const TapeChunk *)v.as.obj)->slots[v.aux & VL_AUX_BITS];
    /* a checkpoint may hold a value naming a partial's slot (the end of
       a suspended tape, vm/cont.c): its primal is 0 */
    return VL_LIKELY(t->parent != VL_TAPE_CONT) ? t->primal : 0;
}

/* One active invocation of j* or *j (an entry of S->ad). */
typedef struct AdFrame {
    int64_t tag;
    int reverse;            /* *j */
    size_t frame;           /* stack index of its delimiter frame */
    TapeChunk *chunk;       /* *j: its tape is (chunk, n) */
    uint32_t n;
    uint64_t escapes;       /* S->escapes when it began; UINT64_MAX when
                               it was reinstalled from a checkpoint */
} AdFrame;

/* A binary arithmetic InlineId on plain doubles (modulo is floored, its
   zero takes the divisor's sign). */
VL_INTERNAL double vl_ad_plain2(int op, double a, double b);

/* The fast path of vl_ad_binary, which the VM calls first: operands that
   are plain reals and plain duals of one tag, or plain reals and compact
   nodes of one tape.  Returns 0 (nothing done) when the general path is
   needed. */
VL_INTERNAL int vl_ad_binary_fast(VladState *S, int op, Value a, Value b,
                                  Value *out);

/* Lifted arithmetic on any reals (InlineId ops). */
VL_INTERNAL Value vl_ad_binary(VladState *S, int op, Value a, Value b);
VL_INTERNAL Value vl_ad_unary(VladState *S, int op, Value a);

/* Lift a function of n = 1 or 2 reals given by 'rule': rule(S, ctx, -1,
   x) is its value at x, rule(S, ctx, i, x) its partial derivative in
   argument i; both are called on the primals at the innermost tag (and
   may themselves lift, for nested derivatives). */
typedef Value (*VlAdRule)(VladState *S, void *ctx, int which,
                          const Value *x);
VL_INTERNAL Value vl_ad_lift(VladState *S, int n, const Value *args,
                             VlAdRule rule, void *ctx);

/* The stack of active invocations. */
VL_INTERNAL void vl_ad_push(VladState *S, int64_t tag, int reverse,
                            size_t frame, TapeChunk *chunk, uint32_t n);
VL_INTERNAL AdFrame *vl_ad_top(VladState *S);
/* Free the tape of a *j that ended (its chunks), when no checkpoint was
   captured and no host primitive was called while it ran: then nothing
   but the *j itself can refer to it, and its blocks are reused at once
   instead of waiting for a collection. */
VL_INTERNAL void vl_ad_release_tape(VladState *S, const AdFrame *f);
/* The nodes on the tape (chunk, n) (a node may take two slots). */
VL_INTERNAL uint64_t vl_ad_tape_nodes(const TapeChunk *chunk, uint32_t n);
/* That condition: f is a *j whose tape nothing else can refer to. */
VL_INTERNAL int vl_ad_tape_private(const VladState *S, const AdFrame *f);
VL_INTERNAL void vl_ad_pop(VladState *S);

/* j*: bundle x with its tangent; unbundle the result into (list y y'). */
VL_INTERNAL Value vl_ad_bundle(VladState *S, int64_t tag, Value x, Value dx);
VL_INTERNAL Value vl_ad_jstar_result(VladState *S, int64_t tag, Value y);

/* *j: tapify the input (with active_only, only its plain reals marked
   active and its other reals: checkpoint-*j's base cases); run the
   reverse sweep and build (list y x`).  The sweep leaves the tape as it
   is. */
VL_INTERNAL Value vl_ad_tapify(VladState *S, int64_t tag, Value x,
                               int active_only);
/* x with every plain real marked active (checkpoint-*j's input). */
VL_INTERNAL Value vl_ad_activate(VladState *S, Value x);
VL_INTERNAL Value vl_ad_starj_result(VladState *S, int64_t tag, Value xnodes,
                                     Value y, Value ybar, TapeChunk *chunk,
                                     uint32_t n);

/* Fresh tags for a resumed execution (vm/ad.c): a relabeling replaces
   tags 'from' by 'to' in reals, tapes and whole values (a checkpoint,
   walked by vm/walk.c); what it does not change is kept as it is. */
typedef struct VlRelabel VlRelabel;
VL_INTERNAL VlRelabel *vl_ad_relabel_new(void);
/* Whether the invocation of 'tag' is active (in S->ad). */
VL_INTERNAL int vl_ad_active(VladState *S, int64_t tag);
VL_INTERNAL void vl_ad_relabel_add(VlRelabel *r, int64_t from, int64_t to);
VL_INTERNAL int64_t vl_ad_relabel_tag(VlRelabel *r, int64_t tag);
VL_INTERNAL TapeChunk *vl_ad_relabel_tape(VladState *S, VlRelabel *r,
                                          TapeChunk *c);
VL_INTERNAL Value vl_ad_relabel(VladState *S, VlRelabel *r, Value v);

#endif
