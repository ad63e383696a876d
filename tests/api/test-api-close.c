/*
 * tests/api/test-api-close.c -- a state changed or closed while it runs
 * (issue 19: C1, U6)
 *
 * Covers: vlad_close called by a host primitive on its running state
 * (directly, twice, inside j*, *j and checkpoint-*j, in a resumed
 * evaluation, in a host thread), by the write, read and progress
 * callbacks: the evaluation stops (nothing runs after the close), the
 * call returns VLAD_ERR_ARGUMENT, the state is freed, and other states
 * (opened before and after, reusing its memory) work; the calls a host
 * function makes on a state it closed (refused or harmless).
 * vlad_set_global, vlad_set_checkpoint and vlad_register from a running
 * host primitive or callback: refused with VLAD_ERR_ARGUMENT, nothing
 * changed, the evaluation goes on; the same calls succeed afterwards.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

/* ===== host functions ===== */

static int calls_after_close;   /* tick! calls after a close! */
static int closed;              /* close! ran */
static VladStatus after_close_status[4]; /* calls made after vlad_close */
static int after_close_ok;      /* the value functions still worked */

static VladStatus h_close(VladState *S, void *ud, const VladValue *a,
                          VladValue *r)
{
    (void)ud;
    vlad_close(S);
    vlad_close(S);              /* twice: harmless */
    closed = 1;
    /* the state still exists until the running call returns: calls on
       it are refused or harmless */
    VladValue v;
    after_close_status[0] = vlad_eval_string(S, "(+ 1 2)", "in", &v);
    after_close_status[1] = vlad_set_global(S, "x", vlad_number(1));
    after_close_status[2] = vlad_set_checkpoint(S, "bisection");
    after_close_status[3] = vlad_call(S, a[0], a[0], &v);
    VladValue p = vlad_cons(S, vlad_number(1), vlad_nil());
    after_close_ok = vlad_is_pair(p)
                     && strcmp(vlad_to_string(S, p), "(1)") == 0
                     && vlad_last_error(S)->status == VLAD_ERR_ARGUMENT;
    *r = a[0];
    return VLAD_OK;
}

static VladStatus h_tick(VladState *S, void *ud, const VladValue *a,
                         VladValue *r)
{
    (void)S;
    (void)ud;
    if (closed)
        calls_after_close++;
    *r = a[0];
    return VLAD_OK;
}

/* A partial derivative of close! (so it may be differentiated). */
static VladStatus h_one(VladState *S, void *ud, const VladValue *a,
                        VladValue *r)
{
    (void)S;
    (void)ud;
    (void)a;
    *r = vlad_number(1);
    return VLAD_OK;
}

static VladStatus reg(VladState *S, const char *name, VladHostFn fn,
                      const char *partial)
{
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.arity = 1;
    p.fn = fn;
    p.partial[0] = partial;
    return vlad_register(S, &p);
}

static VladState *open_with_close(const VladConfig *c)
{
    VladState *S = vlad_open(c);
    CHECK(S != NULL);
    CHECK_STATUS(S, reg(S, "tick!", h_tick, NULL), VLAD_OK);
    CHECK_STATUS(S, reg(S, "one", h_one, NULL), VLAD_OK);
    CHECK_STATUS(S, reg(S, "close!", h_close, "one"), VLAD_OK);
    closed = 0;
    calls_after_close = 0;
    memset(after_close_status, 0, sizeof after_close_status);
    after_close_ok = 0;
    return S;
}

/* Build a long list in 'T': allocates over the memory a freed state
   left, and checks T works. */
static void check_other_state(VladState *T)
{
    CHECK_STR(apitest_eval(T, "(define (b n) (if (= n 0) '() "
                              "(cons n (b (- n 1))))) (length (b 100000))"),
              "100000");
}

/* Run 'src' in a state whose close! closes it; the evaluation must stop
   at the close with VLAD_ERR_ARGUMENT. */
