/*
 * tests/api/test-api-host.c -- host primitives (include/vlad.h, "Host
 * primitives"): vlad_register and vlad_host_error
 *
 * Covers: every rejected description (VLAD_ERR_ARGUMENT, the old binding
 * kept); arities 1-3 and the tuple convention; userdata; replacing a
 * registration; errors raised by host functions (vlad_host_error, other
 * statuses, VLAD_ERR_MEMORY) with location and backtrace, also inside j*
 * and checkpoint-*j; re-entry refused while the state runs (every entry
 * point that evaluates); the value functions usable inside a host
 * function; derivatives through host primitives (j*, *j, checkpoint-*j,
 * nested, two arguments) against closed forms, and the error when no
 * derivative was given; effects performed exactly once under
 * checkpoint-*j, with their results replayed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

/* ===== host functions ===== */

static int calls_softplus;

static double sigmoid(double x)
{
    return 1 / (1 + exp(-x));
}

static VladStatus need_real(VladState *S, VladValue v, double *x)
{
    if (!vlad_is_number(v))
        return vlad_host_error(S, "expected a real");
    *x = vlad_to_number(v);
    return VLAD_OK;
}

/* softplus(x) = log(1 + e^x); softplus' = sigmoid; softplus'' =
   sigmoid (1 - sigmoid); softplus''' given too, so third derivatives
   work: s(1-s)(1-2s). */
static VladStatus h_softplus(VladState *S, void *ud, const VladValue *a,
                             VladValue *r)
{
    (void)ud;
    double x = 0;
    VladStatus st = need_real(S, a[0], &x);
    if (st != VLAD_OK)
        return st;
    calls_softplus++;
    *r = vlad_number(x > 30 ? x : log1p(exp(x)));
    return VLAD_OK;
}

static VladStatus h_softplus1(VladState *S, void *ud, const VladValue *a,
                              VladValue *r)
{
    (void)S;
    (void)ud;
    *r = vlad_number(sigmoid(vlad_to_number(a[0])));
    return VLAD_OK;
}

static VladStatus h_softplus2(VladState *S, void *ud, const VladValue *a,
                              VladValue *r)
{
    (void)S;
    (void)ud;
    double s = sigmoid(vlad_to_number(a[0]));
    *r = vlad_number(s * (1 - s));
    return VLAD_OK;
}

static VladStatus h_softplus3(VladState *S, void *ud, const VladValue *a,
                              VladValue *r)
{
    (void)S;
    (void)ud;
    double s = sigmoid(vlad_to_number(a[0]));
    *r = vlad_number(s * (1 - s) * (1 - 2 * s));
    return VLAD_OK;
}

/* hypot(x, y) with first partials only */
static VladStatus h_hypot(VladState *S, void *ud, const VladValue *a,
                          VladValue *r)
{
    (void)S;
    (void)ud;
    *r = vlad_number(hypot(vlad_to_number(a[0]), vlad_to_number(a[1])));
    return VLAD_OK;
}

static VladStatus h_hypot_x(VladState *S, void *ud, const VladValue *a,
                            VladValue *r)
{
    (void)S;
    (void)ud;
    double x = vlad_to_number(a[0]), y = vlad_to_number(a[1]);
    *r = vlad_number(x / hypot(x, y));
    return VLAD_OK;
}

static VladStatus h_hypot_y(VladState *S, void *ud, const VladValue *a,
                            VladValue *r)
{
    (void)S;
    (void)ud;
    double x = vlad_to_number(a[0]), y = vlad_to_number(a[1]);
    *r = vlad_number(y / hypot(x, y));
    return VLAD_OK;
}

/* (lin3 a b c) = a + 10 b + 100 c: arity 3, no derivative */
static VladStatus h_lin3(VladState *S, void *ud, const VladValue *a,
                         VladValue *r)
{
    (void)S;
    (void)ud;
    *r = vlad_number(vlad_to_number(a[0]) + 10 * vlad_to_number(a[1])
                     + 100 * vlad_to_number(a[2]));
    return VLAD_OK;
}

/* (scaled x) = x * *(double *)userdata */
static VladStatus h_scaled(VladState *S, void *ud, const VladValue *a,
                           VladValue *r)
{
    (void)S;
    *r = vlad_number(vlad_to_number(a[0]) * *(const double *)ud);
    return VLAD_OK;
}

/* (echo x) = x, whatever it is; records what it saw */
static char echo_seen[256];
static VladState *echo_state;
static VladStatus h_echo(VladState *S, void *ud, const VladValue *a,
                         VladValue *r)
{
    (void)ud;
    echo_state = S;
    snprintf(echo_seen, sizeof echo_seen, "%s", vlad_to_string(S, a[0]));
    *r = a[0];
    return VLAD_OK;
}

/* (build n) = (list 0 1 ... n-1) plus a pair and a boolean: the value
   functions are usable inside a host function */
