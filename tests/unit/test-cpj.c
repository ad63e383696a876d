/*
 * tests/unit/test-cpj.c -- checkpoint-*j's binomial split rule (vm/cpj.c)
 *
 * - Optimality: for every t <= 120 units and s <= 10 slots, reversing by
 *   the rule advances exactly T(t, s) units, the minimum over all splits
 *   (computed here by dynamic programming, as vm/cpj.c defines it: the
 *   right part of a split has a slot less, and with one slot only the
 *   last unit can be split off, T(t, 1) = t(t-1)/2).
 * - The rule does not depend on slots beyond t: s = t, t + 1, 10^9 and
 *   2^53 split like s = t - 1 (every unit stored).
 * - Huge parameters (H1 of issue 19): t and s up to 2^53 (the largest a
 *   SPEC or a step count takes) give a valid split; the old rule took
 *   O(s) work per binomial coefficient and O(sqrt t) coefficients, so
 *   these calls did not return (this test then ran into its timeout).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include "tests/unit/check.h"
#include "vm/cpj.h"

#define TMAX 120
#define SMAX 10
#define INF INT64_MAX

/* T[t][s]: the fewest units advanced to reverse t units with s slots. */
static int64_t T[TMAX + 1][SMAX + 1];

static void optimum(void)
{
    for (int s = 0; s <= SMAX; s++)
        T[1][s] = 0;
    for (int t = 2; t <= TMAX; t++) {
        /* no slot: the input state holds the only one, so nothing
           longer than a unit can be reversed */
        T[t][0] = INF;
        for (int s = 1; s <= SMAX; s++) {
            int64_t best = INF;
            for (int m = 1; m < t; m++) {
                if (T[t - m][s - 1] == INF)
                    continue;
                int64_t c = m + T[t - m][s - 1] + T[m][s];
                if (c < best)
                    best = c;
            }
            T[t][s] = best;
        }
    }
}

/* The units advanced when the rule reverses t units with s slots. */
static int64_t by_rule(int64_t t, int64_t s)
{
    if (t <= 1)
        return 0;
    int64_t m = vl_cpj_binomial_split(t, s);
    if (m < 1 || m >= t)
        return -1;
    int64_t r = by_rule(t - m, s - 1), l = by_rule(m, s);
    return r < 0 || l < 0 ? -1 : m + r + l;
}

int main(void)
{
    optimum();
    int wrong = 0;
    for (int t = 2; t <= TMAX; t++)
        for (int s = 1; s <= SMAX; s++)
            if (by_rule(t, s) != T[t][s]) {
                if (wrong++ < 5)
                    printf("t=%d s=%d: rule %lld, optimum %lld\n", t, s,
                           (long long)by_rule(t, s), (long long)T[t][s]);
            }
    CHECK(wrong == 0);

    /* more slots than units change nothing */
    const int64_t big[] = {1000000000, (int64_t)1 << 53};
    for (int64_t t = 2; t <= 3000; t += 7) {
        int64_t m = vl_cpj_binomial_split(t, t - 1);
        CHECK(m == 1);
        CHECK(vl_cpj_binomial_split(t, t) == m);
        CHECK(vl_cpj_binomial_split(t, t + 1) == m);
        for (int k = 0; k < 2; k++)
            CHECK(vl_cpj_binomial_split(t, big[k]) == m);
    }

    /* huge lengths and slots: a split inside the interval, quickly */
    const int64_t ts[] = {2, 3, 1000, 1000000, 9000000000000000LL,
                          (int64_t)1 << 53};
    const int64_t ss[] = {1, 2, 3, 40, 62, 63, 1000, 1000000000,
                          (int64_t)1 << 53};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        for (size_t j = 0; j < sizeof ss / sizeof ss[0]; j++) {
            int64_t m = vl_cpj_binomial_split(ts[i], ss[j]);
            CHECK(m >= 1 && m < ts[i]);
        }
    /* one slot: the last unit alone */
    CHECK(vl_cpj_binomial_split((int64_t)1 << 53, 1)
          == ((int64_t)1 << 53) - 1);
    return CHECK_DONE();
}