static void check_close_in(const char *src)
{
    VladState *before = vlad_open(NULL);
    VladState *S = open_with_close(NULL);
    VladValue v = vlad_number(5);
    VladStatus st = vlad_eval_string(S, src, "close", &v);
    CHECK_INT(st, VLAD_ERR_ARGUMENT);
    if (st != VLAD_ERR_ARGUMENT)
        printf("  %s\n", vlad_last_error(S)->text);
    CHECK(vlad_is_nil(v));
    CHECK(closed);
    CHECK_INT(calls_after_close, 0);
    CHECK_INT(after_close_status[0], VLAD_ERR_ARGUMENT);
    CHECK_INT(after_close_status[1], VLAD_ERR_ARGUMENT);
    CHECK_INT(after_close_status[2], VLAD_ERR_ARGUMENT);
    CHECK_INT(after_close_status[3], VLAD_ERR_ARGUMENT);
    CHECK(after_close_ok);
    VladState *after = vlad_open(NULL);
    check_other_state(after);
    check_other_state(before);
    vlad_close(after);
    vlad_close(before);
}

/* C1: the reproducer's case and its variants. */
static void test_close_from_host(void)
{
    /* close-inside.c: deep in a recursion, more work after the close */
    check_close_in("(define (b n) (if (= n 0) '() (cons n (b (- n 1)))))"
                   "(define (f x) (if (= x 0) (let ((z (close! 0)))"
                   " (tick! (length (b 200000)))) (+ 1 (f (- x 1)))))"
                   "(f 100) (tick! (f 100)) (tick! 3)");
    /* a loop that would go on for long: stopped at once */
    check_close_in("(define (loop i) (if (= i 0) 0 (loop (tick! (- i 1)))))"
                   "(close! 1) (loop 100000000)");
    check_close_in("(define (loop i) (if (= i 1000) (close! i) "
                   "(loop (+ (tick! i) 1)))) (loop 0) (tick! 1)");
    /* inside the derivative operators, through the partials too */
    check_close_in("(j* (lambda (x) (tick! (* 2 (close! x)))) 3 1)");
    check_close_in("(*j (lambda (x) (tick! (* 2 (close! x)))) 3 1)");
    check_close_in("(checkpoint-*j (lambda (x) (let loop ((i 0) (a x)) "
                   "(if (= i 5000) (tick! a) (loop (+ i 1) (if (= i 2500) "
                   "(close! a) (* a 1.0001)))))) 1 1)");
    /* from a map over a list, in the prelude's code */
    check_close_in("(map (lambda (x) (if (= x 5) (close! x) (tick! x)))"
                   " (iota 10))");
}

/* C1: vlad_call and vlad_resume of a checkpoint whose rest closes. */
static void test_close_from_call_and_resume(void)
{
    VladState *S = open_with_close(NULL);
    VladValue f, v = vlad_number(1);
    CHECK_STR(apitest_eval(S, "(define (g x) (+ (close! x) (tick! 1))) 0"),
              "0");
    CHECK(vlad_get_global(S, "g", &f));
    CHECK_INT(vlad_call(S, f, vlad_number(1), &v), VLAD_ERR_ARGUMENT);
    CHECK(vlad_is_nil(v));
    CHECK_INT(calls_after_close, 0);

    /* a checkpoint resumed twice: the first resume closes its state; the
       checkpoint (held by a reference) stays readable as data */
    S = open_with_close(NULL);
    VladValue u;
    CHECK_STATUS(S, vlad_eval_string(S, "(define u (checkpoint (lambda (x)"
                                        " (+ (close! x) (tick! 1))) 1 1)) u",
                                     "u", &u), VLAD_OK);
    CHECK(vlad_is_checkpoint(u));
    VladRef *ref = vlad_ref(S, u);
    CHECK(ref != NULL);
    CHECK_INT(vlad_resume(S, u, &v), VLAD_ERR_ARGUMENT);
    CHECK_INT(calls_after_close, 0);
    CHECK(vlad_is_checkpoint(vlad_ref_get(ref)));
    vlad_unref(ref);
    /* resumed again in a fresh state (without close!: an unbound global
       there is an error, not a crash) */
    VladState *T = vlad_open(NULL);
    CHECK(T != NULL);
    check_other_state(T);
    vlad_close(T);
}

/* ===== callbacks that close ===== */

static VladState *cb_state;     /* the state the callbacks close */
static int cb_close_at;         /* close at this call of the callback */
static int cb_calls;            /* calls of the callback so far */
static int writes_after_close;

