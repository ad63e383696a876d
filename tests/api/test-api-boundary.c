/*
 * tests/api/test-api-boundary.c -- what crosses the API boundary: values
 * the host forged or left zeroed, bytes from a lying read callback
 * (issue 19: U4, U5)
 *
 * Covers: every public function that takes a VladValue, given the zero
 * VladValue (an internal "unbound" mark), an internal raw word, tags
 * libvlad never makes, a boolean that is neither 0 nor 1, a real with
 * internal bits, a pair without a pointer: the functions with a status
 * return VLAD_ERR_ARGUMENT with a message naming the function, the others
 * their neutral result, nothing is bound or changed, and the state works
 * afterwards; the same from inside a host primitive, and a host primitive
 * returning such a value (a run-time error, the state usable).  Values
 * that are values still work: huge, tiny, NaN, infinite and negative-zero
 * reals, a list 10^6 long, data of a closed state held by a reference.
 * U5: a read callback returning more than the buffer it was given, or
 * (size_t)-1, is an input error of read-real (VLAD_ERR_IO), nothing past
 * the buffer is read, and the next read works.
 *
 * The forged values assume the layout of vm/core/value.h on a little-endian
 * machine (the tag in the low 32 bits of the first word): the test
 * plays an attacker who knows it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

static VladValue forge(uint32_t tag, uint32_t aux, uint64_t payload)
{
    VladValue v;
    v.opaque_[0] = (uint64_t)tag | (uint64_t)aux << 32;
    v.opaque_[1] = payload;
    return v;
}

/* The invalid values: zero (VT_UNDEF), VT_RAW, out-of-range tags, a
   boolean of 7, a real with internal bits, pointer tags without one. */
#define NBAD 9
static VladValue bad[NBAD];

static void make_bad(void)
{
    memset(&bad[0], 0, sizeof bad[0]);
    bad[1] = forge(10, 0, 12345);               /* VT_RAW */
    bad[2] = forge(11, 0, 0);
    bad[3] = forge(0xFFFFFFFFu, 0xFFFFFFFFu, UINT64_MAX);
    bad[4] = forge(2, 0, 7);                    /* a boolean of 7 */
    bad[5] = forge(3, 5, 0x3FF0000000000000u);  /* 1.0 with aux 5 */
    bad[6] = forge(4, 0, 0);                    /* a pair at NULL */
    bad[7] = forge(5, 0, 0);                    /* a closure at NULL */
    bad[8] = forge(7, 0, 0);                    /* a checkpoint at NULL */
}

static int bound_names;

static void count(void *ud, const char *name, int user)
{
    (void)ud;
    (void)name;
    bound_names += user;
}

static void check_works(VladState *S)
{
    CHECK_STR(apitest_eval(S, "(define (sq x) (* x x)) (map sq '(1 2 3))"),
              "(1 4 9)");
}

/* Every function that takes a VladValue, given 'v'. */
static void check_refused(VladState *S, VladValue v, VladValue f)
{
    VladValue out = vlad_number(1);
    double d = 5, g = 5, xs[2] = {1, 2}, dir[2] = {1, 0};

    CHECK_STATUS(S, vlad_call(S, f, v, &out), VLAD_ERR_ARGUMENT);
    CHECK(vlad_is_nil(out));
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "vlad_call: the argument is not a value");
    out = vlad_number(1);
    CHECK_STATUS(S, vlad_call(S, v, f, &out), VLAD_ERR_ARGUMENT);
    CHECK(vlad_is_nil(out));
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "vlad_call: the procedure is not a value");
    CHECK_STATUS(S, vlad_resume(S, v, &out), VLAD_ERR_ARGUMENT);
    CHECK_CONTAINS(vlad_last_error(S)->message, "vlad_resume");
    CHECK_STATUS(S, vlad_derivative(S, v, 1, &d, &g), VLAD_ERR_ARGUMENT);
    CHECK_CONTAINS(vlad_last_error(S)->message, "vlad_derivative");
    CHECK_STATUS(S, vlad_gradient(S, v, xs, 2, &d, xs), VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, vlad_directional_derivative(S, v, xs, dir, 2, &d, &g),
                 VLAD_ERR_ARGUMENT);
    CHECK(d == 5 && g == 5 && xs[0] == 1 && xs[1] == 2);
    CHECK_STATUS(S, vlad_set_global(S, "forged", v), VLAD_ERR_ARGUMENT);
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "vlad_set_global: the value is not a value");
    CHECK(!vlad_get_global(S, "forged", &out));

    /* the functions without a status: neutral results */
    CHECK_STR(vlad_to_string(S, v), "#<invalid value>");
    CHECK(!vlad_is_number(v));
    CHECK(vlad_to_number(v) == 0);
    CHECK(!vlad_is_boolean(v));
    CHECK(!vlad_to_boolean(v));
    CHECK(!vlad_is_pair(v));
    CHECK(!vlad_is_procedure(v));
    CHECK(!vlad_is_checkpoint(v));
    CHECK(vlad_is_nil(vlad_car(v)));
    CHECK(vlad_is_nil(vlad_cdr(v)));
    CHECK_INT(vlad_numbers_of_list(v, xs, 2), -1);
    CHECK(vlad_is_nil(vlad_cons(S, v, vlad_nil())));
    CHECK(vlad_is_nil(vlad_cons(S, vlad_nil(), v)));
    CHECK(vlad_ref(S, v) == NULL);
    VladRef *r = vlad_ref(S, vlad_number(3));
    CHECK(r != NULL);
    vlad_ref_set(r, v);
    CHECK(vlad_to_number(vlad_ref_get(r)) == 3);
    vlad_unref(r);
}

