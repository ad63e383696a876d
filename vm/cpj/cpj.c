/*
 * vm/cpj/cpj.c -- checkpoint-*j: strategies, segments, the effect log, stats
 * (see vm/cpj/cpj.h; the driver is in stdlib/prelude.vlad, the segment
 * prototypes in vm/exec/vm.c)
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
#include "vm/cpj/cpj.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "vm/ad/ad.h"
#include "vm/core/cont.h"
#include "vm/core/delim.h"
#include "vm/core/except.h"
#include "vm/core/object.h"
#include "vm/core/print.h"
#include "vm/persist/spill.h"
#include "vm/ad/walk.h"

#define DEFAULT_BASE 1000
/* A budget plan's pilot tapes n / PILOT_FRACTION steps, at most
   PILOT_MAX (vm/cpj/cpj.h, %cpj-pilot-steps) */
#define PILOT_MAX 4096
#define PILOT_FRACTION 16
/* ... except that a run of at most SHORT_RUN steps under a budget of at
   least SHORT_RUN_BUDGET is planned as one base case with no pilot */
#define SHORT_RUN 1000
#define SHORT_RUN_BUDGET ((int64_t)1 << 20)
#define DATA_BYTES_PER_REAL VL_CPJ_DATA_BYTES_PER_REAL  /* (vm/cpj/cpj.h) */
#define HEAP_SHARE VL_CPJ_HEAP_SHARE
/* The driver's frames whose dead registers %cpj-hold, %cpj-release and
   %cpj-count-leaf clear (vm/core/cont.h): those of the level that calls them
   and of the level under it */
#define CLEAR_FRAMES 6

/* What the driver's primitives clear each time (vm/core/cont.h): the stack
   slots above their arguments ('from') that earlier calls left, and the
   dead registers of the driver's frames under them -- else a deep
   recursion of the driver keeps alive the states and cotangents of the
   levels it has finished with. */
static void clear_stale(VladState *S, Value *from)
{
    vl_cont_clear_above(S, from);
    vl_cont_clear_dead(S, CLEAR_FRAMES);
}
/* Under spill=DIR with a budget, a collection each time this share of
   the budget has been allocated (half of what the plan leaves the
   collector: the heap is live data, plus that much), and at least
   TIGHT_MIN bytes */
#define TIGHT_SHARE ((1 - HEAP_SHARE) / 2)
#define TIGHT_MIN ((double)(256 << 10))

/* ===== Strategies ===== */

/* The strategies by name, the one list of them (vlad_checkpoint_strategy
   gives the names to the REPL's completion): whether they take slots=S
   and budget=BYTES (every one takes base=N). */
static const struct {
    const char *name;
    CpjKind kind;
    int slots, budget;
} strategies[] = {
    {"bisection", CPJ_BISECTION, 0, 0},
    {"binomial", CPJ_BINOMIAL, 1, 1},
};
#define NSTRATEGIES (sizeof strategies / sizeof strategies[0])

const char *vl_cpj_strategy_name(int i)
{
    return i >= 0 && (size_t)i < NSTRATEGIES ? strategies[i].name : NULL;
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
    if (errno != 0 || x > (1LL << 53))
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
        snprintf(err, errlen, "unknown checkpoint strategy '%.*s' in '%s' "
                 "(expected %s or %s)", (int)len, p, spec,
                 strategies[0].name, strategies[1].name);
        return 0;
    }
    s.kind = strategies[which].kind;
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
    if (s.kind != CPJ_BINOMIAL || have_slots)
        s.budget = 0;           /* a fixed schedule */
    if (s.budget == 0 && s.base == 0)
        s.base = DEFAULT_BASE;
    *out = s;
    return 1;
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
    return &hb[AS_CLOSURE(hb[-1])->proto->ctlreg + 2];
}


