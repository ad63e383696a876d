/*
 * tests/unit/test-math1.c -- every row of vm/core/math1.h, the table of the
 * differentiable unary functions, read by every reader of the table
 *
 * For each row and each of a set of points inside its domain:
 * - the value: the inline id's plain value (vl_inline_math1), the
 *   row's value (vl_math1_value) and the C function agree bit for bit;
 * - the derivative of the fast paths (vl_ad_partial1) is within 1e-6 of a
 *   central finite difference of the value (step 1e-6 |x|), and its value
 *   is the plain one bit for bit;
 * - the tape's rule (vl_tape_rule1, vl_tape_decode: the sweep's reading)
 *   gives the same partial as the fast path, bit for bit, with the
 *   parent's primal read through the callback as the sweep reads it.
 * And at the points of tests/unit/math-ref.h, which reach the tails (|x|
 * up to 710, arguments from 1e-300 to 1e300, the edges of the domains;
 * every row must have some): the derivative of the fast paths, and the
 * tape's, is within MAX_ULPS units in the last place of the reference
 * (mpmath's, rounded once; tests/unit/gen-math-ref.py), overflow and
 * underflow included (an infinite reference wants that infinity).
 * The ids of the rows are contiguous and in the table's order, and every
 * row's id is a unary math function (VL_IS_MATH1) whose rule is unary.
 * The general path (arguments carrying other perturbations) is checked by
 * tests/ad/math1.vlad and tests/ad/math-tails.vlad, whose nested
 * derivatives run it.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/check.h"
#include "tests/unit/math-ref.h"
#include "tests/unit/ulps.h"
#include "vm/ad/adfast.h"

/* the accuracy wanted of every row's derivative at the reference points:
   a few ulps (what libm's functions give, plus the roundings of the
   derivative's formula) */
#define MAX_ULPS 4

typedef struct Row {
    int id;
    const char *name;
    double (*fn)(double);
    double lo, hi;          /* the points tried lie in [lo, hi] */
} Row;

/* the domain of each row, by name (a row without one fails: add it) */
static int domain(const char *name, double *lo, double *hi)
{
    static const struct { const char *name; double lo, hi; } d[] = {
        {"sqrt", 0.01, 9}, {"exp", -5, 5}, {"log", 0.01, 9},
        {"sin", -6, 6}, {"cos", -6, 6}, {"floor", -4.73, 4.31},
        {"tan", -1.4, 1.4}, {"tanh", -4, 4}, {"asin", -0.95, 0.95},
        {"acos", -0.95, 0.95}, {"sinh", -4, 4}, {"cosh", -4, 4},
        {"log1p", -0.9, 9}, {"expm1", -5, 5},
        /* new domains go above this line */
    };
    for (size_t k = 0; k < sizeof d / sizeof d[0]; k++)
        if (strcmp(d[k].name, name) == 0) {
            *lo = d[k].lo;
            *hi = d[k].hi;
            return 1;
        }
    return 0;
}

static double parent_primal(void *ctx, uint32_t i)
{
    (void)i;
    return *(const double *)ctx;
}

/* The partial the sweep reads from a node of the rule of row id at x
   whose value is y. */
static double tape_partial(int id, double x, double y)
{
    TapeSlot t[3];
    memset(t, 0, sizeof t);
    uint32_t slots = vl_tape_put(t, y, 7, 0, VL_TAPE_NONE, 0,
                                 vl_tape_rule1(id));
    CHECK(slots == 1);
    uint32_t p[2];
    double d[2];
    CHECK(vl_tape_decode(t, p, d, parent_primal, &x) == 1);
    CHECK(p[0] == 7);
    return d[0];
}

/* Row r's derivative against the references: how many points it has. */
static int check_reference(const char *name, int id)
{
    int n = 0;
    double worst = 0;
    for (size_t k = 0; k < sizeof math_ref1 / sizeof math_ref1[0]; k++) {
        const MathRef1 *m = &math_ref1[k];
        if (strcmp(m->name, name) != 0)
            continue;
        n++;
        double y, d;
        vl_ad_partial1(id, m->x, &y, &d);
        double e = math_ref_ulps(d, m->d);
        worst = fmax(worst, e);
        if (e > MAX_ULPS) {
            printf("FAIL %s at %.17g: derivative %.17g, reference %.17g "
                   "(%.3g ulps)\n", name, m->x, d, m->d, e);
            check_failed++;
        } else {
            check_passed++;
        }
        double td = tape_partial(id, m->x, y);
        CHECK(memcmp(&td, &d, sizeof d) == 0);
    }
    if (getenv("VLAD_MATH_REF_VERBOSE") != NULL)
        printf("%s: %d points, at most %.3g ulps\n", name, n, worst);
    return n;
}

int main(void)
{
    Row rows[] = {
#define ROW_(ID, NAME, FN, D) {IN_##ID, NAME, FN, 0, 0},
        VL_MATH1(ROW_)
#undef ROW_
    };
    int nrows = (int)(sizeof rows / sizeof rows[0]);
    CHECK(nrows == VL_M1__COUNT);
    CHECK(nrows == IN_MATH1_LAST - IN_MATH1_FIRST + 1);
    for (int r = 0; r < nrows; r++) {
        Row *row = &rows[r];
        CHECK(row->id == IN_MATH1_FIRST + r);
        CHECK(VL_IS_MATH1(row->id));
        CHECK(vl_tape_rule1(row->id) < VL_RULE_BINARY_FIRST);
        if (!domain(row->name, &row->lo, &row->hi)) {
            printf("FAIL: no domain for %s in test-math1.c\n", row->name);
            check_failed++;
            continue;
        }
        for (int k = 0; k <= 40; k++) {
            double x = row->lo + (row->hi - row->lo) * k / 40;
            double v = row->fn(x);
            CHECK(vl_inline_math1(row->id, x) == v
                  || (isnan(v) && isnan(vl_inline_math1(row->id, x))));
            CHECK(vl_math1_value(r, x) == v);
            double y, d;
            vl_ad_partial1(row->id, x, &y, &d);
            CHECK(y == v);
            /* (floor's points avoid the integers, where it jumps) */
            double h = 1e-6 * fmax(1, fabs(x));
            double fd = (row->fn(x + h) - row->fn(x - h)) / (2 * h);
            if (fabs(fd - d) > 1e-6 * (1 + fabs(d))) {
                printf("FAIL %s at %g: derivative %.17g, finite "
                       "difference %.17g\n", row->name, x, d, fd);
                check_failed++;
            } else {
                check_passed++;
            }
            /* the sweep's reading of the node's rule */
            double td = tape_partial(row->id, x, y);
            if (memcmp(&td, &d, sizeof d) != 0) {
                printf("FAIL %s at %g: the tape's partial %.17g, the fast "
                       "path's %.17g\n", row->name, x, td, d);
                check_failed++;
            } else {
                check_passed++;
            }
        }
        if (check_reference(row->name, row->id) == 0) {
            printf("FAIL: no reference points for %s in "
                   "tests/unit/math-ref.h (run tests/unit/gen-math-ref.py)\n",
                   row->name);
            check_failed++;
        }
    }
    return CHECK_DONE();
}
