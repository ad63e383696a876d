/*
 * vm/math2.h -- the one table of the differentiable binary operations
 *
 * Each row is an arithmetic primitive of two reals: its id, its VLAD
 * name, its form as a primitive, its value on doubles a and b (a C
 * expression), a term T shared by its partials, its partial derivatives
 * with respect to a and b, and how a tape node of it stores them.  The
 * partials are written once in terms of the arguments VLM_A and VLM_B,
 * the value VLM_VAL and the shared term VLM_T, with the operations of
 * vm/math1.h (VLM_K, VLM_ADD, VLM_SUB, VLM_MUL, VLM_DIV, VLM_FN) and
 * three more: VLM_NEG(e) (minus e: -(e) on doubles, 0 - e lifted),
 * VLM_FN2(ID, e, f) (another row of this table) and VLM_IF_NONZERO(g, e)
 * (0 where the primal of g is zero, else e: expt's partial in its
 * exponent, which is 0 at a zero base rather than 0 * log 0).  Every
 * piece of vlad that deals with these operations expands this table (an
 * X-macro), each with its own meaning of the arguments and operations:
 *
 *   - the inline ids (vm/state.h), the primitives' names and procedures
 *     (vm/prims.c), and their values on doubles (vl_math2_value below,
 *     vl_ad_plain2 in vm/ad.c);
 *   - forward and reverse mode on plain reals (vm/adfast.h,
 *     vl_ad_partials2): arguments and value are doubles;
 *   - the tape's rule codes and the sweep (vm/tape.h, vl_tape_rule2 and
 *     vl_tape_decode), for the rows whose partials a node does not store
 *     (VLM_TAPED: the sweep computes them again from the parents'
 *     primals; 2 bits of the node say which row, so at most 4 such rows);
 *   - the general path, for arguments that carry other perturbations
 *     (vm/ad.c, binary_general): arguments and value are VLAD reals, the
 *     operations are lifted, and a partial is computed only for an
 *     argument that depends on the input being differentiated.
 *
 * The form: VLM_FOLD, a left fold over its operands, (+ 1 2 3) being
 * (+ (+ 1 2) 3); VLM_TWO, exactly two operands.  The unit u: with one
 * operand x the primitive is (op u x), (- x) and (/ x); VLM_NO_UNIT for
 * the others.
 *
 * Adding a differentiable binary operation is one row here, its line in
 * doc/reference.md section 6, and its tests (tests/unit/test-math2.c
 * checks every row against finite differences and every reading against
 * the others).  The first four rows, + - * /, also have instructions of
 * their own (vm/opcodes.h).  Internal header.
 */
#ifndef VLAD_VM_MATH2_H
#define VLAD_VM_MATH2_H

#include <math.h>

/* modulo's value: the remainder with the sign of the divisor (a zero
   remainder is a zero of the divisor's sign) */
static inline double vl_math2_modulo(double a, double b)
{
    double r = fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    if (r == 0)
        r = copysign(0.0, b);
    return r;
}

/* ROW(ID, "name", form, unit, value of doubles a and b, shared term T,
       partial in a, partial in b, tape) */
#define VL_MATH2(ROW)                                                     \
    ROW(ADD, "+", VLM_FOLD, VLM_NO_UNIT, a + b, VLM_K(0),                 \
        VLM_K(1), VLM_K(1), VLM_TAPED)                                    \
    ROW(SUB, "-", VLM_FOLD, -0.0, a - b, VLM_K(0),                        \
        VLM_K(1), VLM_K(-1), VLM_TAPED)                                   \
    ROW(MUL, "*", VLM_FOLD, VLM_NO_UNIT, a * b, VLM_K(0),                 \
        VLM_B, VLM_A, VLM_TAPED)                                          \
    ROW(DIV, "/", VLM_FOLD, 1, a / b, VLM_K(0),                           \
        VLM_DIV(VLM_K(1), VLM_B), VLM_NEG(VLM_DIV(VLM_VAL, VLM_B)),       \
        VLM_TAPED)                                                        \
    ROW(ATAN, "atan", VLM_TWO, VLM_NO_UNIT, atan2(a, b),                  \
        VLM_ADD(VLM_MUL(VLM_A, VLM_A), VLM_MUL(VLM_B, VLM_B)),            \
        VLM_DIV(VLM_B, VLM_T), VLM_DIV(VLM_NEG(VLM_A), VLM_T), VLM_STORED) \
    ROW(EXPT, "expt", VLM_TWO, VLM_NO_UNIT, pow(a, b), VLM_K(0),          \
        VLM_MUL(VLM_B, VLM_FN2(EXPT, VLM_A, VLM_SUB(VLM_B, VLM_K(1)))),   \
        VLM_IF_NONZERO(VLM_A, VLM_MUL(VLM_VAL, VLM_FN(LOG, VLM_A))),      \
        VLM_STORED)                                                       \
    ROW(MODULO, "modulo", VLM_TWO, VLM_NO_UNIT, vl_math2_modulo(a, b),    \
        VLM_K(0), VLM_K(1), VLM_NEG(VLM_FN(FLOOR, VLM_DIV(VLM_A, VLM_B))), \
        VLM_STORED)

/* The tape column, read by selecting: VLM_TAPED(x, y) is x, VLM_STORED(x,
   y) is y; a reader passes what a row of each kind gives. */
#define VLM_TAPED(x, y) x
#define VLM_STORED(x, y) y

/* The form column, read the same way: VLM_FOLD(x, y) is x, VLM_TWO(x, y)
   is y; and a row without a unit has NAN. */
#define VLM_FOLD(x, y) x
#define VLM_TWO(x, y) y
#define VLM_NO_UNIT NAN

/* The rows' numbers, VL_M2_ADD ... (the inline ids, vm/state.h, are these
   too: the binary operations come first). */
enum {
#define VL_MATH2_ROWNO_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) VL_M2_##ID,
    VL_MATH2(VL_MATH2_ROWNO_)
#undef VL_MATH2_ROWNO_
    VL_M2__COUNT
};

/* The value of row 'row' on doubles, by a switch that a constant row
   folds to its expression. */
static inline double vl_math2_value(int row, double a, double b)
{
    switch (row) {
#define VL_MATH2_VALUE_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) \
    case VL_M2_##ID: return V;
    VL_MATH2(VL_MATH2_VALUE_)
#undef VL_MATH2_VALUE_
    default: return NAN;    /* not a row */
    }
}

/* The unit of row 'row' (NAN: it has none). */
static inline double vl_math2_unit(int row)
{
    switch (row) {
#define VL_MATH2_UNIT_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) \
    case VL_M2_##ID: return U;
    VL_MATH2(VL_MATH2_UNIT_)
#undef VL_MATH2_UNIT_
    default: return NAN;
    }
}

/* The plain reading of the operation on another row. */
#define VLM_PLAIN_FN2(ID, a, b) vl_math2_value(VL_M2_##ID, (a), (b))

#endif
