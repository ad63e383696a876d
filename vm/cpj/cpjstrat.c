/*
 * vm/cpj/cpjstrat.c -- checkpoint-*j's strategies: their table, parsing a
 * SPEC, naming them, their split rules, the strategy of a run, the step
 * counts the driver passes (see vm/cpj/cpjstrat.h)
 *
 * Split rules.  An interval of n > base steps is split at m steps:
 * - bisection: m = floor(n / 2);
 * - binomial with s slots: in units of base steps (t = ceil(n / base), the
 *   last unit possibly shorter), the revolve rule: with
 *   beta(s, r) = C(s + r, s) and r the least integer with t <= beta(s, r),
 *   m units where m = min(beta(s, r - 1), t - beta(s - 1, r - 1)), which
 *   lies in the optimal range beta(s, r-2) <= m <= beta(s, r-1),
 *   beta(s-1, r-1) <= t - m <= beta(s-1, r).  With s = 1, m = t - 1 (the
 *   last unit alone).  The right part then has s - 1 slots, the left part
 *   s.  The total of advanced units is then the optimum
 *   T(t, s) = min over m of m + T(t - m, s - 1) + T(m, s).
 */
#include "config.h"
#include "vm/cpj/cpjstrat.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "vm/core/delim.h"
#include "vm/core/delimregs.h"
#include "vm/core/except.h"
#include "vm/core/limits.h"
#include "vm/core/object.h"
#include "vm/core/print.h"

#define DEFAULT_BASE VL_CPJ_DEFAULT_BASE

/* ===== Strategies ===== */

/* The strategies, the one list of them (CpjStrategyRow,
   vm/cpj/cpjstrat.h): a strategy's kind is its index here, which a run's
   strategy value and a saved file keep, so a new strategy is a row added
   at the end (doc/internals.md section 19, "Adding a strategy"). */
static const CpjStrategyRow strategies[] = {
    /* name, takes slots=S, takes budget=BYTES, split rule */
    {"bisection", 0, 0, vl_cpj_split_bisection},
    {"binomial", 1, 1, vl_cpj_split_binomial},
};
#define NSTRATEGIES (sizeof strategies / sizeof strategies[0])

const char *vl_cpj_strategy_name(int i)
{
    return i >= 0 && (size_t)i < NSTRATEGIES ? strategies[i].name : NULL;
}

const CpjStrategyRow *vl_cpj_strategy(const CpjStrategy *st)
{
    return &strategies[st->kind];
}

CpjStrategy vl_cpj_default(void)
{
    CpjStrategy s = {CPJ_BINOMIAL, 0, 0, VL_CPJ_DEFAULT_BUDGET, NULL, 0};
    return s;
}

static int parse_count(const char *v, size_t len, int64_t *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, v, len);
    buf[len] = '\0';
    for (size_t k = 0; k < len; k++)
        if (buf[k] < '0' || buf[k] > '9')
            return 0;
    errno = 0;
    long long x = strtoll(buf, NULL, 10);
    if (errno != 0 || x > VL_EXACT_INT_MAX)
        return 0;
    *out = x;
    return 1;
}

/* A byte count: digits with an optional suffix k, M or G (powers of
   1024, either case). */
static int parse_bytes(const char *v, size_t len, int64_t *out)
{
    int shift = 0;
    if (len > 1) {
        switch (v[len - 1]) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        default: break;
        }
    }
    int64_t x;
    if (!parse_count(v, len - (shift ? 1 : 0), &x)
        || x > ((int64_t)1 << (53 - shift)))
        return 0;
    *out = x << shift;
    return 1;
}

