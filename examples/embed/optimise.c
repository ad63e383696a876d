/*
 * examples/embed/optimise.c -- minimise a function written in VLAD with
 * BFGS written in C, using gradients from reverse mode (*j)
 *
 * The objective is the extended Rosenbrock function, written in VLAD
 * over a list of any length:
 *     f(x) = sum_{i=1}^{n-1} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2
 * whose minimum is f = 0 at x = (1, ..., 1).  vlad_gradient gives f(x)
 * and its whole gradient in one reverse pass, whatever n is; the C side
 * only does linear algebra.  Run for n = 2 (from the classical start
 * (-1.2, 1)) and n = 10.
 *
 * make check builds and runs it; it exits nonzero if a minimum is not
 * found or a gradient disagrees with the closed form.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>

static const char *objective =
    "(define (sq x) (* x x))\n"
    "(define (rosenbrock xs)\n"
    "  (let loop ((l xs) (acc 0))\n"
    "    (if (null? (cdr l))\n"
    "        acc\n"
    "        (let ((a (car l)) (b (cadr l)))\n"
    "          (loop (cdr l)\n"
    "                (+ acc (* 100 (sq (- b (sq a)))) (sq (- 1 a))))))))\n";

#define NMAX 16

/* The closed-form gradient, to check what *j gives. */
static void rosenbrock_gradient(const double *x, int n, double *g)
{
    for (int i = 0; i < n; i++)
        g[i] = 0;
    for (int i = 0; i + 1 < n; i++) {
        double t = x[i + 1] - x[i] * x[i];
        g[i] += -400 * x[i] * t - 2 * (1 - x[i]);
        g[i + 1] += 200 * t;
    }
}

typedef struct Problem {
    VladState *S;
    VladValue f;        /* the VLAD procedure; a C local: safe from the GC */
    int n;
    int evaluations;
} Problem;

/* f(x) and its gradient, from VLAD.  A failure (an error in the VLAD
   code, a step limit) stops the program with the message. */
static double value_and_gradient(Problem *P, const double *x, double *g)
{
    double y;
    P->evaluations++;
    if (vlad_gradient(P->S, P->f, x, (size_t)P->n, &y, g) != VLAD_OK) {
        fputs(vlad_last_error(P->S)->text, stderr);
        exit(1);
    }
    return y;
}

static double dot(const double *a, const double *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* BFGS on the inverse Hessian H, with a backtracking line search
   (Armijo) on f.  Returns the number of iterations. */
static int bfgs(Problem *P, double *x, double *fx, double tol, int maxit)
{
    int n = P->n, it;
    double H[NMAX][NMAX], g[NMAX], gn[NMAX], p[NMAX], xn[NMAX], s[NMAX],
        y[NMAX], Hy[NMAX];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            H[i][j] = i == j;
    *fx = value_and_gradient(P, x, g);
    for (it = 0; it < maxit && sqrt(dot(g, g, n)) > tol; it++) {
        for (int i = 0; i < n; i++) {
            p[i] = 0;
            for (int j = 0; j < n; j++)
                p[i] -= H[i][j] * g[j];
        }
        double slope = dot(g, p, n), t = 1, fn;
        if (slope >= 0) {           /* not a descent direction: restart */
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++)
                    H[i][j] = i == j;
                p[i] = -g[i];
            }
            slope = dot(g, p, n);
        }
        for (;;) {
            for (int i = 0; i < n; i++)
                xn[i] = x[i] + t * p[i];
            fn = value_and_gradient(P, xn, gn);
            if (fn <= *fx + 1e-4 * t * slope || t < 1e-12)
                break;
            t *= 0.5;
        }
        for (int i = 0; i < n; i++) {
            s[i] = xn[i] - x[i];
            y[i] = gn[i] - g[i];
        }
        double sy = dot(s, y, n);
        if (sy > 1e-12) {
            /* H <- (I - rho s y') H (I - rho y s') + rho s s' */
            double rho = 1 / sy;
            for (int i = 0; i < n; i++) {
                Hy[i] = 0;
                for (int j = 0; j < n; j++)
                    Hy[i] += H[i][j] * y[j];
            }
            double yHy = dot(y, Hy, n);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    H[i][j] += -rho * (s[i] * Hy[j] + Hy[i] * s[j])
                               + (rho * rho * yHy + rho) * s[i] * s[j];
        }
        memcpy(x, xn, sizeof(double) * (size_t)n);
        memcpy(g, gn, sizeof(double) * (size_t)n);
        *fx = fn;
    }
    return it;
}

static int solve(VladState *S, VladValue f, int n)
{
    Problem P = {S, f, n, 0};
    double x[NMAX], g[NMAX], gc[NMAX], fx;
    for (int i = 0; i < n; i++)
        x[i] = i % 2 ? 1.0 : -1.2;

    /* The gradient from *j against the closed form, at the start; and
       the directional derivative (forward mode) along the gradient. */
    fx = value_and_gradient(&P, x, g);
    rosenbrock_gradient(x, n, gc);
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (fabs(g[i] - gc[i]) > 1e-12 * (1 + fabs(gc[i])))
            bad = 1;
    double y, dd;
    if (vlad_directional_derivative(S, f, x, g, (size_t)n, &y, &dd)
            != VLAD_OK
        || fabs(dd - dot(g, g, n)) > 1e-10 * dot(g, g, n))
        bad = 1;
    printf("n = %d: f(x0) = %g, |grad| = %g, gradient %s\n", n, fx,
           sqrt(dot(g, g, n)), bad ? "WRONG" : "matches the closed form");

    int it = bfgs(&P, x, &fx, 1e-10, 500);
    double err = 0;
    for (int i = 0; i < n; i++)
        err = fmax(err, fabs(x[i] - 1));
    printf("n = %d: minimum f = %.3g at x = (", n, fx);
    for (int i = 0; i < n; i++)
        printf("%s%.9f", i ? ", " : "", x[i]);
    printf(")\n        after %d BFGS iterations, %d gradient evaluations; "
           "max |x_i - 1| = %.2g\n", it, P.evaluations, err);
    return bad || err > 1e-6 || fx > 1e-12;
}

int main(void)
{
    VladState *S = vlad_open(NULL);
    if (S == NULL)
        return 1;
    VladValue f;
    if (vlad_eval_string(S, objective, "rosenbrock.vlad", NULL) != VLAD_OK
        || !vlad_get_global(S, "rosenbrock", &f)) {
        fputs(vlad_last_error(S)->text, stderr);
        return 1;
    }
    int failed = solve(S, f, 2);
    failed |= solve(S, f, 10);

    VladStats st;
    vlad_get_stats(S, &st);
    printf("reverse-mode tape nodes recorded in all: %llu\n",
           (unsigned long long)st.tape_nodes);
    vlad_close(S);
    printf(failed ? "optimise: FAILED\n" : "optimise: ok\n");
    return failed;
}
