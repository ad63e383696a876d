/*
 * tests/api/apitest.h -- the tiny harness of the API tests
 *
 * The API tests include only <vlad.h> and standard headers (this file is
 * one), so they see libvlad exactly as a host does.  The macros count
 * passes and failures and print each failure with its line:
 *
 *   CHECK(cond)                    a condition
 *   CHECK_INT(a, b)                two integers, both printed on failure
 *   CHECK_NEAR(a, b, tol)          |a - b| <= tol * (1 + |a| + |b|)
 *   CHECK_STR(a, b)                two strings (NULL is not equal to "")
 *   CHECK_PREFIX(s, prefix)        s starts with prefix
 *   CHECK_CONTAINS(s, part)        part occurs in s
 *   CHECK_STATUS(S, expr, status)  expr returns status; on failure prints
 *                                  the state's last error text
 *   CHECK_DONE()                   prints "N passed, N failed" and gives
 *                                  main's exit status (0 or 1)
 *
 * Like tests/unit/check.h (whose summary line it shares), but that one
 * has no integer, string or status checks.
 */
#ifndef VLAD_APITEST_H
#define VLAD_APITEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <vlad.h>

static int check_passed, check_failed;

static void check_report(int ok, const char *file, int line,
                         const char *what)
{
    if (ok) {
        check_passed++;
    } else {
        check_failed++;
        printf("FAIL %s:%d: %s\n", file, line, what);
        fflush(stdout);
    }
}

#define CHECK(cond) check_report((cond) != 0, __FILE__, __LINE__, #cond)

#define CHECK_INT(a, b) \
    do { \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
        if (check_a_ == check_b_) { \
            check_passed++; \
        } else { \
            check_failed++; \
            printf("FAIL %s:%d: %s = %lld, %s = %lld\n", __FILE__, \
                   __LINE__, #a, check_a_, #b, check_b_); \
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

#define CHECK_STR(a, b) \
    do { \
        const char *check_a_ = (a), *check_b_ = (b); \
        if (check_a_ != NULL && check_b_ != NULL \
            && strcmp(check_a_, check_b_) == 0) { \
            check_passed++; \
        } else { \
            check_failed++; \
            printf("FAIL %s:%d: %s = \"%s\", %s = \"%s\"\n", __FILE__, \
                   __LINE__, #a, check_a_ ? check_a_ : "(null)", #b, \
                   check_b_ ? check_b_ : "(null)"); \
        } \
    } while (0)

#define CHECK_PREFIX(s, prefix) \
    do { \
        const char *check_s_ = (s), *check_p_ = (prefix); \
        if (check_s_ != NULL \
            && strncmp(check_s_, check_p_, strlen(check_p_)) == 0) { \
            check_passed++; \
        } else { \
            check_failed++; \
            printf("FAIL %s:%d: %s = \"%s\" does not start with \"%s\"\n", \
                   __FILE__, __LINE__, #s, \
                   check_s_ ? check_s_ : "(null)", check_p_); \
        } \
    } while (0)

#define CHECK_CONTAINS(s, part) \
    do { \
        const char *check_s_ = (s), *check_p_ = (part); \
        if (check_s_ != NULL && strstr(check_s_, check_p_) != NULL) { \
            check_passed++; \
        } else { \
            check_failed++; \
            printf("FAIL %s:%d: %s = \"%s\" does not contain \"%s\"\n", \
                   __FILE__, __LINE__, #s, \
                   check_s_ ? check_s_ : "(null)", check_p_); \
        } \
    } while (0)

#define CHECK_STATUS(S, expr, status) \
    do { \
        VladStatus check_st_ = (expr); \
        if (check_st_ == (status)) { \
            check_passed++; \
        } else { \
            const char *check_t_ = vlad_last_error(S)->text; \
            check_failed++; \
            printf("FAIL %s:%d: %s = %d, expected %s = %d\n  last error: " \
                   "%s\n", __FILE__, __LINE__, #expr, (int)check_st_, \
                   #status, (int)(status), \
                   check_st_ != VLAD_OK && check_t_ ? check_t_ : "-"); \
        } \
    } while (0)

#define CHECK_DONE() \
    (printf("%d passed, %d failed\n", check_passed, check_failed), \
     check_failed ? 1 : 0)

/* Evaluate 'src' and give its value printed (a static buffer), or
   "ERROR <status>: <text>" when it fails: compact expectations. */
static inline const char *apitest_eval(VladState *S, const char *src)
{
    static char buf[4096];
    VladValue v;
    VladStatus st = vlad_eval_string(S, src, "test", &v);
    if (st == VLAD_OK)
        snprintf(buf, sizeof buf, "%s", vlad_to_string(S, v));
    else
        snprintf(buf, sizeof buf, "ERROR %d: %s", (int)st,
                 vlad_last_error(S)->text ? vlad_last_error(S)->text : "");
    return buf;
}

#endif