Value vl_cpj_start_strategy(VladState *S)
{
    const Value *outer = run_value(S);
    if (outer != NULL)
        return *outer;
    const CpjStrategy *st = &S->cpj->strategy;
    Value items[7] = {
        vl_num(st->kind == CPJ_BINOMIAL), vl_num((double)st->slots),
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
    if (!(x >= 0 && x <= 9007199254740992.0 && x == floor(x)))
        return 0;
    *out = (int64_t)x;
    *v = AS_PAIR(*v)->cdr;
    return 1;
}

static int parse_strategy_value(Value v, CpjStrategy *out)
{
    int64_t kind, all;
    CpjStrategy s = {CPJ_BISECTION, 0, 0, 0, NULL, 0};
    if (!strategy_count(&v, &kind) || kind > 1
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
    s.kind = kind ? CPJ_BINOMIAL : CPJ_BISECTION;
    s.all_steps = (int)all;
    /* what parsing a SPEC gives, and nothing else */
    if ((s.kind == CPJ_BISECTION && (s.slots || s.budget || s.spill))
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

#define BETA_SAT (INT64_MAX / 2)

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* beta(s, r) = C(s + r, s) = C(s + r, r), exact, saturating at 2^62.
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
        int64_t g = gcd64(b, k), f = (hi + k) / (k / g);
        b /= g;
        if (b > BETA_SAT / f)
            return BETA_SAT;
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

/* The base units of n steps (the last one possibly shorter). */
static int64_t units(int64_t base, int64_t n)
{
    return (n + base - 1) / base;
}

/* The plan of n steps with the given base and slots (capped at the
   units, which split the same beyond: vl_cpj_binomial_split). */
static CpjPlan fixed_plan(int64_t n, int64_t base, int64_t slots)
{
    int64_t t = units(base, n);
    CpjPlan p = {slots < t ? slots : (t > 0 ? t : 1), base, 0, 0, 0, 0};
    p.reexec = (double)base * vl_cpj_binomial_cost(t, p.slots);
    return p;
}

/* The re-executed steps of an interval of n steps with the given base
   and slots, reversed by the binomial rule. */
static double interval_cost(int64_t n, int64_t base, int64_t slots)
{
    if (units(base, n) <= 1)
        return 0;               /* a base case */
    if (slots < 1)
        return INFINITY;
    return fixed_plan(n, base, slots).reexec;
}

/* Which kept states a reversal starts segments from (vm/cpj/cpj.h). */

/* The predicted work of reversing a segment of n steps with the given
   slots: its re-executed steps, and per_case steps for each base case. */
static double segment_work(int64_t n, int64_t base, int64_t slots,
                           double per_case)
{
    return interval_cost(n, base, slots) + per_case * (double)units(base, n);
}

int vl_cpj_choose_kept(int64_t n, int64_t base, int64_t slots,
                       double per_case, const int64_t *q, int c,
                       int *chosen, double *reexec, double *work)
{
    /* best[i][j]: the least work from kept state i (0: the start, 1..c:
       q[i - 1]) to the end when i is the j-th state chosen (j slots
       taken to its left, itself included; the start takes none);
       next[i][j]: the next state chosen, c + 1 for none. */
    int m = c + 1;
    int64_t jmax = slots < m ? slots : m;
    size_t cells = (size_t)m * (size_t)(jmax + 1);
    double *best = malloc(cells * sizeof *best);
    int *next = malloc(cells * sizeof *next);
    if (best == NULL || next == NULL) {
        free(best);
        free(next);
        *reexec = interval_cost(n, base, slots);
        *work = segment_work(n, base, slots, per_case);
        return 0;
    }
#define AT(i, j) ((size_t)(i) * (size_t)(jmax + 1) + (size_t)(j))
    for (int i = c; i >= 0; i--) {
        int64_t pos = i == 0 ? 0 : q[i - 1];
        for (int64_t j = i < jmax ? i : jmax; j >= (i > 0); j--) {
            double b = segment_work(n - pos, base, slots - j, per_case);
            int nx = c + 1;
            if (j + 1 <= jmax)
                for (int i2 = i + 1; i2 <= c; i2++) {
                    double rest = best[AT(i2, j + 1)];
                    if (rest >= b)
                        continue;
                    double here = segment_work(q[i2 - 1] - pos, base,
                                               slots - j, per_case);
                    if (here + rest < b) {
                        b = here + rest;
                        nx = i2;
                    }
                }
            best[AT(i, j)] = b;
            next[AT(i, j)] = nx;
        }
    }
    /* the path from the start, and its re-executed steps */
    int k = 0;
    int64_t pos = 0;
    double total = 0;
    for (int i = 0, j = 0;; j++) {
        int nx = next[AT(i, j)];
        int64_t end = nx <= c ? q[nx - 1] : n;
        total += interval_cost(end - pos, base, slots - j);
        if (nx > c)
            break;
        chosen[k++] = nx - 1;
        pos = end;
        i = nx;
    }
    *reexec = total;
    *work = best[AT(0, 0)];
#undef AT
    free(best);
    free(next);
    return k;
}

static double per_case_work(int64_t snapshot, int64_t per_step);

/* Under spill=DIR, the slots of a base b plan with 'room' bytes beside
   its tape: VL_CPJ_SPILL_CACHE snapshots (or as many as fit) stay in
   memory, the other held states are in files and cost
   VL_CPJ_SPILLED_BYTES each in memory.  A state is held at each split
   and nearly each is written once and read back once (SPILL_PASSES
   passes over its bytes, in steps at the tape's bytes per step): the
   slots (doubling, up to what fits) that predict the least work,
   re-executed steps and I/O. */
#define SPILL_PASSES 4.0
static CpjPlan spill_plan(int64_t n, int64_t b, double room, int64_t snapshot,
                          int64_t per_step)
{
    int64_t t = units(b, n);
    double io = SPILL_PASSES * (double)snapshot
                / (double)(per_step > 1 ? per_step : 1);
    int64_t c = (int64_t)(room / (double)snapshot);
    if (c > VL_CPJ_SPILL_CACHE)
        c = VL_CPJ_SPILL_CACHE;
    if (c > t)
        c = t;
    double rest = room - (double)c * (double)snapshot;
    int64_t smax = c + (int64_t)(rest / VL_CPJ_SPILLED_BYTES);
    if (smax > t)
        smax = t;
    CpjPlan best = fixed_plan(n, b, c);
    for (int64_t s = c; s < smax;) {
        s = s < smax / 2 ? 2 * s : smax;
        CpjPlan p = fixed_plan(n, b, s);
        p.io = io * (double)(t - 1) * (1.0 - (double)c / (double)s);
        if (p.reexec + p.io < best.reexec + best.io)
            best = p;
    }
    best.cache = c;
    return best;
}

/* One candidate of a budget plan: base b, the slots that fit beside its
   tape (or, with spill=DIR, that pay for their I/O).  Returns 0 when not
   even one snapshot does. */
static int plan_for_base(const CpjStrategy *st, int64_t n, int64_t b,
                         int64_t snapshot, int64_t per_step, CpjPlan *out)
{
    /* (with spill=DIR, where the rest of memory is small, the reverse
       sweep's sensitivities count too: a double for each 16-byte slot of
       the tape, vm/ad/adsweep.c) */
    double tape = (double)(b < n ? b : n) * (double)per_step
                  * (st->spill != NULL ? 1.5 : 1.0);
    double room = (double)st->budget * HEAP_SHARE - tape;
    if (room < (double)snapshot)
        return 0;
    double fit = room / (double)snapshot;
    if (st->spill != NULL) {
        *out = spill_plan(n, b, room, snapshot, per_step);
        out->peak_bytes = (int64_t)((double)out->cache * (double)snapshot
                                    + (double)(out->slots - out->cache)
                                      * VL_CPJ_SPILLED_BYTES + tape);
    } else {
        *out = fixed_plan(n, b, fit >= (double)n ? n : (int64_t)fit);
        out->peak_bytes = (int64_t)((double)out->slots * (double)snapshot
                                    + tape);
    }
    return 1;
}

/* The work of each base case beyond its steps (tapifying its start
   state, the cotangent copies of its end state), in steps: about two
   passes over a snapshot's bytes, at the tape's bytes per step. */
static double per_case_work(int64_t snapshot, int64_t per_step)
{
    return 2.0 * (double)(snapshot > 1 ? snapshot : 1)
           / (double)(per_step > 1 ? per_step : 1);
}

int vl_cpj_plan_budget(const CpjStrategy *st, int64_t n, int64_t snapshot,
                       int64_t per_step, CpjPlan *out, int64_t *min_bytes)
{
    if (snapshot < 1)
        snapshot = 1;
    if (per_step < 1)
        per_step = 1;
    int64_t bmin = st->base > 0 ? st->base : 1;
    *min_bytes = (int64_t)ceil((double)(snapshot + (bmin < n ? bmin
                                                    : (n > 0 ? n : 1))
                                                   * per_step) / HEAP_SHARE);
    double per_case = per_case_work(snapshot, per_step);
    int found = 0;
    double best = 0;
    /* bases from bmin up, each a quarter more than the last */
    for (int64_t b = bmin;; b += b / 4 > 0 ? b / 4 : 1) {
        CpjPlan p;
        if (st->base == 0 && b > n)
            b = n > 0 ? n : 1;  /* the whole run is one base case */
        if (plan_for_base(st, n, b, snapshot, per_step, &p)) {
            double cost = p.reexec + per_case * (double)units(p.base, n)
                          + p.io;
            if (!found || cost < best) {
                *out = p;
                best = cost;
                found = 1;
            }
        } else {
            break;          /* larger bases leave even less room */
        }
        if (st->base > 0 || b >= n || b > ((int64_t)1 << 52))
            break;
    }
    return found;
}

/* ===== State ===== */

void vl_cpj_init(VladState *S)
{
    S->cpj = vl_gc_alloc(sizeof *S->cpj);
    S->cpj->strategy = vl_cpj_default();
    S->cpj->open_mark = -1;
}

/* The outermost run under spill=DIR has ended (or was abandoned): the
   collector runs as before. */
static void leave_tight(Cpj *c)
{
    if (c->tight) {
        vl_gc_tight_leave();
        c->tight = 0;
    }
}

void vl_cpj_reset(VladState *S)
{
    vl_spill_reset(S);
    leave_tight(S->cpj);
    S->cpj->live = 0;
    S->cpj->live_bytes = 0;
    S->cpj->outermost_open = 0;
    S->cpj->open_mark = -1;
}

/* ===== The effect log ===== */


/* The first run has ended: its log (a raw list in the frame's register,
   newest first) as a finished, searchable log. */
static Value finish_log(VladState *S, Value raw_list)
{
    (void)S;
    size_t n = 0;
    for (const LogEntry *e = raw_list.as.ptr; e != NULL; e = e->next)
        n++;
    Log *l = vl_gc_alloc(sizeof *l);
    l->n = n;
    l->pos = vl_gc_alloc_atomic((n ? n : 1) * sizeof(int64_t));
    l->values = vl_gc_alloc((n ? n : 1) * sizeof(Value));
    size_t k = n;
    for (const LogEntry *e = raw_list.as.ptr; e != NULL; e = e->next) {
        k--;
        l->pos[k] = e->pos;
        l->values[k] = e->value;
    }
    return vl_raw_ptr(VL_RAW_LOG, l);
}

Value vl_cpj_first_result(VladState *S, Value y, int64_t n, Value raw_log)
{
    VladCpjStats *st = &S->cpj->stats;
    st->calls++;
    st->primal_steps += n;
    if (S->nseg == 0) {
        S->cpj->progress_done = 0;
        S->cpj->progress_total = n;
    }
    Value items[4] = {y, vl_num((double)n), finish_log(S, raw_log),
                      NIL_VAL};
    return vl_object_tuple(items, 4);
}

static int64_t position(VladState *S, const CpjSeg *e)
{
    return S->steps - e->anchor;
}

int vl_cpj_may_output(VladState *S)
{
    for (size_t k = 0; k < S->nseg; k++)
        if (S->seg[k].replay)
            return 0;
    return 1;
}

/* Record v in the first runs from the innermost segment down to (not
   including) segment 'stop'. */
static void record_down_to(VladState *S, size_t stop, Value v)
{
    for (size_t k = S->nseg; k-- > stop;) {
        CpjSeg *e = &S->seg[k];
        Value *frame = S->stack + e->frame;
        Value *slot = frame + AS_CLOSURE(frame[-1])->proto->ctlreg - 1;
        LogEntry *n = vl_gc_alloc(sizeof *n);
        n->pos = position(S, e);
        n->value = v;
        n->next = (LogEntry *)slot->as.ptr;
        slot->as.ptr = n;
    }
}

int vl_cpj_replay_input(VladState *S, Value *out)
{
    size_t k = S->nseg;
    while (k > 0 && !S->seg[k - 1].replay)
        k--;
    if (k == 0)
        return 0;
    const CpjSeg *e = &S->seg[k - 1];
    const Log *l = e->log.as.ptr;
    int64_t p = position(S, e);
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->pos[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == l->n || l->pos[lo] != p)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: a re-execution read input at "
                          "step %lld, where the first run read none",
                          (long long)p);
    *out = l->values[lo];
    record_down_to(S, k, *out);
    return 1;
}

void vl_cpj_record_input(VladState *S, Value v)
{
    record_down_to(S, 0, v);
}

/* ===== The driver's primitives ===== */

int64_t vl_cpj_step_count(VladState *S, Value v)
{
    /* the driver's own numbers may have been made reals of an enclosing
       *j or j* when a state holding them was differentiated */
    double x = IS_REAL(v) ? vl_object_primal(v) : -1;
    if (!(x >= 0) || x != floor(x) || x > 9e15)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected a step count, got %s",
                          vl_print_to_string(S, v, 60));
    return (int64_t)x;
}

static Value make_segment(VladState *S, int which, int nfree,
                          const Value *free)
{
    Closure *c = vl_gc_alloc(sizeof(Closure) + (size_t)nfree * sizeof(Value));
    c->proto = S->control[which];
    for (int k = 0; k < nfree; k++)
        c->free[k] = free[k];
    return vl_obj(VT_CLOSURE, c);
}

static void check_log(VladState *S, Value log)
{
    if (log.tag != VT_RAW || log.aux != VL_RAW_LOG)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected an effect log, got %s",
                          vl_print_to_string(S, log, 60));
}

/* (%cpj-runner pos log): the RUN segment from a state at pos. */
static Value p_runner(VladState *S, Value *args)
{
    vl_cpj_step_count(S, args[0]);
    check_log(S, args[1]);
    return make_segment(S, CTL_SEG_RUN, 2, args);
}

/* (%cpj-advancer pos log m): the ADV segment by m steps. */
static Value p_advancer(VladState *S, Value *args)
{
    vl_cpj_step_count(S, args[0]);
    check_log(S, args[1]);
    vl_cpj_step_count(S, args[2]);
    Value free[4] = {args[0], args[1], args[2], S->advance_value};
    return make_segment(S, CTL_SEG_ADV, 4, free);
}

/* A base (>= 1) argument. */
static int64_t base_arg(VladState *S, Value v)
{
    /* up to 2^53, as base=N is parsed (a step count stops at 9e15) */
    double x = IS_REAL(v) ? vl_object_primal(v) : -1;
    int64_t b = x >= 1 && x == floor(x) && x <= 9007199254740992.0
                ? (int64_t)x : 0;
    if (b < 1)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected a base of at least one "
                          "step, got %s", vl_print_to_string(S, v, 60));
    return b;
}

