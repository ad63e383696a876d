/*
 * vm/ad/ad.h -- automatic differentiation: dual numbers, tapes, lifting
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
 * keeps sensitivities by creation index outside the tape (vm/ad/adsweep.c),
 * never in the nodes.
 */
#ifndef VL_AD_H
#define VL_AD_H

#include <float.h>
#include <math.h>
#include <string.h>
#include "vm/core/state.h"
#include "vm/ad/tape.h"
#include "vm/core/contseg.h"

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

/* Free the tape of a *j that ended (its chunks), when no host primitive
   was called and no checkpoint holding a suspended *j was captured while
   it ran (S->escapes, vm/core/cont.c): then nothing but the *j itself can
   refer to it, and its blocks are reused at once instead of waiting for
   a collection. */
VL_INTERNAL void vl_ad_release_tape(VladState *S, const AdFrame *f);
/* The nodes on the tape (chunk, n) (a node may take two slots). */
VL_INTERNAL uint64_t vl_ad_tape_nodes(const TapeChunk *chunk, uint32_t n);
/* That condition: f is a *j whose tape nothing else can refer to. */
VL_INTERNAL int vl_ad_tape_private(const VladState *S, const AdFrame *f);

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

/* Reals through messages (vm/ad/admsg.c), one invocation f of S->ad at
   a time, innermost first.  vl_ad_msg_below: v's part below f: a dual of
   f, its primal (its tangent in *tangent; VT_UNDEF when v is no dual of
   f); a node of f's tape, its primal; else v.  vl_ad_msg_dual: a dual of
   f.  vl_ad_msg_node: a node of f's tape whose primal is 'below' (v's):
   a copy of v (partial 1) when v is a node of that tape, else a leaf.
   vl_ad_msg_record: a communication record on f's tape (vm/ad/tape.h). */
VL_INTERNAL Value vl_ad_msg_below(VladState *S, const AdFrame *f, Value v,
                                  Value *tangent);
VL_INTERNAL Value vl_ad_msg_dual(VladState *S, const AdFrame *f,
                                 Value primal, Value tangent);
VL_INTERNAL Value vl_ad_msg_node(VladState *S, const AdFrame *f, Value v,
                                 Value below);
VL_INTERNAL void vl_ad_msg_record(VladState *S, AdFrame *f, int kind,
                                  int peer, uint32_t m);

/* The sensitivities of a sweep by tape index, for the adjoint
   communication of a record (S->adjoint_comm, vm/ad/admsg.h). */
typedef struct VlAdjointIO {
    Value (*get)(VladState *S, void *ctx, uint32_t i);
    void (*add)(VladState *S, void *ctx, uint32_t i, Value v);
    void *ctx;
} VlAdjointIO;

/* Fresh tags for a resumed execution (vm/ad/ad.c): a relabeling replaces
   tags 'from' by 'to' in reals, tapes and whole values (a checkpoint,
   walked by vm/ad/walk.c); what it does not change is kept as it is. */
typedef struct VlRelabel VlRelabel;
VL_INTERNAL VlRelabel *vl_ad_relabel_new(void);
/* Whether the invocation of 'tag' is active (in S->ad). */
VL_INTERNAL int vl_ad_active(VladState *S, int64_t tag);
VL_INTERNAL void vl_ad_relabel_add(VlRelabel *r, int64_t from, int64_t to);
VL_INTERNAL int64_t vl_ad_relabel_tag(VlRelabel *r, int64_t tag);
VL_INTERNAL TapeChunk *vl_ad_relabel_tape(VladState *S, VlRelabel *r,
                                          TapeChunk *c);
VL_INTERNAL Value vl_ad_relabel(VladState *S, VlRelabel *r, Value v);

/* Fresh tags (finding W1).  Two executions must never share the tag of
   a j* or *j: the tag of an invocation suspended in a checkpoint is
   shared by every execution resumed from it, and by the checkpoint
   itself.  So a checkpoint resumed while an invocation suspended in it
   is active (resumed again inside its own resumed execution) gives that
   invocation a fresh tag: tag < 0 below.  And the walk that ends a j*
   (vm/ad/ad.c, vl_ad_jstar_result), meeting a checkpoint in its result that
   holds a j* of its own tag suspended (the checkpoint the running
   execution was resumed from, held as data), relabels that checkpoint
   before taking it apart, so that its perturbation is kept as a
   suspended one's: 'tag' below.  (A *j's result is zipped with a
   cotangent, which cannot hold such a checkpoint: a checkpoint's
   cotangent has its frames, and so would hold a cotangent of itself.)
   Returns k, or a copy of k in which each such invocation has a fresh
   tag (in its frame too) and the reals and tapes are relabeled to match
   (vm/ad/ad.c, "Fresh tags"; vm/core/cont.c calls it on resume). */
VL_INTERNAL const Checkpoint *vl_ad_fresh_tags(VladState *S,
                                               const Checkpoint *k,
                                               int64_t tag);
#endif
