/*
 * vm/core/inline.h -- the inline primitives: their ids and what the compiler
 * and the VM's fast paths need to know of them
 *
 * An inline id names a primitive that the compiler may turn into an
 * instruction of its own (doc/internals.md section 8): the binary
 * operations of vm/core/math2.h (first, the rows' numbers), the comparisons,
 * the predicates, the unary math functions of vm/core/math1.h, car and cdr.
 * Here: the ids, their arity, and their plain values on doubles.
 * Internal header.
 */
#ifndef VL_INLINE_H
#define VL_INLINE_H

#include <math.h>
#include "vm/core/math1.h"
#include "vm/core/math2.h"

/* Inline primitives: the ids shared by Global.inline_id, PrimInfo.inline_id,
   the shadow mask (64 bits), Instr.x of PRIM2/JPRIM1/CMP (below 32) and
   Instr.c of PRIM1. */
typedef enum InlineId {
#define VL_MATH2_ID_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) IN_##ID,
    VL_MATH2(VL_MATH2_ID_)      /* the binary operations, vm/core/math2.h */
#undef VL_MATH2_ID_
    IN_EQ, IN_LT, IN_GT, IN_LE, IN_GE,
    IN_ZEROP, IN_POSITIVEP, IN_NEGATIVEP, IN_NULLP, IN_PAIRP,
#define VL_MATH1_ID_(ID, NAME, FN, D) IN_##ID,
    VL_MATH1(VL_MATH1_ID_)      /* the unary math functions, vm/core/math1.h */
#undef VL_MATH1_ID_
    IN_CAR, IN_CDR,
    IN__COUNT,
    IN_MATH2_LAST = IN_EQ - 1,
    IN_MATH1_FIRST = IN_SQRT,
    IN_MATH1_LAST = IN_CAR - 1
} InlineId;

/* Whether inline id 'id' is a binary operation (vm/core/math2.h: they are the
   first ids, the rows' numbers) or a unary math function (vm/core/math1.h). */
#define VL_IS_MATH2(id) ((unsigned)(id) <= IN_MATH2_LAST)
#define VL_IS_MATH1(id) ((id) >= IN_MATH1_FIRST && (id) <= IN_MATH1_LAST)

/* How many operands the inline form of 'id' takes: vm/core/math2.h's rows
   and the comparisons take 2, the rest 1. */
static inline int vl_inline_arity(int id)
{
    return id <= IN_GE ? 2 : 1;
}

/* The comparison that gives the same answer with the operands swapped:
   (< a b) is (> b a). */
static inline int vl_inline_swap_cmp(int id)
{
    switch (id) {
    case IN_LT: return IN_GT;
    case IN_GT: return IN_LT;
    case IN_LE: return IN_GE;
    case IN_GE: return IN_LE;
    default: return id;
    }
}
/* A comparison InlineId (IN_EQ .. IN_GE) on two plain doubles. */
static inline int vl_inline_compare2(int id, double a, double b)
{
    switch (id) {
    case IN_EQ: return a == b;
    case IN_LT: return a < b;
    case IN_GT: return a > b;
    case IN_LE: return a <= b;
    default: return a >= b;
    }
}
/* The value of unary math function 'id' (VL_IS_MATH1) on a double: sqrt
   inline (one instruction), the others through a table indexed by id -
   IN_MATH1_FIRST (vl_math1_value folds a constant one). */
static double (*const vl_inline_math1_fns[])(double) = {
#define VL_MATH1_PTR_(ID, NAME, FN, D) FN,
    VL_MATH1(VL_MATH1_PTR_)
#undef VL_MATH1_PTR_
};

static inline double vl_inline_math1(int id, double x)
{
    return id == IN_SQRT ? sqrt(x)
                         : vl_inline_math1_fns[id - IN_MATH1_FIRST](x);
}

/* PRIM2, JPRIM1 and CMP keep the id in 5 bits of Instr.x (vm/core/object.h) */
_Static_assert(IN_GE < 32, "binary inline ids must stay below 32");
_Static_assert(IN__COUNT <= 64, "the shadow mask has 64 bits");

#endif
