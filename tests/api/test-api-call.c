/*
 * tests/api/test-api-call.c -- calling VLAD from C and the derivative
 * conveniences (include/vlad.h, vlad_call and "Derivatives")
 *
 * Covers vlad_call (results, errors, limits), vlad_derivative,
 * vlad_gradient and vlad_directional_derivative against closed forms,
 * each with its error paths: not a procedure, a result that is not a
 * real, an error inside f, the step limit; the conveniences use the
 * built-in j* and *j whatever the program has rebound.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

static VladValue proc(VladState *S, const char *src)
{
    VladValue v = vlad_nil();
    CHECK_STATUS(S, vlad_eval_string(S, src, "proc", &v), VLAD_OK);
    CHECK(vlad_is_procedure(v));
    return v;
}

static void test_call(VladState *S)
{
    VladValue inc = proc(S, "(lambda (x) (+ x 1))"), r;
    CHECK_STATUS(S, vlad_call(S, inc, vlad_number(41), &r), VLAD_OK);
    CHECK_NEAR(vlad_to_number(r), 42, 0);
    CHECK_STATUS(S, vlad_call(S, inc, vlad_number(1), NULL), VLAD_OK);
    double acc = 0;
    for (int k = 0; k < 10000; k++) {
        CHECK_STATUS(S, vlad_call(S, inc, vlad_number(k), &r), VLAD_OK);
        acc += vlad_to_number(r);
    }
    CHECK_NEAR(acc, 10000.0 * 9999 / 2 + 10000, 0);

    /* primitives and prelude procedures are called the same way */
    VladValue sqrt_, length;
    CHECK(vlad_get_global(S, "sqrt", &sqrt_));
    CHECK_STATUS(S, vlad_call(S, sqrt_, vlad_number(2), &r), VLAD_OK);
    CHECK_NEAR(vlad_to_number(r), sqrt(2), 0);
    CHECK(vlad_get_global(S, "length", &length));
    double xs[3] = {1, 2, 3};
    CHECK_STATUS(S, vlad_call(S, length, vlad_list_of_numbers(S, xs, 3), &r),
                 VLAD_OK);
    CHECK_NEAR(vlad_to_number(r), 3, 0);
    /* the AD operators too: (j* f x x') with the tuple (f x x') */
    VladValue jstar, sq = proc(S, "(lambda (x) (* x x))");
    CHECK(vlad_get_global(S, "j*", &jstar));
    CHECK_STATUS(S, vlad_call(S, jstar, vlad_cons(S, sq, vlad_cons(S,
                     vlad_number(3), vlad_number(1))), &r), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r), "(9 6)");
    /* a procedure returning a procedure, called in turn */
    VladValue adder = proc(S, "(lambda (n) (lambda (x) (+ x n)))"), add5;
    CHECK_STATUS(S, vlad_call(S, adder, vlad_number(5), &add5), VLAD_OK);
    CHECK(vlad_is_procedure(add5));
    CHECK_STATUS(S, vlad_call(S, add5, vlad_number(1), &r), VLAD_OK);
    CHECK_NEAR(vlad_to_number(r), 6, 0);

    /* errors: *out is (), the location is in the procedure's code */
    r = vlad_number(1);
    CHECK_STATUS(S, vlad_call(S, inc, vlad_boolean(1), &r), VLAD_ERR_RUNTIME);
    CHECK(vlad_is_nil(r));
    const VladError *e = vlad_last_error(S);
    CHECK_STR(e->file, "proc");
    CHECK_INT(e->line, 1);
    CHECK_CONTAINS(e->message, "expected a real");
    CHECK_CONTAINS(e->backtrace, "anonymous procedure");
    CHECK_STATUS(S, vlad_call(S, vlad_nil(), vlad_number(1), &r),
                 VLAD_ERR_RUNTIME);
    CHECK_STATUS(S, vlad_call(S, vlad_boolean(0), vlad_nil(), NULL),
                 VLAD_ERR_RUNTIME);
    /* arity: a two-parameter procedure given a real */
    VladValue two = proc(S, "(lambda (a b) (+ a b))");
    CHECK_STATUS(S, vlad_call(S, two, vlad_number(1), &r), VLAD_ERR_RUNTIME);

    /* the step limit applies to each call */
    VladValue count = proc(S, "(lambda (n) (length (iota n)))");
    vlad_set_step_limit(S, 200);
    CHECK_STATUS(S, vlad_call(S, count, vlad_number(10), &r), VLAD_OK);
    CHECK_STATUS(S, vlad_call(S, count, vlad_number(10000), &r),
                 VLAD_ERR_LIMIT);
    CHECK_CONTAINS(vlad_last_error(S)->message, "step limit");
    CHECK_STATUS(S, vlad_call(S, count, vlad_number(10), &r), VLAD_OK);
    vlad_set_step_limit(S, -5);        /* negative: no limit */
    CHECK_STATUS(S, vlad_call(S, count, vlad_number(10000), &r), VLAD_OK);
    vlad_set_step_limit(S, 0);
    CHECK_STATUS(S, vlad_call(S, count, vlad_number(10000), &r), VLAD_OK);
    VladStats st;
    vlad_get_stats(S, &st);
    CHECK(st.steps_last > 10000);
}

