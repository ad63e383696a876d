/*
 * examples/embed/hostprim.c -- C functions as VLAD primitives, with their
 * derivatives, differentiated by checkpoint-*j; and an effect that
 * happens exactly once
 *
 * softplus(x) = log(1 + e^x) is written in C, with its first and second
 * derivatives (sigmoid and sigmoid (1 - sigmoid)), each registered as a
 * host primitive naming the next as its partial derivative.  j*, *j and
 * checkpoint-*j then differentiate VLAD code that calls softplus, to
 * second order.
 *
 * noise! is an effect: a pseudo-random number generator in C.
 * checkpoint-*j re-executes parts of the program to save memory; it calls
 * an effect only the first time and replays the recorded results in
 * re-executions, so every number is drawn once and the re-executions
 * see the same numbers.
 *
 * The model, a loop of 5000 steps in VLAD:
 *     y_0 = x,  y_{k+1} = y_k + 0.0002 u_k softplus(1 - y_k),
 *     u_k = (noise! k), uniform in [0.5, 1.5)
 * whose derivative dy_N/dx = prod_k (1 - 0.0002 u_k sigmoid(1 - y_k)) is
 * computed in C from the numbers drawn, and compared with *j and
 * checkpoint-*j.
 *
 * make check builds and runs it; it exits nonzero on a mismatch.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <vlad.h>

#define STEPS 5000

/* ===== softplus and its derivatives ===== */

static long softplus_calls;

static double sigmoid(double x)
{
    return 1 / (1 + exp(-x));
}

/* A host function receives its arguments as values; it checks their
   types itself and reports a bad one with vlad_host_error. */
static VladStatus softplus(VladState *S, void *userdata,
                           const VladValue *args, VladValue *result)
{
    (void)userdata;
    if (!vlad_is_number(args[0]))
        return vlad_host_error(S, "expected a real");
    double x = vlad_to_number(args[0]);
    softplus_calls++;
    *result = vlad_number(x > 35 ? x : log1p(exp(x)));
    return VLAD_OK;
}

static VladStatus softplus_d1(VladState *S, void *userdata,
                              const VladValue *args, VladValue *result)
{
    (void)S;
    (void)userdata;
    *result = vlad_number(sigmoid(vlad_to_number(args[0])));
    return VLAD_OK;
}

static VladStatus softplus_d2(VladState *S, void *userdata,
                              const VladValue *args, VladValue *result)
{
    (void)S;
    (void)userdata;
    double s = sigmoid(vlad_to_number(args[0]));
    *result = vlad_number(s * (1 - s));
    return VLAD_OK;
}

/* ===== noise!: an effect ===== */

typedef struct Rng {
    uint64_t state;
    long calls;
    double drawn[STEPS];    /* the numbers, in the order drawn */
} Rng;

static void rng_seed(Rng *r, uint64_t seed)
{
    r->state = seed;
    r->calls = 0;
}

static VladStatus noise(VladState *S, void *userdata, const VladValue *args,
                        VladValue *result)
{
    (void)S;
    (void)args;
    Rng *r = userdata;
    r->state = r->state * 6364136223846793005ull + 1442695040888963407ull;
    double u = 0.5 + (double)(r->state >> 11) / 9007199254740992.0;
    if (r->calls < STEPS)
        r->drawn[r->calls] = u;
    r->calls++;
    *result = vlad_number(u);
    return VLAD_OK;
}

/* ===== progress of checkpoint-*j's reverse sweep ===== */

static long progress_calls;
static int64_t progress_done, progress_total;

static void on_progress(void *userdata, int64_t done, int64_t total)
{
    (void)userdata;
    progress_calls++;
    progress_done = done;
    progress_total = total;
}

/* ===== helpers ===== */

/* Evaluate 'src', whose value is (list a b): a and b. */
static int eval2(VladState *S, const char *src, double *a, double *b)
{
    VladValue v;
    double xs[2];
    if (vlad_eval_string(S, src, "hostprim", &v) != VLAD_OK) {
        fputs(vlad_last_error(S)->text, stderr);
        return 0;
    }
    if (vlad_numbers_of_list(v, xs, 2) != 2)
        return 0;
    *a = xs[0];
    *b = xs[1];
    return 1;
}

static int failures;

static void compare(const char *what, double got, double want, double tol)
{
    int ok = fabs(got - want) <= tol * (1 + fabs(want));
    printf("  %-38s %.17g %s\n", what, got, ok ? "" : "MISMATCH");
    if (!ok) {
        printf("  %-38s %.17g\n", "  expected", want);
        failures++;
    }
}

static VladStatus reg(VladState *S, const char *name, VladHostFn fn,
                      void *userdata, const char *partial, int effect)
{
    VladHostPrim p;
    memset(&p, 0, sizeof p);    /* no partials unless given */
    p.name = name;
    p.arity = 1;
    p.fn = fn;
    p.userdata = userdata;
    p.partial[0] = partial;
    p.effect = effect;
    VladStatus st = vlad_register(S, &p);
    if (st != VLAD_OK)
        fputs(vlad_last_error(S)->text, stderr);
    return st;
}

