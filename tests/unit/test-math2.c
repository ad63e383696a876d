/*
 * tests/unit/test-math2.c -- every row of vm/core/math2.h, the table of the
 * differentiable binary operations, read by every reader of the table
 *
 * For each row and each point of a grid inside its domain:
 * - the value: the row's value (vl_math2_value), the AD layer's plain
 *   value (vl_ad_plain2) and the VM's inline one (vl_ad_plain2_inline)
 *   agree bit for bit;
 * - the partials of the fast paths (vl_ad_partials2) are within 1e-6 of
 *   central finite differences of the value in each argument;
 * - the tape (vl_tape_rule2, vl_tape_put, vl_tape_decode: the sweep's
 *   reading) gives the fast path's partials bit for bit, with both
 *   operands parents and with either one a constant, as the sweep reads
 *   them (the parents' primals through the callback);
 * - the strong-zero product (IN__COUNT) has the product's partials.
 * And at the points of tests/unit/math-ref.h, which reach the tails
 * (arguments from 1e-300 to 1e300; atan's where a^2 + b^2 overflows or
 * underflows, expt's where b - 1 rounds and |log a| is large; every row
 * must have some): the partials of the fast paths are within MAX_ULPS
 * units in the last place of the references (mpmath's, rounded once;
 * tests/unit/gen-math-ref.py), and the tape gives them bit for bit.
 * The ids of the rows are the first inline ids, in the table's order;
 * each is a binary operation (VL_IS_MATH2) of arity 2 whose unit, when it
 * has one, is the identity that makes (op u x) the one-operand form.
 * The general path (arguments carrying other perturbations) is checked by
 * tests/ad/math2.vlad and tests/ad/math-tails.vlad, whose nested
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

/* the accuracy wanted of every row's partials at the reference points */
#define MAX_ULPS 4

typedef struct Row {
    int id;
    const char *name;
} Row;

/* the domain of each row, by name: a box of (a, b) (a row without one
   fails: add it) */
static int domain(const char *name, double box[4])
{
    static const struct { const char *name; double box[4]; } d[] = {
        {"+", {-5, 5, -4, 4}}, {"-", {-5, 5, -4, 4}},
        {"*", {-5, 5, -4, 4}}, {"/", {-5, 5, 0.3, 4}},
        {"atan", {-3, 3, 0.2, 3}}, {"expt", {0.2, 4, -2.5, 3}},
        {"modulo", {-5.03, 5.11, 0.7, 3.1}},
    };
    for (size_t k = 0; k < sizeof d / sizeof d[0]; k++)
        if (strcmp(d[k].name, name) == 0) {
            memcpy(box, d[k].box, sizeof d[k].box);
            return 1;
        }
    return 0;
}

static double parents[2];
static double parent_primal(void *ctx, uint32_t i)
{
    (void)ctx;
    return parents[i == 11];
}

static int same_bits(double x, double y)
{
    return memcmp(&x, &y, sizeof x) == 0;
}

/* the node of op on (a, b), recorded with parents pa, pb (a constant
   where 0), read back by the sweep: its partials as the tape gives
   them, the present parents' first */
static void tape_partials(int op, double a, double b, int pa, int pb,
                          double y, double da, double db, double out[2])
{
    TapeSlot t[3];
    memset(t, 0, sizeof t);
    int rule = vl_tape_rule2(op, pa, pb);
    uint32_t p0 = pa ? 7 : 11, p1 = pa && pb ? 11 : VL_TAPE_NONE;
    double d0 = pa ? da : db, d1 = pa && pb ? db : 0;
    if (rule != VL_RULE_EXPLICIT)
        d0 = d1 = 0;        /* the rule computes them again */
    vl_tape_put(t, y, p0, d0, p1, d1, rule);
    parents[0] = a;
    parents[1] = b;
    uint32_t p[2];
    int n = vl_tape_decode(t, p, out, parent_primal, NULL);
    CHECK(n == (pa && pb ? 2 : 1));
    CHECK(p[0] == p0);
    if (n == 2)
        CHECK(p[1] == 11);
}

