/*
 * tests/api/test-api-lookup.c -- looking globals up does not grow the
 * state (issue 19: R1)
 *
 * Covers: vlad_get_global of 200,000 distinct unbound names leaves the
 * live heap as it was (it made a symbol and a cell per name: about 27 MB
 * for these) and binds nothing; the answers stay right: prelude names,
 * primitives, user definitions and redefinitions, names bound later by
 * vlad_set_global or a definition, names only mentioned in code (a
 * symbol without a binding); the same from a host primitive while the
 * state runs, and from a host thread; odd names (empty, very long, '%').
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

#define PROBES 200000

static size_t live_bytes(VladState *S)
{
    VladStats st;
    vlad_collect(S);
    vlad_get_stats(S, &st);
    return st.heap_used_bytes;
}

static int user_names;

static void count(void *ud, const char *name, int user)
{
    (void)ud;
    (void)name;
    user_names += user;
}

static int probe_unbound(VladState *S, const char *prefix, long n)
{
    char name[64];
    int found = 0;
    for (long i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s-%ld", prefix, i);
        VladValue v = vlad_number(7);
        found += vlad_get_global(S, name, &v);
        found += !vlad_is_number(v) || vlad_to_number(v) != 7;
    }
    return found;
}

static void test_no_growth(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    CHECK_INT(probe_unbound(S, "warm-up", 1000), 0);
    size_t before = live_bytes(S);
    CHECK_INT(probe_unbound(S, "no-such-name", PROBES), 0);
    size_t after = live_bytes(S);
    /* before the fix: about 135 bytes per name, 27 MB */
    CHECK(after < before + ((size_t)1 << 20));
    user_names = 0;
    vlad_globals(S, count, NULL);
    CHECK_INT(user_names, 0);
    /* probing again finds nothing either */
    CHECK_INT(probe_unbound(S, "no-such-name", 1000), 0);
    vlad_close(S);
}

static void test_answers(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    VladValue v, w;
    /* primitives and prelude procedures */
    CHECK(vlad_get_global(S, "car", &v) && vlad_is_procedure(v));
    CHECK(vlad_get_global(S, "map", &v) && vlad_is_procedure(v));
    CHECK(vlad_get_global(S, "j*", &v) && vlad_is_procedure(v));
    /* unbound, then bound by vlad_set_global, by a definition */
    CHECK(!vlad_get_global(S, "later", &v));
    CHECK_STATUS(S, vlad_set_global(S, "later", vlad_number(4)), VLAD_OK);
    CHECK(vlad_get_global(S, "later", &v) && vlad_to_number(v) == 4);
    CHECK(!vlad_get_global(S, "defined-later", &v));
    CHECK_STR(apitest_eval(S, "(define defined-later 5) 0"), "0");
    CHECK(vlad_get_global(S, "defined-later", &v) && vlad_to_number(v) == 5);
    /* a name the program mentions without binding it (a symbol without
       a cell), and a local variable's name */
    CHECK_PREFIX(apitest_eval(S, "(define (f) mentioned-only) (f)"),
                 "ERROR 3");
    CHECK(!vlad_get_global(S, "mentioned-only", &v));
    CHECK_STR(apitest_eval(S, "(let ((local-name 3)) local-name)"), "3");
    CHECK(!vlad_get_global(S, "local-name", &v));
    /* a user redefinition of a prelude name shadows it */
    CHECK(vlad_get_global(S, "length", &w));
    CHECK_STR(apitest_eval(S, "(define (length l) 42) 0"), "0");
    CHECK(vlad_get_global(S, "length", &v) && vlad_is_procedure(v));
    CHECK_STATUS(S, vlad_call(S, v, vlad_nil(), &v), VLAD_OK);
    CHECK(vlad_to_number(v) == 42);
    /* odd names */
    CHECK(!vlad_get_global(S, "", &v));
    char *longname = malloc(100001);
    memset(longname, 'q', 100000);
    longname[100000] = '\0';
    CHECK(!vlad_get_global(S, longname, &v));
    CHECK_STATUS(S, vlad_set_global(S, longname, vlad_number(1)), VLAD_OK);
    CHECK(vlad_get_global(S, longname, &v) && vlad_to_number(v) == 1);
    free(longname);
    CHECK(!vlad_get_global(S, "%no-such-internal", &v));
    vlad_close(S);
}

/* From a host primitive while the state runs: lookups are allowed. */
static int inside_ok;

static VladStatus h_lookup(VladState *S, void *ud, const VladValue *a,
                           VladValue *r)
{
    (void)ud;
    VladValue v;
    inside_ok = probe_unbound(S, "inside", 10000) == 0
                && vlad_get_global(S, "counter", &v)
                && vlad_to_number(v) == 1;
    *r = a[0];
    return VLAD_OK;
}

static void test_inside_host(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = "lookup";
    p.arity = 1;
    p.fn = h_lookup;
    CHECK_STATUS(S, vlad_register(S, &p), VLAD_OK);
    size_t before = live_bytes(S);
    CHECK_STR(apitest_eval(S, "(define counter 1) (lookup 2)"), "2");
    CHECK(inside_ok);
    CHECK(live_bytes(S) < before + ((size_t)1 << 20));
    vlad_close(S);
}

static void *thread_probe(void *arg)
{
    VladState *S = arg;
    return (void *)(intptr_t)(probe_unbound(S, "thread", 50000) == 0);
}

static void test_thread(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    size_t before = live_bytes(S);
    pthread_t t;
    void *ok = NULL;
    CHECK_INT(pthread_create(&t, NULL, thread_probe, S), 0);
    CHECK_INT(pthread_join(t, &ok), 0);
    CHECK(ok != NULL);
    CHECK(live_bytes(S) < before + ((size_t)1 << 20));
    vlad_close(S);
}

int main(void)
{
    test_no_growth();
    test_answers();
    test_inside_host();
    test_thread();
    return CHECK_DONE();
}