static VladStatus h_build(VladState *S, void *ud, const VladValue *a,
                          VladValue *r)
{
    (void)ud;
    double xs[64];
    int n = (int)vlad_to_number(a[0]);
    if (n < 0 || n > 64)
        return vlad_host_error(S, "n out of range");
    for (int k = 0; k < n; k++)
        xs[k] = k;
    VladValue l = vlad_list_of_numbers(S, xs, (size_t)n);
    VladValue g;
    if (!vlad_get_global(S, "host-constant", &g))
        g = vlad_boolean(0);
    *r = vlad_cons(S, l, vlad_cons(S, g, vlad_nil()));
    return VLAD_OK;
}

/* (sumsq l): the sum of the squares of a list's numbers, read with
   vlad_car / vlad_cdr / vlad_to_number (primals only) */
static VladStatus h_sumsq(VladState *S, void *ud, const VladValue *a,
                          VladValue *r)
{
    (void)S;
    (void)ud;
    double s = 0;
    for (VladValue l = a[0]; vlad_is_pair(l); l = vlad_cdr(l)) {
        double x = vlad_to_number(vlad_car(l));
        s += x * x;
    }
    *r = vlad_number(s);
    return VLAD_OK;
}

/* errors */
static VladStatus h_fail(VladState *S, void *ud, const VladValue *a,
                         VladValue *r)
{
    (void)ud;
    (void)r;
    char msg[64];
    snprintf(msg, sizeof msg, "cannot handle %g", vlad_to_number(a[0]));
    return vlad_host_error(S, msg);
}

static VladStatus h_fail_null(VladState *S, void *ud, const VladValue *a,
                              VladValue *r)
{
    (void)ud;
    (void)a;
    (void)r;
    return vlad_host_error(S, NULL);
}

static VladStatus h_fail_status(VladState *S, void *ud, const VladValue *a,
                                VladValue *r)
{
    (void)S;
    (void)r;
    (void)ud;
    return (VladStatus)(int)vlad_to_number(a[0]);
}

/* re-entry: every evaluating entry point is refused while running */
static int reentry_refused, reentry_tried;
static VladStatus h_reenter(VladState *S, void *ud, const VladValue *a,
                            VladValue *r)
{
    (void)ud;
    VladValue v, fn = a[0];
    double x[1] = {1}, g[1], y, d;
    VladStatus sts[8];
    int n = 0;
    sts[n++] = vlad_eval_string(S, "(+ 1 2)", "inner", &v);
    sts[n++] = vlad_eval_file(S, "/dev/null", &v);
    sts[n++] = vlad_call(S, fn, vlad_number(1), &v);
    sts[n++] = vlad_resume(S, vlad_nil(), &v);
    sts[n++] = vlad_derivative(S, fn, 1, &y, &d);
    sts[n++] = vlad_gradient(S, fn, x, 1, &y, g);
    sts[n++] = vlad_directional_derivative(S, fn, x, x, 1, &y, &d);
    for (int k = 0; k < n; k++) {
        reentry_tried++;
        if (sts[k] == VLAD_ERR_ARGUMENT
            && vlad_last_error(S)->status == VLAD_ERR_ARGUMENT)
            reentry_refused++;
    }
    *r = vlad_number(123);
    return VLAD_OK;
}

/* effects */
static int effect_calls;
static uint64_t rng_state;
static double rng_log[100000];
static int rng_n;

static void rng_seed(uint64_t s)
{
    rng_state = s;
    rng_n = 0;
}

