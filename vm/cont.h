/*
 * vm/cont.h -- continuations as values: capturing and reinstalling frames
 *
 * The VM keeps its continuation on a contiguous stack of frames (vm/vm.c).
 * When a step limit fires, the part of the stack above the limit's
 * delimiter frame is copied into a Checkpoint (the "stack/heap" strategy
 * of Clinger et al.): for every suspended frame its closure, where it
 * resumes, the distance to the frame above it and ONLY the registers live
 * at that point (from the prototype's liveness table), plus the pending
 * application (procedure and argument) that was about to become the next
 * step.  Absolute step counts kept in delimiter frames are stored relative
 * to the capture, so a checkpoint can be resumed at any later time, any
 * number of times: checkpoints are immutable, and resuming copies the
 * frames back onto the stack.
 *
 * A finished checkpoint only holds the result of its computation.
 */
#ifndef VL_CONT_H
#define VL_CONT_H

#include "vm/state.h"

typedef struct CapFrame {
    Closure *closure;       /* the suspended procedure */
    uint32_t ret_pc;        /* instruction index where it resumes */
    uint32_t delta;         /* distance (slots) from its base to the base
                               of the frame above it */
    uint32_t first;         /* index of its first live value in 'values' */
    uint32_t nlive;         /* number of live registers kept */
} CapFrame;

typedef struct Checkpoint {
    int finished;           /* the computation has ended */
    Value result;           /* finished: its value */
    Value callee;           /* pending application: procedure ... */
    Value arg;              /* ... and its (single, tuple) argument */
    uint32_t nframes;       /* suspended frames, bottom first */
    CapFrame *frames;
    Value *values;          /* live registers of all frames, in frame and
                               register order; delimiter step counts are
                               relative (VT_RAW) */
    size_t bytes;           /* size of this checkpoint's own memory */
    int64_t steps_at;       /* steps of the interrupted computation
                               taken when captured (informative) */
    int64_t position;       /* checkpoint-*j: step position of the state
                               made by an advance segment; else 0 */
    int held;               /* checkpoint-*j: counted as a held slot */
} Checkpoint;

/* Capture the frames above the delimiter frame whose base is at stack
   index 'delim' (exclusive), up to the call block 'fb' whose application
   of fb[1] to the 'nargs' values at fb[2..] was about to start.  Limits of
   delimiters inside the segment are popped.  'now' is the step count. */
VL_INTERNAL Checkpoint *vl_cont_capture(VladState *S, size_t delim,
                                        Value *fb, int nargs, int64_t now);

/* Reinstall the frames of 'k' above the frame at 'base', whose call
   instruction writes its result to register 'dest'; returns the call
   block of the pending application (header, callee, argument), ready to
   be entered with one argument.  Pushes the limits of delimiters inside.
   May grow the stack: '*base' is updated. */
VL_INTERNAL Value *vl_cont_reinstall(VladState *S, const Checkpoint *k,
                                     Value **base, const Instr *ret_ip,
                                     int dest, int64_t now);

/* Fresh tags (finding W1).  Two executions must never share the tag of
   a j* or *j: the tag of an invocation suspended in a checkpoint is
   shared by every execution resumed from it, and by the checkpoint
   itself.  So a checkpoint resumed while an invocation suspended in it
   is active (resumed again inside its own resumed execution) gives that
   invocation a fresh tag: tag < 0 below.  And the walk that ends a j*
   (vm/ad.c, vl_ad_jstar_result), meeting a checkpoint in its result that
   holds a j* of its own tag suspended (the checkpoint the running
   execution was resumed from, held as data), relabels that checkpoint
   before taking it apart, so that its perturbation is kept as a
   suspended one's: 'tag' below.  (A *j's result is zipped with a
   cotangent, which cannot hold such a checkpoint: a checkpoint's
   cotangent has its frames, and so would hold a cotangent of itself.)
   Returns k, or a copy of k in which each such invocation has a fresh
   tag (in its frame too) and the reals and tapes are relabeled to match
   (vm/ad.c, "Fresh tags"). */
VL_INTERNAL const Checkpoint *vl_cont_fresh_tags(VladState *S,
                                                 const Checkpoint *k,
                                                 int64_t tag);

/* A finished checkpoint holding 'v'. */
VL_INTERNAL Value vl_cont_finished(VladState *S, Value v);

/* Make sure the stack has room for 'need' slots above '*base' (a pointer
   into the stack that is rebased if the stack moves); raises on overflow. */
VL_INTERNAL void vl_cont_ensure(VladState *S, Value **base, size_t need);
/* Make room for NEED slots from stack offset OFF (allocates the stack on
   first use). */
VL_INTERNAL void vl_cont_reserve(VladState *S, size_t off, size_t need);

/* checkpoint-*j never splits inside a *j: an advance delimiter whose
   limit 'l' fired while a *j runs above it is deferred (returns 1) until
   no *j runs above it any more -- the *j ended, or a checkpoint captured
   inside it suspended it -- when vl_cont_undefer (called at both) makes
   it fire at the next step.  Returns 0 (nothing done) for any other
   limit. */
VL_INTERNAL int vl_cont_defer(VladState *S, Limit *l);
VL_INTERNAL void vl_cont_undefer(VladState *S, int64_t now);

/* Limits. */
VL_INTERNAL void vl_cont_push_limit(VladState *S, int64_t deadline,
                                    size_t frame);
VL_INTERNAL void vl_cont_pop_limit(VladState *S);

/* The next step count at which the VM must stop counting down: the
   earliest deadline or the next interrupt poll. */
VL_INTERNAL int64_t vl_cont_anchor(VladState *S, int64_t now);

#endif
