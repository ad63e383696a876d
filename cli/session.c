/*
 * cli/session.c -- one REPL session: evaluations, statistics, suspension
 *
 * Every evaluation the REPL makes (an input, ,load, ,time, ,resume) goes
 * through run() here: Ctrl-C is armed only while it runs, the statistics
 * are snapshotted before and after (for ,stats), and an interrupted
 * evaluation is kept as a checkpoint that ,resume continues.
 */
#include "config.h"
#include "cli/session.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include "cli/input.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/signals.h"

double vl_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum { RUN_EVAL, RUN_LOAD, RUN_RESUME };

typedef struct Run {
    int kind;
    const char *text;       /* source text (RUN_EVAL) or path (RUN_LOAD) */
    const char *chunk;
    VladValue value;        /* the result (RUN_RESUME) */
} Run;

/* The position of the outermost "in top level at FILE:LINE:COL" line of
   a backtrace, else the error's own position. */
static void toplevel_position(const VladError *e, int *line, int *column)
{
    *line = e->line;
    *column = e->column;
    const char *key = "in top level at ";
    const char *p = e->backtrace, *last = NULL;
    while (p != NULL && (p = strstr(p, key)) != NULL) {
        last = p + strlen(key);
        p = last;
    }
    if (last == NULL)
        return;
    const char *eol = strchr(last, '\n');
    if (eol == NULL)
        eol = last + strlen(last);
    /* FILE may hold ':', so read LINE:COL from the end */
    const char *c2 = eol;
    while (c2 > last && c2[-1] != ':')
        c2--;
    const char *c1 = c2 > last ? c2 - 1 : last;
    while (c1 > last && c1[-1] != ':')
        c1--;
    int l, c;
    if (c1 > last && sscanf(c1, "%d:%d", &l, &c) == 2) {
        *line = l;
        *column = c;
    }
}

static void suspend(VlSession *s, const Run *r)
{
    VladValue u;
    if (!vlad_interrupted(s->S, &u))
        return;
    int define = s->suspended && s->suspended_define;
    if (r->kind == RUN_EVAL) {
        int line, column;
        toplevel_position(vlad_last_error(s->S), &line, &column);
        define = vl_input_is_definition(vl_input_form_at(r->text, line,
                                                         column));
    } else if (r->kind == RUN_LOAD) {
        define = 0;     /* the file's text is not at hand: print the value */
    }
    s->suspended = 1;
    s->checkpoint_value = u;
    s->suspended_define = define;
    vlad_set_global(s->S, VL_SUSPENDED_NAME, u);
    fprintf(stderr, "suspended as %s: ,resume continues it, ,drop "
                    "forgets it\n", VL_SUSPENDED_NAME);
}

/* Output of VLAD code (VladConfig.write): standard output, unless the
   REPL is evaluating something of its own. */
static int muted;

void vl_session_write(void *userdata, const char *text, size_t len)
{
    (void)userdata;
    if (!muted)
        vl_output_write(text, len);
}

/* A procedure that takes n steps, to consume an interrupt left pending by
   a Ctrl-C that came too late to stop the evaluation it was meant for.
   libvlad drops a request that arrives during an evaluation which then
   returns without polling it, but keeps one that arrives after the
   evaluation returned (for the next one): a Ctrl-C between the return
   and vl_signals_disarm.  The window is short but real, and the library
   has no call to withdraw a request, so the CLI still spins it off. */
static const char spin_source[] =
    "(lambda (n) (let loop ((i 0)) (if (< i n) (loop (+ i 1)) i)))";
#define SPIN_STEPS 10000.0      /* > the interrupt poll interval, 4096 */

void vl_session_init(VlSession *s)
{
    muted = 1;
    s->have_spin = vlad_eval_string(s->S, spin_source, "<repl>", &s->spin)
                   == VLAD_OK;
    muted = 0;
}

static void consume_interrupt(VlSession *s)
{
    if (!s->have_spin)
        return;
    muted = 1;
    vlad_call(s->S, s->spin, vlad_number(SPIN_STEPS), NULL);
    muted = 0;
}

static VladStatus run(VlSession *s, Run *r, int flags)
{
    VladState *S = s->S;
    VladStats before;
    vlad_get_stats(S, &before);
    double t0 = vl_now_seconds();
    vl_signals_arm(S);
    VladStatus st;
    switch (r->kind) {
    case RUN_EVAL:
        st = vlad_eval_string(S, r->text, r->chunk, NULL);
        break;
    case RUN_LOAD:
        st = vlad_eval_file(S, r->text, NULL);
        break;
    default:
        st = vlad_resume(S, s->checkpoint_value, &r->value);
        break;
    }
    int hit = vl_signals_disarm();
    double t1 = vl_now_seconds();
    vl_progress_end();
    if (st == VLAD_ERR_INCOMPLETE && (flags & VL_EVAL_QUIET_INCOMPLETE)) {
        if (hit) {
            /* a Ctrl-C just after Enter on an unfinished form: for the
               REPL, as if it had come at the continuation prompt */
            consume_interrupt(s);
            s->incomplete_interrupted = 1;
        }
        return st;
    }
    s->have_last = 1;
    s->before = before;
    vlad_get_stats(S, &s->after);
    s->seconds = t1 - t0;
    if (r->kind == RUN_RESUME && st != VLAD_ERR_INTERRUPTED) {
        int define = s->suspended_define;
        vl_session_drop(s);
        if (st == VLAD_OK && !define)
            printf("%s\n", vlad_to_string(S, r->value));
    }
    fflush(stdout);
    if (st != VLAD_OK && vl_output_error() != 0) {
        /* the write error stopped it: the REPL ends (vl_repl_run) and
           vlad says "write error" */
    } else if (st != VLAD_OK) {
        if (st == VLAD_ERR_INTERRUPTED)
            fputc('\n', stderr);
        fputs(vlad_last_error(S)->text, stderr);
        if (st == VLAD_ERR_INTERRUPTED)
            suspend(s, r);
        fflush(stderr);
    }
    if (hit)
        consume_interrupt(s);
    return st;
}

VladStatus vl_session_eval(VlSession *s, const char *src, const char *chunk,
                           int flags)
{
    Run r = {RUN_EVAL, src, chunk, {{0, 0}}};
    return run(s, &r, flags);
}

VladStatus vl_session_load(VlSession *s, const char *path)
{
    Run r = {RUN_LOAD, path, path, {{0, 0}}};
    return run(s, &r, 0);
}

VladStatus vl_session_resume(VlSession *s)
{
    Run r = {RUN_RESUME, NULL, NULL, {{0, 0}}};
    return run(s, &r, 0);
}

void vl_session_drop(VlSession *s)
{
    s->suspended = 0;
    s->suspended_define = 0;
    memset(&s->checkpoint_value, 0, sizeof s->checkpoint_value);
}