static void test_derivative(VladState *S)
{
    /* f(x) = x^3 sin x: f' = 3x^2 sin x + x^3 cos x */
    VladValue f = proc(S, "(lambda (x) (* x x x (sin x)))");
    for (double x = -2; x <= 2; x += 0.5) {
        double y = -1, d = -1;
        CHECK_STATUS(S, vlad_derivative(S, f, x, &y, &d), VLAD_OK);
        CHECK_NEAR(y, x * x * x * sin(x), 1e-15);
        CHECK_NEAR(d, 3 * x * x * sin(x) + x * x * x * cos(x), 1e-14);
    }
    double y = 0, d = 0;
    CHECK_STATUS(S, vlad_derivative(S, f, 1, NULL, &d), VLAD_OK);
    CHECK_NEAR(d, 3 * sin(1.0) + cos(1.0), 1e-15);
    CHECK_STATUS(S, vlad_derivative(S, f, 1, &y, NULL), VLAD_OK);
    CHECK_NEAR(y, sin(1.0), 1e-15);
    CHECK_STATUS(S, vlad_derivative(S, f, 1, NULL, NULL), VLAD_OK);

    /* primitives; a function using the prelude; one that uses AD itself
       (d/dx of the derivative of sin is -sin) */
    VladValue exp_;
    CHECK(vlad_get_global(S, "exp", &exp_));
    CHECK_STATUS(S, vlad_derivative(S, exp_, 0.5, &y, &d), VLAD_OK);
    CHECK_NEAR(d, exp(0.5), 1e-15);
    VladValue poly = proc(S, "(lambda (x) (fold-left + 0 (map (lambda (k) "
                             "(expt x k)) (list 1 2 3))))");
    CHECK_STATUS(S, vlad_derivative(S, poly, 2, &y, &d), VLAD_OK);
    CHECK_NEAR(y, 14, 1e-15);
    CHECK_NEAR(d, 1 + 4 + 12, 1e-14);
    VladValue dsin = proc(S, "(lambda (x) (cadr (*j sin x 1)))");
    CHECK_STATUS(S, vlad_derivative(S, dsin, 0.3, &y, &d), VLAD_OK);
    CHECK_NEAR(y, cos(0.3), 1e-15);
    CHECK_NEAR(d, -sin(0.3), 1e-15);
    /* a constant function: derivative 0 */
    VladValue k = proc(S, "(lambda (x) 7)");
    CHECK_STATUS(S, vlad_derivative(S, k, 3, &y, &d), VLAD_OK);
    CHECK_NEAR(y, 7, 0);
    CHECK_NEAR(d, 0, 0);

    /* errors */
    CHECK_STATUS(S, vlad_derivative(S, vlad_number(1), 0, &y, &d),
                 VLAD_ERR_RUNTIME);
    VladValue pair = proc(S, "(lambda (x) (list x x))");
    CHECK_STATUS(S, vlad_derivative(S, pair, 0, &y, &d), VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message, "must return a real");
    VladValue boolean = proc(S, "(lambda (x) (< x 1))");
    CHECK_STATUS(S, vlad_derivative(S, boolean, 0, &y, &d), VLAD_ERR_RUNTIME);
    VladValue bad = proc(S, "(lambda (x) (car x))");
    CHECK_STATUS(S, vlad_derivative(S, bad, 0, &y, &d), VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message, "car");
    VladValue loop = proc(S, "(lambda (x) (let l ((i 0)) (if (= i 1000000) x "
                             "(l (+ i 1)))))");
    vlad_set_step_limit(S, 1000);
    CHECK_STATUS(S, vlad_derivative(S, loop, 0, &y, &d), VLAD_ERR_LIMIT);
    vlad_set_step_limit(S, 0);
}

