/*
 * tests/unit/test-cpj.c -- checkpoint-*j's binomial split rule (vm/cpj/cpjstrat.c)
 *
 * - Optimality: for every t <= 120 units and s <= 10 slots, reversing by
 *   the rule advances exactly T(t, s) units, the minimum over all splits
 *   (computed here by dynamic programming, as vm/cpj/cpjstrat.c defines it: the
 *   right part of a split has a slot less, and with one slot only the
 *   last unit can be split off, T(t, 1) = t(t-1)/2).
 * - The rule does not depend on slots beyond t: s = t, t + 1, 10^9 and
 *   2^53 split like s = t - 1 (every unit stored).
 * - Huge parameters (H1 of issue 19): t and s up to 2^53 (the largest a
 *   SPEC or a step count takes) give a valid split; the old rule took
 *   O(s) work per binomial coefficient and O(sqrt t) coefficients, so
 *   these calls did not return (this test then ran into its timeout).
 * - vl_cpj_binomial_cost, the closed form the budget's planner predicts
 *   with, equals T(t, s) on the whole table, and is finite for huge t, s.
 * - vl_cpj_plan_budget: for budgets from 1 kB to 1 GB, snapshots of 100 B
 *   to 1 MB, 1 to 1000 tape bytes a step and runs of 1 to 10^12 steps,
 *   the plan fits (slots x snapshot + base x step bytes <= 2/3 of the
 *   budget, the rest being the collector's headroom; its predicted peak
 *   too), has 1 <= slots <= units, predicts exactly
 *   base x T(units, slots) re-executed steps, and more budget never
 *   predicts more work; a budget below one snapshot and a one-step base
 *   case is refused with that minimum; a given base is kept.
 * - vl_cpj_choose_kept (vm/cpj/cpjplan.c), which of the states a first run
 *   in chunks kept a reversal starts its segments from: on 3000 random
 *   cases (runs of up to 90 steps, bases 1 to 4, 1 to 8 slots, up to 9
 *   kept states, base-case costs 0 to 20 steps), its choice does the
 *   least work of all 2^c subsets (segment j, after j chosen states,
 *   reversed with slots - j slots: base x T(units, slots - j) plus the
 *   base-case cost per unit), never more than none, and the re-executed
 *   steps it predicts are those of its choice.
 */
#include "config.h"

#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include "tests/unit/check.h"
#include "vm/cpj/cpjplan.h"

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

/* Work of reversing n steps from a state with s slots: base x T(t, s)
   (INF when it cannot), the re-executed steps in *re. */
static double segment(int64_t n, int64_t base, int64_t s, double per_case,
                      double *re)
{
    int64_t t = (n + base - 1) / base;
    if (t > 1 && (s < 1 || T[t][s > SMAX ? SMAX : s] == INF))
        return INFINITY;
    *re += t > 1 ? (double)base * (double)T[t][s > SMAX ? SMAX : s] : 0;
    return (t > 1 ? (double)base * (double)T[t][s > SMAX ? SMAX : s] : 0)
           + per_case * (double)t;
}

/* The work of reversing n steps in segments from the kept states of
   'mask' (bits of q[]), its re-executed steps in *re. */
static double segments(int64_t n, int64_t base, int64_t slots,
                       double per_case, const int64_t *q, int c,
                       unsigned mask, double *re)
{
    double w = 0;
    int64_t pos = 0, j = 0;
    *re = 0;
    for (int i = 0; i < c; i++)
        if (mask & (1u << i)) {
            w += segment(q[i] - pos, base, slots - j, per_case, re);
            pos = q[i];
            j++;
        }
    return w + segment(n - pos, base, slots - j, per_case, re);
}

