/*
 * vm/core/math2.h -- the one table of the differentiable binary operations
 *
 * Each row is an arithmetic primitive of two reals: its id, its VLAD
 * name, its form as a primitive, its value on doubles a and b (a C
 * expression), a term T shared by its partials, its partial derivatives
 * with respect to a and b, and how a tape node of it stores them.  The
 * partials are written once in terms of the arguments VLM_A and VLM_B,
 * the value VLM_VAL and the shared term VLM_T, with the operations of
 * vm/core/math1.h (VLM_K, VLM_ADD, VLM_SUB, VLM_MUL, VLM_DIV, VLM_FN,
 * VLM_ONE_MINUS_SQ, VLM_SECH2) and more: VLM_NEG(e) (minus e: -(e) on doubles,
 * 0 - e lifted), VLM_FN2(ID, e, f) (another row of this table),
 * VLM_IF_NONZERO(g, e) (0 where the primal of g is zero, else e: expt's
 * partial in its exponent, which is 0 at a zero base rather than
 * 0 * log 0), VLM_IF(p, g, h, e, f) (e where p(primal of g, primal of h),
 * a C predicate of two doubles, holds, else f),
 * VLM_SCALE(a, b) (a power of 2, from the primals: 2^-e with 2^e <=
 * max(|a|, |b|) < 2^(e+1); a constant) and VLM_SUMSQ(a, b) ((a s)^2 +
 * (b s)^2, s = VLM_SCALE(a, b): between 1 and 8, with no overflow or
 * underflow; each of a and b an argument or the value, not an
 * operation).  Every
 * piece of vlad that deals with these operations expands this table (an
 * X-macro), each with its own meaning of the arguments and operations:
 *
 *   - the inline ids (vm/core/inline.h), the primitives' names and procedures
 *     (vm/exec/prims.c), and their values on doubles (vl_math2_value below,
 *     vl_ad_plain2 in vm/ad/adfast.h);
 *   - forward and reverse mode on plain reals (vm/ad/adfast.h,
 *     vl_ad_partials2): arguments and value are doubles;
 *   - the tape's rule codes and the sweep (vm/ad/tape.h, vl_tape_rule2 and
 *     vl_tape_decode), for the rows whose partials a node does not store
 *     (VLM_TAPED: the sweep computes them again from the parents'
 *     primals; 2 bits of the node say which row, so at most 4 such rows);
 *   - the general path, for arguments that carry other perturbations
 *     (vm/ad/ad.c, binary_general): arguments and value are VLAD reals, the
 *     operations are lifted, and a partial is computed only for an
 *     argument that depends on the input being differentiated.
 *
 * The form: VLM_FOLD, a left fold over its operands, (+ 1 2 3) being
 * (+ (+ 1 2) 3); VLM_TWO, exactly two operands.  The unit u: with one
 * operand x the primitive is (op u x), (- x) and (/ x); VLM_NO_UNIT for
 * the others.
 *
 * Accuracy, as for vm/core/math1.h: a few ulps relative wherever the partial
 * is well conditioned.  atan's partials b/(a^2 + b^2), -a/(a^2 + b^2)
 * are ((b s)/q) s and -((a s)/q) s with s = VLM_SCALE(a, b), q =
 * VLM_SUMSQ(a, b): a^2 + b^2 overflows or underflows where atan is fine
 * ((atan y 1e-170) at y = 1e-170 has partial 5e169, not +inf), and
 * scaling by a power of 2 rounds as the plain formula does where that
 * one is in range (the same bits: the partials of (atan 4 4) are 1/8).
 * expt's partial in its base is b a^(b-1), but where b - 1 rounds (b
 * below 1/2, most negative b) and y = a^b is a normal number, b (y/a):
 * the rounding of b - 1 costs |log a| times as much in a^(b-1), hundreds
 * of ulps where |log a| is large.  (b a^(b-1) is kept where it can: its
 * derivative in a, b (b-1) a^(b-2), is one term, where that of b (y/a)
 * is a difference, which cancels near b = 1 and is NaN where both terms
 * overflow.)  Its partial in the exponent is y log a (T = log a), or
 * a (a^(b-1) log a) where y is not normal: a subnormal y's rounding would
 * be multiplied by |log a|, and where y overflows the partial may not
 * (expt 2 b at b = 1024).  The other partials cancel or overflow nowhere
 * the partial itself does not.  tests/unit/test-math2.c checks the rows
 * against reference values (tests/unit/math-ref.h).
 *
 * Adding a differentiable binary operation is one row here, its line in
 * doc/reference.md section 6, and its tests (tests/unit/test-math2.c
 * checks every row against finite differences and every reading against
 * the others).  The first four rows, + - * /, also have instructions of
 * their own (vm/core/opcodes.h).  Internal header.
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

/* Pieces of the rows, written once: atan's partial ((x s)/T) s (s =
   VLM_SCALE(a, b), T = VLM_SUMSQ(a, b)), and a^(b-1). */
