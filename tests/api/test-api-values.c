/*
 * tests/api/test-api-values.c -- building and inspecting values, and
 * references (include/vlad.h, "Values" and "References")
 *
 * Covers vlad_number, vlad_is_number, vlad_to_number, vlad_boolean,
 * vlad_is_boolean, vlad_to_boolean, vlad_nil, vlad_is_nil, vlad_cons,
 * vlad_is_pair, vlad_car, vlad_cdr, vlad_is_procedure,
 * vlad_is_checkpoint, vlad_list_of_numbers, vlad_numbers_of_list,
 * vlad_to_string, vlad_ref, vlad_ref_get, vlad_ref_set, vlad_unref, and
 * values held only by references (in malloc'ed memory the collector does
 * not scan) surviving many collections.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

static void test_scalars(VladState *S)
{
    VladValue x = vlad_number(2.5);
    CHECK(vlad_is_number(x));
    CHECK(!vlad_is_boolean(x) && !vlad_is_nil(x) && !vlad_is_pair(x));
    CHECK(!vlad_is_procedure(x) && !vlad_is_checkpoint(x));
    CHECK_NEAR(vlad_to_number(x), 2.5, 0);
    CHECK(vlad_to_boolean(x));              /* everything but #f is true */
    CHECK_STR(vlad_to_string(S, x), "2.5");
    CHECK_STR(vlad_to_string(S, vlad_number(-0.0)), "-0");
    CHECK(isinf(vlad_to_number(vlad_number(INFINITY))));
    CHECK(isnan(vlad_to_number(vlad_number(NAN))));
    CHECK_NEAR(vlad_to_number(vlad_number(1e300)), 1e300, 0);

    VladValue t = vlad_boolean(1), f = vlad_boolean(0);
    CHECK(vlad_is_boolean(t) && vlad_is_boolean(f));
    CHECK(vlad_to_boolean(t));
    CHECK(!vlad_to_boolean(f));
    CHECK(vlad_to_boolean(vlad_boolean(42)));
    CHECK(!vlad_is_number(t));
    CHECK_NEAR(vlad_to_number(t), 0, 0);    /* 0 for a non-real */
    CHECK_STR(vlad_to_string(S, t), "#t");
    CHECK_STR(vlad_to_string(S, f), "#f");

    VladValue n = vlad_nil();
    CHECK(vlad_is_nil(n));
    CHECK(!vlad_is_pair(n) && !vlad_is_number(n) && !vlad_is_boolean(n));
    CHECK(vlad_to_boolean(n));              /* () is true in VLAD */
    CHECK_STR(vlad_to_string(S, n), "()");
    CHECK(vlad_is_nil(vlad_car(n)));        /* car/cdr of a non-pair */
    CHECK(vlad_is_nil(vlad_cdr(x)));
}

