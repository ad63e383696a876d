/*
 * vm/core/cont.h -- continuations as values: capturing and reinstalling frames
 *
 * The VM keeps its continuation on a contiguous stack of frames (vm/exec/vm.c).
 * When a step limit fires, the part of the stack above the limit's
 * delimiter frame becomes a Checkpoint: for every suspended frame its
 * closure, where it resumes, the distance to the frame above it and ONLY
 * the registers live at that point (from the prototype's liveness table),
 * plus the pending application (procedure and argument) that was about to
 * become the next step.  Absolute step counts kept in delimiter frames are
 * stored relative to the capture, so a checkpoint can be resumed at any
 * later time, any number of times: checkpoints are immutable.
 *
 * Segments, not copies (the "incremental stack/heap" strategy of Clinger,
 * Hartheimer and Ost; Chez Scheme's segmented stacks, Hieb, Dybvig and
 * Bruggeman).  Copying every frame at each capture and each resume makes
 * a chain of n (checkpoint resume u 1) cost O(n^2): level n holds the n
 * frames of the levels below.  Instead:
 *
 * - Resuming copies onto the stack only the frames it must (the delimiter
 *   frames, which keep state outside the stack -- limits, AD and
 *   checkpoint-*j entries, relative counts -- and the frames between
 *   them) and stands for each stretch of plain frames below, between and
 *   above them with one UNDERFLOW FRAME: a frame of the hand-assembled prototype
 *   CTL_UNDERFLOW holding a frame sequence (vm/core/contseg.h).  The frame
 *   above it returns into it like into any frame (the return path of the
 *   VM has no extra test); its UNDERFLOW instruction then copies the next
 *   few frames of its sequence back (at most UNDERFLOW_CHUNK slots) and
 *   passes the value on (vl_cont_underflow).
 * - Capturing copies the frames above and between underflow frames and
 *   refers to the sequence each underflow frame stands for: those frames
 *   are, by construction, an unmodified copy of an older checkpoint.
 *
 * So one level of the chain costs O(1) time and memory, and so does a
 * resume followed by a capture after k steps: O(frames the k steps
 * touched).  Sequences are immutable and shared (DAGs); the walkers
 * (vm/ad/walk.c) and backtraces (vm/core/except.c) read them with explicit stacks.
 *
 * Size.  'bytes' is the logical size of a checkpoint: what it would take
 * stored flat (the struct, one CapFrame per frame and one Value per live
 * register, a shared segment counted at each place it appears).  It does
 * not depend on how segments are shared, so it is the same for a
 * checkpoint however it was made; the memory held is at most that, and
 * checkpoints that share segments hold less together than the sum of
 * their sizes.
 *
 * A finished checkpoint only holds the result of its computation.
 */
#ifndef VL_CONT_H
#define VL_CONT_H

#include "vm/core/state.h"
#include "vm/core/contseg.h"

/* Slots of the continuation stack when it is first allocated. */
#define VL_STACK_INITIAL 1024

/* Capture the frames above the delimiter frame whose base is at stack
   index 'delim' (exclusive), up to the call block 'fb' whose application
   of fb[1] to the 'nargs' values at fb[2..] was about to start.  Limits of
   delimiters inside the segment are popped.  'now' is the step count. */
VL_INTERNAL Checkpoint *vl_cont_capture(VladState *S, size_t delim,
                                        Value *fb, int nargs, int64_t now);

/* The same checkpoint, the computation going on as if nothing happened
   (the side stacks keep their entries): an autosave (vm/exec/autosave.h). */
VL_INTERNAL Checkpoint *vl_cont_snapshot(VladState *S, size_t delim,
                                         Value *fb, int nargs, int64_t now);

/* Reinstall the frames of 'k' above the frame at 'base', whose call
   instruction writes its result to register 'dest' (the delimiter frames
   and the frames between them; an underflow frame stands for each
   stretch of the others: after a resume, frames -- and the values they
   hold -- may not be on the stack yet); returns the call block of the pending
   application (header, callee, argument), ready to be entered with one
   argument.  Re-establishes the state of delimiters inside (limits, AD
   and checkpoint-*j entries).  May grow the stack: '*base' is updated.
   The AD tags of 'k' must already be fresh: the caller (RESUME, vm/exec/vm.c)
   passes it through vl_ad_fresh_tags first, which keeps this layer below
   AD. */
VL_INTERNAL Value *vl_cont_reinstall(VladState *S, const Checkpoint *k,
                                     Value **base, const Instr *ret_ip,
                                     int dest, int64_t now);

/* UNDERFLOW: the frame above the underflow frame at 'ubase' returned.
   Copies the next frames of its sequence onto the stack (over the
   underflow frame when they are the last) and returns the base of a
   frame whose return delivers the value to the topmost of them -- or
   'ubase' itself, whose return goes to the frame below, when nothing is
   left.  May grow the stack (the result is then in the new one). */
VL_INTERNAL Value *vl_cont_underflow(VladState *S, Value *ubase);

/* A finished checkpoint holding 'v'. */
VL_INTERNAL Value vl_cont_finished(VladState *S, Value v);

/* Make sure the stack has room for 'need' slots above '*base' (a pointer
   into the stack that is rebased if the stack moves); raises on overflow. */
VL_INTERNAL void vl_cont_ensure(VladState *S, Value **base, size_t need);
/* Make room for NEED slots from stack offset OFF (allocates the stack on
   first use). */
VL_INTERNAL void vl_cont_reserve(VladState *S, size_t off, size_t need);
/* After a failed evaluation, or one that grew the stack: drop what the
   stack still holds (dead registers would keep garbage alive), and give
   the pages of a stack a deep recursion grew back to the system. */
VL_INTERNAL void vl_cont_release_stack(VladState *S);

/* Clear the slots of the stack from 'from' up, which no frame uses (a
   primitive's arguments end there; the top level after a call: all), as
   far as they were written: until VL_STACK_GAP slots in a row are zero
   (slots never written are zero; a frame with more than VL_STACK_GAP
   registers never written hides the slots above it, which are then
   merely kept alive longer).  Left as they were, such slots keep what
   they point to alive -- after a deep recursion returns, the data of
   every call it made (checkpoint-*j's driver clears them each time it
   holds or releases a state or starts a base case, vm/cpj/cpjprims.c).  Costs
   about what writing them did. */
#define VL_STACK_GAP 64

/* The same for the registers of the 'frames' frames under a running
   primitive (its caller first) that are dead where those frames wait:
   left as they were, a frame suspended for long -- a level of
   checkpoint-*j's driver, under the whole recursion below it -- keeps
   alive what it no longer needs (vm/cpj/cpjprims.c calls it).  Stops at a
   control frame. */
VL_INTERNAL void vl_cont_clear_dead(VladState *S, int frames);
VL_INTERNAL void vl_cont_clear_above(VladState *S, Value *from);

#endif
