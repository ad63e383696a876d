/*
 * tests/api/test-api-progress.c -- the progress callback
 * (include/vlad.h: VladConfig.progress)
 *
 * A checkpoint-*j at the top of an evaluation reports its first run
 * (total 0, 'done' the steps counted so far, growing) and then its
 * reverse sweep (total its primal steps, as VladCpjStats counts them,
 * 'done' growing to total); a nested checkpoint-*j reports nothing of its
 * own; code without checkpoint-*j reports nothing.
 *
 * Under a budget the first run goes in chunks (vm/cpj/cpjfirst.c) whose ends
 * report progress from inside the driver's primitive: a host that calls
 * vlad_interrupt from the callback at the 1st, 7th, 40th, 90th report
 * (in the first chunks, after the kept states have been thinned, in the
 * reverse sweep) gets a checkpoint that resumes -- twice -- to *j's
 * result, bit for bit.
 */
#include <stdint.h>
#include <stdio.h>
#include <vlad.h>
#include "apitest.h"

#define MAX_REPORTS 100000

typedef struct Reports {
    long n;                             /* reports received */
    int64_t done[MAX_REPORTS], total[MAX_REPORTS];
} Reports;

static Reports reports;

/* f takes about 3 steps a turn, n turns. */
static const char *prog =
    "(define (f n) (lambda (x) (let loop ((i 0) (y x)) "
    "  (if (= i n) y (loop (+ i 1) (+ y (* 1e-6 (sin y))))))))";

static VladState *interrupt_state;
static long interrupt_at = -1;      /* the report to interrupt at */

static void record_and_interrupt(void *ud, int64_t done, int64_t total)
{
    Reports *r = ud;
    (void)done, (void)total;
    if (r->n++ == interrupt_at)
        vlad_interrupt(interrupt_state);
}

/* Interrupt (checkpoint-*j (f 70000) 1 1) under a budget at report 'at',
   resume the interrupted computation twice: both give 'want'. */
static void check_interrupted(long at, const char *want)
{
    VladConfig c;
    vlad_config_init(&c);
    c.progress = record_and_interrupt;
    c.userdata = &reports;
    c.checkpoint = "binomial,budget=64k";
    VladState *S = vlad_open(&c);
    CHECK(S != NULL);
    if (S == NULL)
        return;
    interrupt_state = S;
    interrupt_at = at;
    reports.n = 0;
    CHECK_STATUS(S, vlad_eval_string(S, prog, "<prog>", NULL), VLAD_OK);
    VladValue r, u;
    VladStatus st = vlad_eval_string(S, "(checkpoint-*j (f 70000) 1 1)",
                                     "<t>", &r);
    CHECK_INT(st, VLAD_ERR_INTERRUPTED);
    if (st == VLAD_ERR_INTERRUPTED && vlad_interrupted(S, &u)) {
        interrupt_at = -1;
        CHECK_STATUS(S, vlad_resume(S, u, &r), VLAD_OK);
        CHECK_STR(vlad_to_string(S, r), want);
        CHECK_STATUS(S, vlad_resume(S, u, &r), VLAD_OK);
        CHECK_STR(vlad_to_string(S, r), want);
    } else {
        CHECK(0);
    }
    vlad_close(S);
}

static void record(void *ud, int64_t done, int64_t total)
{
    Reports *r = ud;
    if (r->n < MAX_REPORTS) {
        r->done[r->n] = done;
        r->total[r->n] = total;
    }
    r->n++;
}

/* Check the reports of one evaluation: counting, then the sweep of
   'primal' steps. */
static void check_phases(int64_t primal)
{
    long counting = 0, k = 0;
    CHECK(reports.n > 0 && reports.n < MAX_REPORTS);
    for (; k < reports.n && reports.total[k] == 0; k++) {
        CHECK(reports.done[k] > 0 && reports.done[k] <= primal);
        if (k > 0)
            CHECK(reports.done[k] > reports.done[k - 1]);
        counting++;
    }
    CHECK(counting >= 2);       /* > 2 polls of 4096 steps */
    CHECK(k < reports.n);       /* then the sweep */
    for (long j = k; j < reports.n; j++) {
        CHECK_INT(reports.total[j], primal);
        if (j > k)
            CHECK(reports.done[j] > reports.done[j - 1]);
    }
    CHECK_INT(reports.done[reports.n - 1], primal);
}

int main(void)
{
    VladConfig c;
    vlad_config_init(&c);
    c.progress = record;
    c.userdata = &reports;
    VladState *S = vlad_open(&c);
    CHECK(S != NULL);
    CHECK_STATUS(S, vlad_eval_string(S, prog, "<prog>", NULL), VLAD_OK);

    /* no checkpoint-*j: no report */
    reports.n = 0;
    CHECK_STATUS(S, vlad_eval_string(S, "((f 50000) 1)", "<t>", NULL),
                 VLAD_OK);
    CHECK_INT(reports.n, 0);

    VladStats before, after;
    vlad_get_stats(S, &before);
    reports.n = 0;
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j (f 50000) 1 1)",
                                     "<t>", NULL), VLAD_OK);
    vlad_get_stats(S, &after);
    CHECK_INT(after.checkpoint.calls - before.checkpoint.calls, 1);
    check_phases(after.checkpoint.primal_steps
                 - before.checkpoint.primal_steps);

    /* nested: the outer one's reports only (its primal steps are the
       first of the two runs counted) */
    vlad_get_stats(S, &before);
    reports.n = 0;
    CHECK_STATUS(S, vlad_eval_string(S,
                 "(checkpoint-*j (lambda (x) (car (checkpoint-*j (f 20000) "
                 "x 1))) 1 1)", "<t>", NULL), VLAD_OK);
    vlad_get_stats(S, &after);
    CHECK(after.checkpoint.calls - before.checkpoint.calls >= 2);
    long k = 0;
    while (k < reports.n && reports.total[k] == 0)
        k++;
    CHECK(k < reports.n);
    if (k < reports.n)
        check_phases(reports.total[k]);

    /* interrupted from the callback, in every phase, resumed twice */
    VladValue ref;
    CHECK_STATUS(S, vlad_eval_string(S, "(*j (f 70000) 1 1)", "<t>", &ref),
                 VLAD_OK);
    char want[256];
    snprintf(want, sizeof want, "%s", vlad_to_string(S, ref));
    vlad_close(S);
    const long at[] = {0, 6, 39, 89};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        check_interrupted(at[i], want);
    return CHECK_DONE();
}
