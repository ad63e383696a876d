/*
 * tests/api/test-api-state.c -- states, configuration, evaluation, errors,
 * globals, the checkpoint strategy, statistics (include/vlad.h)
 *
 * Covers vlad_config_init, vlad_open (every VladConfig field),
 * vlad_close, vlad_eval_string, vlad_eval_file, vlad_last_error (every
 * status an evaluation can give, every field of VladError),
 * vlad_to_string, vlad_globals, vlad_get_global, vlad_set_global,
 * vlad_set_checkpoint, vlad_get_stats, and several independent states in
 * one process.
 */
/* POSIX and XSI functions (signals, timers, fork, mkdtemp, usleep)
   under -std=c11 */
#define _DEFAULT_SOURCE 1
#define _XOPEN_SOURCE 700

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vlad.h>
#include "apitest.h"

/* ===== callbacks ===== */

typedef struct Sink {
    char text[4096];
    size_t len;
    int writes;
} Sink;

static void sink_write(void *ud, const char *text, size_t len)
{
    Sink *s = ud;
    s->writes++;
    if (s->len + len < sizeof s->text) {
        memcpy(s->text + s->len, text, len);
        s->len += len;
        s->text[s->len] = '\0';
    }
}

static void sink_reset(Sink *s)
{
    s->len = 0;
    s->text[0] = '\0';
    s->writes = 0;
}

typedef struct Source {
    const char *text;
    size_t chunk;       /* at most this many bytes per call */
    int calls;
} Source;

static Source *source_of_sink; /* read's userdata is the config's */

static size_t source_read(void *ud, char *buf, size_t cap)
{
    (void)ud;
    Source *src = source_of_sink;
    size_t n = strlen(src->text);
    if (n > cap)
        n = cap;
    if (n > src->chunk)
        n = src->chunk;
    memcpy(buf, src->text, n);
    src->text += n;
    src->calls++;
    return n;
}

/* ===== helpers ===== */

static char tmpdir[256];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        exit(99);
    }
    fputs(text, f);
    fclose(f);
}