/* U4 */
static void test_forged_values(void)
{
    make_bad();
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    VladValue f;
    CHECK(vlad_get_global(S, "length", &f));
    bound_names = 0;
    vlad_globals(S, count, NULL);
    int before = bound_names;
    for (int k = 0; k < NBAD; k++) {
        check_refused(S, bad[k], f);
        check_works(S);
    }
    bound_names = 0;
    vlad_globals(S, count, NULL);
    CHECK_INT(bound_names, before + 1);     /* sq, nothing else */
    vlad_close(S);
}

/* Values that are values: the boundary lets them through. */
static void test_valid_values(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    VladValue f, out;
    CHECK(vlad_get_global(S, "+", &f));
    const double xs[] = {1e308, -1e308, 5e-324, INFINITY, -INFINITY, -0.0};
    for (size_t k = 0; k < sizeof xs / sizeof *xs; k++) {
        CHECK_STATUS(S, vlad_call(S, f, vlad_cons(S, vlad_number(xs[k]),
                                                  vlad_number(0)), &out),
                     VLAD_OK);
        CHECK(vlad_to_number(out) == xs[k] + 0);
        CHECK_STATUS(S, vlad_set_global(S, "n", vlad_number(xs[k])),
                     VLAD_OK);
    }
    CHECK_STATUS(S, vlad_call(S, f, vlad_cons(S, vlad_number(NAN),
                                              vlad_number(1)), &out),
                 VLAD_OK);
    CHECK(isnan(vlad_to_number(out)));
    CHECK_STR(vlad_to_string(S, vlad_number(NAN)), "+nan.0");
    CHECK(vlad_to_boolean(vlad_boolean(0)) == 0);
    CHECK(vlad_to_boolean(vlad_boolean(42)) == 1);
    CHECK(vlad_to_boolean(vlad_nil()) == 1);

    /* a list 10^6 long, built by the host, through every function */
    VladValue l = vlad_nil();
    for (int k = 0; k < 1000000; k++)
        l = vlad_cons(S, vlad_number(k), l);
    CHECK_INT(vlad_numbers_of_list(l, NULL, 0), 1000000);
    CHECK(vlad_get_global(S, "length", &f));
    CHECK_STATUS(S, vlad_call(S, f, l, &out), VLAD_OK);
    CHECK(vlad_to_number(out) == 1000000);
    CHECK_STATUS(S, vlad_set_global(S, "long", l), VLAD_OK);
    CHECK_STR(apitest_eval(S, "(car long)"), "999999");
    CHECK(strlen(vlad_to_string(S, l)) > 1000000);
    /* nested 10^5 deep in the car */
    VladValue d = vlad_nil();
    for (int k = 0; k < 100000; k++)
        d = vlad_cons(S, d, vlad_nil());
    CHECK_STATUS(S, vlad_set_global(S, "deep", d), VLAD_OK);
    CHECK_STR(apitest_eval(S, "(pair? deep)"), "#t");
    CHECK_INT(vlad_numbers_of_list(d, NULL, 0), -1);

    /* data of a closed state, held by a reference, is still data; given
       to another state it is just a list */
    VladState *T = vlad_open(NULL);
    CHECK(T != NULL);
    VladValue tl;
    CHECK_STATUS(T, vlad_eval_string(T, "(list 1 2 3)", "t", &tl), VLAD_OK);
    VladRef *ref = vlad_ref(T, tl);
    vlad_close(T);
    vlad_collect(S);
    VladValue kept = vlad_ref_get(ref);
    double got[3] = {0, 0, 0};
    CHECK_INT(vlad_numbers_of_list(kept, got, 3), 3);
    CHECK(got[0] == 1 && got[2] == 3);
    CHECK_STATUS(S, vlad_call(S, f, kept, &out), VLAD_OK);
    CHECK(vlad_to_number(out) == 3);
    vlad_unref(ref);
    vlad_close(S);
}