/* (%cpj-leaf? n base): whether an interval of n steps is a base case. */
static Value p_leafp(VladState *S, Value *args)
{
    int64_t n = vl_cpj_step_count(S, args[0]);
    return vl_bool(n <= base_arg(S, args[1]));
}

static Value same_leaf(VladState *S, Value a, Value b, void *ud)
{
    (void)S, (void)b, (void)ud;
    return a;
}

/* (%cpj-check-cotangent y ybar): ybar, once it is known to have the shape
   of the value y (checked before any reverse sweep, so that a mismatch
   is checkpoint-*j's error rather than that of a *j of the driver). */
static Value p_check_cotangent(VladState *S, Value *args)
{
    vl_walk_zip(S, args[0], args[1], same_leaf, NULL, "checkpoint-*j",
                "cotangent");
    return args[1];
}

/* (%cpj-activate x): x with its plain reals marked active (vm/core/value.h):
   what depends on them is what the base cases differentiate. */
static Value p_activate(VladState *S, Value *args)
{
    return vl_ad_activate(S, args[0]);
}

void vl_cpj_progress_counting(VladState *S, int64_t now)
{
    if (S->nseg > 0 && !S->seg[0].replay
        && !vl_delim_hidden_above(S, S->seg[0].frame))
        /* the outermost checkpoint-*j's first run (not a checkpoint-*j
           in it beyond its own first run, whose steps the first run does
           not count): total not yet known */
        S->config.progress(S->config.userdata, now - S->seg[0].anchor, 0);
}