static void w_close(void *ud, const char *text, size_t len)
{
    (void)ud;
    (void)text;
    (void)len;
    if (cb_state == NULL) {
        writes_after_close++;
        return;
    }
    if (++cb_calls == cb_close_at) {
        vlad_close(cb_state);
        cb_state = NULL;
    }
}

static size_t r_close(void *ud, char *buf, size_t cap)
{
    (void)ud;
    if (cb_state != NULL && ++cb_calls == cb_close_at) {
        vlad_close(cb_state);
        cb_state = NULL;
    }
    const char *t = "1 2 3 ";
    size_t n = strlen(t) < cap ? strlen(t) : cap;
    memcpy(buf, t, n);
    return n;
}

static void p_close(void *ud, int64_t done, int64_t total)
{
    (void)ud;
    (void)done;
    (void)total;
    if (cb_state != NULL && ++cb_calls == cb_close_at) {
        vlad_close(cb_state);
        cb_state = NULL;
    }
}

static void test_close_from_callbacks(void)
{
    VladConfig c;
    /* the write callback: output is handed over at the end of each form;
       the forms after the close do not run */
    vlad_config_init(&c);
    c.write = w_close;
    for (int at = 1; at <= 3; at++) {
        VladState *S = vlad_open(&c);
        CHECK(S != NULL);
        cb_state = S;
        cb_calls = 0;
        cb_close_at = at;
        writes_after_close = 0;
        VladStatus st = vlad_eval_string(
            S, "(write-real 1) (write-real 2) (write-real 3) (write-real 4)"
               "(define (loop i) (if (= i 0) 0 (loop (- (write-real i) 1))))"
               "(loop 100000)", "w", NULL);
        CHECK_INT(st, VLAD_ERR_ARGUMENT);
        CHECK(cb_state == NULL);
        /* what was buffered before the close may still be handed over
           (the state flushes as it is freed), nothing later */
        CHECK(writes_after_close <= 1);
    }
    /* the read callback of read-real */
    vlad_config_init(&c);
    c.read = r_close;
    {
        VladState *S = vlad_open(&c);
        CHECK(S != NULL);
        cb_state = S;
        cb_calls = 0;
        cb_close_at = 1;
        CHECK_INT(vlad_eval_string(S, "(read-real 0) (read-real 0)", "r",
                                   NULL), VLAD_ERR_ARGUMENT);
        CHECK(cb_state == NULL);
    }
    /* the progress callback of checkpoint-*j */
    vlad_config_init(&c);
    c.progress = p_close;
    c.checkpoint = "binomial,slots=3,base=10";
    {
        VladState *S = vlad_open(&c);
        CHECK(S != NULL);
        cb_state = S;
        cb_calls = 0;
        cb_close_at = 2;
        CHECK_INT(vlad_eval_string(S, "(define (f x) (let loop ((i 0) (a x))"
                                      " (if (= i 30000) a (loop (+ i 1) "
                                      "(* a 1.00001))))) (checkpoint-*j f 1"
                                      " 1)", "p", NULL), VLAD_ERR_ARGUMENT);
        CHECK(cb_state == NULL);
        CHECK(cb_calls >= 2);
    }
    VladState *T = vlad_open(NULL);
    check_other_state(T);
    vlad_close(T);
}

/* ===== a host thread ===== */

static void *thread_close(void *arg)
{
    (void)arg;
    VladState *S = vlad_open(NULL);
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = "close!";
    p.arity = 1;
    p.fn = h_close;
    intptr_t ok = S != NULL && vlad_register(S, &p) == VLAD_OK
                  && vlad_eval_string(S, "(define (f n) (if (= n 0) "
                                         "(close! 0) (+ 1 (f (- n 1)))))"
                                         "(f 1000) (f 1000)", "t", NULL)
                         == VLAD_ERR_ARGUMENT;
    VladState *T = vlad_open(NULL);
    VladValue v;
    ok = ok && T != NULL
         && vlad_eval_string(T, "(length (iota 10000))", "t", &v) == VLAD_OK
         && vlad_to_number(v) == 10000;
    vlad_close(T);
    return (void *)ok;
}

static void test_close_in_thread(void)
{
    pthread_t t[2];
    void *ok[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++)
        CHECK_INT(pthread_create(&t[k], NULL, thread_close, NULL), 0);
    for (int k = 0; k < 2; k++) {
        CHECK_INT(pthread_join(t[k], &ok[k]), 0);
        CHECK(ok[k] != NULL);
    }
}