static int check_choose_kept(void)
{
    unsigned seed = 12345;
    int bad = 0, some = 0;
    for (int trial = 0; trial < 3000; trial++) {
        seed = seed * 1103515245u + 12345u;
        int64_t n = 2 + (seed >> 8) % 89;
        int64_t base = 1 + (seed >> 20) % 4;
        seed = seed * 1103515245u + 12345u;
        int64_t slots = 1 + (seed >> 8) % 8;
        double per_case = (double)((seed >> 16) % 21);
        int c = (int)((seed >> 24) % 10);
        if (c > n - 1)
            c = (int)(n - 1);
        /* c distinct positions in (0, n), ascending */
        int64_t q[16];
        int k = 0;
        for (int64_t p = 1; p < n && k < c; p++) {
            seed = seed * 1103515245u + 12345u;
            if ((int64_t)((seed >> 8) % (uint32_t)(n - p)) < c - k)
                q[k++] = p;
        }
        c = k;
        double best = INFINITY, re;
        for (unsigned mask = 0; mask < (1u << c); mask++) {
            if (__builtin_popcount(mask) > slots)
                continue;
            double w = segments(n, base, slots, per_case, q, c, mask, &re);
            if (w < best)
                best = w;
        }
        int chosen[16];
        double predicted = -1, work = -1;
        int got = vl_cpj_choose_kept(n, base, slots, per_case, q, c, chosen,
                                     &predicted, &work);
        some += got > 0;
        unsigned mask = 0;
        for (int i = 0; i < got; i++)
            mask |= 1u << chosen[i];
        double w = segments(n, base, slots, per_case, q, c, mask, &re);
        double none = segments(n, base, slots, per_case, q, c, 0, &(double){0});
        if (got > slots || w != best || work != best || w > none
            || re != predicted
            || (got > 1 && chosen[got - 1] <= chosen[0])) {
            if (bad++ < 5)
                printf("choose_kept n=%lld base=%lld slots=%lld per_case=%g "
                       "c=%d: work %g, best %g, none %g, re %g, "
                       "predicted %g\n", (long long)n, (long long)base,
                       (long long)slots, per_case, c, w, best, none, re,
                       predicted);
        }
    }
    if (some < 300) {           /* the cases must choose states */
        printf("choose_kept chose states in only %d cases\n", some);
        bad++;
    }
    return bad;
}

/* Plans under spill=DIR: what stays in memory (the cached snapshots,
   VL_CPJ_SPILLED_BYTES for each state in a file, the tape) fits the
   budget's data share; the slots are at least the cache and at most the
   units; the predicted re-execution is the binomial cost of those slots;
   and no plan re-executes more than the in-memory plan of its base would
   (the slots in files only add to those in memory). */