/* The outermost run's base case being swept has ended (or the run): its
   peak bytes. */
static void close_base_case(VladState *S)
{
    Cpj *c = S->cpj;
    if (c->open_mark < 0)
        return;
    int64_t bytes = c->open_live_bytes
                    + ((int64_t)S->tape_bytes - c->open_mark);
    if (bytes > c->stats.last_peak_bytes)
        c->stats.last_peak_bytes = bytes;
    if (bytes > c->stats.peak_bytes)
        c->stats.peak_bytes = bytes;
    c->open_mark = -1;
}

/* (%cpj-count-leaf n): count a base case of n steps; returns n. */
static Value p_count_leaf(VladState *S, Value *args)
{
    Cpj *c = S->cpj;
    int64_t n = vl_cpj_step_count(S, args[0]);
    clear_stale(S, args + 1);           /* what the last one left */
    c->stats.base_cases++;
    c->stats.base_steps += n;
    if (S->nseg == 0 && c->outermost_open) {
        close_base_case(S);
        /* the snapshots held, with the data each reaches, and the
           working state (the start of this base case) */
        c->open_live_bytes = (vl_spill_on(S) ? vl_spill_cached_bytes(S)
                              : c->live_bytes + c->live * c->snapshot_data)
                             + c->stats.plan_snapshot_bytes;
        c->open_mark = (int64_t)S->tape_bytes;
    }
    if (S->nseg == 0 && S->config.progress != NULL) {
        /* the outermost run (inner ones run inside its segments) */
        c->progress_done += n;
        S->config.progress(S->config.userdata, c->progress_done,
                           c->progress_total);
    }
    return args[0];
}

