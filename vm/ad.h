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
#define VL_TAPE_CONT 0xFFFFFFFDu        /* parent of a node's second slot */
/* Tape indices are below 2^30: parent1's top two bits say how its
   partial is found (vl_tape_parents). */
#define VL_TAPE_INDEX_BITS 30
#define VL_TAPE_INDEX_MASK ((1u << VL_TAPE_INDEX_BITS) - 1)
enum {
    VL_TAPE_SAME = 0,       /* the same partial as parent 0's */
    VL_TAPE_NEG = 1,        /* its negation (bit for bit) */
    VL_TAPE_NEXT = 2        /* in the next slot, a VL_TAPE_CONT one */
};

/* A node whose primal and partials carry other perturbations: the slot
   holds a pointer to this record (kept alive by its chunk's ext list). */
typedef struct TapeExt {
    Value primal;
    Value partials[2];
    uint32_t parents[2];
    uint32_t nparents;
    struct TapeExt *next;
} TapeExt;

/* One slot: 24 bytes.  A compact node (plain primal and partials) with
   no parent or one takes one slot, and so does one with two parents
   whose partials are equal or opposite (x + y, x - y, x * x); other
   two-parent nodes (x * y, x / y) take a second slot for the second
   partial.  A general node (parent == VL_TAPE_GENERAL) points at its
   TapeExt.  'primal' is always the plain primal (all perturbations
   removed). */
typedef struct TapeSlot {
    double primal;
    uint32_t parent;        /* parent 0's tape index, VL_TAPE_NONE (a
                               leaf), VL_TAPE_GENERAL or VL_TAPE_CONT */
    uint32_t parent1;       /* parent 1's index | kind << 30, or
                               VL_TAPE_NONE */
    union {
        double partial;     /* parent 0's (a CONT slot: the previous
                               slot's parent 1's) */
        TapeExt *ext;
    } u;
} TapeSlot;

/* How a node with two parents keeps its second partial d1, given the
   first d0: as d0 or -d0 (bit for bit) in parent1's top bits, else in a
   second slot (VL_TAPE_NEXT). */
static inline uint32_t vl_tape_kind(double d0, double d1)
{
    uint64_t b0, b1;
    memcpy(&b0, &d0, sizeof b0);
    memcpy(&b1, &d1, sizeof b1);
    if (b1 == b0)
        return VL_TAPE_SAME;
    if (b1 == (b0 ^ (UINT64_C(1) << 63)))
        return VL_TAPE_NEG;
    return VL_TAPE_NEXT;
}

/* Write the second slot t of a two-parent node, holding the second
   partial d1 (VL_TAPE_NEXT). */
static inline void vl_tape_put_cont(TapeSlot *t, double d1)
{
    t->primal = 0;
    t->parent = VL_TAPE_CONT;
    t->parent1 = VL_TAPE_NONE;
    t->u.partial = d1;
}

/* The parents (tape indices) and partials of a compact node, or of a
   second slot (none): their number. */
static inline int vl_tape_parents(const TapeSlot *t, uint32_t *p, double *d)
{
    if (t->parent >= VL_TAPE_CONT)
        return 0;
    p[0] = t->parent;
    d[0] = t->u.partial;
    uint32_t q = t->parent1;
    if (q == VL_TAPE_NONE)
        return 1;
    p[1] = q & VL_TAPE_INDEX_MASK;
    switch (q >> VL_TAPE_INDEX_BITS) {
    case VL_TAPE_SAME: d[1] = d[0]; break;
    case VL_TAPE_NEG: d[1] = -d[0]; break;
    default: d[1] = t[1].u.partial; break;
    }
    return 2;
}

/* The slots allocated for a chunk of capacity cap: a spare one after
   them for the second slot of a node that starts in the last. */
#define VL_TAPE_CHUNK_SLOTS(cap) ((cap) + 1)

typedef struct TapeChunk {
    struct TapeChunk *prev; /* the chunk holding the preceding nodes */
    TapeExt *ext;           /* general nodes of this chunk */
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
    return ((const TapeChunk *)v.as.obj)->slots[v.aux & VL_AUX_BITS].primal;
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

#endif