int vl_cpj_parse(const char *spec, CpjStrategy *out, char *err,
                 size_t errlen)
{
    CpjStrategy s = vl_cpj_default();
    const char *p = spec, *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    size_t which = 0;
    while (which < NSTRATEGIES
           && !(strlen(strategies[which].name) == len
                && strncasecmp(p, strategies[which].name, len) == 0))
        which++;
    if (which == NSTRATEGIES) {
        char names[256] = "";
        for (size_t k = 0; k < NSTRATEGIES; k++)
            snprintf(names + strlen(names), sizeof names - strlen(names),
                     "%s%s", k == 0 ? "" : k + 1 < NSTRATEGIES ? ", "
                                                             : " or ",
                     strategies[k].name);
        snprintf(err, errlen, "unknown checkpoint strategy '%.*s' in '%s' "
                 "(expected %s)", (int)len, p, spec, names);
        return 0;
    }
    s.kind = (CpjKind)which;
    int have_slots = 0, have_budget = 0;
    while (comma != NULL) {
        p = comma + 1;
        comma = strchr(p, ',');
        len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        size_t klen = eq ? (size_t)(eq - p) : len;
        int64_t v = 0;
        int ok = eq != NULL && parse_count(eq + 1, len - klen - 1, &v);
        if (klen == 4 && strncasecmp(p, "base", 4) == 0) {
            if (!ok || v < 1) {
                snprintf(err, errlen, "checkpoint strategy '%s': base must "
                         "be a whole number of steps >= 1", spec);
                return 0;
            }
            s.base = v;
        } else if (klen == 5 && strncasecmp(p, "slots", 5) == 0
                   && strategies[which].slots) {
            if (!ok || v < 1) {
                snprintf(err, errlen, "checkpoint strategy '%s': slots "
                         "must be a whole number >= 1", spec);
                return 0;
            }
            s.slots = v;
            have_slots = 1;
        } else if (klen == 6 && strncasecmp(p, "budget", 6) == 0
                   && strategies[which].budget) {
            if (eq == NULL || !parse_bytes(eq + 1, len - klen - 1, &v)
                || v < 1) {
                snprintf(err, errlen, "checkpoint strategy '%s': budget "
                         "must be a number of bytes >= 1, with an optional "
                         "suffix k, M or G", spec);
                return 0;
            }
            s.budget = v;
            have_budget = 1;
        } else if (klen == 5 && strncasecmp(p, "steps", 5) == 0) {
            if (eq != NULL && len - klen - 1 == 3
                && strncasecmp(eq + 1, "all", 3) == 0) {
                s.all_steps = 1;
            } else if (eq != NULL && len - klen - 1 == 5
                       && strncasecmp(eq + 1, "first", 5) == 0) {
                s.all_steps = 0;
            } else {
                snprintf(err, errlen, "checkpoint strategy '%s': steps "
                         "must be 'first' or 'all'", spec);
                return 0;
            }
        } else if (klen == 5 && strncasecmp(p, "spill", 5) == 0
                   && strategies[which].budget) {
            if (eq == NULL || len == klen + 1) {
                snprintf(err, errlen, "checkpoint strategy '%s': spill "
                         "must name a directory (spill=DIR)", spec);
                return 0;
            }
            s.spill = vl_gc_strndup(eq + 1, len - klen - 1);
        } else {
            snprintf(err, errlen, "checkpoint strategy '%s': unknown "
                     "option '%.*s' (%s)", spec, (int)klen, p,
                     strategies[which].slots
                     ? "expected slots=S, budget=BYTES, spill=DIR, "
                       "base=N or steps=all"
                     : "expected base=N or steps=all");
            return 0;
        }
    }
    if (have_slots && have_budget) {
        snprintf(err, errlen, "checkpoint strategy '%s': slots=S and "
                 "budget=BYTES exclude each other (a budget chooses the "
                 "slots)", spec);
        return 0;
    }
    if (!strategies[which].budget || have_slots)
        s.budget = 0;           /* a fixed schedule */
    if (s.budget == 0 && s.base == 0)
        s.base = DEFAULT_BASE;
    *out = s;
    return 1;
}

/* ===== Split rules ===== */