/* (%cpj-pilot-steps n): the steps a plan's pilot tapes before a run of
   n steps (vm/cpj/cpj.h), 0 when the strategy has no budget. */
static Value p_pilot_steps(VladState *S, Value *args)
{
    const CpjStrategy *st = vl_cpj_run_strategy(S);
    int64_t n = vl_cpj_step_count(S, args[0]);
    if (st->budget == 0 || n < 2 || S->nseg > 0)
        return vl_num(0);   /* (nested: see p_plan) */
    /* a short run under a budget of a megabyte or more is one base case
       without measuring (its tape would need a kilobyte a step to pass
       the budget) */
    if (st->base == 0 && n <= SHORT_RUN && st->budget >= SHORT_RUN_BUDGET)
        return vl_num(0);
    int64_t p = n / PILOT_FRACTION;
    return vl_num((double)(p < 1 ? 1 : p > PILOT_MAX ? PILOT_MAX : p));
}

/* (%cpj-tape-bytes): the bytes of the tape of the last *j to end, its own
   (not those of *j's around it: a measure that does not depend on the
   context, which a re-execution may not share), from its length: its
   slots, and the room its chunks leave for growth (up to a quarter). */
static Value p_tape_bytes(VladState *S, Value *args)
{
    (void)args;
    return vl_num((double)S->last_tape_slots * sizeof(TapeSlot) * 5 / 4);
}

static Value count_active(VladState *S, Value a, Value b, void *ud)
{
    (void)S, (void)b;
    if (vl_real_marked(a))
        ++*(int64_t *)ud;
    return a;
}

/* The bytes the data of state u takes beyond its frames: its reals that
   depend on the input (vm/core/value.h, "Activity"), each in a heap cell. */
int64_t vl_cpj_snapshot_data_bytes(VladState *S, Value u)
{
    int64_t reals = 0;
    vl_walk_map(S, u, count_active, &reals);
    return reals * DATA_BYTES_PER_REAL;
}

/* The states a first run in chunks kept (vm/cpj/cpjfirst.c), newest first:
   how many, and the most bytes one holds (frames and data). */
static size_t kept_count(VladState *S, Value kept, int64_t *max_bytes,
                         int64_t *max_data)
{
    size_t c = 0;
    for (Value l = kept; IS_PAIR(l); l = AS_PAIR(l)->cdr) {
        Value u = AS_PAIR(l)->car;
        if (!IS_CKPT(u))
            continue;
        c++;
        if (!AS_CKPT(u)->data_measured && !AS_CKPT(u)->away) {
            AS_CKPT(u)->data_bytes = vl_cpj_snapshot_data_bytes(S, u);
            AS_CKPT(u)->data_measured = 1;
        }
        int64_t b = (int64_t)AS_CKPT(u)->bytes + AS_CKPT(u)->data_bytes;
        if (b > *max_bytes)
            *max_bytes = b;
        if (AS_CKPT(u)->data_bytes > *max_data)
            *max_data = AS_CKPT(u)->data_bytes;
    }
    return c;
}

