/*
 * tests/api/test-api-locale.c -- numbers print and read with '.' in a host
 * whose locale has a decimal comma (doc/hardening.md W4)
 *
 * Run by tests/api/locale.sh, which compiles de_DE.UTF-8 with localedef
 * and sets LOCPATH and LC_ALL: the host calls setlocale(LC_ALL, "") as a
 * localised program does, and the C library then prints 2.5 as "2,5".
 * Covers: the printer (echoed values, write, write-real, vlad_to_string,
 * values in error messages), the reader's number literals, read-real
 * ("2.5" is 2.5, and "1,5" is refused as in the C locale), the datum
 * printer of syntax errors, doubles that need 17 digits; that libvlad
 * leaves the host's locale as it was, both the global one and a locale
 * the host installed for its thread only (uselocale).  A locale that
 * cannot be set is a failure, never a skip.
 */
#define _POSIX_C_SOURCE 200809L    /* newlocale, uselocale, strdup */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

static char out[4096];
static size_t nout;
static const char *input;

static void wr(void *ud, const char *t, size_t n)
{
    (void)ud;
    if (nout + n < sizeof out) {
        memcpy(out + nout, t, n);
        nout += n;
        out[nout] = '\0';
    }
}

static size_t rd(void *ud, char *buf, size_t cap)
{
    (void)ud;
    size_t n = strlen(input);
    if (n > cap)
        n = cap;
    memcpy(buf, input, n);
    input += n;
    return n;
}

static VladState *open_state(const char *in)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = wr;
    c.read = rd;
    c.echo_results = 1;
    input = in;
    nout = 0;
    out[0] = '\0';
    return vlad_open(&c);
}

/* The C library of this process really uses a decimal comma. */
static int comma_locale(void)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%g", 2.5);
    return strcmp(buf, "2,5") == 0 && strtod("2,5", NULL) == 2.5;
}

/* Evaluate 'src' and compare what it printed with 'expect'. */
static void printed(VladState *S, const char *src, const char *expect)
{
    nout = 0;
    out[0] = '\0';
    CHECK_STATUS(S, vlad_eval_string(S, src, "loc", NULL), VLAD_OK);
    CHECK_STR(out, expect);
}

static void test_print_and_read(void)
{
    VladState *S = open_state("2.5 1e-3 -0.125 .5 1,5\n");
    CHECK(S != NULL);
    printed(S, "(+ 2.25 0.25)", "2.5\n");
    printed(S, "(list 0.5 1.5 -2.75)", "(0.5 1.5 -2.75)\n");
    printed(S, "(define x (write-real 0.1))", "0.1\n");
    printed(S, "(define y (write (list 1.25 (cons 3.5 4))))",
            "(1.25 (3.5 . 4))\n");
    printed(S, "(+ 0.1 0.2)", "0.30000000000000004\n");
    printed(S, "1e-300", "1e-300\n");
    printed(S, "(/ 1 3)", "0.3333333333333333\n");
    CHECK_STR(vlad_to_string(S, vlad_number(2.5)), "2.5");
    CHECK_STR(vlad_to_string(S, vlad_number(-1e-5)), "-1e-05");
    /* read-real */
    printed(S, "(read-real 0)", "2.5\n");
    printed(S, "(read-real 0)", "0.001\n");
    printed(S, "(read-real 0)", "-0.125\n");
    printed(S, "(read-real 0)", "0.5\n");
    nout = 0;
    CHECK_STATUS(S, vlad_eval_string(S, "(read-real 0)", "loc", NULL),
                 VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message, "got '1,5'");
    /* literals of the reader */
    VladValue v;
    CHECK_STATUS(S, vlad_eval_string(S, "(* 2 1.75)", "loc", &v), VLAD_OK);
    CHECK(vlad_is_number(v) && vlad_to_number(v) == 3.5);
    /* numbers in error messages: a value, and a datum of the syntax */
    CHECK_STATUS(S, vlad_eval_string(S, "(car 2.5)", "loc", NULL),
                 VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message, "got 2.5");
    CHECK_STATUS(S, vlad_eval_string(S, "(define 1.5 2)", "loc", NULL),
                 VLAD_ERR_SYNTAX);
    CHECK_CONTAINS(vlad_last_error(S)->message, "got 1.5");
    vlad_close(S);
}

/* A host that set a comma locale for its own thread only: every call
   leaves that locale installed. */
static void test_thread_locale(void)
{
    locale_t de = newlocale(LC_ALL_MASK, "", (locale_t)0);
    CHECK(de != (locale_t)0);
    if (de == (locale_t)0)
        return;
    setlocale(LC_ALL, "C");
    uselocale(de);
    CHECK(comma_locale());
    VladState *S = open_state("0.75\n");
    printed(S, "(list 0.5 (read-real 0))", "(0.5 0.75)\n");
    CHECK_STR(vlad_to_string(S, vlad_number(0.25)), "0.25");
    CHECK(uselocale((locale_t)0) == de);
    CHECK(comma_locale());
    vlad_close(S);
    uselocale(LC_GLOBAL_LOCALE);
    freelocale(de);
    setlocale(LC_ALL, "");
}

int main(void)
{
    const char *set = setlocale(LC_ALL, "");
    /* tests/api/locale.sh provides the locale: without it, fail */
    CHECK(set != NULL && comma_locale());
    if (set == NULL || !comma_locale()) {
        printf("the environment's locale (LC_ALL=%s, LOCPATH=%s) has no "
               "decimal comma\n", getenv("LC_ALL") ? getenv("LC_ALL") : "",
               getenv("LOCPATH") ? getenv("LOCPATH") : "");
        return CHECK_DONE();
    }
    char *before = strdup(setlocale(LC_ALL, NULL));
    test_print_and_read();
    /* the host's global locale is untouched */
    CHECK_STR(setlocale(LC_ALL, NULL), before);
    CHECK(comma_locale());
    test_thread_locale();
    free(before);
    return CHECK_DONE();
}
