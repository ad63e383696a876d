/*
 * vm/core/delimregs.h -- the registers of a delimiter frame, named once
 *
 * A delimiter frame (vm/core/delim.h) keeps what it delimits in its own
 * registers, numbered from its prototype's 'ctlreg' (C below; the
 * prototypes are assembled in vm/exec/vm.c, vl_vm_init, where each kind's
 * C is the operand a of its *_BEGIN instruction).  Every reader and
 * writer names a register as p->ctlreg + one of the slots below, never
 * by a bare offset.  Per kind (Proto.kind, vm/core/object.h):
 *
 *   kind           C-2   C-1   C          C+1          C+2       C+3
 *   PK_CHECKPOINT              deadline
 *   PK_PRIMOPS                 start
 *   PK_JSTAR                   tag        (call block: header, callee,
 *                                          input bundled)
 *   PK_STARJ             y`    tag        input        tape end
 *   PK_SEGMENT     pos   log   anchor
 *   PK_HIDE                    origin     counted + 1  strategy  hides
 *
 * deadline  the step at which the checkpoint's (or advance's) limit
 *           fires (VL_COUNT_SATURATED: none); in a captured frame the steps
 *           left (vm/core/cont.c, capture_value)
 * start     the step at which primops' call began; captured: the steps
 *           since
 * tag       the AD tag of the j* or *j (vm/ad/ad.h)
 * input     j*: the input bundled with its tangent, which is the argument
 *           of the call block at C+1; *j: the input made tape nodes, which
 *           the call block at C+3 passes on
 * y`        *j's third argument, the sensitivity of the result
 * tape end  *j's tape while the frame is captured (a tape value, or raw
 *           (chunk, fill)); S->ad holds it while the *j runs
 * pos       a checkpoint-*j segment's position in the first run (a real)
 * log       the segment's effect log (raw: vm/core/contseg.h,
 *           VL_RAW_LOG / VL_RAW_LOG_LIST)
 * anchor    the step at which the segment's position 0 was (position p
 *           is step anchor + p); captured: the steps since
 * origin    %cpj-hide's step origin of the steps it counts (vm/exec/vm.c,
 *           "What checkpoint-*j's steps are"); captured: those counted
 * counted   1 + the steps counted so far, 0 while a first run counts
 * strategy  the run's strategy value (vm/cpj/cpj.c; data, not raw)
 * hides     1 when the run hides steps (not steps=all), else 0
 *
 * Slots below C are the prototype's parameters or the segment closures'
 * free values, loaded where its code starts (vm/exec/vm.c).
 * Internal header.
 */
#ifndef VL_DELIMREGS_H
#define VL_DELIMREGS_H

typedef enum DelimSlot {
    VL_CKPT_DEADLINE = 0,       /* PK_CHECKPOINT */
    VL_PRIMOPS_START = 0,       /* PK_PRIMOPS */
    VL_AD_TAG = 0,              /* PK_JSTAR and PK_STARJ */
    VL_JSTAR_INPUT = 3,         /* PK_JSTAR */
    VL_STARJ_YBAR = -1,         /* PK_STARJ */
    VL_STARJ_INPUT = 1,
    VL_STARJ_TAPE_END = 2,
    VL_SEG_POS = -2,            /* PK_SEGMENT */
    VL_SEG_LOG = -1,
    VL_SEG_ANCHOR = 0,
    VL_HIDE_ORIGIN = 0,         /* PK_HIDE */
    VL_HIDE_COUNTED = 1,
    VL_HIDE_STRATEGY = 2,
    VL_HIDE_HIDES = 3
} DelimSlot;

#endif