/* Rosenbrock and an n-dimensional weighted quadratic with closed-form
   gradients. */
static void test_gradient(VladState *S)
{
    VladValue rosen = proc(S, "(lambda ((list x y)) (+ (* (- 1 x) (- 1 x)) "
                              "(* 100 (- y (* x x)) (- y (* x x)))))");
    double pts[4][2] = {{-1.2, 1}, {0, 0}, {1, 1}, {0.5, -0.25}};
    for (int k = 0; k < 4; k++) {
        double x = pts[k][0], y = pts[k][1], v = -1, g[2] = {-1, -1};
        CHECK_STATUS(S, vlad_gradient(S, rosen, pts[k], 2, &v, g), VLAD_OK);
        CHECK_NEAR(v, (1 - x) * (1 - x) + 100 * (y - x * x) * (y - x * x),
                   1e-15);
        CHECK_NEAR(g[0], -2 * (1 - x) - 400 * x * (y - x * x), 1e-14);
        CHECK_NEAR(g[1], 200 * (y - x * x), 1e-14);
    }

    /* f(x) = sum_i (i+1) x_i^2 / 2 + sin(x_0 x_{n-1}), n = 100 */
    enum { N = 100 };
    VladValue quad = proc(S,
        "(lambda (xs) (let loop ((l xs) (i 1) (acc 0)) (if (null? l) "
        "(+ acc (sin (* (car xs) (car (reverse xs))))) "
        "(loop (cdr l) (+ i 1) (+ acc (* 0.5 i (car l) (car l)))))))");
    double x[N], g[N], v;
    for (int i = 0; i < N; i++)
        x[i] = sin(i + 1.0);
    CHECK_STATUS(S, vlad_gradient(S, quad, x, N, &v, g), VLAD_OK);
    double expect = sin(x[0] * x[N - 1]);
    for (int i = 0; i < N; i++)
        expect += 0.5 * (i + 1) * x[i] * x[i];
    CHECK_NEAR(v, expect, 1e-14);
    for (int i = 0; i < N; i++) {
        double gi = (i + 1) * x[i];
        if (i == 0)
            gi += x[N - 1] * cos(x[0] * x[N - 1]);
        if (i == N - 1)
            gi += x[0] * cos(x[0] * x[N - 1]);
        CHECK_NEAR(g[i], gi, 1e-14);
    }
    /* NULL outputs */
    CHECK_STATUS(S, vlad_gradient(S, quad, x, N, NULL, g), VLAD_OK);
    CHECK_STATUS(S, vlad_gradient(S, quad, x, N, &v, NULL), VLAD_OK);
    CHECK_NEAR(v, expect, 1e-14);
    /* inputs f does not use get 0 */
    VladValue first = proc(S, "(lambda (l) (* 3 (car l)))");
    double g3[3] = {-1, -1, -1}, x3[3] = {1, 2, 3};
    CHECK_STATUS(S, vlad_gradient(S, first, x3, 3, &v, g3), VLAD_OK);
    CHECK_NEAR(g3[0], 3, 0);
    CHECK_NEAR(g3[1], 0, 0);
    CHECK_NEAR(g3[2], 0, 0);
    /* n = 0: f of the empty list */
    VladValue konst = proc(S, "(lambda (l) (if (null? l) 4 5))");
    CHECK_STATUS(S, vlad_gradient(S, konst, NULL, 0, &v, NULL), VLAD_OK);
    CHECK_NEAR(v, 4, 0);

    /* errors */
    CHECK_STATUS(S, vlad_gradient(S, vlad_boolean(1), x3, 3, &v, g3),
                 VLAD_ERR_RUNTIME);
    VladValue ident = proc(S, "(lambda (l) l)");
    CHECK_STATUS(S, vlad_gradient(S, ident, x3, 3, &v, g3), VLAD_ERR_RUNTIME);
    VladValue b = proc(S, "(lambda (l) #t)");
    CHECK_STATUS(S, vlad_gradient(S, b, x3, 3, &v, g3), VLAD_ERR_RUNTIME);
    CHECK_STATUS(S, vlad_gradient(S, rosen, x3, 3, &v, g3), VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message, "pattern");
    CHECK_STATUS(S, vlad_gradient(S, first, x3, 0, &v, g3), VLAD_ERR_RUNTIME);
    vlad_set_step_limit(S, 10);
    CHECK_STATUS(S, vlad_gradient(S, quad, x, N, &v, g), VLAD_ERR_LIMIT);
    vlad_set_step_limit(S, 0);
}