int main(void)
{
    static Rng rng;
    VladConfig config;
    vlad_config_init(&config);
    config.progress = on_progress;
    VladState *S = vlad_open(&config);
    if (S == NULL)
        return 1;

    /* Register the derivatives first: a partial must name a host
       primitive registered before. */
    if (reg(S, "softplus''", softplus_d2, NULL, NULL, 0) != VLAD_OK
        || reg(S, "softplus'", softplus_d1, NULL, "softplus''", 0) != VLAD_OK
        || reg(S, "softplus", softplus, NULL, "softplus'", 0) != VLAD_OK
        || reg(S, "noise!", noise, &rng, NULL, 1) != VLAD_OK)
        return 1;

    /* 1. softplus alone, to first and second order. */
    double x = 0.7, s = sigmoid(x), y, d;
    printf("softplus at %g:\n", x);
    if (!eval2(S, "(j* softplus 0.7 1)", &y, &d))
        return 1;
    compare("softplus (C)", y, log1p(exp(x)), 1e-15);
    compare("d/dx by j*", d, s, 1e-15);
    if (!eval2(S, "(*j softplus 0.7 1)", &y, &d))
        return 1;
    compare("d/dx by *j", d, s, 1e-15);
    if (!eval2(S, "(j* (lambda (x) (cadr (*j softplus x 1))) 0.7 1)", &y, &d))
        return 1;
    compare("d2/dx2 by j* of *j", d, s * (1 - s), 1e-15);

    /* 2. The model: a VLAD loop through softplus and noise!. */
    char model[512];
    snprintf(model, sizeof model,
             "(define (model x)\n"
             "  (let loop ((k 0) (y x))\n"
             "    (if (= k %d)\n"
             "        y\n"
             "        (loop (+ k 1)\n"
             "              (+ y (* 0.0002 (noise! k) (softplus (- 1 y))))))))\n",
             STEPS);
    if (vlad_eval_string(S, model, "model.vlad", NULL) != VLAD_OK) {
        fputs(vlad_last_error(S)->text, stderr);
        return 1;
    }

    /* *j: one pass, a tape as long as the run. */
    double jy, jd;
    rng_seed(&rng, 2024);
    softplus_calls = 0;
    if (!eval2(S, "(*j model 0.3 1)", &jy, &jd))
        return 1;
    printf("model at 0.3, %d steps:\n", STEPS);
    printf("  *j:             noise! called %ld times, softplus %ld times\n",
           rng.calls, softplus_calls);

    /* The closed form, from the numbers *j drew. */
    double ay = 0.3, ad = 1;
    for (int k = 0; k < STEPS; k++) {
        ad *= 1 - 0.0002 * rng.drawn[k] * sigmoid(1 - ay);
        ay = ay + 0.0002 * rng.drawn[k] * log1p(exp(1 - ay));
    }
    long jstar_noise = rng.calls;

    /* checkpoint-*j with a small base case, so that it re-executes. */
    vlad_set_checkpoint(S, "binomial,slots=6,base=500");
    VladStats before, after;
    vlad_get_stats(S, &before);
    double cy, cd;
    rng_seed(&rng, 2024);
    softplus_calls = 0;
    if (!eval2(S, "(checkpoint-*j model 0.3 1)", &cy, &cd))
        return 1;
    vlad_get_stats(S, &after);
    printf("  checkpoint-*j:  noise! called %ld times, softplus %ld times "
           "(re-executions)\n", rng.calls, softplus_calls);
    printf("  checkpoint-*j:  %lld primal steps, %lld re-executed, "
           "%lld base cases, at most %lld checkpoints held\n",
           (long long)(after.checkpoint.primal_steps
                       - before.checkpoint.primal_steps),
           (long long)(after.checkpoint.advanced_steps
                       - before.checkpoint.advanced_steps),
           (long long)(after.checkpoint.base_cases
                       - before.checkpoint.base_cases),
           (long long)after.checkpoint.peak_live_checkpoints);
    printf("  progress callback: %ld calls, last %lld of %lld steps\n",
           progress_calls, (long long)progress_done,
           (long long)progress_total);

    printf("  %-38s %.17g\n", "y (closed form)", ay);
    compare("y by *j", jy, ay, 1e-13);
    compare("y by checkpoint-*j", cy, jy, 0);
    printf("  %-38s %.17g\n", "dy/dx (closed form)", ad);
    compare("dy/dx by *j", jd, ad, 1e-12);
    compare("dy/dx by checkpoint-*j", cd, jd, 1e-12);

    /* The effect happened once per step, as under *j. */
    if (rng.calls != STEPS || jstar_noise != STEPS) {
        printf("  noise! should be called %d times\n", STEPS);
        failures++;
    }
    if (softplus_calls <= STEPS) {
        printf("  checkpoint-*j did not re-execute anything\n");
        failures++;
    }
    if (progress_calls == 0 || progress_done != progress_total) {
        printf("  the progress callback did not reach the end\n");
        failures++;
    }

    /* 3. A host function reports an error like a built-in one. */
    VladStatus st = vlad_eval_string(S, "(softplus #t)", "hostprim", NULL);
    printf("(softplus #t): status %d: %s", st, vlad_last_error(S)->text);
    if (st != VLAD_ERR_RUNTIME)
        failures++;

    vlad_close(S);
    printf(failures ? "hostprim: FAILED\n" : "hostprim: ok\n");
    return failures ? 1 : 0;
}
