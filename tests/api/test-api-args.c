/*
 * tests/api/test-api-args.c -- NULL pointers passed to every public
 * function, and the error record (include/vlad.h)
 *
 * Covers: every function given a NULL state, NULL strings, NULL arrays
 * and NULL out-parameters: VLAD_ERR_ARGUMENT (recorded in the state's
 * error when there is one) or the documented no-op, never a crash; the
 * error record before the first error (status VLAD_OK, "" strings) and
 * after each kind of call (it describes the last call that returns a
 * status).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

static void count_name(void *ud, const char *name, int user)
{
    (void)name;
    (void)user;
    (*(int *)ud)++;
}

static VladStatus h_one(VladState *S, void *ud, const VladValue *a,
                        VladValue *r)
{
    (void)S;
    (void)ud;
    (void)a;
    *r = vlad_number(1);
    return VLAD_OK;
}

static void check_clean(VladState *S)
{
    const VladError *e = vlad_last_error(S);
    CHECK_INT(e->status, VLAD_OK);
    CHECK_STR(e->message, "");
    CHECK_STR(e->file, "");
    CHECK_STR(e->backtrace, "");
    CHECK_STR(e->text, "");
    CHECK_INT(e->line, 0);
    CHECK_INT(e->column, 0);
}

/* A NULL state: every function copes. */
static void test_null_state(void)
{
    VladValue v = vlad_number(5), out = vlad_number(7);
    double x = 1, y = -1, d = -1;
    VladStats st;
    memset(&st, 0xff, sizeof st);

    vlad_config_init(NULL);
    vlad_close(NULL);
    CHECK_INT(vlad_eval_string(NULL, "1", "n", &out), VLAD_ERR_ARGUMENT);
    CHECK(vlad_is_nil(out));
    CHECK_INT(vlad_eval_file(NULL, "x.vlad", NULL), VLAD_ERR_ARGUMENT);
    CHECK_INT(vlad_disassemble(NULL, NULL, "car"), VLAD_ERR_ARGUMENT);
    const VladError *e = vlad_last_error(NULL);
    CHECK(e != NULL);
    CHECK_INT(e->status, VLAD_ERR_ARGUMENT);
    CHECK(e->message != NULL && e->file != NULL && e->backtrace != NULL
          && e->text != NULL);
    vlad_interrupt(NULL);
    out = v;
    CHECK_INT(vlad_call(NULL, v, v, &out), VLAD_ERR_ARGUMENT);
    CHECK(vlad_is_nil(out));
    CHECK(!vlad_interrupted(NULL, &out));
    CHECK_INT(vlad_resume(NULL, v, NULL), VLAD_ERR_ARGUMENT);
    vlad_globals(NULL, count_name, NULL);
    CHECK(!vlad_get_global(NULL, "car", &out));
    CHECK_INT(vlad_set_global(NULL, "x", v), VLAD_ERR_ARGUMENT);
    vlad_set_heap_limit(NULL, 1);
    vlad_set_step_limit(NULL, 1);
    CHECK_INT(vlad_set_checkpoint(NULL, "bisection"), VLAD_ERR_ARGUMENT);
    vlad_get_stats(NULL, &st);
    CHECK_INT(st.steps_total, 0);
    CHECK_INT(st.heap_bytes, 0);
    vlad_get_stats(NULL, NULL);
    vlad_collect(NULL);
    CHECK_INT(vlad_mpi_init(NULL), VLAD_ERR_ARGUMENT);
    CHECK_INT(vlad_mpi_rank(NULL), 0);
    CHECK_INT(vlad_mpi_size(NULL), 1);
    vlad_mpi_abort(NULL, 1);            /* no job: returns */
    CHECK_STR(vlad_to_string(NULL, v), "");
    CHECK(vlad_is_nil(vlad_cons(NULL, v, v)));
    CHECK(vlad_is_nil(vlad_list_of_numbers(NULL, &x, 1)));
    VladRef *r = vlad_ref(NULL, v);      /* a reference needs no state */
    CHECK(r != NULL);
    CHECK_NEAR(vlad_to_number(vlad_ref_get(r)), 5, 0);
    vlad_unref(r);
    CHECK_INT(vlad_derivative(NULL, v, 1, &y, &d), VLAD_ERR_ARGUMENT);
    CHECK_INT(vlad_gradient(NULL, v, &x, 1, &y, &d), VLAD_ERR_ARGUMENT);
    CHECK_INT(vlad_directional_derivative(NULL, v, &x, &x, 1, &y, &d),
              VLAD_ERR_ARGUMENT);
    CHECK_NEAR(y, -1, 0);
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = "one";
    p.arity = 1;
    p.fn = h_one;
    CHECK_INT(vlad_register(NULL, &p), VLAD_ERR_ARGUMENT);
    CHECK_INT(vlad_host_error(NULL, "x"), VLAD_ERR_RUNTIME);
}