static void test_pairs_and_lists(VladState *S)
{
    VladValue p = vlad_cons(S, vlad_number(1), vlad_boolean(0));
    CHECK(vlad_is_pair(p));
    CHECK(!vlad_is_nil(p));
    CHECK_NEAR(vlad_to_number(vlad_car(p)), 1, 0);
    CHECK(vlad_is_boolean(vlad_cdr(p)) && !vlad_to_boolean(vlad_cdr(p)));
    CHECK_STR(vlad_to_string(S, p), "(1 . #f)");

    VladValue l = vlad_cons(S, vlad_number(1),
                            vlad_cons(S, vlad_nil(),
                                      vlad_cons(S, p, vlad_nil())));
    CHECK_STR(vlad_to_string(S, l), "(1 () (1 . #f))");

    double xs[5] = {1, -2.5, 3e10, 0.125, 7};
    VladValue nums = vlad_list_of_numbers(S, xs, 5);
    CHECK_STR(vlad_to_string(S, nums), "(1 -2.5 30000000000 0.125 7)");
    CHECK(vlad_is_nil(vlad_list_of_numbers(S, xs, 0)));
    CHECK(vlad_is_nil(vlad_list_of_numbers(S, NULL, 0)));

    double out[8];
    memset(out, 0, sizeof out);
    CHECK_INT(vlad_numbers_of_list(nums, out, 8), 5);
    for (int k = 0; k < 5; k++)
        CHECK_NEAR(out[k], xs[k], 0);
    /* a short buffer: the first 'cap' elements, and the length */
    memset(out, 0, sizeof out);
    CHECK_INT(vlad_numbers_of_list(nums, out, 2), 5);
    CHECK_NEAR(out[0], 1, 0);
    CHECK_NEAR(out[1], -2.5, 0);
    CHECK_NEAR(out[2], 0, 0);
    CHECK_INT(vlad_numbers_of_list(nums, NULL, 0), 5);
    CHECK_INT(vlad_numbers_of_list(vlad_nil(), out, 8), 0);
    /* not a proper list of reals: -1 */
    CHECK_INT(vlad_numbers_of_list(l, out, 8), -1);
    CHECK_INT(vlad_numbers_of_list(p, out, 8), -1);
    CHECK_INT(vlad_numbers_of_list(vlad_number(3), out, 8), -1);
    CHECK_INT(vlad_numbers_of_list(vlad_cons(S, vlad_number(1),
                                             vlad_number(2)), out, 8), -1);

    /* values built in C go into VLAD and back */
    VladValue sum;
    CHECK_STATUS(S, vlad_eval_string(S, "(lambda (l) (fold-left + 0 l))",
                                     "v", &sum), VLAD_OK);
    VladValue r;
    CHECK_STATUS(S, vlad_call(S, sum, nums, &r), VLAD_OK);
    CHECK_NEAR(vlad_to_number(r), 1 - 2.5 + 3e10 + 0.125 + 7, 1e-15);
    /* a procedure of two parameters takes a pair (the tuple convention) */
    VladValue sub;
    CHECK_STATUS(S, vlad_eval_string(S, "(lambda (a b) (- a b))", "v", &sub),
                 VLAD_OK);
    CHECK_STATUS(S, vlad_call(S, sub, vlad_cons(S, vlad_number(5),
                                                vlad_number(3)), &r),
                 VLAD_OK);
    CHECK_NEAR(vlad_to_number(r), 2, 0);
    /* and a list comes back */
    VladValue iota;
    CHECK(vlad_get_global(S, "iota", &iota));
    CHECK_STATUS(S, vlad_call(S, iota, vlad_number(4), &r), VLAD_OK);
    CHECK_INT(vlad_numbers_of_list(r, out, 8), 4);
    CHECK_NEAR(out[3], 3, 0);
    CHECK_NEAR(vlad_to_number(vlad_car(vlad_cdr(r))), 1, 0);
}

static void test_procedures_and_checkpoints(VladState *S)
{
    VladValue v;
    CHECK_STATUS(S, vlad_eval_string(S, "(lambda (x) x)", "p", &v), VLAD_OK);
    CHECK(vlad_is_procedure(v) && !vlad_is_checkpoint(v));
    CHECK(!vlad_is_pair(v) && !vlad_is_number(v));
    CHECK(vlad_get_global(S, "car", &v));          /* a prelude procedure */
    CHECK(vlad_is_procedure(v));
    CHECK(vlad_get_global(S, "sqrt", &v));         /* a primitive */
    CHECK(vlad_is_procedure(v));
    CHECK(vlad_get_global(S, "j*", &v));
    CHECK(vlad_is_procedure(v));
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint (lambda (n) (* n 2)) 21 0)",
                                     "p", &v), VLAD_OK);
    CHECK(vlad_is_checkpoint(v) && !vlad_is_procedure(v));
    VladValue r;
    CHECK_STATUS(S, vlad_resume(S, v, &r), VLAD_OK);
    CHECK_NEAR(vlad_to_number(r), 42, 0);
    CHECK_STR(vlad_to_string(S, v), "#<checkpoint>");
}

/* vlad_to_string: the string lives until the next call on S. */
static void test_to_string(VladState *S)
{
    double xs[3] = {1, 2, 3};
    const char *a = vlad_to_string(S, vlad_list_of_numbers(S, xs, 3));
    CHECK_STR(a, "(1 2 3)");
    char copy[64];
    snprintf(copy, sizeof copy, "%s", a);
    const char *b = vlad_to_string(S, vlad_number(4));
    CHECK_STR(b, "4");
    CHECK_STR(copy, "(1 2 3)");
    /* a long list */
    double many[2000];
    for (int k = 0; k < 2000; k++)
        many[k] = k;
    const char *c = vlad_to_string(S, vlad_list_of_numbers(S, many, 2000));
    CHECK_PREFIX(c, "(0 1 2 3 ");
    CHECK(strstr(c, " 1999)") != NULL);
}

/* Allocate a lot in VLAD: many collections. */
static void churn(VladState *S, int rounds)
{
    for (int k = 0; k < rounds; k++)
        CHECK_STR(apitest_eval(S, "(length (map (lambda (x) (list x x)) "
                                  "(iota 200000)))"), "200000");
}

/* A host-side cache in malloc'ed memory: the collector does not scan it,
   so each entry holds its value through a reference. */
