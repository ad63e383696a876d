/*
 * tests/unit/ulps.h -- how far a computed value is from a reference, in
 * units in the last place, for the unit tests that check numbers against
 * references (tests/unit/test-math1.c, test-math2.c, with the values of
 * tests/unit/math-ref.h).
 */
#ifndef VLAD_TESTS_ULPS_H
#define VLAD_TESTS_ULPS_H

#include <float.h>
#include <math.h>

/* How far got is from the reference want, in units in the last place of
   want (2^-1074 for a subnormal or zero want): 0 for equal values, also
   two infinities of one sign; infinite where one is infinite and the
   other is not, or where either is NaN. */
static inline double math_ref_ulps(double got, double want)
{
    if (got == want)
        return 0;
    if (isinf(want) || isinf(got) || isnan(got) || isnan(want))
        return INFINITY;
    double ulp = want == 0 || fabs(want) < DBL_MIN
                     ? 0x1p-1074 : ldexp(1, ilogb(want) - 52);
    return fabs(got - want) / ulp;
}

#endif
