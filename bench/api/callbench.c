/*
 * bench/api/callbench.c -- what calling VLAD from C costs (issue 6: the
 * overhead of calling a small VLAD procedure from C, goal <= 200 ns)
 *
 * Built and run by bench/api/run (see bench/README.md, "Embedding API").
 *
 *   callbench [SCALE [REPS]]
 *
 * Each case is timed REPS times inside this process (CLOCK_MONOTONIC for
 * wall time, CLOCK_PROCESS_CPUTIME_ID for CPU time) and printed as one
 * line per repetition:
 *     case=NAME n=CALLS wall_ns=TOTAL cpu_ns=TOTAL check=VALUE
 * SCALE (default 1) multiplies every case's number of calls.  check= is a
 * value computed from the results, compared by the script with its
 * closed form, so that nothing is optimised away or silently wrong.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vlad.h>

static double now_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct Timer {
    double wall, cpu;
} Timer;

static Timer start(void)
{
    Timer t = {now_ns(CLOCK_MONOTONIC), now_ns(CLOCK_PROCESS_CPUTIME_ID)};
    return t;
}

static void report(const char *name, long n, Timer t0, double check)
{
    double wall = now_ns(CLOCK_MONOTONIC) - t0.wall;
    double cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - t0.cpu;
    printf("case=%s n=%ld wall_ns=%.0f cpu_ns=%.0f check=%.17g\n", name, n,
           wall, cpu, check);
    fflush(stdout);
}

static void die(VladState *S, const char *what)
{
    fprintf(stderr, "callbench: %s: %s", what,
            S ? vlad_last_error(S)->text : "vlad_open failed\n");
    exit(1);
}

static VladValue eval(VladState *S, const char *src)
{
    VladValue v;
    if (vlad_eval_string(S, src, "callbench", &v) != VLAD_OK)
        die(S, src);
    return v;
}

static VladStatus host_id(VladState *S, void *ud, const VladValue *a,
                          VladValue *r)
{
    (void)S;
    (void)ud;
    *r = vlad_number(vlad_to_number(a[0]) + 1);
    return VLAD_OK;
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1;
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    if (scale <= 0 || reps < 1) {
        fprintf(stderr, "usage: callbench [SCALE [REPS]]\n");
        return 2;
    }
    VladState *S = vlad_open(NULL);
    if (S == NULL)
        die(NULL, "vlad_open");
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = "host-inc";
    p.arity = 1;
    p.fn = host_id;
    if (vlad_register(S, &p) != VLAD_OK)
        die(S, "vlad_register");

    VladValue inc = eval(S, "(define (inc x) (+ x 1)) inc");
    VladValue ident = eval(S, "(lambda (x) x)");
    VladValue add = eval(S, "(lambda (a b) (+ a b))");
    VladValue sq = eval(S, "(lambda (x) (* x x))");
    VladValue rosen = eval(S, "(lambda ((list x y)) (+ (* (- 1 x) (- 1 x)) "
                              "(* 100 (- y (* x x)) (- y (* x x)))))");
    VladValue sqrt_;
    if (!vlad_get_global(S, "sqrt", &sqrt_))
        die(S, "sqrt");
    eval(S, "(define (drive n acc) (if (= n 0) acc (drive (- n 1) (inc acc))))"
            "(define (drive-host n acc) (if (= n 0) acc "
            "(drive-host (- n 1) (host-inc acc))))"
            "(define (drive-empty n acc) (if (= n 0) acc "
            "(drive-empty (- n 1) (+ acc 1))))");

    long n_call = (long)(1e6 * scale), n_eval = (long)(2e4 * scale);
    long n_ad = (long)(2e5 * scale);
    VladValue r;
    char src[128];
    for (int rep = 0; rep < reps; rep++) {
        /* the headline: vlad_call of (lambda (x) (+ x 1)) */
        Timer t = start();
        double acc = 0;
        for (long i = 0; i < n_call; i++) {
            if (vlad_call(S, inc, vlad_number((double)i), &r) != VLAD_OK)
                die(S, "vlad_call");
            acc += vlad_to_number(r);
        }
        report("call_inc", n_call, t, acc);

        t = start();
        acc = 0;
        for (long i = 0; i < n_call; i++) {
            vlad_call(S, ident, vlad_number((double)i), &r);
            acc += vlad_to_number(r);
        }
        report("call_identity", n_call, t, acc);

        t = start();
        acc = 0;
        for (long i = 0; i < n_call; i++) {
            vlad_call(S, sqrt_, vlad_number((double)i), &r);
            acc += vlad_to_number(r);
        }
        report("call_primitive", n_call, t, acc);

        t = start();
        acc = 0;
        for (long i = 0; i < n_call; i++) {
            vlad_call(S, add, vlad_cons(S, vlad_number((double)i),
                                        vlad_number(1)), &r);
            acc += vlad_to_number(r);
        }
        report("call_pair", n_call, t, acc);

        /* the same procedure called from a VLAD loop: per iteration */
        snprintf(src, sizeof src, "(drive %ld 0)", n_call);
        t = start();
        r = eval(S, src);
        report("vlad_loop_call", n_call, t, vlad_to_number(r));

        snprintf(src, sizeof src, "(drive-empty %ld 0)", n_call);
        t = start();
        r = eval(S, src);
        report("vlad_loop_inline", n_call, t, vlad_to_number(r));

        snprintf(src, sizeof src, "(drive-host %ld 0)", n_call);
        t = start();
        r = eval(S, src);
        report("vlad_loop_host", n_call, t, vlad_to_number(r));

        /* for contrast: reading and compiling each time */
        t = start();
        acc = 0;
        for (long i = 0; i < n_eval; i++) {
            if (vlad_eval_string(S, "(inc 1)", "e", &r) != VLAD_OK)
                die(S, "eval");
            acc += vlad_to_number(r);
        }
        report("eval_string", n_eval, t, acc);

        t = start();
        acc = 0;
        for (long i = 0; i < n_ad; i++) {
            double y, d;
            if (vlad_derivative(S, sq, (double)i, &y, &d) != VLAD_OK)
                die(S, "vlad_derivative");
            acc += d;
        }
        report("derivative", n_ad, t, acc);

        t = start();
        acc = 0;
        for (long i = 0; i < n_ad; i++) {
            double x[2] = {0.5, (double)i * 1e-6}, y, g[2];
            if (vlad_gradient(S, rosen, x, 2, &y, g) != VLAD_OK)
                die(S, "vlad_gradient");
            acc += g[1];
        }
        report("gradient", n_ad, t, acc);
    }
    vlad_close(S);
    return 0;
}