static void test_directional(VladState *S)
{
    VladValue rosen = proc(S, "(lambda ((list x y)) (+ (* (- 1 x) (- 1 x)) "
                              "(* 100 (- y (* x x)) (- y (* x x)))))");
    double x[2] = {-1.2, 1}, dirs[3][2] = {{1, 0}, {0, 1}, {0.6, -0.8}};
    double g[2], v, d, y;
    CHECK_STATUS(S, vlad_gradient(S, rosen, x, 2, &v, g), VLAD_OK);
    for (int k = 0; k < 3; k++) {
        CHECK_STATUS(S, vlad_directional_derivative(S, rosen, x, dirs[k], 2,
                                                    &y, &d), VLAD_OK);
        CHECK_NEAR(y, v, 0);
        CHECK_NEAR(d, g[0] * dirs[k][0] + g[1] * dirs[k][1], 1e-14);
    }
    /* closed form for f(x, y) = x e^y: along (a, b), e^y (a + x b) */
    VladValue h = proc(S, "(lambda ((list x y)) (* x (exp y)))");
    double p[2] = {2, 0.5}, u[2] = {0.3, -1.5};
    CHECK_STATUS(S, vlad_directional_derivative(S, h, p, u, 2, &y, &d),
                 VLAD_OK);
    CHECK_NEAR(y, 2 * exp(0.5), 1e-15);
    CHECK_NEAR(d, exp(0.5) * (0.3 + 2 * -1.5), 1e-15);
    CHECK_STATUS(S, vlad_directional_derivative(S, h, p, u, 2, NULL, &d),
                 VLAD_OK);
    CHECK_STATUS(S, vlad_directional_derivative(S, h, p, u, 2, &y, NULL),
                 VLAD_OK);
    CHECK_NEAR(y, 2 * exp(0.5), 1e-15);

    /* errors */
    CHECK_STATUS(S, vlad_directional_derivative(S, vlad_nil(), p, u, 2, &y,
                                                &d), VLAD_ERR_RUNTIME);
    VladValue ident = proc(S, "(lambda (l) l)");
    CHECK_STATUS(S, vlad_directional_derivative(S, ident, p, u, 2, &y, &d),
                 VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message, "must return a real");
    CHECK_STATUS(S, vlad_directional_derivative(S, h, p, u, 1, &y, &d),
                 VLAD_ERR_RUNTIME);
}

/* The conveniences apply the built-in operators: a program that rebinds
   j*, *j, car or * does not change them. */
static void test_rebound(VladState *S)
{
    CHECK_STR(apitest_eval(S, "(define (j* f x t) (list 0 0)) "
                              "(define (*j f x t) (list 0 0)) 1"), "1");
    VladValue sq = proc(S, "(lambda (x) (* x x))");
    double y, d, g[1], x[1] = {3};
    CHECK_STATUS(S, vlad_derivative(S, sq, 3, &y, &d), VLAD_OK);
    CHECK_NEAR(d, 6, 0);
    VladValue sql = proc(S, "(lambda ((list x)) (* x x))");
    CHECK_STATUS(S, vlad_gradient(S, sql, x, 1, &y, g), VLAD_OK);
    CHECK_NEAR(g[0], 6, 0);
    double u[1] = {2};
    CHECK_STATUS(S, vlad_directional_derivative(S, sql, x, u, 1, &y, &d),
                 VLAD_OK);
    CHECK_NEAR(d, 12, 0);
}

int main(void)
{
    VladState *S = vlad_open(NULL);
    if (S == NULL) {
        printf("vlad_open failed\n");
        return 99;
    }
    test_call(S);
    test_derivative(S);
    test_gradient(S);
    test_directional(S);
    test_rebound(S);
    vlad_close(S);
    return CHECK_DONE();
}
