/*
 * vm/core/disasm.h -- the bytecode listing of a prototype (luac -l)
 *
 * Formats a Proto as text: its name and where it was written, its
 * registers, constants and captured values, then one line per
 * instruction -- index, source line:col, whether it is a step-counting
 * point, the opcode's name (from vm/core/opcodes.h), its operands x a b c
 * and notes (the constant or global an operand names, a jump's target,
 * an inline primitive's name, the flags of Instr.x).  How to read one:
 * doc/internals.md, "Reading a bytecode listing".  `vlad --disassemble`
 * and the REPL's ,disassemble print it (vlad_disassemble, vm/api/).
 * Internal header.
 */
#ifndef VL_DISASM_H
#define VL_DISASM_H

#include "vm/core/object.h"
#include "vm/core/strbuf.h"

/* Append to 'b' the listing of 'p' and then of every prototype nested in
   it, depth first, each before its own children (the order of
   vl_unit_protos).  'label' names p in the listing; its child k (operand
   b of the CLOSURE that makes it) is LABEL.k, and so on down.  Never
   raises but for memory. */
VL_INTERNAL void vl_disasm_proto(VladState *S, StrBuf *b, const Proto *p,
                                 const char *label);

#endif