/* Of the kept states, those the plan's reversal starts segments from
   (the rightmost first; the others released), its predicted re-execution in
   plan->reexec; none when 'use' is 0.  Under a budget with no base
   given, the plan's base may change to a power-of-two multiple or
   fraction of the kept states' spacing (their positions' gcd), which
   makes the segments whole base units, when that predicts less work. */
static Value choose_kept(VladState *S, Value kept, size_t c, int64_t n,
                         CpjPlan *plan, int64_t snapshot, int64_t per_step,
                         int use)
{
    const CpjStrategy *st = vl_cpj_run_strategy(S);
    Value *v = vl_gc_alloc((c ? c : 1) * sizeof(Value));
    int64_t *q = vl_gc_alloc_atomic((c ? c : 1) * sizeof(int64_t));
    int *chosen = vl_gc_alloc_atomic((c ? c : 1) * sizeof(int));
    int *trial = vl_gc_alloc_atomic((c ? c : 1) * sizeof(int));
    size_t i = c;
    int64_t g = 0;
    for (Value l = kept; IS_PAIR(l) && i > 0; l = AS_PAIR(l)->cdr)
        if (IS_CKPT(AS_PAIR(l)->car)) {
            v[--i] = AS_PAIR(l)->car;
            q[i] = AS_CKPT(v[i])->position;
            g = gcd64(g, q[i]);
        }
    int k = 0;
    if (use && c > 0 && c <= 4 * VL_CPJ_KEEP_MAX) {
        double per_case = per_case_work(snapshot, per_step);
        CpjPlan cand[3] = {*plan};
        int ncand = 1;
        if (st->base == 0 && g > 0) {
            int64_t b = g;
            while (b > plan->base && b > 1)
                b /= 2;
            while (b * 2 <= plan->base)
                b *= 2;
            for (int64_t x = b; x <= 2 * b; x += b)
                if (x != plan->base
                    && plan_for_base(st, n, x, snapshot, per_step,
                                     &cand[ncand]))
                    ncand++;
        }
        double best = INFINITY;
        for (int a = 0; a < ncand; a++) {
            double reexec, work;
            int got = vl_cpj_choose_kept(n, cand[a].base, cand[a].slots,
                                         per_case, q, (int)c, trial,
                                         &reexec, &work);
            if (work < best) {
                best = work;
                *plan = cand[a];
                plan->reexec = reexec;
                k = got;
                memcpy(chosen, trial, (size_t)got * sizeof *chosen);
            }
        }
    }
    Value out = NIL_VAL;
    for (size_t r = 0, j = 0; r < c; r++) {
        if (j < (size_t)k && chosen[j] == (int)r) {
            j++;
            Value items[2] = {v[r], out};
            out = vl_object_tuple(items, 2);
        } else {
            vl_cpj_count_released(S, v[r]);
        }
    }
    return out;                 /* the rightmost first */
}

/* (%cpj-plan n pilot kept): (list slots base from) for a run of n steps,
   also kept in the stats when the run is outermost.  'pilot' is #f or,
   from the driver's %cpj-pilot, (list u bytes): the state u a pilot
   reached and the tape bytes it recorded getting there.  'kept': the
   states a first run in chunks kept (vm/cpj/cpjfirst.c), newest first, of
   which 'from' lists those the reversal starts segments from, the
   rightmost first. */