static double rng_next(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* (uniform! i) -> a number in [0.5, 1.5): an effect */
static VladStatus h_uniform(VladState *S, void *ud, const VladValue *a,
                            VladValue *r)
{
    (void)S;
    (void)ud;
    (void)a;
    effect_calls++;
    double u = 0.5 + rng_next();
    if (rng_n < 100000)
        rng_log[rng_n++] = u;
    *r = vlad_number(u);
    return VLAD_OK;
}

/* ===== tests ===== */

static VladStatus reg(VladState *S, const char *name, int arity,
                      VladHostFn fn, void *ud, const char *p0,
                      const char *p1, int effect)
{
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.arity = arity;
    p.fn = fn;
    p.userdata = ud;
    p.partial[0] = p0;
    p.partial[1] = p1;
    p.effect = effect;
    return vlad_register(S, &p);
}

static void test_register_errors(VladState *S)
{
    CHECK_STATUS(S, reg(S, "echo", 1, h_echo, NULL, NULL, NULL, 0), VLAD_OK);
    CHECK_STATUS(S, reg(S, "hx", 2, h_hypot_x, NULL, NULL, NULL, 0), VLAD_OK);

    CHECK_STATUS(S, vlad_register(S, NULL), VLAD_ERR_ARGUMENT);
    CHECK_INT(vlad_last_error(S)->status, VLAD_ERR_ARGUMENT);
    CHECK_CONTAINS(vlad_last_error(S)->message, "vlad_register");
    CHECK_PREFIX(vlad_last_error(S)->text, "error: vlad_register");
    CHECK_STATUS(S, reg(S, NULL, 1, h_echo, NULL, NULL, NULL, 0),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, reg(S, "echo", 1, NULL, NULL, NULL, NULL, 0),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, reg(S, "echo", 0, h_echo, NULL, NULL, NULL, 0),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, reg(S, "echo", 4, h_echo, NULL, NULL, NULL, 0),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, reg(S, "echo", -1, h_echo, NULL, NULL, NULL, 0),
                 VLAD_ERR_ARGUMENT);
    /* partials: unknown, not a host primitive, wrong arity, not one per
       argument, three arguments */
    CHECK_STATUS(S, reg(S, "echo", 1, h_echo, NULL, "no-such-prim", NULL, 0),
                 VLAD_ERR_ARGUMENT);
    CHECK_CONTAINS(vlad_last_error(S)->message, "no-such-prim");
    CHECK_STATUS(S, reg(S, "echo", 1, h_echo, NULL, "cos", NULL, 0),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, reg(S, "echo", 1, h_echo, NULL, "hx", NULL, 0),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, reg(S, "echo", 1, h_echo, NULL, "echo", "echo", 0),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, reg(S, "h2", 2, h_hypot, NULL, "hx", NULL, 0),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, reg(S, "h2", 2, h_hypot, NULL, NULL, "hx", 0),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, reg(S, "h2", 2, h_hypot, NULL, "hx", "echo", 0),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, reg(S, "l3", 3, h_lin3, NULL, "hx", "hx", 0),
                 VLAD_ERR_ARGUMENT);
    /* a rejected description binds nothing and keeps the old binding */
    CHECK(!vlad_get_global(S, "h2", NULL));
    CHECK(!vlad_get_global(S, "l3", NULL));
    CHECK_STR(apitest_eval(S, "(echo 5)"), "5");
    /* a partial that is a VLAD procedure of the same name is not a host
       primitive either */
    CHECK_STR(apitest_eval(S, "(define (vd x) x) 0"), "0");
    CHECK_STATUS(S, reg(S, "v2", 1, h_echo, NULL, "vd", NULL, 0),
                 VLAD_ERR_ARGUMENT);
}

static void test_calls(VladState *S)
{
    double factor = 2.5;
    CHECK_STATUS(S, reg(S, "lin3", 3, h_lin3, NULL, NULL, NULL, 0), VLAD_OK);
    CHECK_STATUS(S, reg(S, "scaled", 1, h_scaled, &factor, NULL, NULL, 0),
                 VLAD_OK);
    CHECK_STATUS(S, reg(S, "build", 1, h_build, NULL, NULL, NULL, 0),
                 VLAD_OK);
    CHECK_STATUS(S, reg(S, "hypot2", 2, h_hypot, NULL, NULL, NULL, 0),
                 VLAD_OK);

    CHECK_STR(apitest_eval(S, "(lin3 1 2 3)"), "321");
    CHECK_STR(apitest_eval(S, "(hypot2 3 4)"), "5");
    /* the tuple convention: (hypot2 p) with p a pair */
    CHECK_STR(apitest_eval(S, "(let ((p (cons 6 8))) (hypot2 p))"), "10");
    /* userdata */
    CHECK_STR(apitest_eval(S, "(scaled 4)"), "10");
    factor = -1;
    CHECK_STR(apitest_eval(S, "(scaled 4)"), "-4");
    /* host primitives are first-class procedures */
    CHECK_STR(apitest_eval(S, "(map scaled (list 1 2 3))"), "(-1 -2 -3)");
    CHECK_STR(apitest_eval(S, "scaled"), "#<procedure scaled>");
    VladValue sc, r;
    CHECK(vlad_get_global(S, "scaled", &sc));
    CHECK(vlad_is_procedure(sc));
    CHECK_STATUS(S, vlad_call(S, sc, vlad_number(3), &r), VLAD_OK);
    CHECK_NEAR(vlad_to_number(r), -3, 0);
    /* an arity-1 primitive takes whatever it is given */
    CHECK_STR(apitest_eval(S, "(echo 1 2)"), "(1 . 2)");
    CHECK_STR(echo_seen, "(1 . 2)");
    CHECK(echo_state == S);
    CHECK_STR(apitest_eval(S, "(echo (list #t '()))"), "(#t ())");
    /* values built inside a host function */
    vlad_set_global(S, "host-constant", vlad_number(9));
    CHECK_STR(apitest_eval(S, "(build 4)"), "((0 1 2 3) 9)");
    CHECK_PREFIX(apitest_eval(S, "(build 100)"),
                 "ERROR 3: test:1:1: error: build: n out of range\n");
    /* replacing a registration: later calls use the new function, code
       compiled before included */
    CHECK_STR(apitest_eval(S, "(define (use-lin x) (lin3 x x x)) (use-lin 1)"),
              "111");
    CHECK_STATUS(S, reg(S, "lin3", 3, h_hypot, NULL, NULL, NULL, 0), VLAD_OK);
    CHECK_STR(apitest_eval(S, "(use-lin 1)"), "1.4142135623730951");
    /* a host primitive can replace a prelude name for the program */
    CHECK_STATUS(S, reg(S, "abs", 1, h_echo, NULL, NULL, NULL, 0), VLAD_OK);
    CHECK_STR(apitest_eval(S, "(abs -3)"), "-3");
}

static void test_host_errors(VladState *S)
{
    CHECK_STATUS(S, reg(S, "fail", 1, h_fail, NULL, NULL, NULL, 0), VLAD_OK);
    CHECK_STATUS(S, reg(S, "fail-null", 1, h_fail_null, NULL, NULL, NULL, 0),
                 VLAD_OK);
    CHECK_STATUS(S, reg(S, "fail-status", 1, h_fail_status, NULL, NULL, NULL,
                        0), VLAD_OK);
    VladValue v = vlad_number(1);
    CHECK_STATUS(S, vlad_eval_string(S, "(define (outer x)\n  (+ 1 (fail x)))"
                                        "\n(outer 7)", "he", &v),
                 VLAD_ERR_RUNTIME);
    CHECK(vlad_is_nil(v));
    const VladError *e = vlad_last_error(S);
    CHECK_STR(e->message, "fail: cannot handle 7");
    CHECK_STR(e->file, "he");
    CHECK_INT(e->line, 2);
    CHECK_INT(e->column, 8);
    CHECK_STR(e->backtrace, "  in outer at he:2:8\n"
                            "  in top level at he:3:1\n");
    CHECK_PREFIX(e->text, "he:2:8: error: fail: cannot handle 7\n");

    CHECK_PREFIX(apitest_eval(S, "(fail-null 1)"),
                 "ERROR 3: test:1:1: error: fail-null: failed\n");
    /* a status other than VLAD_OK: RUNTIME ("failed" without a message),
       but VLAD_ERR_MEMORY stays MEMORY */
    CHECK_PREFIX(apitest_eval(S, "(fail-status 8)"),
                 "ERROR 3: test:1:1: error: fail-status: failed\n");
    CHECK_PREFIX(apitest_eval(S, "(fail-status 5)"), "ERROR 3: ");
    CHECK_PREFIX(apitest_eval(S, "(fail-status 4)"), "ERROR 4: ");
    /* a message from an earlier failure does not leak into a later one */
    CHECK_PREFIX(apitest_eval(S, "(fail 1)"), "ERROR 3");
    CHECK_PREFIX(apitest_eval(S, "(fail-status 3)"),
                 "ERROR 3: test:1:1: error: fail-status: failed\n");
    /* a type check in the host function */
    CHECK_PREFIX(apitest_eval(S, "(softplus #t)"),
                 "ERROR 3: test:1:1: error: softplus: expected a real\n");
    /* errors inside AD operators and checkpoint-*j */
    CHECK_PREFIX(apitest_eval(S, "(j* (lambda (x) (fail-status 3)) 1 1)"),
                 "ERROR 3");
    CHECK_PREFIX(apitest_eval(S, "(checkpoint-*j (lambda (x) (+ x (fail 2)))"
                                 " 1 1)"), "ERROR 3: ");
    CHECK_CONTAINS(vlad_last_error(S)->message, "fail: cannot handle 2");
    /* the state goes on */
    CHECK_STR(apitest_eval(S, "(+ 1 1)"), "2");
    /* vlad_host_error outside a host function: returns RUNTIME and does
       nothing else */
    CHECK_INT(vlad_host_error(S, "stray"), VLAD_ERR_RUNTIME);
    CHECK_STR(apitest_eval(S, "(+ 1 2)"), "3");
}

static void test_reentry(VladState *S)
{
    CHECK_STATUS(S, reg(S, "reenter", 1, h_reenter, NULL, NULL, NULL, 0),
                 VLAD_OK);
    reentry_refused = reentry_tried = 0;
    VladValue v;
    CHECK_STATUS(S, vlad_eval_string(S, "(+ 1 (reenter (lambda (x) x)))",
                                     "re", &v), VLAD_OK);
    CHECK_NEAR(vlad_to_number(v), 124, 0);
    CHECK_INT(reentry_tried, 7);
    CHECK_INT(reentry_refused, 7);
    /* the refused inner call's error does not outlive the outer
       evaluation: the record describes the outer call */
    CHECK_INT(vlad_last_error(S)->status, VLAD_OK);
    CHECK_STR(vlad_last_error(S)->message, "");
    CHECK_STR(vlad_last_error(S)->text, "");
    /* refused also when the host primitive runs under vlad_call, inside
       *j and inside checkpoint-*j */
    VladValue re;
    CHECK(vlad_get_global(S, "reenter", &re));
    reentry_refused = reentry_tried = 0;
    CHECK_STATUS(S, vlad_call(S, re, vlad_nil(), &v), VLAD_OK);
    CHECK_STR(apitest_eval(S, "(*j (lambda (x) (+ x (reenter 0))) 1 1)"),
              "(124 1)");
    CHECK_STR(apitest_eval(S, "(checkpoint-*j (lambda (x) (* x (reenter 0)))"
                              " 1 1)"), "(123 123)");
    CHECK(reentry_tried >= 21);
    CHECK_INT(reentry_refused, reentry_tried);
}

/* Iterate y <- y / 2 + softplus(y) / 4 (a contraction), n times: the
   derivative is the product of 1/2 + sigmoid(y_k) / 4. */
static void analytic_loop(double x, int n, double *y, double *dy)
{
    double d = 1;
    for (int k = 0; k < n; k++) {
        d *= 0.5 + sigmoid(x) / 4;
        x = x / 2 + log1p(exp(x)) / 4;
    }
    *y = x;
    *dy = d;
}

static void result2(VladState *S, const char *src, double *a, double *b)
{
    VladValue v;
    *a = *b = NAN;
    CHECK_STATUS(S, vlad_eval_string(S, src, "d", &v), VLAD_OK);
    double xs[2];
    CHECK_INT(vlad_numbers_of_list(v, xs, 2), 2);
    *a = xs[0];
    *b = xs[1];
}

static void test_derivatives(VladState *S)
{
    CHECK_STATUS(S, reg(S, "softplus'''", 1, h_softplus3, NULL, NULL, NULL,
                        0), VLAD_OK);
    CHECK_STATUS(S, reg(S, "softplus''", 1, h_softplus2, NULL, "softplus'''",
                        NULL, 0), VLAD_OK);
    CHECK_STATUS(S, reg(S, "softplus'", 1, h_softplus1, NULL, "softplus''",
                        NULL, 0), VLAD_OK);
    CHECK_STATUS(S, reg(S, "softplus", 1, h_softplus, NULL, "softplus'", NULL,
                        0), VLAD_OK);
    CHECK_STATUS(S, reg(S, "hypot-x", 2, h_hypot_x, NULL, NULL, NULL, 0),
                 VLAD_OK);
    CHECK_STATUS(S, reg(S, "hypot-y", 2, h_hypot_y, NULL, NULL, NULL, 0),
                 VLAD_OK);
    CHECK_STATUS(S, reg(S, "hypot", 2, h_hypot, NULL, "hypot-x", "hypot-y", 0),
                 VLAD_OK);

    double y, d, x = 0.7, s = sigmoid(0.7);
    result2(S, "(j* softplus 0.7 1)", &y, &d);
    CHECK_NEAR(y, log1p(exp(0.7)), 1e-15);
    CHECK_NEAR(d, s, 1e-15);
    result2(S, "(*j softplus 0.7 1)", &y, &d);
    CHECK_NEAR(d, s, 1e-15);
    result2(S, "(checkpoint-*j softplus 0.7 1)", &y, &d);
    CHECK_NEAR(d, s, 1e-15);
    /* tangent and cotangent scale */
    result2(S, "(j* softplus 0.7 3)", &y, &d);
    CHECK_NEAR(d, 3 * s, 1e-15);
    /* inside an expression: d/dx x softplus(x^2) */
    result2(S, "(*j (lambda (x) (* x (softplus (* x x)))) 0.7 1)", &y, &d);
    CHECK_NEAR(d, log1p(exp(x * x)) + 2 * x * x * sigmoid(x * x), 1e-15);
    /* second and third derivatives, in every nesting order */
    const char *second[] = {
        "(j* (lambda (x) (cadr (j* softplus x 1))) 0.7 1)",
        "(*j (lambda (x) (cadr (j* softplus x 1))) 0.7 1)",
        "(j* (lambda (x) (cadr (*j softplus x 1))) 0.7 1)",
        "(*j (lambda (x) (cadr (*j softplus x 1))) 0.7 1)",
        "(checkpoint-*j (lambda (x) (cadr (*j softplus x 1))) 0.7 1)",
    };
    for (size_t k = 0; k < sizeof second / sizeof *second; k++) {
        result2(S, second[k], &y, &d);
        CHECK_NEAR(y, s, 1e-15);
        CHECK_NEAR(d, s * (1 - s), 1e-15);
    }
    result2(S, "(j* (lambda (x) (cadr (j* (lambda (x) (cadr (*j softplus x 1)))"
               " x 1))) 0.7 1)", &y, &d);
    CHECK_NEAR(y, s * (1 - s), 1e-15);
    CHECK_NEAR(d, s * (1 - s) * (1 - 2 * s), 1e-15);
    /* the fourth derivative needs softplus''' to have a partial */
    CHECK_PREFIX(apitest_eval(S, "(j* (lambda (x) (cadr (j* (lambda (x) (cadr "
                                 "(j* (lambda (x) (cadr (j* softplus x 1))) x "
                                 "1))) x 1))) 0.7 1)"), "ERROR 3");
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "softplus''': cannot be differentiated");

    /* two arguments: gradient of hypot, through vlad_gradient too */
    VladValue v;
    CHECK_STATUS(S, vlad_eval_string(S, "(*j hypot (cons 3 4) 1)", "d", &v),
                 VLAD_OK);
    CHECK_STR(vlad_to_string(S, v), "(5 (0.6 . 0.8))");
    VladValue hl;
    CHECK_STATUS(S, vlad_eval_string(S, "(lambda ((list a b)) (hypot a b))",
                                     "d", &hl), VLAD_OK);
    double p[2] = {-5, 12}, g[2];
    CHECK_STATUS(S, vlad_gradient(S, hl, p, 2, &y, g), VLAD_OK);
    CHECK_NEAR(y, 13, 1e-15);
    CHECK_NEAR(g[0], -5.0 / 13, 1e-15);
    CHECK_NEAR(g[1], 12.0 / 13, 1e-15);
    double u[2] = {1, 1};
    CHECK_STATUS(S, vlad_directional_derivative(S, hl, p, u, 2, &y, &d),
                 VLAD_OK);
    CHECK_NEAR(d, 7.0 / 13, 1e-15);
    /* only one argument perturbed */
    result2(S, "(j* (lambda (x) (hypot x 4)) 3 1)", &y, &d);
    CHECK_NEAR(d, 0.6, 1e-15);
    result2(S, "(*j (lambda (y) (hypot 3 y)) 4 1)", &y, &d);
    CHECK_NEAR(d, 0.8, 1e-15);
    /* hypot's partials have no partials: no second derivative */
    CHECK_PREFIX(apitest_eval(S, "(j* (lambda (x) (cadr (j* (lambda (x) "
                                 "(hypot x 4)) x 1))) 3 1)"), "ERROR 3");
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "hypot-x: cannot be differentiated (the host gave no "
                   "derivative)");
    /* a primitive without partials: fine on constants inside j*, an
       error on a real being differentiated */
    CHECK_STR(apitest_eval(S, "(j* (lambda (x) (* x (hypot2 1 1))) 2 1)"),
              "(2.8284271247461903 1.4142135623730951)");
    CHECK_PREFIX(apitest_eval(S, "(*j (lambda (x) (echo x)) 2 1)"),
                 "ERROR 3: test:1:17: error: echo: cannot be differentiated");
    CHECK_PREFIX(apitest_eval(S, "(checkpoint-*j echo 2 1)"), "ERROR 3");

    /* a loop through softplus: *j, checkpoint-*j (with re-executions)
       and the closed form agree; vlad_derivative too */
    CHECK_STR(apitest_eval(S, "(define (g x) (let loop ((i 0) (y x)) "
                              "(if (= i 2000) y (loop (+ i 1) "
                              "(+ (/ y 2) (/ (softplus y) 4)))))) 0"), "0");
    double ay, ad, jy, jd, cy, cd;
    analytic_loop(0.3, 2000, &ay, &ad);
    result2(S, "(*j g 0.3 1)", &jy, &jd);
    CHECK_STATUS(S, vlad_set_checkpoint(S, "binomial,slots=4,base=100"),
                 VLAD_OK);
    VladStats s0, s1;
    vlad_get_stats(S, &s0);
    calls_softplus = 0;
    result2(S, "(checkpoint-*j g 0.3 1)", &cy, &cd);
    vlad_get_stats(S, &s1);
    CHECK(calls_softplus > 2 * 2000);     /* re-executed: pure, so fine */
    CHECK(s1.checkpoint.advanced_steps > s0.checkpoint.advanced_steps);
    CHECK_NEAR(jy, ay, 1e-13);
    CHECK_NEAR(jd, ad, 1e-12);
    CHECK(cy == jy);
    CHECK_NEAR(cd, jd, 1e-12);
    VladValue gv;
    CHECK(vlad_get_global(S, "g", &gv));
    CHECK_STATUS(S, vlad_derivative(S, gv, 0.3, &y, &d), VLAD_OK);
    CHECK_NEAR(d, ad, 1e-12);
    CHECK_STATUS(S, vlad_set_checkpoint(S, NULL), VLAD_OK);
}