/* ===== from inside a host primitive ===== */

static int inside_refused;

static VladStatus h_probe(VladState *S, void *ud, const VladValue *a,
                          VladValue *r)
{
    (void)ud;
    int ok = 1;
    for (int k = 0; k < NBAD; k++) {
        ok &= vlad_is_nil(vlad_cons(S, bad[k], a[0]));
        ok &= strcmp(vlad_to_string(S, bad[k]), "#<invalid value>") == 0;
        ok &= vlad_set_global(S, "x", bad[k]) == VLAD_ERR_ARGUMENT;
    }
    inside_refused = ok;
    *r = a[0];
    return VLAD_OK;
}

static int bad_result;          /* which invalid value h_bad returns */

static VladStatus h_bad(VladState *S, void *ud, const VladValue *a,
                        VladValue *r)
{
    (void)S;
    (void)ud;
    (void)a;
    *r = bad[bad_result];
    return VLAD_OK;
}

static void test_inside_host(void)
{
    make_bad();
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = "probe";
    p.arity = 1;
    p.fn = h_probe;
    CHECK_STATUS(S, vlad_register(S, &p), VLAD_OK);
    p.name = "bad";
    p.fn = h_bad;
    CHECK_STATUS(S, vlad_register(S, &p), VLAD_OK);
    CHECK_STR(apitest_eval(S, "(probe 4)"), "4");
    CHECK(inside_refused);
    for (bad_result = 0; bad_result < NBAD; bad_result++) {
        CHECK_PREFIX(apitest_eval(S, "(define (f x) (+ 1 (bad x))) (f 1)"),
                     "ERROR 3: test:1:20: error: bad: the host function "
                     "returned an invalid VladValue");
        /* inside the derivative operators and a map too */
        CHECK_PREFIX(apitest_eval(S, "(map bad '(1 2))"), "ERROR 3");
        CHECK_PREFIX(apitest_eval(S, "(*j (lambda (x) (bad 1)) 1 1)"),
                     "ERROR 3");
        check_works(S);
    }
    vlad_close(S);
}

/* ===== U5: a read callback that returns more than it may ===== */

static int lie_mode;
static size_t read_calls;

static size_t r_lie(void *ud, char *buf, size_t cap)
{
    (void)ud;
    read_calls++;
    if (read_calls == 1) {
        memset(buf, '7', cap);
        return lie_mode == 0 ? cap + 1000 : lie_mode == 1 ? cap + 1
                                                          : (size_t)-1;
    }
    static const char t[] = "2.5 ";
    memcpy(buf, t, sizeof t - 1);
    return sizeof t - 1;
}

static void test_read_lies(void)
{
    for (lie_mode = 0; lie_mode < 3; lie_mode++) {
        VladConfig c;
        vlad_config_init(&c);
        c.read = r_lie;
        read_calls = 0;
        VladState *S = vlad_open(&c);
        CHECK(S != NULL);
        const char *e = apitest_eval(S, "(read-real 0)");
        CHECK_PREFIX(e, "ERROR 5: test:1:1: error: read-real: the host's "
                        "read callback returned ");
        CHECK_CONTAINS(e, "bytes for a buffer of 4096");
        /* nothing of the lie was kept: the next read asks again */
        CHECK_STR(apitest_eval(S, "(read-real 0)"), "2.5");
        CHECK_INT(read_calls, 2);
        vlad_close(S);
    }
}

/* Labels (a quoted symbol, a string literal) and the value of display are
   values libvlad hands out: they go back in through every call. */
static void test_label_values(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    VladValue sym, str, vo, f, out;
    CHECK_STATUS(S, vlad_eval_string(S, "'loss", "t", &sym), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "\"a b\"", "t", &str), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(newline)", "t", &vo), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(lambda (x) (list x x))", "t", &f),
                 VLAD_OK);
    CHECK_STATUS(S, vlad_call(S, f, sym, &out), VLAD_OK);
    CHECK_STR(vlad_to_string(S, out), "(loss loss)");
    CHECK_STATUS(S, vlad_call(S, f, str, &out), VLAD_OK);
    CHECK_STR(vlad_to_string(S, out), "(\"a b\" \"a b\")");
    CHECK_STATUS(S, vlad_call(S, f, vo, &out), VLAD_OK);
    CHECK_STR(vlad_to_string(S, out), "(#<void> #<void>)");
    CHECK_STATUS(S, vlad_set_global(S, "label", sym), VLAD_OK);
    CHECK_STR(apitest_eval(S, "label"), "loss");
    vlad_close(S);
}

int main(void)
{
    test_forged_values();
    test_label_values();
    test_valid_values();
    test_inside_host();
    test_read_lies();
    return CHECK_DONE();
}