int64_t vl_cpj_gcd(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* beta(s, r) = C(s + r, s) = C(s + r, r), exact, saturating at
   VL_COUNT_SATURATED (2^62 - 1).
   The product runs over k = 1 .. min(s, r): each factor (max + k) / k is
   at least 2, so it saturates within 62 factors whatever s and r are
   (H1: it ran over all s, 10^9 factors for slots=1e9, at every split). */
static int64_t beta(int64_t s, int64_t r)
{
    if (r < 0 || s < 0)
        return 0;
    int64_t lo = s < r ? s : r, hi = s < r ? r : s, b = 1;
    for (int64_t k = 1; k <= lo; k++) {
        /* b * (hi + k) / k is C(hi + k, k), a whole number: with
           g = gcd(b, k), k / g divides hi + k */
        int64_t g = vl_cpj_gcd(b, k), f = (hi + k) / (k / g);
        b /= g;
        if (b > VL_COUNT_SATURATED / f)
            return VL_COUNT_SATURATED;
        b *= f;
    }
    return b;
}

/* r: the least with t <= beta(s, r), for t >= 2 and 2 <= s <= t, found
   by doubling then bisection (O(log t) betas; counting r up from 0 took
   O(sqrt t) betas for s = 2). */
static int64_t least_r(int64_t t, int64_t s)
{
    int64_t lo = 0, hi = 1;         /* beta(s, lo) < t <= beta(s, hi) */
    while (beta(s, hi) < t) {
        lo = hi;
        hi *= 2;
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (beta(s, mid) < t)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* The split in units of an interval of t >= 2 units with s slots.  s is
   capped at t: with s >= t - 1 the rule already stores every unit
   (m = 1), so larger s change nothing. */
int64_t vl_cpj_binomial_split(int64_t t, int64_t s)
{
    if (s <= 1)
        return t - 1;
    if (s > t)
        s = t;
    int64_t r = least_r(t, s);
    int64_t a = beta(s, r - 1), b = t - beta(s - 1, r - 1);
    int64_t m = a < b ? a : b;
    return m < 1 ? 1 : m >= t ? t - 1 : m;
}

double vl_cpj_binomial_cost(int64_t t, int64_t s)
{
    if (t <= 1)
        return 0;
    if (s <= 1)
        return (double)t * (double)(t - 1) / 2;
    if (s > t)
        s = t;
    /* T = r t - beta(s + 1, r - 1) (Griewank and Walther; checked against
       the definition T(t, s) = min over m of m + T(t - m, s - 1) + T(m, s)
       by tests/unit/test-cpj and tests/cpj/runner.py) */
    int64_t r = least_r(t, s);
    return (double)r * (double)t - (double)beta(s + 1, r - 1);
}

int64_t vl_cpj_split_bisection(int64_t n, int64_t slots, int64_t base)
{
    (void)slots, (void)base;
    return n / 2;
}

int64_t vl_cpj_split_binomial(int64_t n, int64_t slots, int64_t base)
{
    return vl_cpj_binomial_split((n + base - 1) / base, slots) * base;
}

/* ===== The strategy of a run =====

   A run's strategy is fixed when it starts: HIDE_BEGIN (vm/exec/vm.c) keeps it
   in its %cpj-hide frame, as a value -- (kind slots base budget all
   spill), all 1 for steps=all, spill a string or #f -- that a capture carries and a file saves, so a
   run suspended under one strategy finishes under it whatever the
   configuration is by then (issue 31, W5); a run inside another takes
   the other's (its re-executions must run it as its first run did). */

/* The strategy value of the innermost running run's %cpj-hide frame
   (or NULL when none runs). */
static const Value *run_value(VladState *S)
{
    Limit *h = vl_delim_barrier_below(S, SIZE_MAX);
    if (h == NULL)
        return NULL;
    const Value *hb = S->stack + h->frame;
    return &hb[AS_CLOSURE(hb[-1])->proto->ctlreg + VL_HIDE_STRATEGY];
}


Value vl_cpj_start_strategy(VladState *S)
{
    const Value *outer = run_value(S);
    if (outer != NULL)
        return *outer;
    const CpjStrategy *st = &S->cpj->strategy;
    Value items[7] = {
        vl_num((double)st->kind), vl_num((double)st->slots),
        vl_num((double)st->base), vl_num((double)st->budget),
        vl_num(st->all_steps),
        st->spill != NULL ? vl_obj(VT_STR, (void *)st->spill) : FALSE_VAL,
        NIL_VAL};
    return vl_object_tuple(items, 7);
}

/* One count of a strategy value: a whole real in 0 .. 2^53 (a dual or a
   tape node when an enclosing j* or *j walked over the driver's frames). */
static int strategy_count(Value *v, int64_t *out)
{
    if (!IS_PAIR(*v) || !IS_REAL(AS_PAIR(*v)->car))
        return 0;
    double x = vl_object_primal(AS_PAIR(*v)->car);
    if (!(x >= 0 && x <= (double)VL_EXACT_INT_MAX && x == floor(x)))
        return 0;
    *out = (int64_t)x;
    *v = AS_PAIR(*v)->cdr;
    return 1;
}

static int parse_strategy_value(Value v, CpjStrategy *out)
{
    int64_t kind, all;
    CpjStrategy s = {CPJ_BISECTION, 0, 0, 0, NULL, 0};
    if (!strategy_count(&v, &kind) || kind >= (int64_t)NSTRATEGIES
        || !strategy_count(&v, &s.slots) || !strategy_count(&v, &s.base)
        || !strategy_count(&v, &s.budget) || !strategy_count(&v, &all)
        || all > 1 || !IS_PAIR(v)
        || !IS_NIL(AS_PAIR(v)->cdr))
        return 0;
    Value spill = AS_PAIR(v)->car;
    if (IS_STR(spill))
        s.spill = spill.as.ptr;
    else if (!IS_FALSE(spill))
        return 0;
    s.kind = (CpjKind)kind;
    s.all_steps = (int)all;
    /* what parsing a SPEC gives, and nothing else */
    if ((!strategies[kind].slots && s.slots)
        || (!strategies[kind].budget && (s.budget || s.spill))
        || (s.slots && s.budget) || (s.spill && !s.budget && !s.slots)
        || (s.base == 0 && s.budget == 0))
        return 0;
    *out = s;
    return 1;
}

int vl_cpj_counts_all(Value st)
{
    CpjStrategy s;
    return parse_strategy_value(st, &s) && s.all_steps;
}

const CpjStrategy *vl_cpj_run_strategy(VladState *S)
{
    Cpj *c = S->cpj;
    const Value *at = run_value(S);
    if (at == NULL)
        return &c->strategy;    /* (a driver's primitive called alone) */
    Value v = *at;
    if (v.tag != c->run_value.tag || v.as.ptr != c->run_value.as.ptr) {
        if (!parse_strategy_value(v, &c->run))
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "checkpoint-*j: expected a strategy, got %s",
                              vl_print_to_string(S, v, 100));
        c->run_value = v;
    }
    return &c->run;
}

/* ===== The driver's numbers ===== */

int64_t vl_cpj_step_count(VladState *S, Value v)
{
    /* the driver's own numbers may have been made reals of an enclosing
       *j or j* when a state holding them was differentiated */
    double x = IS_REAL(v) ? vl_object_primal(v) : -1;
    if (!(x >= 0) || x != floor(x) || x > VL_POSITION_MAX)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected a step count, got %s",
                          vl_print_to_string(S, v, 60));
    return (int64_t)x;
}