typedef struct Entry {
    VladRef *ref;
    double expect;
    int n;
} Entry;

static double sum_list(VladValue l)
{
    double s = 0;
    for (; vlad_is_pair(l); l = vlad_cdr(l))
        s += vlad_to_number(vlad_car(l));
    return s;
}

static void test_refs(VladState *S)
{
    /* NULL is accepted */
    CHECK(vlad_is_nil(vlad_ref_get(NULL)));
    vlad_ref_set(NULL, vlad_number(1));
    vlad_unref(NULL);

    enum { NENT = 64 };
    Entry *cache = malloc(NENT * sizeof *cache);
    for (int k = 0; k < NENT; k++) {
        VladValue v;
        char src[128];
        int n = 100 + k;
        snprintf(src, sizeof src, "(map (lambda (i) (* i %d)) (iota %d))",
                 k + 1, n);
        CHECK_STATUS(S, vlad_eval_string(S, src, "refs", &v), VLAD_OK);
        cache[k].ref = vlad_ref(S, v);
        CHECK(cache[k].ref != NULL);
        cache[k].n = n;
        cache[k].expect = (double)(k + 1) * n * (n - 1) / 2;
    }
    /* a procedure (a closure over a list) kept by reference */
    VladValue adder;
    CHECK_STATUS(S, vlad_eval_string(S, "(let ((l (iota 1000))) "
                                        "(lambda (x) (+ x (fold-left + 0 l))))",
                                     "refs", &adder), VLAD_OK);
    VladRef *proc = vlad_ref(S, adder);
    /* a checkpoint kept by reference */
    VladValue ck;
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint (lambda (n) (length "
                                        "(iota n))) 5000 100)", "refs", &ck),
                 VLAD_OK);
    VladRef *ckref = vlad_ref(S, ck);
    /* forget every C copy of those values */
    adder = ck = vlad_nil();

    churn(S, 15);

    for (int k = 0; k < NENT; k++) {
        VladValue l = vlad_ref_get(cache[k].ref);
        double out[1];
        CHECK_INT(vlad_numbers_of_list(l, out, 0), cache[k].n);
        CHECK_NEAR(sum_list(l), cache[k].expect, 0);
    }
    VladValue r;
    CHECK_STATUS(S, vlad_call(S, vlad_ref_get(proc), vlad_number(1), &r),
                 VLAD_OK);
    CHECK_NEAR(vlad_to_number(r), 1 + 999.0 * 1000 / 2, 0);
    CHECK_STATUS(S, vlad_resume(S, vlad_ref_get(ckref), &r), VLAD_OK);
    CHECK_NEAR(vlad_to_number(r), 5000, 0);

    /* ref_set: the reference now keeps the new value alive */
    double xs[3] = {4, 5, 6};
    vlad_ref_set(cache[0].ref, vlad_list_of_numbers(S, xs, 3));
    churn(S, 5);
    CHECK_NEAR(sum_list(vlad_ref_get(cache[0].ref)), 15, 0);

    /* unref half of them; the rest stay */
    for (int k = 0; k < NENT; k += 2)
        vlad_unref(cache[k].ref);
    churn(S, 5);
    for (int k = 1; k < NENT; k += 2)
        CHECK_NEAR(sum_list(vlad_ref_get(cache[k].ref)), cache[k].expect, 0);
    for (int k = 1; k < NENT; k += 2)
        vlad_unref(cache[k].ref);
    vlad_unref(proc);
    vlad_unref(ckref);
    free(cache);

    /* a reference outlives its state (its value must not be used with
       another state; reading it as data is fine) */
    VladState *T = vlad_open(NULL);
    VladValue v;
    CHECK_STATUS(T, vlad_eval_string(T, "(list 1 2 3)", "t", &v), VLAD_OK);
    VladRef *outlive = vlad_ref(T, v);
    vlad_close(T);
    v = vlad_nil();
    churn(S, 3);
    CHECK_NEAR(sum_list(vlad_ref_get(outlive)), 6, 0);
    vlad_unref(outlive);
}

int main(void)
{
    VladState *S = vlad_open(NULL);
    if (S == NULL) {
        printf("vlad_open failed\n");
        return 99;
    }
    test_scalars(S);
    test_pairs_and_lists(S);
    test_procedures_and_checkpoints(S);
    test_to_string(S);
    test_refs(S);
    VladStats st;
    vlad_get_stats(S, &st);
    CHECK(st.peak_heap_bytes >= st.heap_bytes);
    vlad_close(S);
    return CHECK_DONE();
}
