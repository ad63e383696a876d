/*
 * cli/main.c -- the vlad program: options, scripts, -e, and the REPL
 *
 * vlad [OPTIONS] [FILE [ARGS]]
 *
 * Runs FILE as a script (each top-level expression's value printed), or
 * the expressions given with -e, or, with neither, reads a program from
 * standard input: interactively through the REPL (cli/repl.c) when it is
 * a terminal, else (or with FILE "-") as a whole script.  The options are
 * parsed by cli/options.c.  Exit status: 0 on success, 1 on a VLAD error
 * or a failed write to standard output ("vlad: write error: ...",
 * cli/output.c), 2 on bad usage; a script ended by SIGINT, SIGTERM or
 * SIGHUP first writes all its output, then dies of the signal
 * (cli/signals.h).  Numeric ARGS after FILE are bound to the global
 * 'arguments' as a list of reals.  With --disassemble, FILE is compiled
 * and its bytecode listed, not run (vlad_disassemble).
 */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "include/vlad.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/repl.h"
#include "cli/saving.h"
#include "cli/session.h"
#include "cli/signals.h"
#include "cli/stats.h"

/* Text for standard error: an error, the --stats lines.  In a job of
   several ranks each line starts with "rank R: " (doc/reference.md,
   "Parallel programs"), and the whole text is written at once, so that
   the lines of other ranks come between whole texts. */
static void print_ranked(VladState *S, const char *text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = vlad_mpi_size(S) > 1 ? open_memstream(&buf, &len) : NULL;
    if (m == NULL) {                /* one rank (or no memory) */
        fputs(text, stderr);
        return;
    }
    while (*text != '\0') {
        const char *nl = strchr(text, '\n');
        size_t n = nl != NULL ? (size_t)(nl - text) + 1 : strlen(text);
        fprintf(m, "rank %d: %.*s%s", vlad_mpi_rank(S), (int)n, text,
                nl != NULL ? "" : "\n");
        text += n;
    }
    fclose(m);
    fwrite(buf, 1, len, stderr);
    free(buf);
}

/* The outcome of an evaluation of a script: 0 to go on.  A write error
   (said by vl_output_finish at the end) or a signal (the program dies of
   it) ends the script; the interrupt a Ctrl-C made is shown with its
   backtrace, as in the REPL, but not the one of SIGTERM or SIGHUP.  In
   a job of several ranks, an error stops them all once it is reported
   (vlad_mpi_abort): the others may be waiting for this one. */
static int report(VladState *S, VladStatus st)
{
    vl_progress_end();
    int sig = vl_signals_caught();
    if (st != VLAD_OK && vl_output_error() == 0
        && (sig == 0 || sig == SIGINT)) {
        fflush(stdout);
        print_ranked(S, vlad_last_error(S)->text);
    }
    int failed = st != VLAD_OK || sig != 0 || vl_output_error() != 0;
    if (failed && vlad_mpi_size(S) > 1) {
        fflush(stdout);
        fflush(stderr);
        vlad_mpi_abort(S, 1);
    }
    return failed;
}

/* Read all of standard input. */
static char *read_stdin(void)
{
    size_t cap = 8192, n = 0;
    char *buf = malloc(cap + 1);
    if (buf == NULL)
        return NULL;
    for (;;) {
        size_t r = fread(buf + n, 1, cap - n, stdin);
        n += r;
        if (n < cap)
            break;
        char *nb = realloc(buf, cap * 2 + 1);
        if (nb == NULL) {
            free(buf);
            return NULL;
        }
        buf = nb;
        cap *= 2;
    }
    buf[n] = '\0';
    return buf;
}

/* Bind the program's ARGS (checked decimal reals, cli/options.c) to the
   global 'arguments', a list built directly: any number of them, in
   memory linear in their number.  strtod reads them as the reader would:
   this program never sets a locale, so the decimal point is '.'. */
static int define_arguments(VladState *S, char **args, int nargs)
{
    double *xs = malloc((nargs > 0 ? (size_t)nargs : 1) * sizeof *xs);
    if (xs == NULL) {
        fprintf(stderr, "vlad: out of memory\n");
        return 1;
    }
    for (int j = 0; j < nargs; j++)
        xs[j] = strtod(args[j], NULL);
    VladValue list = vlad_list_of_numbers(S, xs, (size_t)nargs);
    free(xs);
    if (nargs > 0 && vlad_is_nil(list)) {   /* the heap limit */
        fprintf(stderr, "vlad: out of memory for the %d arguments\n",
                nargs);
        return 1;
    }
    vlad_set_global(S, "arguments", list);
    return 0;
}

