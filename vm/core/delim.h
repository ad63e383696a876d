/*
 * vm/core/delim.h -- what delimiter frames keep outside the stack: one place
 *
 * Five kinds of frames delimit a part of the continuation: checkpoint and
 * the advances of checkpoint-*j (a step limit), primops (a step count),
 * j* and *j (an AD invocation: its tag; *j's tape), and checkpoint-*j's
 * segments (where a step is, and the effect log).  Each delimiter frame
 * holds all of it in its own registers (around its prototype's 'ctlreg':
 * vm/core/delimregs.h names them), so a captured continuation carries it
 * with the frames and nothing else (vm/core/cont.c).  For speed the VM
 * also keeps,
 * for the delimiters on the stack, three side stacks ordered by frame,
 * innermost last:
 *
 *   S->limits  the active step limits (the next deadline is their
 *              minimum: vl_delim_anchor), and the top-level one;
 *   S->ad      the active j* and *j (the fast paths read the innermost's
 *              tag and tape: vm/ad/adfast.h);
 *   S->seg     the running segments of checkpoint-*j (vm/cpj/cpjlog.c reads
 *              the innermost replaying one's log).
 *
 * They are caches of the frames, and this module is the only one that
 * changes them: the VM pushes an entry when a delimiter frame starts and
 * pops it when the frame returns; a capture cuts every entry at or above
 * the delimiter it captures up to (vl_delim_cut); a reinstall rebuilds
 * the entry of each delimiter frame it writes back from the frame's
 * registers (vl_delim_reinstall); a top-level evaluation starts and ends
 * with none (vl_delim_reset).  Internal header.
 */
#ifndef VL_DELIM_H
#define VL_DELIM_H

#include "vm/core/state.h"

/* Step limits: push when a checkpoint (or advance) frame starts, pop when
   it returns.  'frame' is the stack index of the frame's base, SIZE_MAX
   for the top-level limit. */
VL_INTERNAL void vl_delim_push_limit(VladState *S, int64_t deadline,
                                     size_t frame);
VL_INTERNAL void vl_delim_pop_limit(VladState *S);

/* The innermost limit that has come due at 'now' (deadline <= now) and
   may fire -- none below a raised barrier --, or NULL. */
VL_INTERNAL Limit *vl_delim_fired(VladState *S, int64_t now);

/* A hiding delimiter (%cpj-hide, vm/exec/vm.c): its entry in S->limits, which
   never fires itself; while its barrier is up the limits below it do not
   fire either (vl_delim_fired) and do not count for vl_delim_anchor.
   Push when the frame at stack index 'frame' starts (barrier 'up', when
   it 'hides' at all: a run of steps=all never does), pop with
   vl_delim_pop_limit.  vl_delim_barrier_below finds the entry of
   the innermost hiding frame below stack index 'frame' (NULL: none);
   vl_delim_set_barrier raises or lowers it. */
VL_INTERNAL void vl_delim_push_barrier(VladState *S, size_t frame, int up,
                                       int hides);
VL_INTERNAL Limit *vl_delim_barrier_below(VladState *S, size_t frame);
VL_INTERNAL void vl_delim_set_barrier(VladState *S, Limit *l, int up);

/* Whether the steps run now are hidden from the delimiter frame at stack
   index 'frame': a barrier is up above it. */
VL_INTERNAL int vl_delim_hidden_above(const VladState *S, size_t frame);

/* The clock goes back by 'steps' (a hiding frame's steps no longer
   counted): the top-level limit, which counts every step, and the next
   regular poll move back as far, so that they stay as many steps ahead. */
VL_INTERNAL void vl_delim_rewind(VladState *S, int64_t steps);

/* The next step count at which the VM must stop counting down: the
   earliest deadline or the next regular poll (S->poll_due, set by the
   poll itself), whichever comes first, and at most VL_POLL_QUANTUM steps
   after 'now'.  A limit that starts and ends does not put the regular
   poll off (a loop of short checkpoint-*j calls was never polled:
   issue 31, L2); a poll due already makes the next step poll. */
VL_INTERNAL int64_t vl_delim_anchor(VladState *S, int64_t now);

/* Whether a *j runs above the delimiter frame at stack index 'frame':
   an advance stopping there would split it (vl_delim_defer), a capture
   up to it suspends it (vm/core/cont.c). */
VL_INTERNAL int vl_delim_starj_above(const VladState *S, size_t frame);

/* checkpoint-*j never splits inside a *j: an advance delimiter whose
   limit 'l' fired while a *j runs above it is deferred (returns 1) until
   no *j runs above it any more -- the *j ended, or a checkpoint captured
   inside it suspended it -- when vl_delim_undefer (called at both) makes
   it fire at the next step.  Returns 0 (nothing done) for any other
   limit. */
VL_INTERNAL int vl_delim_defer(VladState *S, Limit *l);
VL_INTERNAL void vl_delim_undefer(VladState *S, int64_t now);

/* AD invocations: push when a j* (reverse = 0) or *j frame starts (a *j
   reinstalled from a checkpoint continues the tape (chunk, n)), pop when
   it returns; the innermost, or NULL. */
VL_INTERNAL void vl_delim_push_ad(VladState *S, int64_t tag, int reverse,
                                  size_t frame, TapeChunk *chunk,
                                  uint32_t n);
VL_INTERNAL void vl_delim_pop_ad(VladState *S);
VL_INTERNAL AdFrame *vl_delim_top_ad(VladState *S);

/* checkpoint-*j segments: push when one starts, pop those whose frame is
   at or above 'frame' when it returns. */
VL_INTERNAL void vl_delim_push_seg(VladState *S, size_t frame,
                                   int64_t anchor, int replay, Value log);
VL_INTERNAL void vl_delim_pop_segs(VladState *S, size_t frame);

/* A capture takes the frames above the delimiter frame at stack index
   'delim': the entries of the delimiters among them, and of that one,
   leave the side stacks (the top-level limit stays). */
VL_INTERNAL void vl_delim_cut(VladState *S, size_t delim);

/* A reinstall has just written the delimiter frame of prototype p at 'b'
   (vm/core/cont.c): make its registers' relative step counts absolute again
   ('now') and push its entry. */
VL_INTERNAL void vl_delim_reinstall(VladState *S, const Proto *p, Value *b,
                                    int64_t now);

/* No delimiter is active: a top-level evaluation starts or ends. */
VL_INTERNAL void vl_delim_reset(VladState *S);

#endif
