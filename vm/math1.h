/*
 * vm/math1.h -- the one table of the differentiable unary functions
 *
 * Each row is a primitive of one real argument: its id, its VLAD name,
 * the C function of its value, and its derivative, written once in terms
 * of the argument VLM_ARG and the value VLM_VAL with the operations
 * VLM_K(c) (a constant), VLM_ADD, VLM_SUB, VLM_MUL, VLM_DIV and
 * VLM_FN(ID, e) (another function of this table).  Every piece of vlad
 * that deals with these functions expands this table (an X-macro), each
 * with its own meaning of the argument, the value and the operations,
 * defined where it expands the table and undefined after:
 *
 *   - the inline ids (vm/state.h), the primitives' names and procedures
 *     (vm/prims.c), and their values on doubles (vl_math1_value below,
 *     vl_inline_math1 in vm/prims.h);
 *   - forward and reverse mode on plain reals (vm/adfast.h,
 *     vl_ad_partial1): argument and value are doubles (VLM_PLAIN_*);
 *   - the tape's rule codes and the sweep (vm/tape.h, vl_tape_rule1 and
 *     vl_tape_decode): the argument is the parent's primal, read only by
 *     the rules that use it;
 *   - the general path, for arguments that carry other perturbations
 *     (vm/ad.c, unary_general): argument and value are VLAD reals and the
 *     operations are lifted, so the derivative is itself differentiable
 *     (nested derivatives).
 *
 * Adding a differentiable function of one argument is one row here, its
 * line in doc/reference.md section 6, and its tests (tests/ad/math1.vlad;
 * tests/unit/test-math1.c checks every row against finite differences and
 * every reading against the others).  Nothing else names the functions
 * one by one.  Internal header.
 */
#ifndef VLAD_VM_MATH1_H
#define VLAD_VM_MATH1_H

#include <math.h>

/* ROW(ID, "name", C function of the value, derivative) */
#define VL_MATH1(ROW)                                                     \
    ROW(SQRT, "sqrt", sqrt, VLM_DIV(VLM_K(0.5), VLM_VAL))                 \
    ROW(EXP, "exp", exp, VLM_VAL)                                         \
    ROW(LOG, "log", log, VLM_DIV(VLM_K(1), VLM_ARG))                      \
    ROW(SIN, "sin", sin, VLM_FN(COS, VLM_ARG))                            \
    ROW(COS, "cos", cos, VLM_SUB(VLM_K(0), VLM_FN(SIN, VLM_ARG)))         \
    ROW(FLOOR, "floor", floor, VLM_K(0))                                  \
    ROW(TAN, "tan", tan, VLM_ADD(VLM_K(1), VLM_MUL(VLM_VAL, VLM_VAL)))    \
    ROW(TANH, "tanh", tanh, VLM_SUB(VLM_K(1), VLM_MUL(VLM_VAL, VLM_VAL))) \
    ROW(ASIN, "asin", asin,                                               \
        VLM_DIV(VLM_K(1),                                                 \
                VLM_FN(SQRT, VLM_SUB(VLM_K(1), VLM_MUL(VLM_ARG, VLM_ARG)))))  \
    ROW(ACOS, "acos", acos,                                               \
        VLM_DIV(VLM_K(-1),                                                \
                VLM_FN(SQRT, VLM_SUB(VLM_K(1), VLM_MUL(VLM_ARG, VLM_ARG)))))  \
    ROW(SINH, "sinh", sinh, VLM_FN(COSH, VLM_ARG))                        \
    ROW(COSH, "cosh", cosh, VLM_FN(SINH, VLM_ARG))                        \
    ROW(LOG1P, "log1p", log1p,                                            \
        VLM_DIV(VLM_K(1), VLM_ADD(VLM_K(1), VLM_ARG)))                    \
    ROW(EXPM1, "expm1", expm1, VLM_ADD(VLM_VAL, VLM_K(1)))

/* The rows' numbers, VL_M1_SQRT ... (the inline ids, vm/state.h, are
   IN_MATH1_FIRST + these). */
enum {
#define VL_MATH1_ROWNO_(ID, NAME, FN, D) VL_M1_##ID,
    VL_MATH1(VL_MATH1_ROWNO_)
#undef VL_MATH1_ROWNO_
    VL_M1__COUNT
};

/* The value of row 'row' on a double, by a switch that a constant row
   folds to one call of its C function. */
static inline double vl_math1_value(int row, double x)
{
    switch (row) {
#define VL_MATH1_VALUE_(ID, NAME, FN, D) case VL_M1_##ID: return FN(x);
    VL_MATH1(VL_MATH1_VALUE_)
#undef VL_MATH1_VALUE_
    default: return NAN;    /* not a row */
    }
}

/* The plain reading of the operations, on doubles (vm/tape.h's sweep and
   vm/adfast.h's fast paths define VLM_K ... VLM_FN as these by including
   vm/mathplain.h; vm/math2.h adds VLM_PLAIN_FN2). */
#define VLM_PLAIN_K(c) (c)
#define VLM_PLAIN_ADD(a, b) ((a) + (b))
#define VLM_PLAIN_SUB(a, b) ((a) - (b))
#define VLM_PLAIN_MUL(a, b) ((a) * (b))
#define VLM_PLAIN_DIV(a, b) ((a) / (b))
#define VLM_PLAIN_NEG(a) (-(a))
#define VLM_PLAIN_FN(ID, a) vl_math1_value(VL_M1_##ID, (a))
#define VLM_PLAIN_IF_NONZERO(g, e) ((g) == 0 ? 0 : (e))

#endif
