/*
 * vm/exec/vm.h -- running bytecode
 *
 * vl_vm_apply applies a procedure to an argument on the VM and returns the
 * result; errors are raised (vm/core/except.h), so callers run it under
 * vl_except_protect.  The control primitives (checkpoint, primops,
 * resume) and the entry frame are hand-assembled prototypes built once
 * per state by vl_vm_init.
 */
#ifndef VL_VM_H
#define VL_VM_H

#include "vm/core/state.h"

/* Build the control prototypes and bind checkpoint, primops and resume in
   the prelude environment. */
VL_INTERNAL void vl_vm_init(VladState *S);

/* Apply 'fn' to 'arg' (one argument) and return the result.  Raises. */
VL_INTERNAL Value vl_vm_apply(VladState *S, Value fn, Value arg);

#endif