/* NULL arguments to a real state. */
static void test_null_args(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    /* before the first error: a clean record, never NULL strings */
    check_clean(S);

    VladValue out = vlad_number(3);
    CHECK_STATUS(S, vlad_eval_string(S, NULL, "n", &out), VLAD_ERR_ARGUMENT);
    CHECK(vlad_is_nil(out));
    CHECK_INT(vlad_last_error(S)->status, VLAD_ERR_ARGUMENT);
    CHECK_CONTAINS(vlad_last_error(S)->message, "NULL");
    CHECK_PREFIX(vlad_last_error(S)->text, "error: ");
    CHECK_STATUS(S, vlad_eval_string(S, "(+ 1 2)", NULL, &out), VLAD_OK);
    CHECK_NEAR(vlad_to_number(out), 3, 0);
    check_clean(S);
    CHECK_STATUS(S, vlad_eval_string(S, "(+ 1 2)", NULL, NULL), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_file(S, NULL, &out), VLAD_ERR_ARGUMENT);
    CHECK(vlad_is_nil(out));
    CHECK_STATUS(S, vlad_eval_file(S, "/nonexistent/x.vlad", NULL),
                 VLAD_ERR_IO);
    /* vlad_disassemble: a path or a name, a procedure that has code */
    CHECK_STATUS(S, vlad_disassemble(S, NULL, NULL), VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, vlad_disassemble(S, "x.vlad", "map"), VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, vlad_disassemble(S, "/nonexistent/x.vlad", NULL),
                 VLAD_ERR_IO);
    CHECK_STATUS(S, vlad_disassemble(S, NULL, "no-such-name"),
                 VLAD_ERR_ARGUMENT);
    CHECK_CONTAINS(vlad_last_error(S)->message, "no-such-name is not bound");
    CHECK_STATUS(S, vlad_eval_string(S, "(define seven 7)", NULL, NULL),
                 VLAD_OK);
    CHECK_STATUS(S, vlad_disassemble(S, NULL, "seven"), VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, vlad_disassemble(S, NULL, "map"), VLAD_OK);
    check_clean(S);

    int n = 0;
    vlad_globals(S, NULL, &n);
    vlad_globals(S, count_name, &n);
    CHECK(n > 10);
    CHECK(!vlad_get_global(S, NULL, &out));
    CHECK(vlad_get_global(S, "car", NULL));
    CHECK_STATUS(S, vlad_set_global(S, NULL, vlad_number(1)),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, vlad_set_checkpoint(S, NULL), VLAD_OK);
    vlad_get_stats(S, NULL);
    CHECK_STR(vlad_to_string(S, vlad_nil()), "()");

    /* arrays */
    CHECK(vlad_is_nil(vlad_list_of_numbers(S, NULL, 3)));
    VladValue l = vlad_list_of_numbers(S, (const double[]){1, 2}, 2);
    CHECK_INT(vlad_numbers_of_list(l, NULL, 5), 2);
    VladValue f;
    CHECK_STATUS(S, vlad_eval_string(S, "(lambda (v) (* (car v) (cadr v)))",
                                     "f", &f), VLAD_OK);
    double y = -1, d = -1, g[2] = {-1, -1};
    CHECK_STATUS(S, vlad_gradient(S, f, NULL, 2, &y, g), VLAD_ERR_ARGUMENT);
    CHECK_CONTAINS(vlad_last_error(S)->message, "NULL");
    CHECK_STATUS(S, vlad_directional_derivative(S, f, (double[]){1, 2}, NULL,
                                                2, &y, &d),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, vlad_gradient(S, f, (double[]){3, 4}, 2, NULL, NULL),
                 VLAD_OK);
    CHECK_STATUS(S, vlad_gradient(S, f, (double[]){3, 4}, 2, &y, g), VLAD_OK);
    CHECK_NEAR(y, 12, 0);
    CHECK_NEAR(g[0], 4, 0);
    CHECK_NEAR(g[1], 3, 0);
    VladValue sq;
    CHECK_STATUS(S, vlad_eval_string(S, "(lambda (x) (* x x))", "sq", &sq),
                 VLAD_OK);
    CHECK_STATUS(S, vlad_derivative(S, sq, 3, NULL, NULL), VLAD_OK);

    /* references */
    vlad_ref_set(NULL, out);
    CHECK(vlad_is_nil(vlad_ref_get(NULL)));
    vlad_unref(NULL);

    /* host primitives */
    CHECK_STATUS(S, vlad_register(S, NULL), VLAD_ERR_ARGUMENT);
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.arity = 1;
    p.fn = h_one;
    CHECK_STATUS(S, vlad_register(S, &p), VLAD_ERR_ARGUMENT);
    p.name = "one";
    CHECK_STATUS(S, vlad_register(S, &p), VLAD_OK);
    check_clean(S);
    CHECK_STR(apitest_eval(S, "(one 5)"), "1");
    CHECK_INT(vlad_host_error(S, NULL), VLAD_ERR_RUNTIME);
    vlad_close(S);
}

/* The record describes the last call that returns a status. */
static void test_record(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    CHECK_PREFIX(apitest_eval(S, "(car 1)"), "ERROR 3");
    CHECK_INT(vlad_last_error(S)->status, VLAD_ERR_RUNTIME);
    /* a successful evaluation clears it */
    CHECK_STR(apitest_eval(S, "1"), "1");
    check_clean(S);
    /* so do vlad_set_checkpoint, vlad_set_global and vlad_register that
       succeed */
    CHECK_STATUS(S, vlad_set_checkpoint(S, "nonsense"), VLAD_ERR_ARGUMENT);
    CHECK_INT(vlad_last_error(S)->status, VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, vlad_set_checkpoint(S, "bisection"), VLAD_OK);
    check_clean(S);
    CHECK_STATUS(S, vlad_set_global(S, NULL, vlad_nil()), VLAD_ERR_ARGUMENT);
    CHECK_CONTAINS(vlad_last_error(S)->message, "vlad_set_global");
    CHECK_STATUS(S, vlad_set_global(S, "z", vlad_number(1)), VLAD_OK);
    check_clean(S);
    /* the functions that never fail leave it as it was */
    CHECK_PREFIX(apitest_eval(S, "(car 1)"), "ERROR 3");
    VladValue v;
    CHECK(vlad_get_global(S, "car", &v));
    (void)vlad_to_string(S, v);
    (void)vlad_cons(S, v, v);
    CHECK_INT(vlad_last_error(S)->status, VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message, "car");
    vlad_close(S);
}

int main(void)
{
    test_null_state();
    test_null_args();
    test_record();
    return CHECK_DONE();
}