static char *path_in_tmp(const char *name)
{
    static char buf[4][512];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

/* ===== tests ===== */

static void test_config_init(void)
{
    VladConfig c;
    memset(&c, 0xAB, sizeof c);
    vlad_config_init(&c);
    CHECK(c.write == NULL);
    CHECK(c.read == NULL);
    CHECK(c.include_path == NULL);
    CHECK_INT(c.step_limit, 0);
    CHECK_INT(c.echo_results, 0);
    CHECK_INT(c.no_prelude, 0);
    CHECK(c.checkpoint == NULL);
    CHECK_INT(c.heap_limit, 0);
    CHECK(c.progress == NULL);
    CHECK(c.userdata == NULL);
}

static void test_open_close(void)
{
    /* NULL config: the defaults */
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    const VladError *e = vlad_last_error(S);
    CHECK_INT(e->status, VLAD_OK);
    CHECK_STR(apitest_eval(S, "(map (lambda (x) (* x x)) (list 1 2 3))"),
              "(1 4 9)");
    vlad_close(S);

    /* a malformed checkpoint strategy: no state */
    VladConfig c;
    vlad_config_init(&c);
    c.checkpoint = "no-such-strategy";
    CHECK(vlad_open(&c) == NULL);
    c.checkpoint = "binomial,slots=0";
    CHECK(vlad_open(&c) == NULL);
    c.checkpoint = "bisection,base=7";
    S = vlad_open(&c);
    CHECK(S != NULL);
    vlad_close(S);

    /* vlad_close accepts NULL */
    vlad_close(NULL);
    CHECK(1);
}

static void test_eval_string(void)
{
    VladState *S = vlad_open(NULL);
    VladValue v = vlad_number(99);

    CHECK_STATUS(S, vlad_eval_string(S, "(define (sq x) (* x x)) (sq 12)",
                                     "chunk", &v), VLAD_OK);
    CHECK(vlad_is_number(v));
    CHECK_NEAR(vlad_to_number(v), 144, 0);
    CHECK_INT(vlad_last_error(S)->status, VLAD_OK);

    /* out may be NULL; chunkname may be NULL */
    CHECK_STATUS(S, vlad_eval_string(S, "(define y 5)", NULL, NULL), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(sq y)", NULL, &v), VLAD_OK);
    CHECK_NEAR(vlad_to_number(v), 25, 0);

    /* the value of the last top-level expression; () when there is none */
    CHECK_STATUS(S, vlad_eval_string(S, "1 2 (+ 1 2) (define z 4)", "c", &v),
                 VLAD_OK);
    CHECK_NEAR(vlad_to_number(v), 3, 0);
    CHECK_STATUS(S, vlad_eval_string(S, "", "c", &v), VLAD_OK);
    CHECK(vlad_is_nil(v));
    CHECK_STATUS(S, vlad_eval_string(S, "; only a comment\n", "c", &v),
                 VLAD_OK);
    CHECK(vlad_is_nil(v));
    CHECK_STATUS(S, vlad_eval_string(S, "(define w 1)", "c", &v), VLAD_OK);
    CHECK(vlad_is_nil(v));

    /* a later evaluation sees earlier definitions */
    CHECK_STR(apitest_eval(S, "(list y z w)"), "(5 4 1)");

    /* to_string of every kind of value */
    CHECK_STR(apitest_eval(S, "#t"), "#t");
    CHECK_STR(apitest_eval(S, "#f"), "#f");
    CHECK_STR(apitest_eval(S, "'()"), "()");
    CHECK_STR(apitest_eval(S, "(cons 1 2)"), "(1 . 2)");
    CHECK_STR(apitest_eval(S, "0.5"), "0.5");
    CHECK_STR(apitest_eval(S, "sq"), "#<procedure sq>");
    CHECK_PREFIX(apitest_eval(S, "(checkpoint sq 3 0)"), "#<checkpoint");
    vlad_close(S);
}

static void test_errors(void)
{
    VladState *S = vlad_open(NULL);
    VladValue v = vlad_number(1);
    const VladError *e;

    /* run-time error: location, message, backtrace, text; *out is () */
    CHECK_STATUS(S, vlad_eval_string(S, "(define (f x) (car x))\n(f 5)",
                                     "chunk", &v), VLAD_ERR_RUNTIME);
    CHECK(vlad_is_nil(v));
    e = vlad_last_error(S);
    CHECK_INT(e->status, VLAD_ERR_RUNTIME);
    CHECK_STR(e->message, "car: expected a pair, got 5");
    CHECK_STR(e->file, "chunk");
    CHECK_INT(e->line, 1);
    CHECK_INT(e->column, 15);
    CHECK_STR(e->backtrace, "  in car\n"
                            "  in f at chunk:1:15\n"
                            "  in top level at chunk:2:1\n");
    CHECK_STR(e->text, "chunk:1:15: error: car: expected a pair, got 5\n"
                       "  in car\n"
                       "  in f at chunk:1:15\n"
                       "  in top level at chunk:2:1\n");

    /* forms before the error ran; the ones after did not */
    CHECK_STATUS(S, vlad_eval_string(S, "(define a 1) (car 1) (define b 2)",
                                     "c", NULL), VLAD_ERR_RUNTIME);
    CHECK_STR(apitest_eval(S, "a"), "1");
    CHECK_PREFIX(apitest_eval(S, "b"), "ERROR 3: test:1:1: error: unbound");

    /* syntax error: nothing runs */
    CHECK_STATUS(S, vlad_eval_string(S, "(define c 1) )", "syn", &v),
                 VLAD_ERR_SYNTAX);
    e = vlad_last_error(S);
    CHECK_INT(e->status, VLAD_ERR_SYNTAX);
    CHECK_STR(e->file, "syn");
    CHECK_INT(e->line, 1);
    CHECK_INT(e->column, 14);
    CHECK_PREFIX(e->text, "syn:1:14: error: ");
    CHECK_PREFIX(apitest_eval(S, "c"), "ERROR 3");
    /* a form the expander rejects is a syntax error too */
    CHECK_STATUS(S, vlad_eval_string(S, "(if 1 2)", "syn", NULL),
                 VLAD_ERR_SYNTAX);

    /* incomplete: the text ends inside a form (the REPL reads on) */
    CHECK_STATUS(S, vlad_eval_string(S, "(+ 1\n  (* 2", "inc", &v),
                 VLAD_ERR_INCOMPLETE);
    e = vlad_last_error(S);
    CHECK_INT(e->status, VLAD_ERR_INCOMPLETE);
    CHECK_STR(e->file, "inc");
    CHECK_PREFIX(e->text, "inc:");

    /* I/O: a missing file, a missing include */
    CHECK_STATUS(S, vlad_eval_file(S, "/nonexistent/dir/x.vlad", &v),
                 VLAD_ERR_IO);
    CHECK(vlad_is_nil(v));
    e = vlad_last_error(S);
    CHECK_CONTAINS(e->message, "/nonexistent/dir/x.vlad");
    CHECK_STR(e->file, "");
    CHECK_INT(e->line, 0);
    CHECK_INT(e->column, 0);
    CHECK_PREFIX(e->text, "error: ");
    CHECK_STATUS(S, vlad_eval_string(S, "(include \"no-such-file-here\")",
                                     "inc", &v), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(S)->message, "no-such-file-here");
    CHECK_INT(vlad_last_error(S)->line, 1);

    /* applying a non-procedure with vlad_call */
    CHECK_STATUS(S, vlad_call(S, vlad_number(3), vlad_number(1), &v),
                 VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message, "non-procedure");

    /* after an error the state is usable and a success clears the status */
    CHECK_STR(apitest_eval(S, "(+ 40 2)"), "42");
    CHECK_INT(vlad_last_error(S)->status, VLAD_OK);
    vlad_close(S);
}

static void test_eval_file(void)
{
    VladState *S = vlad_open(NULL);
    VladValue v;
    char *main_path = path_in_tmp("main.vlad");
    write_file(path_in_tmp("helper.vlad"), "(define (helper x) (* 10 x))\n");
    write_file(main_path, "(include \"helper\")\n(helper 4)\n(helper 5)\n");
    CHECK_STATUS(S, vlad_eval_file(S, main_path, &v), VLAD_OK);
    CHECK_NEAR(vlad_to_number(v), 50, 0);
    CHECK_STATUS(S, vlad_eval_file(S, main_path, NULL), VLAD_OK);

    /* errors are located in the file */
    char *bad = path_in_tmp("bad.vlad");
    write_file(bad, "(define q 1)\n\n  (car q)\n");
    CHECK_STATUS(S, vlad_eval_file(S, bad, &v), VLAD_ERR_RUNTIME);
    CHECK_STR(vlad_last_error(S)->file, bad);
    CHECK_INT(vlad_last_error(S)->line, 3);
    CHECK_INT(vlad_last_error(S)->column, 3);
    vlad_close(S);
}

static void test_callbacks(void)
{
    Sink out;
    sink_reset(&out);
    Source in = {"1.5 2.25\n-4", 3, 0};
    source_of_sink = &in;
    const char *dirs[] = {tmpdir, NULL};
    write_file(path_in_tmp("incpath.vlad"), "(define (triple x) (* 3 x))\n");

    VladConfig c;
    vlad_config_init(&c);
    c.write = sink_write;
    c.read = source_read;
    c.userdata = &out;
    c.include_path = dirs;
    c.echo_results = 1;
    VladState *S = vlad_open(&c);
    CHECK(S != NULL);

    /* echo: every top-level expression's value is written, not
       definitions; write-real and write go through the same callback */
    VladValue v;
    CHECK_STATUS(S, vlad_eval_string(S, "(define k 2) (+ k 1) (write-real k) "
                                        "(write (list 1 #t))", "cb", &v),
                 VLAD_OK);
    CHECK_STR(out.text, "3\n2\n2\n(1 #t)\n(1 #t)\n");
    CHECK(out.writes >= 1);

    /* read-real reads through the read callback, in small chunks */
    sink_reset(&out);
    CHECK_STR(apitest_eval(S, "(+ (read-real) (read-real))"), "3.75");
    CHECK_STR(apitest_eval(S, "(read-real)"), "-4");
    CHECK(in.calls >= 4);
    CHECK_PREFIX(apitest_eval(S, "(read-real)"),
                 "ERROR 3: test:1:1: error: read-real: end of input");

    /* include finds files in the include path */
    CHECK_STR(apitest_eval(S, "(include \"incpath\") (triple 5)"), "15");

    /* output written before an error is delivered */
    sink_reset(&out);
    CHECK_STATUS(S, vlad_eval_string(S, "(write-real 7) (car 1)", "cb", NULL),
                 VLAD_ERR_RUNTIME);
    CHECK_STR(out.text, "7\n7\n");     /* written, then echoed */
    vlad_close(S);

    /* no_prelude: primitives and the AD operators, no prelude procedures */
    vlad_config_init(&c);
    c.no_prelude = 1;
    S = vlad_open(&c);
    CHECK(S != NULL);
    CHECK_STR(apitest_eval(S, "(+ 1 2)"), "3");
    CHECK_STR(apitest_eval(S, "(j* (lambda (x) (* x x)) 3 1)"), "(9 6)");
    CHECK_PREFIX(apitest_eval(S, "(map car (list (list 1)))"),
                 "ERROR 3: test:1:2: error: unbound variable map");
    CHECK(!vlad_get_global(S, "map", NULL));
    vlad_close(S);

    /* step_limit from the configuration */
    vlad_config_init(&c);
    c.step_limit = 50;
    S = vlad_open(&c);
    CHECK(S != NULL);
    CHECK_PREFIX(apitest_eval(S, "(length (iota 100))"), "ERROR 6");
    CHECK_STR(apitest_eval(S, "(length (iota 5))"), "5");
    vlad_close(S);
}

typedef struct Seen {
    int sq_user, map_prelude, map_user, car_prelude, reserved, j_star;
    int total;
} Seen;

static void see_global(void *ud, const char *name, int user)
{
    Seen *s = ud;
    s->total++;
    if (strcmp(name, "sq") == 0 && user)
        s->sq_user++;
    if (strcmp(name, "map") == 0)
        (*(user ? &s->map_user : &s->map_prelude))++;
    if (strcmp(name, "car") == 0 && !user)
        s->car_prelude++;
    if (strcmp(name, "j*") == 0 && !user)
        s->j_star++;
    if (name[0] == '%')
        s->reserved++;
}

static void test_globals(void)
{
    VladState *S = vlad_open(NULL);
    VladValue v;
    Seen s;

    memset(&s, 0, sizeof s);
    vlad_globals(S, see_global, &s);
    CHECK_INT(s.map_prelude, 1);
    CHECK_INT(s.map_user, 0);
    CHECK_INT(s.car_prelude, 1);
    CHECK_INT(s.j_star, 1);
    CHECK_INT(s.reserved, 0);
    CHECK(s.total > 40);

    /* definitions are user globals; a redefined prelude name too */
    CHECK_STR(apitest_eval(S, "(define (sq x) (* x x)) (define map 5)"), "()");
    memset(&s, 0, sizeof s);
    vlad_globals(S, see_global, &s);
    CHECK_INT(s.sq_user, 1);
    CHECK_INT(s.map_user, 1);
    CHECK_INT(s.map_prelude, 0);

    /* get_global */
    CHECK(vlad_get_global(S, "sq", &v));
    CHECK(vlad_is_procedure(v));
    CHECK(vlad_get_global(S, "sq", NULL));
    CHECK(vlad_get_global(S, "map", &v));
    CHECK_NEAR(vlad_to_number(v), 5, 0);
    CHECK(vlad_get_global(S, "car", &v));
    CHECK(vlad_is_procedure(v));
    v = vlad_number(1);
    CHECK(!vlad_get_global(S, "no-such-global", &v));
    CHECK_NEAR(vlad_to_number(v), 1, 0);   /* untouched */

    /* set_global: a new binding, visible to later code */
    vlad_set_global(S, "limit", vlad_number(7));
    CHECK_STR(apitest_eval(S, "(* limit 2)"), "14");
    CHECK(vlad_get_global(S, "limit", &v));
    CHECK_NEAR(vlad_to_number(v), 7, 0);
    /* set_global replaces a procedure the program already calls (late
       binding) */
    CHECK_STR(apitest_eval(S, "(define (use x) (sq x)) (use 3)"), "9");
    VladValue cube;
    CHECK_STATUS(S, vlad_eval_string(S, "(lambda (x) (* x x x))", "c", &cube),
                 VLAD_OK);
    vlad_set_global(S, "sq", cube);
    CHECK_STR(apitest_eval(S, "(use 3)"), "27");
    /* rebinding an inlined primitive is seen by compiled code */
    VladValue minus;
    CHECK(vlad_get_global(S, "-", &minus));
    CHECK_STR(apitest_eval(S, "(define (add a b) (+ a b)) (add 5 3)"), "8");
    vlad_set_global(S, "+", minus);
    CHECK_STR(apitest_eval(S, "(add 5 3)"), "2");
    /* set_global of a prelude name does not change the prelude's own
       procedures, which call their private aliases */
    vlad_set_global(S, "car", vlad_number(0));
    CHECK_STR(apitest_eval(S, "(cadr (list 1 2))"), "2");
    memset(&s, 0, sizeof s);
    vlad_globals(S, see_global, &s);
    CHECK_INT(s.car_prelude, 0);
    vlad_close(S);
}

static void test_checkpoint_strategy(void)
{
    VladState *S = vlad_open(NULL);
    const char *prog =
        "(define (g x) (let loop ((i 0) (y x))"
        "  (if (= i 500) y (loop (+ i 1) (sin y)))))";
    CHECK_STR(apitest_eval(S, prog), "()");
    char ref[256];
    snprintf(ref, sizeof ref, "%s", apitest_eval(S, "(*j g 1 1)"));

    CHECK_STATUS(S, vlad_set_checkpoint(S, "bisection,base=10"), VLAD_OK);
    VladStats before, after;
    vlad_get_stats(S, &before);
    CHECK_STR(apitest_eval(S, "(checkpoint-*j g 1 1)"), ref);
    vlad_get_stats(S, &after);
    CHECK_INT(after.checkpoint.calls - before.checkpoint.calls, 1);
    CHECK(after.checkpoint.base_cases - before.checkpoint.base_cases >= 32);
    CHECK(after.checkpoint.advanced_steps > before.checkpoint.advanced_steps);

    /* malformed specs change nothing */
    CHECK_STATUS(S, vlad_set_checkpoint(S, "bisection,base=0"),
                 VLAD_ERR_ARGUMENT);
    CHECK_INT(vlad_last_error(S)->status, VLAD_ERR_ARGUMENT);
    CHECK(strlen(vlad_last_error(S)->message) > 0);
    CHECK_PREFIX(vlad_last_error(S)->text, "error: ");
    CHECK_STATUS(S, vlad_set_checkpoint(S, "nonsense"), VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, vlad_set_checkpoint(S, "binomial,slots=x"),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, vlad_set_checkpoint(S, "binomial,colour=red"),
                 VLAD_ERR_ARGUMENT);
    vlad_get_stats(S, &before);
    CHECK_STR(apitest_eval(S, "(checkpoint-*j g 1 1)"), ref);
    vlad_get_stats(S, &after);
    CHECK(after.checkpoint.base_cases - before.checkpoint.base_cases >= 32);

    /* binomial with slots; then NULL and "" restore the default (base
       1000: this run is a single base case) */
    CHECK_STATUS(S, vlad_set_checkpoint(S, "binomial,slots=3,base=20"),
                 VLAD_OK);
    vlad_get_stats(S, &before);
    CHECK_STR(apitest_eval(S, "(checkpoint-*j g 1 1)"), ref);
    vlad_get_stats(S, &after);
    CHECK(after.checkpoint.base_cases > before.checkpoint.base_cases);
    for (int k = 0; k < 2; k++) {
        CHECK_STATUS(S, vlad_set_checkpoint(S, k ? "" : NULL), VLAD_OK);
        vlad_get_stats(S, &before);
        CHECK_STR(apitest_eval(S, "(checkpoint-*j g 1 1)"), ref);
        vlad_get_stats(S, &after);
        CHECK_INT(after.checkpoint.base_cases - before.checkpoint.base_cases,
                  1);
        CHECK_INT(after.checkpoint.plan_budget, 32 << 20);
    }

    /* a budget: the plan is in the stats, its predicted re-executed steps
       are what happened, its predicted peak within the budget; a budget
       below the minimum is an error naming it, and the state goes on */
    CHECK_STATUS(S, vlad_set_checkpoint(S, "binomial,budget=4k"), VLAD_OK);
    vlad_get_stats(S, &before);
    CHECK_STR(apitest_eval(S, "(checkpoint-*j g 1 1)"), ref);
    vlad_get_stats(S, &after);
    const VladCpjStats *c = &after.checkpoint;
    CHECK_INT(c->plan_budget, 4096);
    CHECK(c->plan_slots >= 1);
    CHECK(c->plan_base >= 1 && c->plan_base < 502);
    CHECK(c->pilot_steps > before.checkpoint.pilot_steps);
    CHECK(c->plan_snapshot_bytes > 0 && c->plan_step_bytes > 0);
    CHECK(c->plan_peak_bytes > 0 && c->plan_peak_bytes <= 4096);
    CHECK_INT(c->last_reexec_steps, c->plan_reexec_steps);
    CHECK_INT(c->last_reexec_steps,
              c->advanced_steps - before.checkpoint.advanced_steps);
    CHECK(c->last_peak_bytes > 0);
    CHECK(c->base_cases - before.checkpoint.base_cases > 1);
    CHECK_STATUS(S, vlad_set_checkpoint(S, "binomial,budget=16"), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j g 1 1)", "<t>", NULL),
                 VLAD_ERR_RUNTIME);
    CHECK(strstr(vlad_last_error(S)->message, "minimum") != NULL);
    CHECK_STATUS(S, vlad_set_checkpoint(S, "binomial,slots=2,budget=1M"),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, vlad_set_checkpoint(S, "binomial,budget=1G"), VLAD_OK);
    CHECK_STR(apitest_eval(S, "(checkpoint-*j g 1 1)"), ref);
    vlad_close(S);
}

static void test_stats(void)
{
    VladState *S = vlad_open(NULL);
    VladStats s;
    memset(&s, 0xFF, sizeof s);
    vlad_get_stats(S, &s);
    CHECK_INT(s.steps_total, 0);           /* the prelude does not count */
    CHECK(s.heap_bytes > 0);
    CHECK(s.peak_heap_bytes >= s.heap_bytes);
    CHECK_INT(s.tape_nodes, 0);
    CHECK_INT(s.checkpoint.calls, 0);

    /* (sum-to 100) takes 101 steps (README) */
    CHECK_STR(apitest_eval(S, "(define (sum-to n) (if (zero? n) 0 "
                              "(+ n (sum-to (- n 1)))))"), "()");
    CHECK_STR(apitest_eval(S, "(sum-to 100)"), "5050");
    vlad_get_stats(S, &s);
    CHECK_INT(s.steps_last, 101);
    CHECK_INT(s.steps_total, 101);
    CHECK_STR(apitest_eval(S, "(sum-to 100) (sum-to 10)"), "55");
    vlad_get_stats(S, &s);
    CHECK_INT(s.steps_last, 101 + 11);
    CHECK_INT(s.steps_total, 101 + 101 + 11);
    CHECK(s.peak_stack_bytes > 0);

    /* the tape of *j */
    CHECK_STR(apitest_eval(S, "(*j (lambda (x) (* x (sin x))) 1 1)"),
              "(0.8414709848078965 1.3817732906760363)");
    vlad_get_stats(S, &s);
    CHECK(s.tape_nodes >= 2);
    CHECK(s.tape_bytes > 0);
    CHECK(s.peak_tape_nodes >= 2);
    CHECK(s.peak_tape_nodes <= s.tape_nodes);

    /* a step-limited evaluation counts the steps it took */
    vlad_set_step_limit(S, 30);
    int64_t total0 = s.steps_total;
    CHECK_PREFIX(apitest_eval(S, "(sum-to 100)"), "ERROR 6");
    vlad_get_stats(S, &s);
    CHECK_INT(s.steps_total - total0, 30);
    /* and so does steps_last, for the failed call */
    CHECK_INT(s.steps_last, 30);
    /* a failed call that took no step: 0 */
    CHECK_PREFIX(apitest_eval(S, "(+ 1"), "ERROR 2");
    vlad_get_stats(S, &s);
    CHECK_INT(s.steps_last, 0);
    vlad_close(S);
}

/* Several states: separate globals, limits, strategies, errors and
   output; closing one leaves the others working. */
static void test_independent_states(void)
{
    enum { N = 4 };
    VladState *S[N];
    Sink out[N];
    for (int k = 0; k < N; k++) {
        VladConfig c;
        vlad_config_init(&c);
        sink_reset(&out[k]);
        c.write = sink_write;
        c.userdata = &out[k];
        c.step_limit = k == 1 ? 100 : 0;
        S[k] = vlad_open(&c);
        CHECK(S[k] != NULL);
    }
    for (int k = 0; k < N; k++) {
        char src[128];
        snprintf(src, sizeof src, "(define who %d) (define (+ a b) (* a b))"
                                  " (write-real who)", k);
        CHECK_STATUS(S[k], vlad_eval_string(S[k], src, "s", NULL), VLAD_OK);
    }
    /* state 3 keeps the built-in + */
    CHECK_STR(apitest_eval(S[3], "(define + (lambda (p) 0)) (+ 2 3)"), "0");
    for (int k = 0; k < N; k++) {
        char expect[16];
        snprintf(expect, sizeof expect, "%d\n", k);
        CHECK_STR(out[k].text, expect);
        VladValue v;
        CHECK(vlad_get_global(S[k], "who", &v));
        CHECK_NEAR(vlad_to_number(v), k, 0);
    }
    CHECK_STR(apitest_eval(S[0], "(+ 2 3)"), "6");
    CHECK_STR(apitest_eval(S[2], "(+ 2 3)"), "6");
    /* the step limit is state 1's alone */
    CHECK_PREFIX(apitest_eval(S[1], "(length (iota 1000))"), "ERROR 6");
    CHECK_STR(apitest_eval(S[0], "(length (iota 1000))"), "1000");
    /* an error in one state is not another's */
    CHECK_PREFIX(apitest_eval(S[2], "(car 1)"), "ERROR 3");
    CHECK_INT(vlad_last_error(S[0])->status, VLAD_OK);
    CHECK_INT(vlad_last_error(S[2])->status, VLAD_ERR_RUNTIME);
    /* a strategy is one state's */
    CHECK_STATUS(S[0], vlad_set_checkpoint(S[0], "bisection,base=5"), VLAD_OK);
    VladStats a0, a1, b0, b1;
    const char *g = "(define (g x) (let loop ((i 0) (y x)) (if (= i 100) y "
                    "(loop (- i -1) (sin y))))) (checkpoint-*j g 1 1)";
    vlad_get_stats(S[0], &a0);
    vlad_get_stats(S[2], &b0);
    CHECK_PREFIX(apitest_eval(S[0], g), "(0.16");
    CHECK_PREFIX(apitest_eval(S[2], g), "(0.16");
    vlad_get_stats(S[0], &a1);
    vlad_get_stats(S[2], &b1);
    CHECK(a1.checkpoint.base_cases - a0.checkpoint.base_cases > 1);
    CHECK_INT(b1.checkpoint.base_cases - b0.checkpoint.base_cases, 1);
    /* closing some; the others go on; opening more */
    vlad_close(S[1]);
    vlad_close(S[3]);
    CHECK_STR(apitest_eval(S[0], "who"), "0");
    CHECK_STR(apitest_eval(S[2], "who"), "2");
    VladState *T = vlad_open(NULL);
    CHECK_PREFIX(apitest_eval(T, "who"), "ERROR 3");
    CHECK_STR(apitest_eval(T, "(+ 2 3)"), "5");
    vlad_close(T);
    vlad_close(S[0]);
    CHECK_STR(apitest_eval(S[2], "(+ who who)"), "4");
    vlad_close(S[2]);
}

/* A state outside mpiexec is rank 0 of 1 (vlad_mpi_init joins nothing);
   its messages to itself arrive in order; vlad_mpi_abort returns. */
static void test_mpi_one_rank(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    CHECK_INT(vlad_mpi_init(S), VLAD_OK);
    CHECK_INT(vlad_mpi_rank(S), 0);
    CHECK_INT(vlad_mpi_size(S), 1);
    VladValue v;
    CHECK_INT(vlad_eval_string(S, "(mpi-send 0 1) (mpi-send 0 2) "
                               "(- (mpi-recv 0) (* 10 (mpi-recv 0)))",
                               "<mpi>", &v), VLAD_OK);
    CHECK_NEAR(vlad_to_number(v), -19, 0);
    CHECK_INT(vlad_eval_string(S, "(mpi-recv 0)", "<mpi>", &v),
              VLAD_ERR_RUNTIME);
    vlad_mpi_abort(S, 1);
    vlad_close(S);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/vlad-api-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 99;
    }
    test_config_init();
    test_open_close();
    test_eval_string();
    test_mpi_one_rank();
    test_errors();
    test_eval_file();
    test_callbacks();
    test_globals();
    test_checkpoint_strategy();
    test_stats();
    test_independent_states();
    const char *names[] = {"main.vlad", "helper.vlad", "bad.vlad",
                           "incpath.vlad"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        unlink(path_in_tmp(names[k]));
    rmdir(tmpdir);
    return CHECK_DONE();
}