static int check_spill_plans(void)
{
    const int64_t budgets[] = {1024, 10000, 1 << 20, 8 << 20, 64 << 20};
    const int64_t snaps[] = {100, 5000, 40000, 1 << 20};
    const int64_t steps[] = {1, 30, 90, 1000};
    const int64_t ns[] = {1, 2, 1000, 123457, 35000000, 1000000000000LL};
    int bad = 0, planned = 0, spilling = 0;
    for (size_t a = 0; a < sizeof snaps / sizeof snaps[0]; a++)
        for (size_t b = 0; b < sizeof steps / sizeof steps[0]; b++)
            for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++)
                for (size_t d = 0; d < sizeof budgets / sizeof budgets[0];
                     d++) {
                    CpjStrategy st = {.kind = CPJ_BINOMIAL,
                                      .budget = budgets[d], .spill = "/tmp"};
                    CpjStrategy mem = st;
                    mem.spill = NULL;
                    CpjPlan p, q;
                    int64_t min, min2, n = ns[c];
                    int ok = vl_cpj_plan_budget(&st, n, snaps[a], steps[b],
                                                &p, &min);
                    if (ok != vl_cpj_plan_budget(&mem, n, snaps[a],
                                                 steps[b], &q, &min2)
                        || min != min2) {
                        bad++;      /* the same minimum either way */
                        continue;
                    }
                    if (!ok)
                        continue;
                    planned++;
                    int64_t t = (n + p.base - 1) / p.base;
                    int64_t used = p.base < n ? p.base : n;
                    double held = (double)p.cache * (double)snaps[a]
                                  + (double)(p.slots - p.cache)
                                    * VL_CPJ_SPILLED_BYTES
                                  + (double)used * (double)steps[b];
                    spilling += p.slots > p.cache;
                    if (p.cache < 1 || p.cache > VL_CPJ_SPILL_CACHE
                        || p.slots < p.cache || p.slots > (t > 0 ? t : 1)
                        || held > (double)budgets[d] * 2.0 / 3.0 + 1
                        || p.peak_bytes > budgets[d] || p.io < 0
                        || p.reexec != (double)p.base
                                       * vl_cpj_binomial_cost(t, p.slots)) {
                        if (bad++ < 5)
                            printf("spill plan n=%lld budget=%lld "
                                   "snapshot=%lld step=%lld: slots %lld "
                                   "cache %lld base %lld reexec %g peak "
                                   "%lld\n", (long long)n,
                                   (long long)budgets[d],
                                   (long long)snaps[a], (long long)steps[b],
                                   (long long)p.slots, (long long)p.cache,
                                   (long long)p.base, p.reexec,
                                   (long long)p.peak_bytes);
                    }
                }
    if (planned == 0 || spilling == 0)
        bad++;
    return bad;
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

    /* the closed form */
    wrong = 0;
    for (int t = 1; t <= TMAX; t++)
        for (int s = 1; s <= SMAX; s++)
            if (vl_cpj_binomial_cost(t, s) != (double)(t < 2 ? 0 : T[t][s]))
                wrong++;
    CHECK(wrong == 0);
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        for (size_t j = 0; j < sizeof ss / sizeof ss[0]; j++) {
            double c = vl_cpj_binomial_cost(ts[i], ss[j]);
            CHECK(c >= (double)(ts[i] - 1) && c < 1e40);
        }

    /* the budget's planner */
    const int64_t budgets[] = {1024, 10000, 1 << 20, 8 << 20, 64 << 20,
                               1 << 30};
    const int64_t snaps[] = {100, 5000, 40000, 1 << 20};
    const int64_t steps[] = {1, 30, 90, 1000};
    const int64_t ns[] = {1, 2, 1000, 123457, 35000000, 1000000000000LL};
    int bad = 0, refused = 0, planned = 0;
    for (size_t a = 0; a < sizeof snaps / sizeof snaps[0]; a++)
        for (size_t b = 0; b < sizeof steps / sizeof steps[0]; b++)
            for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++) {
                double last = -1;
                for (size_t d = 0; d < sizeof budgets / sizeof budgets[0];
                     d++) {
                    CpjStrategy st = {.kind = CPJ_BINOMIAL,
                                      .budget = budgets[d]};
                    CpjPlan p;
                    int64_t min;
                    int64_t n = ns[c];
                    if (!vl_cpj_plan_budget(&st, n, snaps[a], steps[b], &p,
                                            &min)) {
                        refused++;
                        if (min != (int64_t)ceil((double)(snaps[a] + steps[b])
                                                 / (2.0 / 3.0))
                            || min <= budgets[d])
                            bad++;
                        continue;
                    }
                    planned++;
                    int64_t t = (n + p.base - 1) / p.base;
                    int64_t used = p.base < n ? p.base : n;
                    if (p.slots < 1 || p.slots > (t > 0 ? t : 1)
                        || p.base < 1
                        || (double)p.slots * (double)snaps[a]
                           + (double)used * (double)steps[b]
                           > (double)budgets[d] * 2.0 / 3.0
                        || p.peak_bytes > budgets[d]
                        || p.reexec != (double)p.base
                                       * vl_cpj_binomial_cost(t, p.slots)
                        || (last >= 0 && p.reexec > last * 1.0000001
                            && n > 1)) {
                        if (bad++ < 5)
                            printf("plan n=%lld budget=%lld snapshot=%lld "
                                   "step=%lld: slots %lld base %lld "
                                   "reexec %g peak %lld\n", (long long)n,
                                   (long long)budgets[d],
                                   (long long)snaps[a], (long long)steps[b],
                                   (long long)p.slots, (long long)p.base,
                                   p.reexec, (long long)p.peak_bytes);
                    }
                    last = p.reexec;
                }
            }
    CHECK(bad == 0);
    CHECK(refused > 0 && planned > 0);
    /* a given base is kept */
    CpjStrategy fixed = {.kind = CPJ_BINOMIAL, .base = 77,
                         .budget = 1 << 20};
    CpjPlan p;
    int64_t min;
    CHECK(vl_cpj_plan_budget(&fixed, 100000, 1000, 10, &p, &min));
    CHECK(p.base == 77);
    CHECK(!vl_cpj_plan_budget(&fixed, 100000, 1 << 20, 10, &p, &min));
    CHECK(min == (int64_t)ceil(((1 << 20) + 770) / (2.0 / 3.0)));
    CHECK(check_choose_kept() == 0);
    CHECK(check_spill_plans() == 0);
    return CHECK_DONE();
}