/* --resume FILE: finish what FILE holds -- a program saved by
   --autosave (its output, and the values of its expressions, as the
   uninterrupted run would have printed them; it goes on autosaving,
   cli/saving.h), or a checkpoint saved by ,save (its value printed). */
static int run_resume(VladState *S, const VlOptions *o)
{
    VladSavedInfo info;
    VladStatus st = vlad_saved_info(S, o->resume, &info);
    if (st == VLAD_OK && info.program && vl_saving_resume(S, o, &info))
        return 1;
    VladValue v;
    if (st == VLAD_OK)
        st = vlad_run_saved(S, o->resume, &v);
    int status = report(S, st);
    if (st == VLAD_OK && !info.program
        && strcmp(vlad_to_string(S, v), "#<void>") != 0) {
        fputs(vlad_to_string(S, v), stdout);
        fputc('\n', stdout);
    }
    return status;
}

static int run_stdin_script(VladState *S)
{
    char *src = read_stdin();
    if (vl_signals_caught()) {
        free(src);
        return 1;
    }
    if (src == NULL) {
        fprintf(stderr, "vlad: cannot read standard input\n");
        return 1;
    }
    int status = report(S, vlad_eval_string(S, src, "<stdin>", NULL));
    free(src);
    return status;
}

/* Run the script FILE (or FILE.vlad).  Not inlined: its path buffer
   stays off main's frame, which every run, even --version, pays for (at
   ulimit -s 16 the dynamic loader itself had too little stack left). */
static __attribute__((noinline)) int run_file(VladState *S, const char *file)
{
    char full[4096];
    const char *path = vl_options_program_path(file, full, sizeof full);
    return report(S, vlad_eval_file(S, path, NULL));
}

/* --disassemble FILE: the bytecode listing of FILE (or FILE.vlad),
   compiled and not run.  Not inlined, as run_file. */
static __attribute__((noinline)) int list_file(VladState *S, const char *file)
{
    char full[4096];
    return report(S, vlad_disassemble(S, vl_options_program_path(file, full,
                                                                 sizeof full),
                                      NULL));
}