static void test_effects(VladState *S)
{
    CHECK_STATUS(S, reg(S, "uniform!", 1, h_uniform, NULL, NULL, NULL, 1),
                 VLAD_OK);
    CHECK_STATUS(S, reg(S, "uniform-pure", 1, h_uniform, NULL, NULL, NULL, 0),
                 VLAD_OK);
    /* outside checkpoint-*j an effect is an ordinary call */
    effect_calls = 0;
    CHECK_STR(apitest_eval(S, "(length (map uniform! (iota 10)))"), "10");
    CHECK_INT(effect_calls, 10);

    /* y <- y * (1 - 0.001 u_i) + 0.001 sin y, u_i = (uniform! i) */
    const char *prog =
        "(define (walk x) (let loop ((i 0) (y x)) (if (= i 3000) y "
        "(loop (+ i 1) (+ (* y (- 1 (* 0.001 (uniform! i)))) "
        "(* 0.001 (sin y)))))))"
        "(define (walk-pure x) (let loop ((i 0) (y x)) (if (= i 3000) y "
        "(loop (+ i 1) (+ (* y (- 1 (* 0.001 (uniform-pure i)))) "
        "(* 0.001 (sin y)))))))";
    CHECK_STR(apitest_eval(S, prog), "()");
    CHECK_STATUS(S, vlad_set_checkpoint(S, "binomial,slots=3,base=200"),
                 VLAD_OK);

    /* closed form from the numbers drawn */
    double jy, jd, cy, cd;
    rng_seed(42);
    effect_calls = 0;
    result2(S, "(*j walk 1.5 1)", &jy, &jd);
    CHECK_INT(effect_calls, 3000);
    double y = 1.5, d = 1;
    for (int k = 0; k < 3000; k++) {
        d *= 1 - 0.001 * rng_log[k] + 0.001 * cos(y);
        y = y * (1 - 0.001 * rng_log[k]) + 0.001 * sin(y);
    }
    CHECK_NEAR(jy, y, 1e-13);
    CHECK_NEAR(jd, d, 1e-12);

    /* checkpoint-*j: each (uniform! i) happens once, in order, and
       re-executions see the same numbers: the result is *j's */
    VladStats s0, s1;
    vlad_get_stats(S, &s0);
    rng_seed(42);
    effect_calls = 0;
    result2(S, "(checkpoint-*j walk 1.5 1)", &cy, &cd);
    vlad_get_stats(S, &s1);
    CHECK(s1.checkpoint.advanced_steps - s0.checkpoint.advanced_steps > 3000);
    CHECK_INT(effect_calls, 3000);
    CHECK(cy == jy);
    CHECK_NEAR(cd, jd, 1e-12);

    /* the same function registered without the flag runs under
       checkpoint-*j too: the loop counter i is a constant of walk-pure
       (not marked active, vm/core/value.h), so the base cases do not
       differentiate it, as *j does not; being pure, it is called again by
       every re-execution (and being a random generator, gives other
       numbers each time: only that it runs is checked here) */
    rng_seed(42);
    effect_calls = 0;
    double py, pd;
    result2(S, "(checkpoint-*j walk-pure 1.5 1)", &py, &pd);
    CHECK(effect_calls > 3000);
    CHECK(py > 0 && pd > 0);
    /* a deterministic primitive without derivative on constants: the
       same result as *j, with re-executions */
    CHECK_STR(apitest_eval(S, "(define (h x) (let loop ((i 0) (y x)) "
                              "(if (= i 500) y (loop (+ i 1) (* y (+ 1 "
                              "(* 1e-4 (hypot2 i 1)))))))) 0"), "0");
    double hy, hd, hcy, hcd;
    result2(S, "(*j h 1.5 1)", &hy, &hd);
    result2(S, "(checkpoint-*j h 1.5 1)", &hcy, &hcd);
    CHECK(hcy == hy);
    CHECK_NEAR(hcd, hd, 1e-12);
    rng_seed(42);
    effect_calls = 0;
    result2(S, "(*j walk-pure 1.5 1)", &cy, &cd);
    CHECK_INT(effect_calls, 3000);
    CHECK(cy == jy);

    /* an effect inside nested checkpoint-*j and inside a j* */
    rng_seed(7);
    effect_calls = 0;
    CHECK_PREFIX(apitest_eval(S, "(checkpoint-*j (lambda (x) (cadr "
                                 "(checkpoint-*j walk x 1))) 1.5 1)"), "(");
    CHECK_INT(effect_calls, 3000);
    rng_seed(7);
    effect_calls = 0;
    CHECK_PREFIX(apitest_eval(S, "(checkpoint-*j (lambda (x) (cadr "
                                 "(j* walk x 1))) 1.5 1)"), "(");
    CHECK_INT(effect_calls, 3000);
    /* an effect given a real being differentiated is an error (no
       derivative) under *j */
    CHECK_PREFIX(apitest_eval(S, "(*j uniform! 1 1)"), "ERROR 3");
    /* ... and under checkpoint-*j: the argument depends on the input */
    CHECK_PREFIX(apitest_eval(S, "(checkpoint-*j uniform! 1 1)"),
                 "ERROR 3");
    CHECK_PREFIX(apitest_eval(S, "(checkpoint-*j (lambda (x) "
                                 "(* x (uniform! x))) 3 1)"), "ERROR 3");
    CHECK_STATUS(S, vlad_set_checkpoint(S, NULL), VLAD_OK);
}

