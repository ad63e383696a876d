/*
 * vm/exec/prims.h -- primitive procedures
 *
 * One table (vm/exec/prims.c) declares every primitive: its name, arity, C
 * implementation and, for those the compiler may inline, its InlineId.
 * Numeric primitives are defined once, with their value rule; the VM's
 * inline operations call the same functions on their slow path, so a
 * primitive behaves identically whether it was inlined or called.
 */
#ifndef VL_PRIMS_H
#define VL_PRIMS_H

#include <math.h>
#include "vm/core/state.h"

/* Bind every primitive in the prelude environment and record the builtin
   value of every inline id. */
VL_INTERNAL void vl_prims_install(VladState *S);


/* Called after the prelude defines 'g': car and cdr become inlinable. */
VL_INTERNAL void vl_prims_note_prelude_define(VladState *S, Global *g);

/* Create the user cells of every inlinable name (after the prelude). */
VL_INTERNAL void vl_prims_bind_inline_cells(VladState *S);

/* Number of arguments an inline id takes (1 or 2). */

/* The primitive procedures + - * / and the comparisons, given their
   tuple (a . b): b is a real, or the rest of a variadic call (a b c) =
   (a b . c).  Any argument kinds; raise on bad ones.  'id' is an
   InlineId. */
VL_INTERNAL Value vl_prims_arith(VladState *S, int id, Value a, Value b);

/* Whether the procedure 'p' of a tuple pattern (nparams > 1) was written
   with a parameter list, (lambda (a b c) ...), rather than a pattern
   such as (lambda ((cons a (cons b c))) ...); 0 when p has no pattern
   (hand-assembled code). */
VL_INTERNAL int vl_prims_param_list(const Proto *p);

/* Whether the binary primitive 'pi' also takes one operand, which the
   caller passes as a = the operand, b = UNDEF_VAL: (- x) and (/ x). */
static inline int vl_prims_one_operand(const PrimInfo *pi)
{
    return VL_IS_MATH2(pi->inline_id)
           && !isnan(vl_math2_unit(pi->inline_id));
}
VL_INTERNAL int vl_prims_compare(VladState *S, int id, Value a, Value b);
/* General paths of the inline operations: exactly two operands. */
VL_INTERNAL int vl_prims_compare_two(VladState *S, int id, Value a, Value b);
VL_INTERNAL Value vl_prims_unary(VladState *S, int id, Value a);
VL_INTERNAL Value vl_prims_binary(VladState *S, int id, Value a, Value b);
VL_INTERNAL int vl_prims_predicate(VladState *S, int id, Value a);

#endif
