/*
 * vm/vm.h -- running bytecode
 *
 * vl_vm_apply applies a procedure to an argument on the VM and returns the
 * result; errors are raised (vm/except.h), so callers run it under
 * vl_except_protect.  The control primitives (checkpoint, primops,
 * resume) and the entry frame are hand-assembled prototypes built once
 * per state by vl_vm_init.
 */
#ifndef VL_VM_H
#define VL_VM_H

#include "vm/state.h"

/* Indices of S->control[]. */
enum {
    CTL_ENTRY,          /* bottom frame of vl_vm_apply: CALL then HALT */
    CTL_CHECKPOINT,     /* (checkpoint f x k) */
    CTL_PRIMOPS,        /* (primops f x) */
    CTL_RESUME,         /* (resume u) */
    CTL_JSTAR,          /* (j* f x x') */
    CTL_STARJ,          /* (*j f x y`) */
    CTL_SEG_FIRST,      /* checkpoint-*j: the first, measuring run */
    CTL_SEG_RUN,        /* checkpoint-*j: resume a state to the end */
    CTL_SEG_ADV,        /* checkpoint-*j: advance a state by m steps */
    CTL_ADVANCE,        /* the delimiter of an advance */
    CTL_STARJ_ACTIVE,   /* (%cpj-*j f s y`): *j differentiating only the
                           reals of s marked active (vm/value.h) */
    CTL_UNDERFLOW       /* stands for frames of a resumed checkpoint not
                           copied back yet (vm/cont.h) */
};

/* Index of the CALL instruction in the checkpoint prototype (its result
   register receives the checkpoint when the limit fires; the instruction
   after CKPT_END returns it). */
#define CTL_CKPT_CALL 3

/* Build the control prototypes and bind checkpoint, primops and resume in
   the prelude environment. */
VL_INTERNAL void vl_vm_init(VladState *S);

/* Slots of the continuation stack when it is first allocated. */
#define VL_STACK_INITIAL 1024


/* Apply 'fn' to 'arg' (one argument) and return the result.  Raises. */
VL_INTERNAL Value vl_vm_apply(VladState *S, Value fn, Value arg);

#endif
