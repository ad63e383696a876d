/*
 * tests/unit/check.h -- a tiny harness for the C unit tests
 *
 * CHECK(cond) and CHECK_NEAR(a, b, tol) count passes and failures and
 * print each failure with its line; CHECK_DONE() prints the summary line
 * "N passed, N failed" and returns the exit status from main.
 */
#ifndef VL_CHECK_H
#define VL_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond) \
    do { \
        if (cond) { \
            check_passed++; \
        } else { \
            check_failed++; \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
        } \
    } while (0)

#define CHECK_NEAR(a, b, tol) \
    do { \
        double check_a_ = (a), check_b_ = (b); \
        if (fabs(check_a_ - check_b_) \
            <= (tol) * (1 + fabs(check_a_) + fabs(check_b_))) { \
            check_passed++; \
        } else { \
            check_failed++; \
            printf("FAIL %s:%d: %s = %.17g, %s = %.17g\n", __FILE__, \
                   __LINE__, #a, check_a_, #b, check_b_); \
        } \
    } while (0)

#define CHECK_DONE() \
    (printf("%d passed, %d failed\n", check_passed, check_failed), \
     check_failed ? 1 : 0)

#endif