#define VLM_OVER_SUMSQ(x)                                                 \
    VLM_MUL(VLM_DIV(VLM_MUL((x), VLM_SCALE(VLM_A, VLM_B)), VLM_T),        \
            VLM_SCALE(VLM_A, VLM_B))
#define VLM_POW_B1 VLM_FN2(EXPT, VLM_A, VLM_SUB(VLM_B, VLM_K(1)))

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
        VLM_SUMSQ(VLM_A, VLM_B), VLM_OVER_SUMSQ(VLM_B),                   \
        VLM_NEG(VLM_OVER_SUMSQ(VLM_A)), VLM_STORED)                       \
    ROW(EXPT, "expt", VLM_TWO, VLM_NO_UNIT, pow(a, b), VLM_FN(LOG, VLM_A), \
        VLM_MUL(VLM_B, VLM_IF(vl_math_pow_quotient, VLM_VAL, VLM_B,       \
                              VLM_DIV(VLM_VAL, VLM_A), VLM_POW_B1)),      \
        VLM_IF_NONZERO(VLM_A,                                             \
                       VLM_IF(vl_math_normal, VLM_VAL, VLM_VAL,           \
                              VLM_MUL(VLM_VAL, VLM_T),                    \
                              VLM_MUL(VLM_A, VLM_MUL(VLM_POW_B1, VLM_T)))), \
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

/* The rows' numbers, VL_M2_ADD ... (the inline ids, vm/core/inline.h, are these
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

/* Predicates for VLM_IF.  Whether y is a normal number (finite,
   nonzero, not subnormal; the second argument is not read). */
static inline int vl_math_normal(double y, double unused)
{
    (void)unused;
    return isnormal(y);
}

/* Whether expt's partial in its base is taken as b (y/a), y = a^b: where
   b - 1 rounds (the error of the sum, by Knuth's TwoSum, is not 0) and y
   is normal. */
static inline int vl_math_pow_quotient(double y, double b)
{
    double s = b - 1;
    double bb = s - b;
    double e = (b - (s - bb)) + (-1 - bb);
    return e != 0 && isnormal(y);
}

/* VLM_SCALE: the power of 2 that brings the larger of |a| and |b| to
   [1, 2): 2^-e where 2^e <= max(|a|, |b|) < 2^(e+1), e kept within
   [-1022, 1023] so that it is a normal double; 1 where the larger is
   zero, infinite or NaN (the unscaled formulas then give the IEEE
   result). */
static inline double vl_math_scale(double a, double b)
{
    double m = fmax(fabs(a), fabs(b));
    if (!(m > 0) || isinf(m))
        return 1;
    int e = ilogb(m);
    if (e < -1022)
        e = -1022;
    return ldexp(1, -e);
}

/* VLM_SUMSQ: (a s)^2 + (b s)^2, s = vl_math_scale(a, b); a s and b s are
   exact but where the smaller one underflows, and then its square would
   not count.  The lifted reading (vm/ad/ad.c) does the same operations in
   the same order, s a constant; each rounding is a statement of its own,
   as in vl_math_one_minus_sq. */
static inline double vl_math_sumsq(double a, double b)
{
    double s = vl_math_scale(a, b);
    double as = a * s, bs = b * s;
    double q = as * as;
    double r = bs * bs;
    return q + r;
}

/* The plain reading of the operations on another row, and of those only
   vm/core/math2.h uses. */
#define VLM_PLAIN_FN2(ID, a, b) vl_math2_value(VL_M2_##ID, (a), (b))
#define VLM_PLAIN_SCALE(a, b) vl_math_scale((a), (b))
#define VLM_PLAIN_SUMSQ(a, b) vl_math_sumsq((a), (b))
#define VLM_PLAIN_IF(p, g, h, e, f) (p((g), (h)) ? (e) : (f))

#endif