/* Row r's partials against the references: how many points it has. */
static int check_reference(const char *name, int id)
{
    int n = 0;
    double worst = 0;
    for (size_t k = 0; k < sizeof math_ref2 / sizeof math_ref2[0]; k++) {
        const MathRef2 *m = &math_ref2[k];
        if (strcmp(m->name, name) != 0)
            continue;
        n++;
        double y = vl_math2_value(id, m->a, m->b), da, db, d[2];
        vl_ad_partials2(id, m->a, m->b, y, &da, &db);
        double ea = math_ref_ulps(da, m->da), eb = math_ref_ulps(db, m->db);
        worst = fmax(worst, fmax(ea, eb));
        if (ea > MAX_ULPS || eb > MAX_ULPS) {
            printf("FAIL %s at (%.17g, %.17g): partials %.17g %.17g, "
                   "references %.17g %.17g (%.3g, %.3g ulps)\n", name, m->a,
                   m->b, da, db, m->da, m->db, ea, eb);
            check_failed++;
        } else {
            check_passed++;
        }
        tape_partials(id, m->a, m->b, 1, 1, y, da, db, d);
        CHECK(same_bits(d[0], da) && same_bits(d[1], db));
    }
    if (getenv("VLAD_MATH_REF_VERBOSE") != NULL)
        printf("%s: %d points, at most %.3g ulps\n", name, n, worst);
    return n;
}

int main(void)
{
    Row rows[] = {
#define ROW_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) {IN_##ID, NAME},
        VL_MATH2(ROW_)
#undef ROW_
    };
    int nrows = (int)(sizeof rows / sizeof rows[0]);
    CHECK(nrows == VL_M2__COUNT);
    CHECK(nrows == IN_MATH2_LAST + 1);
    for (int r = 0; r < nrows; r++) {
        Row *row = &rows[r];
        double box[4];
        CHECK(row->id == r);
        CHECK(VL_IS_MATH2(row->id));
        CHECK(!VL_IS_MATH1(row->id));
        CHECK(vl_inline_arity(row->id) == 2);
        double u = vl_math2_unit(r);
        if (!isnan(u))      /* (op u x) is x, or minus x, for any x */
            CHECK(fabs(vl_math2_value(r, u, 3.5)) == 3.5
                  || fabs(vl_math2_value(r, u, 3.5)) == 1 / 3.5);
        if (!domain(row->name, box)) {
            printf("FAIL: no domain for %s in test-math2.c\n", row->name);
            check_failed++;
            continue;
        }
        for (int i = 0; i <= 12; i++)
            for (int j = 0; j <= 12; j++) {
                double a = box[0] + (box[1] - box[0]) * i / 12;
                double b = box[2] + (box[3] - box[2]) * j / 12;
                double y = vl_math2_value(r, a, b);
                CHECK(same_bits(vl_ad_plain2(row->id, a, b), y));
                CHECK(same_bits(vl_ad_plain2_inline(row->id, a, b), y));
                double da, db;
                vl_ad_partials2(row->id, a, b, y, &da, &db);
                double ha = 1e-6 * fmax(1, fabs(a));
                double hb = 1e-6 * fmax(1, fabs(b));
                double fa = (vl_math2_value(r, a + ha, b)
                             - vl_math2_value(r, a - ha, b)) / (2 * ha);
                double fb = (vl_math2_value(r, a, b + hb)
                             - vl_math2_value(r, a, b - hb)) / (2 * hb);
                if (fabs(fa - da) > 1e-6 * (1 + fabs(da))
                    || fabs(fb - db) > 1e-6 * (1 + fabs(db))) {
                    printf("FAIL %s at (%g, %g): partials %.17g %.17g, "
                           "finite differences %.17g %.17g\n", row->name,
                           a, b, da, db, fa, fb);
                    check_failed++;
                } else {
                    check_passed++;
                }
                double d[2];
                tape_partials(row->id, a, b, 1, 1, y, da, db, d);
                CHECK(same_bits(d[0], da) && same_bits(d[1], db));
                tape_partials(row->id, a, b, 1, 0, y, da, db, d);
                CHECK(same_bits(d[0], da)
                      || (float)da == d[0]);  /* stored as a float only
                                                 when exactly one */
                tape_partials(row->id, a, b, 0, 1, y, da, db, d);
                CHECK(same_bits(d[0], db) || (float)db == d[0]);
                if (row->id == IN_MUL) {
                    double za, zb;
                    vl_ad_partials2(IN__COUNT, a, b, y, &za, &zb);
                    CHECK(same_bits(za, da) && same_bits(zb, db));
                    CHECK(vl_tape_rule2(IN__COUNT, 1, 1)
                          == vl_tape_rule2(IN_MUL, 1, 1));
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
