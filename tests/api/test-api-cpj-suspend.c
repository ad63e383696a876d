/*
 * tests/api/test-api-cpj-suspend.c -- a checkpoint-*j suspended in its
 * reversal finishes as it would have, whatever happens meanwhile
 * (issue 31: W4, W5)
 *
 * checkpoint-*j's steps beyond its first run are not counted (vm/exec/vm.c,
 * %cpj-hide), so no step limit suspends it in its reversal: an interrupt
 * does.  Under each of five strategies, a host interrupts
 * (checkpoint-*j h 0.4 1) from the progress callback at the 1st, 3rd and
 * a middle report of the reversal (base cases), and the suspended
 * computation must give the uninterrupted result, bit for bit:
 *   - resumed twice;
 *   - resumed after the strategy changed (vlad_set_checkpoint), under
 *     each of the others (W5: the run keeps the strategy it started with);
 *   - resumed after g, which h calls, was defined again with the same
 *     text (W4); and with other text, an error that says why;
 *   - saved to a buffer and loaded into a fresh state of another
 *     strategy, resumed there (W5 across processes), and the buffer
 *     loaded a second time, both resumed (W4: loading defines the saved
 *     globals again);
 *   - its steps: (primops resume u) resumed at the top level and inside a
 *     primops of a primops are the same number.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vlad.h>
#include "apitest.h"

static const char *gdef =
    "(define (g x) (let loop ((i 0) (a x))"
    " (if (= i 6000) a (loop (+ i 1) (+ a (* 0.001 (sin a)))))))";
static const char *gother =
    "(define (g x) (let loop ((i 0) (a x))"
    " (if (= i 6000) a (loop (+ i 1) (+ a (* 0.002 (sin a)))))))";
static const char *hdef = "(define (h x) (* x (g x)))";

static const char *const specs[] = {
    "bisection,base=300", "binomial,slots=3,base=250",
    "binomial,slots=8,base=100", "binomial,budget=2k",
    "binomial,budget=32k,base=200",
};
#define NSPECS (sizeof specs / sizeof specs[0])

typedef struct Interrupter {
    VladState *S;
    long reversal;          /* reports of the reversal so far */
    long at;                /* interrupt at this one (-1: never) */
} Interrupter;

static void progress(void *ud, int64_t done, int64_t total)
{
    Interrupter *in = ud;
    (void)done;
    if (total > 0 && in->reversal++ == in->at)
        vlad_interrupt(in->S);
}

static VladState *open_with(const char *spec, Interrupter *in)
{
    VladConfig c;
    vlad_config_init(&c);
    c.checkpoint = spec;
    if (in != NULL) {
        c.progress = progress;
        c.userdata = in;
    }
    VladState *S = vlad_open(&c);
    CHECK(S != NULL);
    if (S == NULL)
        return NULL;
    if (in != NULL)
        in->S = S;
    CHECK_STATUS(S, vlad_eval_string(S, gdef, "<g>", NULL), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, hdef, "<h>", NULL), VLAD_OK);
    return S;
}

/* (resume u) in S: its text, or "" on failure. */
static const char *resumed(VladState *S, VladValue u, char *buf, size_t n)
{
    VladValue r;
    buf[0] = '\0';
    VladStatus st = vlad_resume(S, u, &r);
    CHECK_STATUS(S, st, VLAD_OK);
    if (st == VLAD_OK)
        snprintf(buf, n, "%s", vlad_to_string(S, r));
    return buf;
}

static void suspended(size_t sp, long at, const char *want)
{
    Interrupter in = {NULL, 0, at};
    VladState *S = open_with(specs[sp], &in);
    if (S == NULL)
        return;
    VladValue r, u;
    VladStatus st = vlad_eval_string(S, "(checkpoint-*j h 0.4 1)", "<t>",
                                     &r);
    CHECK_INT(st, VLAD_ERR_INTERRUPTED);
    if (st != VLAD_ERR_INTERRUPTED || !vlad_interrupted(S, &u)) {
        printf("  (%s, report %ld: not interrupted)\n", specs[sp], at);
        vlad_close(S);
        return;
    }
    in.at = -1;
    char buf[256];
    CHECK_STR(resumed(S, u, buf, sizeof buf), want);
    CHECK_STR(resumed(S, u, buf, sizeof buf), want);

    /* its steps from here, at the top level and two primops deep */
    CHECK_STATUS(S, vlad_set_global(S, "u", u), VLAD_OK);
    VladValue a, b;
    CHECK_STATUS(S, vlad_eval_string(S, "(cadr (primops resume u))", "<t>",
                                     &a), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S,
                 "(- (cadr (primops (lambda (v) (cadr (primops resume v)))"
                 " u)) 3)", "<t>", &b), VLAD_OK);
    CHECK_STR(vlad_to_string(S, a), vlad_to_string(S, b));

    /* the buffer, before anything changes */
    void *data = NULL;
    size_t len = 0;
    CHECK_STATUS(S, vlad_checkpoint_save_buffer(S, u, &data, &len), VLAD_OK);

    /* the strategy changed, then g defined again with the same text */
    for (size_t o = 0; o < NSPECS; o++) {
        CHECK_STATUS(S, vlad_set_checkpoint(S, specs[o]), VLAD_OK);
        CHECK_STR(resumed(S, u, buf, sizeof buf), want);
    }
    CHECK_STATUS(S, vlad_eval_string(S, gdef, "<g again>", NULL), VLAD_OK);
    CHECK_STR(resumed(S, u, buf, sizeof buf), want);
    /* with other code: the states held ran the old loop, re-executions
       run the new one; fix and continue cannot mix them, and says so */
    CHECK_STATUS(S, vlad_eval_string(S, gother, "<g other>", NULL),
                 VLAD_OK);
    CHECK_INT(vlad_resume(S, u, &r), VLAD_ERR_RUNTIME);
    const char *msg = vlad_last_error(S)->message;
    CHECK_CONTAINS(msg != NULL ? msg : "",
                   "holds loop where the cotangent holds a loop of other "
                   "code (was a definition changed while a computation "
                   "that runs it was suspended?)");
    vlad_close(S);

    /* in a fresh state of another strategy, loaded twice */
    if (data == NULL)
        return;
    VladState *T = open_with(specs[(sp + 1) % NSPECS], NULL);
    VladValue u1, u2;
    if (T != NULL) {
        CHECK_STATUS(T, vlad_checkpoint_load_buffer(T, data, len, &u1),
                     VLAD_OK);
        CHECK_STR(resumed(T, u1, buf, sizeof buf), want);
        CHECK_STATUS(T, vlad_checkpoint_load_buffer(T, data, len, &u2),
                     VLAD_OK);
        CHECK_STR(resumed(T, u2, buf, sizeof buf), want);
        CHECK_STR(resumed(T, u1, buf, sizeof buf), want);
        vlad_close(T);
    }
    free(data);
}

int main(void)
{
    for (size_t sp = 0; sp < NSPECS; sp++) {
        /* the uninterrupted result, and how many reports its reversal
           makes */
        Interrupter count = {NULL, 0, -1};
        VladState *S = open_with(specs[sp], &count);
        if (S == NULL)
            continue;
        VladValue r;
        CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j h 0.4 1)",
                                         "<t>", &r), VLAD_OK);
        char want[256];
        snprintf(want, sizeof want, "%s", vlad_to_string(S, r));
        vlad_close(S);
        CHECK(count.reversal >= 3);
        const long at[] = {0, 2, count.reversal / 2};
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
            suspended(sp, at[k], want);
    }
    return CHECK_DONE();
}