/* ===== U6: changing a running state ===== */

static VladStatus change_status[3]; /* set_global, set_checkpoint, register */
static const char *change_message;

static VladStatus h_change(VladState *S, void *ud, const VladValue *a,
                           VladValue *r)
{
    (void)ud;
    change_status[0] = vlad_set_global(S, "target", vlad_number(99));
    change_message = vlad_last_error(S)->message;
    change_status[1] = vlad_set_checkpoint(S, "bisection,base=1");
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = "target";
    p.arity = 1;
    p.fn = h_one;
    change_status[2] = vlad_register(S, &p);
    *r = a[0];
    return VLAD_OK;
}

static void check_refused(void)
{
    CHECK_INT(change_status[0], VLAD_ERR_ARGUMENT);
    CHECK_INT(change_status[1], VLAD_ERR_ARGUMENT);
    CHECK_INT(change_status[2], VLAD_ERR_ARGUMENT);
    CHECK_CONTAINS(change_message, "vlad_set_global: the state is running");
    memset(change_status, 0, sizeof change_status);
}

static void test_change_while_running(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = "change!";
    p.arity = 1;
    p.fn = h_change;
    CHECK_STATUS(S, vlad_register(S, &p), VLAD_OK);
    /* refused: the global is what the program bound, before and after
       the host's attempt, in the same form and the next */
    CHECK_STR(apitest_eval(S, "(define target 1)"
                              "(define (read-twice x) (let* ((a target)"
                              " (z (change! x))) (list a target)))"
                              "(read-twice 0)"), "(1 1)");
    check_refused();
    CHECK_STR(apitest_eval(S, "target"), "1");
    /* inside checkpoint-*j: the strategy is the same all through (the
       result is the one *j gives) */
    char expected[256];
    snprintf(expected, sizeof expected, "%s",
             apitest_eval(S, "(define (g x) (let loop ((i 0) (a x))"
                             " (if (= i 2000) a (loop (+ i 1) "
                             "(if (= i 1000) (* (change! 1) a) "
                             "(* a 1.001)))))) (*j g 1 1)"));
    CHECK_PREFIX(expected, "(");
    CHECK_STR(apitest_eval(S, "(checkpoint-*j g 1 1)"), expected);
    check_refused();
    vlad_close(S);
}

/* The progress callback finds its state in a static (the state does not
   exist yet when its configuration is made). */
static VladState *progress_state;
static int progress_changes;

static void p_change(void *ud, int64_t done, int64_t total)
{
    (void)ud;
    (void)done;
    (void)total;
    if (progress_changes++ == 0) {
        VladValue a = vlad_number(0), r;
        h_change(progress_state, NULL, &a, &r);
    }
}

static void test_change_from_progress(void)
{
    VladConfig c;
    vlad_config_init(&c);
    c.progress = p_change;
    c.checkpoint = "binomial,slots=3,base=10";
    VladState *S = vlad_open(&c);
    CHECK(S != NULL);
    progress_state = S;
    progress_changes = 0;
    char expected[256];
    snprintf(expected, sizeof expected, "%s",
             apitest_eval(S, "(define target 1)"
                             "(define (f x) (let loop ((i 0) (a x))"
                             " (if (= i 30000) (* a target) (loop (+ i 1) "
                             "(* a 1.00001))))) (*j f 1 1)"));
    CHECK_PREFIX(expected, "(");
    CHECK_STR(apitest_eval(S, "(checkpoint-*j f 1 1)"), expected);
    CHECK(progress_changes > 0);
    check_refused();
    /* and afterwards the same calls succeed */
    CHECK_STATUS(S, vlad_set_global(S, "target", vlad_number(2)), VLAD_OK);
    CHECK_STR(apitest_eval(S, "target"), "2");
    CHECK_STATUS(S, vlad_set_checkpoint(S, "bisection,base=1"), VLAD_OK);
    vlad_close(S);
}

int main(void)
{
    test_close_from_host();
    test_close_from_call_and_resume();
    test_close_from_callbacks();
    test_close_in_thread();
    test_change_while_running();
    test_change_from_progress();
    return CHECK_DONE();
}
