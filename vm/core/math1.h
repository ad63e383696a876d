/*
 * vm/core/math1.h -- the one table of the differentiable unary functions
 *
 * Each row is a primitive of one real argument: its id, its VLAD name,
 * the C function of its value, and its derivative, written once in terms
 * of the argument VLM_ARG and the value VLM_VAL with the operations
 * VLM_K(c) (a constant), VLM_ADD, VLM_SUB, VLM_MUL, VLM_DIV, VLM_FN(ID, e)
 * (another function of this table), VLM_ONE_MINUS_SQ(e) (1 - e^2 to an
 * ulp, also where it cancels) and VLM_SECH2(x, y) (1/cosh^2 x, given
 * y = tanh x, with no intermediate out of range in its own derivatives:
 * below).  Every piece of vlad
 * that deals with these functions expands this table (an X-macro), each
 * with its own meaning of the argument, the value and the operations,
 * defined where it expands the table and undefined after:
 *
 *   - the inline ids (vm/core/inline.h), the primitives' names and procedures
 *     (vm/exec/prims.c), and their values on doubles (vl_math1_value below,
 *     vl_inline_math1 in vm/core/inline.h);
 *   - forward and reverse mode on plain reals (vm/ad/adfast.h,
 *     vl_ad_partial1): argument and value are doubles (VLM_PLAIN_*);
 *   - the tape's rule codes and the sweep (vm/ad/tape.h, vl_tape_rule1 and
 *     vl_tape_decode): the argument is the parent's primal, read only by
 *     the rules that use it;
 *   - the general path, for arguments that carry other perturbations
 *     (vm/ad/ad.c, unary_general): argument and value are VLAD reals and the
 *     operations are lifted, so the derivative is itself differentiable
 *     (nested derivatives).
 *
 * Accuracy.  Each derivative is written so that it is accurate to a few
 * ulps relative wherever the derivative itself is well conditioned, the
 * tails included, and so that its lifted reading is too (the second
 * derivatives): no formula subtracts nearly equal rounded values, and no
 * intermediate overflows, or has a derivative that underflows, where the
 * result does not.  So tanh' is not 1 - tanh^2 x (tanh x rounds to 1 from
 * |x| = 19: 0 where the derivative is 4e-17) but VLM_SECH2; expm1' is e^x,
 * not expm1 x + 1 (0 below x = -37); asin' and acos' take 1 - x^2 from
 * VLM_ONE_MINUS_SQ: 1 - x*x loses half the digits at 1 - 1e-8, and the
 * lifted derivative of (1 - x)(1 + x), -(1 + x) + (1 - x), cancels near
 * 0.  tests/unit/test-math1.c checks every row against reference values
 * (tests/unit/math-ref.h, by tests/unit/gen-math-ref.py) out to |x| = 710,
 * and tests/ad/math-tails.vlad the first and second derivatives in every
 * mode.
 *
 * Adding a differentiable function of one argument is one row here, its
 * line in doc/reference.md section 6, and its tests (tests/ad/math1.vlad;
 * tests/unit/test-math1.c checks every row against finite differences and
 * every reading against the others): doc/internals.md section 18 lists
 * every place, and tests/doc/recipe-function.sh follows that list.
 * Nothing else names the functions one by one.  Internal header.
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
    ROW(TANH, "tanh", tanh, VLM_SECH2(VLM_ARG, VLM_VAL))                  \
    ROW(ASIN, "asin", asin,                                               \
        VLM_DIV(VLM_K(1), VLM_FN(SQRT, VLM_ONE_MINUS_SQ(VLM_ARG))))       \
    ROW(ACOS, "acos", acos,                                               \
        VLM_DIV(VLM_K(-1), VLM_FN(SQRT, VLM_ONE_MINUS_SQ(VLM_ARG))))      \
    ROW(SINH, "sinh", sinh, VLM_FN(COSH, VLM_ARG))                        \
    ROW(COSH, "cosh", cosh, VLM_FN(SINH, VLM_ARG))                        \
    ROW(LOG1P, "log1p", log1p,                                            \
        VLM_DIV(VLM_K(1), VLM_ADD(VLM_K(1), VLM_ARG)))                    \
    ROW(EXPM1, "expm1", expm1, VLM_FN(EXP, VLM_ARG))                      \
    /* new rows go above this line (doc/internals.md section 18) */

/* The rows' numbers, VL_M1_SQRT ... (the inline ids, vm/core/inline.h, are
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

/* The rounding error of x*x: x*x + vl_math_sq_err(x) is x^2 exactly
   (fma rounds once) where x^2 neither overflows nor comes near the
   subnormals.  (Each rounding of the operations below is a statement of
   its own: C may fuse a*b + c within one expression, and the lifted
   reading must round as the plain one does.) */
static inline double vl_math_sq_err(double x)
{
    double h = x * x;
    return fma(x, x, -h);
}

/* 1 - x^2: 1 - x*x, less the rounding error of x*x.  Where x*x >= 1/2,
   1 - x*x is exact (Sterbenz), so the only rounding is the last one;
   below, no digits cancel.  The lifted reading (vm/ad/ad.c) does the same
   operations in the same order, the error term a constant, so that its
   derivative is -2x, accurate near 0 ((1 - x)(1 + x)'s is not). */
static inline double vl_math_one_minus_sq(double x)
{
    double h = x * x;
    double d = 1 - h;
    return d - vl_math_sq_err(x);
}

/* 1/cosh^2 x, y being tanh x.  Below |x| = 20, (1/cosh x)^2.  From there,
   (v (1 + |y|))^2 with v = e^-|x| (1/cosh x = 2v / (1 + v^2) = v (1 + |y|),
   and |y| is 1): 1/cosh x alone is right, but its derivative, through
   cosh x ~ e^|x|, passes a reverse sweep's sensitivity e^-3|x|, which
   underflows from |x| = 248 where the second derivative is 1e-215; v's
   is e^-2|x|, no smaller than the result.  The second form is a function
   of |x|, whose derivative cancels near 0; the first's does not, and is
   the more accurate below 20 by a fraction of an ulp.  The lifted
   reading (vm/ad/ad.c) does the same operations in the same order, the
   sign of x a constant. */
static inline double vl_math_sech2(double x, double y)
{
    if (fabs(x) < 20) {
        double t = 1 / cosh(x);
        return t * t;
    }
    double v = exp(-fabs(x));
    double s = 1 + fabs(y);
    s = v * s;
    return s * s;
}

/* The plain reading of the operations, on doubles (vm/ad/tape.h's sweep and
   vm/ad/adfast.h's fast paths define VLM_K ... VLM_FN as these by including
   vm/ad/mathplain.h; vm/core/math2.h adds VLM_PLAIN_FN2). */
#define VLM_PLAIN_K(c) (c)
#define VLM_PLAIN_ADD(a, b) ((a) + (b))
#define VLM_PLAIN_SUB(a, b) ((a) - (b))
#define VLM_PLAIN_MUL(a, b) ((a) * (b))
#define VLM_PLAIN_DIV(a, b) ((a) / (b))
#define VLM_PLAIN_NEG(a) (-(a))
#define VLM_PLAIN_FN(ID, a) vl_math1_value(VL_M1_##ID, (a))
#define VLM_PLAIN_SECH2(x, y) vl_math_sech2((x), (y))
#define VLM_PLAIN_ONE_MINUS_SQ(a) vl_math_one_minus_sq(a)
#define VLM_PLAIN_IF_NONZERO(g, e) ((g) == 0 ? 0 : (e))

#endif