/* W3: a host primitive given a list or pair holding reals being
   differentiated reads their primals only: an error, never a silent zero
   derivative; with constants, or with closures (opaque to the host) it
   works */
static void test_structured_args(VladState *S)
{
    CHECK_STATUS(S, reg(S, "sumsq", 1, h_sumsq, NULL, NULL, NULL, 0),
                 VLAD_OK);
    CHECK_STR(apitest_eval(S, "(sumsq (list 1 2 3))"), "14");
    const char *bad[] = {
        "(gradient sumsq (list 1 2 3))",
        "(j* sumsq (list 1 2 3) (list 1 0 0))",
        "(*j sumsq (list 1 2 3) 1)",
        "(checkpoint-*j sumsq (list 1 2 3) 1)",
        "(j* (lambda (x) (sumsq (cons 1 (cons 2 (list x))))) 3 1)",
        "(j* (lambda (x) (echo (list 1 (cons 2 x)))) 3 1)",
        "(*j (lambda (x) (sumsq (list 1 (* 2 x)))) 3 1)",
        /* a host primitive with partials takes reals only */
        "(j* (lambda (x) (softplus (list x))) 1 1)",
        /* shared structure 200 levels deep: searched once per pair */
        "(j* (lambda (x) (let loop ((n 0) (l (list x))) (if (= n 200) "
        "(sumsq l) (loop (+ n 1) (cons l l))))) 1 1)",
        /* nested derivatives: the inner one's reals in a list */
        "(j* (lambda (y) (cadr (j* (lambda (x) (sumsq (list x y))) 1 1))) "
        "2 1)",
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        CHECK_PREFIX(apitest_eval(S, bad[k]), "ERROR 3");
        CHECK_CONTAINS(vlad_last_error(S)->message,
                       "cannot be differentiated (argument 1 is a list or "
                       "pair holding reals being differentiated");
    }
    /* constants in a list are fine under every operator */
    CHECK_STR(apitest_eval(S, "(j* (lambda (x) (* x (sumsq (list 1 2)))) 2 1)"),
              "(10 5)");
    CHECK_STR(apitest_eval(S, "(*j (lambda (x) (* x (sumsq (list 1 2)))) 2 1)"),
              "(10 5)");
    CHECK_STR(apitest_eval(S, "(checkpoint-*j (lambda (x) (* x (sumsq "
                              "(list 1 2)))) 2 1)"), "(10 5)");
    /* a closure is given back as it is: its derivative is kept */
    CHECK_STR(apitest_eval(S, "(j* (lambda (x) ((echo (lambda (z) (* z x))) "
                              "2)) 3 1)"), "(6 2)");
    /* through the API: an error status, not a zero gradient */
    VladValue f;
    CHECK(vlad_get_global(S, "sumsq", &f));
    double x[3] = {1, 2, 3}, g[3] = {7, 7, 7}, y = 0;
    CHECK_STATUS(S, vlad_gradient(S, f, x, 3, &y, g), VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message, "sumsq: cannot be "
                   "differentiated");
}