static Value p_plan(VladState *S, Value *args)
{
    Cpj *c = S->cpj;
    const CpjStrategy *st = vl_cpj_run_strategy(S);
    int64_t n = vl_cpj_step_count(S, args[0]);
    CpjPlan plan = {0, st->base, 0, 0, 0, 0};
    int64_t snapshot = 0, per_step = 0, data = 0;
    int64_t kept_bytes = 0, kept_data = 0;
    size_t nkept = kept_count(S, args[2], &kept_bytes, &kept_data);
    int use_kept = 0;
    if (st->budget > 0 && !IS_FALSE(args[1])) {
        Value u = IS_PAIR(args[1]) ? AS_PAIR(args[1])->car : NIL_VAL;
        Value rest = IS_PAIR(args[1]) ? AS_PAIR(args[1])->cdr : NIL_VAL;
        if (!IS_CKPT(u) || !IS_PAIR(rest))
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "checkpoint-*j: expected a pilot, got %s",
                              vl_print_to_string(S, args[1], 60));
        int64_t bytes = vl_cpj_step_count(S, AS_PAIR(rest)->car);
        int64_t m = AS_CKPT(u)->position;
        data = vl_cpj_snapshot_data_bytes(S, u);
        c->stats.pilot_steps += m;
        snapshot = (int64_t)AS_CKPT(u)->bytes + data;
        /* the kept states measure the run beyond the pilot's steps */
        if (kept_bytes > snapshot)
            snapshot = kept_bytes;
        if (kept_data > data)
            data = kept_data;
        use_kept = S->nseg == 0;
        per_step = (bytes + (m > 0 ? m : 1) - 1) / (m > 0 ? m : 1);
        int64_t min_bytes;
        if (!vl_cpj_plan_budget(st, n, snapshot, per_step, &plan,
                                &min_bytes))
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "checkpoint-*j: budget=%lld bytes is below "
                              "this computation's minimum, %lld bytes (one "
                              "snapshot of %lld bytes and a base case of "
                              "%lld steps at %lld tape bytes a step)",
                              (long long)st->budget, (long long)min_bytes,
                              (long long)snapshot,
                              (long long)(st->base > 0 ? st->base : 1),
                              (long long)per_step);
    } else if (st->budget > 0 && S->nseg > 0) {
        /* A run inside another one's segment is re-executed by it, in
           contexts that tape differently (its first run untaped, its base
           cases under a *j, whose nodes the tape bytes would count too):
           its plan must not depend on a measure.  Logarithmic slots of
           base units, 1000 steps unless base=N is given. */
        int64_t base = st->base > 0 ? st->base : DEFAULT_BASE;
        int64_t t = units(base, n), lg = 0;
        while (((int64_t)1 << lg) < t && lg < 62)
            lg++;
        plan = fixed_plan(n, base, lg + 4);
    } else if (st->budget > 0) {
        plan.slots = 1;         /* no pilot: a run of at most one step,
                                   or a short one (p_pilot_steps) */
        plan.base = st->base > 0 ? st->base : n > 0 ? n : 1;
    } else if (st->kind == CPJ_BINOMIAL) {
        plan = fixed_plan(n, st->base, st->slots);
    }
    Value from = choose_kept(S, args[2], nkept, n, &plan, snapshot,
                             per_step, use_kept);
    if (S->nseg == 0) {         /* the outermost run: its plan, its stats */
        VladCpjStats *x = &c->stats;
        x->plan_kind = st->kind == CPJ_BINOMIAL;
        x->plan_kept = 0;
        for (Value l = from; IS_PAIR(l); l = AS_PAIR(l)->cdr)
            x->plan_kept++;
        x->plan_slots = plan.slots;
        x->plan_base = plan.base;
        x->plan_budget = st->budget;
        x->plan_reexec_steps = (int64_t)plan.reexec;
        x->plan_peak_bytes = plan.peak_bytes;
        x->plan_snapshot_bytes = snapshot;
        x->plan_step_bytes = per_step;
        x->last_peak_bytes = 0;
        c->snapshot_data = data;
        /* spill=DIR: the held states in memory are what the budget
           leaves beside the tape of a base case */
        vl_spill_config(S, st->spill, plan.cache * snapshot);
        SpillCounts sc = vl_spill_counts(S);
        c->spill_written_before = sc.bytes_written;
        c->spill_read_before = sc.bytes_read;
        x->plan_spill = st->spill != NULL;
        x->last_spill_bytes_written = x->last_spill_bytes_read = 0;
        c->advanced_before = x->advanced_steps;
        c->open_mark = -1;
        c->outermost_open = 1;
    }
    Value items[4] = {vl_num((double)plan.slots), vl_num((double)plan.base),
                      from, NIL_VAL};
    return vl_object_tuple(items, 4);
}

/* (%cpj-split n slots base): the split point of n > base steps. */
static Value p_split(VladState *S, Value *args)
{
    const CpjStrategy *st = vl_cpj_run_strategy(S);
    int64_t n = vl_cpj_step_count(S, args[0]);
    int64_t base = base_arg(S, args[2]);
    if (st->kind == CPJ_BISECTION)
        return vl_num((double)(n / 2));
    int64_t s = vl_cpj_step_count(S, args[1]);
    return vl_num((double)(vl_cpj_binomial_split(units(base, n), s)
                           * base));
}

/* (%cpj-start f x): the state before (f x), a checkpoint with no frames. */
static Value p_start(VladState *S, Value *args)
{
    /* an outermost run under spill=DIR: the collector runs once the part
       of the budget that is not data has been allocated (vm/core/gc.h), not
       every 4 MiB -- the heap stays close to what is live */
    Cpj *c = S->cpj;
    if (S->nseg == 0 && c->strategy.spill != NULL) {
        /* its file is made now (a directory that will not do is an error
           at once); until the plan, the first run's states all go there
           but the newest */
        vl_spill_config(S, c->strategy.spill, 0);
        if (!c->tight && c->strategy.budget > 0) {
            double share = (double)c->strategy.budget * TIGHT_SHARE;
            vl_gc_tight_enter(share > TIGHT_MIN ? (size_t)share
                                                : TIGHT_MIN);
            c->tight = 1;
        }
    }
    if (!IS_PROC(args[0]))
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected a procedure, got %s",
                          vl_print_to_string(S, args[0], 200));
    Checkpoint *k = vl_gc_alloc(sizeof *k);
    k->callee = args[0];
    k->arg = args[1];
    k->bytes = VL_SEG_CKPT_BYTES;
    return vl_obj(VT_CKPT, k);
}

/* (%checkpoint-input u): the argument of the pending application of u
   -- the driver's last call, which also ends an outermost run's stats. */