int main(int argc, char **argv)
{
    vl_output_reserve_fds();
    VlOptions o;
    int parsed = vl_options_parse(argc, argv, &o);
    if (parsed == VL_OPTIONS_VERSION) {
        printf("vlad %s\nREPL line editing: %s\n", VLAD_VERSION,
               vl_repl_line_editing());
        parsed = VL_OPTIONS_EXIT;
    }
    if (parsed != VL_OPTIONS_RUN) {
        vl_options_free(&o);
        if (parsed < 0)
            fprintf(stderr, "vlad: out of memory\n");
        return parsed == VL_OPTIONS_EXIT ? vl_output_finish()
               : parsed < 0 ? 1 : 2;
    }

    VladConfig config;
    vlad_config_init(&config);
    config.include_path = o.dirs;
    config.step_limit = o.step_limit;
    config.echo_results = 1;
    config.write = vl_session_write;
    if (o.progress && vl_progress_available()) {
        config.progress = vl_progress_update;
        vl_progress_catch_sigint();
    }
    if (o.progress)             /* (a job's ranks write to pipes) */
        config.waiting = vl_progress_waiting;
    VladState *S = vlad_open(&config);
    if (S == NULL) {
        fprintf(stderr, "vlad: cannot create an interpreter (out of memory, "
                        "a C stack too small -- see ulimit -s -- or a broken "
                        "prelude)\n");
        vl_options_free(&o);
        return 1;
    }
    vl_output_attach(S);
    /* under mpiexec: one rank of the job (doc/reference.md, "Parallel
       programs"); else rank 0 of 1 */
    if (vlad_mpi_init(S) != VLAD_OK) {
        fprintf(stderr, "vlad: %s\n", vlad_last_error(S)->message);
        vlad_close(S);
        vl_options_free(&o);
        return 1;
    }
    if (vlad_mpi_size(S) > 1)
        vl_progress_rank(vlad_mpi_rank(S));
    if (vlad_mpi_size(S) > 1 && (o.autosave != NULL || o.resume != NULL)) {
        fprintf(stderr, "rank %d: vlad: %s is refused in a job of several "
                "ranks: saving a parallel job is not designed yet\n",
                vlad_mpi_rank(S), o.autosave != NULL ? "--autosave"
                                                      : "--resume");
        fflush(stderr);
        vlad_mpi_abort(S, 2);
        vlad_close(S);
        vl_options_free(&o);
        return 2;
    }
    if (vlad_mpi_size(S) > 1 && o.nexprs == 0
        && (o.file == NULL || strcmp(o.file, "-") == 0)) {
        fprintf(stderr, "rank %d: vlad: a job of several ranks runs a FILE "
                "or -e expressions: standard input reaches rank 0 only (no "
                "REPL, no program on standard input)\n", vlad_mpi_rank(S));
        fflush(stderr);
        vlad_mpi_abort(S, 2);
        vlad_close(S);
        vl_options_free(&o);
        return 2;
    }
    /* the launcher gives standard input to rank 0 only (MPICH: the others
       read a pipe nobody writes): elsewhere read-real meets its end at
       once instead of waiting forever */
    if (vlad_mpi_rank(S) > 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            close(null);
        }
    }
    int repl = o.nexprs == 0 && o.file == NULL && o.resume == NULL
               && isatty(STDIN_FILENO);
    if (!repl)
        vl_signals_script(S);
    /* set after the prelude is loaded, which the limit must not fail */
    if ((uint64_t)o.heap_limit > SIZE_MAX)
        o.heap_limit = (int64_t)(SIZE_MAX >> 1);
    vlad_set_heap_limit(S, (size_t)o.heap_limit);
    const char *checkpoint = o.checkpoint, *checkpoint_from = "--checkpoint";
    if (checkpoint == NULL && getenv("VLAD_CHECKPOINT") != NULL) {
        checkpoint = getenv("VLAD_CHECKPOINT");
        checkpoint_from = "VLAD_CHECKPOINT";
    }
    if (checkpoint != NULL && vlad_set_checkpoint(S, checkpoint) != VLAD_OK) {
        fprintf(stderr, "vlad: %s: %s\n", checkpoint_from,
                vlad_last_error(S)->message);
        if (o.checkpoint != NULL)       /* an option, not the environment */
            vl_options_usage();
        vlad_close(S);
        vl_options_free(&o);
        return 2;
    }
    int status = define_arguments(S, o.args, o.nargs);
    if (status == 0 && o.autosave != NULL && o.resume == NULL)
        status = vl_saving_start(S, &o);

    double t0 = vl_session_now_seconds();
    if (status != 0) {
        /* out of memory */
    } else if (o.disassemble) {
        status = list_file(S, o.file);
    } else if (o.resume != NULL) {
        status = run_resume(S, &o);
    } else if (o.nexprs > 0 || (o.file != NULL && strcmp(o.file, "-") != 0)) {
        /* the -e expressions (named <-e>, <-e#2>, ...), then FILE */
        for (int j = 0; j < o.nexprs && status == 0; j++) {
            char name[32] = "<-e>";
            if (j > 0)
                snprintf(name, sizeof name, "<-e#%d>", j + 1);
            status = report(S, vlad_eval_string(S, o.exprs[j], name, NULL));
        }
        if (status == 0 && o.file != NULL && strcmp(o.file, "-") == 0)
            status = run_stdin_script(S);
        else if (status == 0 && o.file != NULL)
            status = run_file(S, o.file);
    } else if (repl) {
        VlSession session;
        memset(&session, 0, sizeof session);
        session.S = S;
        session.quiet = o.quiet;
        session.step_limit = o.step_limit;
        session.heap_limit = o.heap_limit;
        vl_session_init(&session);
        if (checkpoint != NULL)
            snprintf(session.checkpoint, sizeof session.checkpoint, "%s",
                     checkpoint);
        status = vl_repl_run(&session);
        vl_session_close(&session);
    } else {
        status = run_stdin_script(S);
    }
    /* a program that ended without error needs no saved state */
    if (o.autosave != NULL || o.resume != NULL)
        status = vl_saving_end(S, status);
    if (o.stats) {
        VladStats st;
        vlad_get_stats(S, &st);
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (m != NULL) {
            vl_stats_print_run(m, &st, vl_session_now_seconds() - t0);
            fclose(m);
            print_ranked(S, buf);
            free(buf);
        } else
            vl_stats_print_run(stderr, &st, vl_session_now_seconds() - t0);
    }
    fflush(stdout);
    vl_output_attach(NULL);
    vlad_close(S);
    vl_options_free(&o);
    if (vl_output_finish())
        status = 1;
    vl_signals_die();
    return status;
}
