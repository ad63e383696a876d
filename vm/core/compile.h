/*
 * vm/core/compile.h -- from core AST to bytecode prototypes
 *
 * The compiler resolves every variable (local register, captured value of
 * a flat closure, the closure itself, or a global cell), allocates
 * registers, turns calls of primitives it can see by name into inline
 * operations, compiles patterns into match instructions, and computes for
 * every call-capable instruction the set of registers live after it
 * returns (so captured frames keep only live values).
 */
#ifndef VL_COMPILE_H
#define VL_COMPILE_H

#include "vm/core/object.h"
#include "parser/expand.h"

/* Compile one top-level form into the prototype of a thunk; running it
   defines the global or returns the expression's value.  'prelude' selects
   the prelude environment.  Raises VLAD_ERR_SYNTAX-class errors through
   vl_except_at (e.g. a function too large for the instruction format). */
VL_INTERNAL Proto *vl_compile_toplevel(VladState *S, const TopForm *form,
                                       int prelude);

/* The run-time value of a quoted datum (numbers, booleans, (), pairs). */
VL_INTERNAL Value vl_compile_datum_value(VladState *S, const Datum *d);

/* Whether an instruction of opcode 'op' can call VLAD code (a frame may
   wait after it: the liveness of its registers is computed there). */
VL_INTERNAL int vl_compile_is_call_capable(int op);

/* Whether opcode 'op' is a jump: its operand c is a signed offset from
   the next instruction. */
VL_INTERNAL int vl_compile_is_jump(int op);

/* Build a prototype from hand-written code (control primitives). */
VL_INTERNAL Proto *vl_compile_assemble(VladState *S, const char *name,
                                       ProtoKind kind, int nparams,
                                       int nregs, const Instr *code,
                                       int ncode);

#endif