static Value p_input(VladState *S, Value *args)
{
    if (!IS_CKPT(args[0]) || AS_CKPT(args[0])->finished)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected a suspended checkpoint, "
                          "got %s", vl_print_to_string(S, args[0], 60));
    Cpj *c = S->cpj;
    if (S->nseg == 0 && c->outermost_open) {
        close_base_case(S);
        c->stats.last_reexec_steps = c->stats.advanced_steps
                                     - c->advanced_before;
        SpillCounts sc = vl_spill_counts(S);
        c->stats.last_spill_bytes_written = sc.bytes_written
                                            - c->spill_written_before;
        c->stats.last_spill_bytes_read = sc.bytes_read
                                         - c->spill_read_before;
        leave_tight(c);
        c->outermost_open = 0;
    }
    vl_contseg_present(S, AS_CKPT(args[0]));
    return AS_CKPT(args[0])->arg;
}

/* (%cpj-position u): the step position of a state made by an advance (it
   may lie beyond the requested one: advances never stop inside a *j). */
static Value p_position(VladState *S, Value *args)
{
    if (!IS_CKPT(args[0]))
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "checkpoint-*j: expected a checkpoint, got %s",
                          vl_print_to_string(S, args[0], 60));
    return vl_num((double)AS_CKPT(args[0])->position);
}

/* (%cpj-hold u m counted): a driver keeps u, reached by advancing m steps;
   'counted': u starts more than a base case, so it occupies a slot.  The
   checkpoint remembers whether it was counted, for %cpj-release. */
static Value p_hold(VladState *S, Value *args)
{
    clear_stale(S, args + 3);           /* what the advance left */
    S->cpj->stats.advanced_steps += vl_cpj_step_count(S, args[1]);
    if (!IS_FALSE(args[2]))
        vl_cpj_count_held(S, args[0]);
    return args[0];
}

void vl_cpj_count_held(VladState *S, Value u)
{
    Cpj *c = S->cpj;
    if (!IS_CKPT(u))
        return;
    Checkpoint *k = AS_CKPT(u);
    k->held = 1;
    c->live++;
    c->live_bytes += (int64_t)k->bytes;
    if (c->live > c->stats.peak_live_checkpoints)
        c->stats.peak_live_checkpoints = c->live;
    if (c->live_bytes > c->stats.peak_checkpoint_bytes)
        c->stats.peak_checkpoint_bytes = c->live_bytes;
    /* spill=DIR: the states of the outermost run only.  A run inside
       another's segment is part of the enclosing run's states, whose
       walks (tapifying a state, zipping it with its cotangent) must meet
       the same objects in every re-execution: a state of the inner run
       brought back from a file is a copy, which would not be shared any
       more with what the inner driver holds beside it. */
    if (c->strategy.spill != NULL && S->nseg == 0) {
        if (!vl_spill_on(S))    /* (vlad_set_checkpoint since the start) */
            vl_spill_config(S, c->strategy.spill, 0);
        vl_spill_held(S, k, (int64_t)k->bytes
                            + (k->data_measured || k->data_bytes > 0
                               ? k->data_bytes : c->snapshot_data));
    }
}

void vl_cpj_count_released(VladState *S, Value u)
{
    Cpj *c = S->cpj;
    if (IS_CKPT(u) && AS_CKPT(u)->held && c->live > 0) {
        c->live--;
        c->live_bytes -= (int64_t)AS_CKPT(u)->bytes;
        if (c->live_bytes < 0)
            c->live_bytes = 0;
    }
    if (IS_CKPT(u)) {
        AS_CKPT(u)->held = 0;   /* released once: counted once */
        vl_spill_released(S, AS_CKPT(u));
    }
}

/* (%cpj-release u k): the driver no longer needs u; returns k. */
static Value p_release(VladState *S, Value *args)
{
    vl_cpj_count_released(S, args[0]);
    /* the driver's recursion has returned from the level that held it */
    clear_stale(S, args + 2);
    return args[1];
}

static const PrimInfo cpj_prims[] = {
    {"%cpj-runner", p_runner, 2, -1},
    {"%cpj-advancer", p_advancer, 3, -1},
    {"%cpj-leaf?", p_leafp, 2, -1},
    {"%cpj-check-cotangent", p_check_cotangent, 2, -1},
    {"%cpj-pilot-steps", p_pilot_steps, 1, -1},
    {"%cpj-tape-bytes", p_tape_bytes, 0, -1},
    {"%cpj-plan", p_plan, 3, -1},
    {"%cpj-split", p_split, 3, -1},
    {"%cpj-start", p_start, 2, -1},
    {"%checkpoint-input", p_input, 1, -1},
    {"%cpj-hold", p_hold, 3, -1},
    {"%cpj-position", p_position, 1, -1},
    {"%cpj-release", p_release, 2, -1},
    {"%cpj-count-leaf", p_count_leaf, 1, -1},
    {"%cpj-activate", p_activate, 1, -1},
};

void vl_cpj_install(VladState *S)
{
    vl_state_install_prims(S, cpj_prims,
                           sizeof cpj_prims / sizeof cpj_prims[0]);
}
