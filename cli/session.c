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

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/input.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/signals.h"

double vl_session_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum { RUN_EVAL, RUN_LOAD, RUN_LOAD_REST, RUN_RESUME };

typedef struct Run {
    int kind;               /* RUN_EVAL ... RUN_RESUME */
    const char *text;       /* source text (RUN_EVAL, RUN_LOAD_REST) or
                               path (RUN_LOAD) */
    const char *chunk;      /* the name in error messages (a path) */
    VladValue value;        /* the result (RUN_EVAL, RUN_RESUME) */
    char *source;           /* RUN_LOAD(_REST): the file's whole text, or
                               NULL; suspend() may take it */
} Run;

/* The position of the outermost "in top level at FILE:LINE:COL" line of
   a backtrace, else the error's own position; '*file' (of '*flen' bytes)
   is its FILE. */
static void toplevel_position(const VladError *e, int *line, int *column,
                              const char **file, size_t *flen)
{
    *line = e->line;
    *column = e->column;
    *file = e->file;
    *flen = strlen(e->file);
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
        *file = last;
        *flen = (size_t)(c1 - 1 - last);
    }
}

/* The whole text of the file at 'path', or NULL (unreadable, or holding a
   NUL byte, which vlad_eval_string would take for its end). */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 8192, n = 0;
    char *buf = malloc(cap + 1);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *nb = realloc(buf, cap * 2 + 1);
        if (nb == NULL) {
            free(buf);
            buf = NULL;
        } else {
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (buf != NULL && (bad || memchr(buf, '\0', n) != NULL)) {
        free(buf);
        buf = NULL;
    }
    if (buf != NULL)
        buf[n] = '\0';
    return buf;
}

/* The line of the offset 'at' of 'text'. */
static int line_of(const char *text, size_t at)
{
    int line = 1;
    for (size_t j = 0; j < at && text[j] != '\0'; j++)
        line += text[j] == '\n';
    return line;
}

static void forget_load(VlSession *s)
{
    free(s->load_path);
    free(s->load_text);
    s->load_path = NULL;
    s->load_text = NULL;
}

static void forget_suspension(VlSession *s)
{
    s->suspended = 0;
    s->suspended_define = 0;
    memset(&s->checkpoint_value, 0, sizeof s->checkpoint_value);
    forget_load(s);
}

/* The forms of a ,load after the suspended one, when they were not run:
   say so. */
static void report_skipped(VlSession *s)
{
    if (s->load_text != NULL && s->load_next != SIZE_MAX)
        fprintf(stderr, "the rest of %s (from line %d) was not run\n",
                s->load_path, line_of(s->load_text, s->load_next));
}