int main(void)
{
    VladState *S = vlad_open(NULL);
    if (S == NULL) {
        printf("vlad_open failed\n");
        return 99;
    }
    CHECK_STATUS(S, reg(S, "softplus", 1, h_softplus, NULL, NULL, NULL, 0),
                 VLAD_OK);
    test_register_errors(S);
    test_calls(S);
    test_host_errors(S);
    test_reentry(S);
    test_derivatives(S);
    test_effects(S);
    test_structured_args(S);
    vlad_close(S);

    /* host primitives are per state */
    VladState *A = vlad_open(NULL), *B = vlad_open(NULL);
    double fa = 2, fb = 3;
    CHECK_STATUS(A, reg(A, "scaled", 1, h_scaled, &fa, NULL, NULL, 0),
                 VLAD_OK);
    CHECK_STATUS(B, reg(B, "scaled", 1, h_scaled, &fb, NULL, NULL, 0),
                 VLAD_OK);
    CHECK_STR(apitest_eval(A, "(scaled 1)"), "2");
    CHECK_STR(apitest_eval(B, "(scaled 1)"), "3");
    VladState *C = vlad_open(NULL);
    CHECK_PREFIX(apitest_eval(C, "(scaled 1)"), "ERROR 3");
    vlad_close(A);
    CHECK_STR(apitest_eval(B, "(scaled 2)"), "6");
    vlad_close(B);
    vlad_close(C);
    return CHECK_DONE();
}