static void suspend(VlSession *s, Run *r)
{
    VladValue u;
    if (!vlad_interrupted(s->S, &u))
        return;
    int define = s->suspended && s->suspended_define;
    int line, column;
    const char *file;
    size_t flen;
    toplevel_position(vlad_last_error(s->S), &line, &column, &file, &flen);
    if (r->kind == RUN_EVAL) {
        forget_load(s);
        define = vl_input_is_definition(vl_input_form_at(r->text, line,
                                                         column));
    } else if (r->kind == RUN_LOAD || r->kind == RUN_LOAD_REST) {
        forget_load(s);
        define = 0;     /* the form is not known: print its value */
        const char *form = NULL;
        if (r->source != NULL && flen == strlen(r->chunk)
            && strncmp(file, r->chunk, flen) == 0)
            form = vl_input_form_at(r->source, line, column);
        if (form != NULL) {
            /* the interrupted form is the file's own (not an included
               file's): ,resume finishes it, then runs the rest */
            define = vl_input_is_definition(form);
            const char *next = vl_input_next_form(r->source, form);
            s->load_path = strdup(r->chunk);
            if (s->load_path != NULL) {
                s->load_text = r->source;
                r->source = NULL;
                s->load_next = next != NULL ? (size_t)(next - s->load_text)
                                            : SIZE_MAX;
            }
        }
    }
    s->suspended = 1;
    s->checkpoint_value = u;
    s->suspended_define = define;
    vlad_set_global(s->S, VL_SUSPENDED_NAME, u);
    if (s->load_text != NULL && s->load_next != SIZE_MAX)
        fprintf(stderr, "suspended as %s: ,resume continues it and then "
                        "runs the rest of %s (from line %d), ,drop forgets "
                        "both\n", VL_SUSPENDED_NAME, s->load_path,
                line_of(s->load_text, s->load_next));
    else if ((r->kind == RUN_LOAD || r->kind == RUN_LOAD_REST)
             && s->load_text == NULL)
        fprintf(stderr, "suspended as %s: ,resume continues the "
                        "interrupted form only (it is not a form of %s "
                        "itself: the rest of %s is not run), ,drop forgets "
                        "it\n", VL_SUSPENDED_NAME, r->chunk, r->chunk);
    else
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

int vl_session_owns_last_value(VlSession *s)
{
    VladValue cur;
    if (!vlad_get_global(s->S, VL_LAST_VALUE_NAME, &cur))
        return 0;
    return s->have_last_value
           && memcmp(&cur, &s->last_value, sizeof cur) == 0;
}

/* Bind _ to 'v', the value just printed, unless it is void (nothing was
   printed) or the program has defined _ itself. */
static void bind_last_value(VlSession *s, VladValue v)
{
    if (!vlad_is_number(v) && !vlad_is_pair(v) && !vlad_is_nil(v)
        && !vlad_is_boolean(v) && !vlad_is_procedure(v)
        && !vlad_is_checkpoint(v)
        && strcmp(vlad_to_string(s->S, v), "#<void>") == 0)
        return;
    if (vlad_get_global(s->S, VL_LAST_VALUE_NAME, NULL)
        && !vl_session_owns_last_value(s))
        return;
    vlad_set_global(s->S, VL_LAST_VALUE_NAME, v);
    s->last_value = v;
    s->have_last_value = 1;
}

static VladStatus run(VlSession *s, Run *r, int flags)
{
    VladState *S = s->S;
    VladStats before;
    vlad_get_stats(S, &before);
    double t0 = vl_session_now_seconds();
    vl_signals_arm(S);
    VladStatus st;
    switch (r->kind) {
    case RUN_EVAL:
        st = vlad_eval_string(S, r->text, r->chunk, &r->value);
        break;
    case RUN_LOAD:
        /* read here, so that ,resume can run the forms after an
           interrupted one; an unreadable file is vlad_eval_file's to
           report */
        r->source = read_text(r->text);
        st = r->source != NULL
             ? vlad_eval_string(S, r->source, r->chunk, NULL)
             : vlad_eval_file(S, r->text, NULL);
        break;
    case RUN_LOAD_REST:
        st = vlad_eval_string(S, r->text, r->chunk, NULL);
        break;
    default:
        st = vlad_resume(S, s->checkpoint_value, &r->value);
        break;
    }
    int hit = vl_signals_disarm();
    double t1 = vl_session_now_seconds();
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
    char *rest = NULL;          /* the rest of a ,load to run now */
    char *rest_path = NULL;
    int skipped = 0;            /* the rest of a ,load is not run */
    if (r->kind == RUN_RESUME && st != VLAD_ERR_INTERRUPTED) {
        int define = s->suspended_define;
        if (s->load_text != NULL && s->load_next != SIZE_MAX) {
            if (st == VLAD_OK) {
                /* the forms already run become blanks, so that lines
                   and columns stay those of the file */
                rest = s->load_text;
                for (size_t j = 0; j < s->load_next; j++)
                    if (rest[j] != '\n')
                        rest[j] = ' ';
                rest_path = s->load_path;
                s->load_text = NULL;
                s->load_path = NULL;
            } else {
                skipped = 1;
            }
        }
        if (!skipped)
            forget_suspension(s);
        if (st == VLAD_OK && !define) {
            printf("%s\n", vlad_to_string(S, r->value));
            bind_last_value(s, r->value);
        }
    }
    if (r->kind == RUN_EVAL && st == VLAD_OK) {
        VlScan sc;
        vl_input_scan(r->text, &sc);
        if (sc.expressions > 0)
            bind_last_value(s, r->value);
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
        if (skipped) {
            report_skipped(s);
            forget_suspension(s);
        }
        fflush(stderr);
    }
    free(r->source);
    r->source = NULL;
    if (hit)
        consume_interrupt(s);
    if (rest != NULL) {
        /* ,resume finished the interrupted form of a ,load: the rest */
        Run more = {RUN_LOAD_REST, rest, rest_path, {{0, 0}}, rest};
        st = run(s, &more, 0);
        free(rest_path);
    }
    return st;
}

VladStatus vl_session_eval(VlSession *s, const char *src, const char *chunk,
                           int flags)
{
    Run r = {RUN_EVAL, src, chunk, {{0, 0}}, NULL};
    return run(s, &r, flags);
}

VladStatus vl_session_load(VlSession *s, const char *path)
{
    Run r = {RUN_LOAD, path, path, {{0, 0}}, NULL};
    return run(s, &r, 0);
}

VladStatus vl_session_resume(VlSession *s)
{
    Run r = {RUN_RESUME, NULL, NULL, {{0, 0}}, NULL};
    return run(s, &r, 0);
}

VladStatus vl_session_restore(VlSession *s, const char *path, VladValue *u)
{
    vl_signals_arm(s->S);
    VladStatus st = vlad_checkpoint_load(s->S, path, u);
    int hit = vl_signals_disarm();
    if (st != VLAD_OK) {
        if (st == VLAD_ERR_INTERRUPTED)
            fputc('\n', stderr);
        fputs(vlad_last_error(s->S)->text, stderr);
    }
    if (hit)
        consume_interrupt(s);   /* (one that came after the last poll) */
    return st;
}

void vl_session_adopt(VlSession *s, VladValue u)
{
    forget_suspension(s);
    s->suspended = 1;
    s->checkpoint_value = u;
    s->suspended_define = 0;
    vlad_set_global(s->S, VL_SUSPENDED_NAME, u);
}

void vl_session_drop(VlSession *s)
{
    report_skipped(s);
    forget_suspension(s);
}

void vl_session_close(VlSession *s)
{
    forget_suspension(s);
}
