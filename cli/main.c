/*
 * cli/main.c -- the vlad program: options, scripts, -e, and the REPL
 *
 * vlad [OPTIONS] [FILE [ARGS]]
 *
 * Runs FILE as a script (each top-level expression's value printed), or
 * the expressions given with -e, or, with neither, reads a program from
 * standard input: interactively through the REPL (cli/repl.c) when it is
 * a terminal, else as a whole script.  Exit status: 0 on success, 1 on a
 * VLAD error, 2 on bad usage.  Numeric ARGS after FILE are bound to the
 * global 'arguments' as a list of reals.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "include/vlad.h"
#include "cli/repl.h"

static const char usage_text[] =
    "usage: vlad [OPTIONS] [FILE [ARGS...]]\n"
    "Run the VLAD program FILE, or the expressions given with -e, or read a\n"
    "program from standard input (an interactive REPL on a terminal).\n"
    "\n"
    "Options:\n"
    "  -e EXPR            evaluate EXPR and print its value (repeatable)\n"
    "  -I DIR             search DIR for include files (repeatable)\n"
    "  --step-limit N     stop any top-level evaluation after N steps\n"
    "  --checkpoint=SPEC  strategy of checkpoint-*j: bisection[,base=N] or\n"
    "                     binomial[,slots=S][,base=N] (default: binomial,\n"
    "                     slots from the length, base=1000); also read from\n"
    "                     the environment variable VLAD_CHECKPOINT\n"
    "  --stats            print steps, peak heap, AD and checkpoint-*j\n"
    "                     statistics and time on stderr\n"
    "  -q, --quiet        no banner in the REPL\n"
    "  --version          print the version and exit\n"
    "  -h, --help         print this help and exit\n"
    "\n"
    "Numeric ARGS are available to the program as the list 'arguments'.\n"
    "Exit status: 0 on success, 1 on an error in the program, 2 on bad "
    "usage.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "vlad: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nusage: vlad [OPTIONS] [FILE [ARGS...]] "
                    "(try 'vlad --help')\n");
    return 2;
}

/* Decimal real syntax (as the reader accepts it). */
static int is_decimal(const char *s)
{
    int digits = 0;
    if (*s == '+' || *s == '-')
        s++;
    while (*s >= '0' && *s <= '9')
        s++, digits++;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            digits++;
    if (!digits)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print_stats(VladState *S, double seconds)
{
    VladStats st;
    vlad_get_stats(S, &st);
    fprintf(stderr, "steps: %lld\npeak heap: %zu bytes\n"
                    "peak stack: %zu bytes\n",
            (long long)st.steps_total, st.peak_heap_bytes,
            st.peak_stack_bytes);
    if (st.tape_nodes > 0)
        fprintf(stderr, "ad tape nodes: %llu\nad tape bytes: %llu\n",
                (unsigned long long)st.tape_nodes,
                (unsigned long long)st.tape_bytes);
    const VladCpjStats *c = &st.checkpoint;
    if (c->calls > 0)
        fprintf(stderr, "checkpoint-*j runs: %lld\n"
                        "checkpoint-*j primal steps: %lld\n"
                        "checkpoint-*j re-executed steps: %lld (%.2f x primal)\n"
                        "checkpoint-*j base cases: %lld (%lld steps)\n"
                        "checkpoint-*j peak live checkpoints: %lld "
                        "(%lld bytes)\n"
                        "peak tape nodes: %llu\n",
                (long long)c->calls, (long long)c->primal_steps,
                (long long)c->advanced_steps,
                c->primal_steps > 0 ? (double)c->advanced_steps
                                      / (double)c->primal_steps : 0.0,
                (long long)c->base_cases, (long long)c->base_steps,
                (long long)c->peak_live_checkpoints,
                (long long)c->peak_checkpoint_bytes,
                (unsigned long long)st.peak_tape_nodes);
    fprintf(stderr, "time: %.3f s\n", seconds);
}

static int report(VladState *S, VladStatus st)
{
    if (st == VLAD_OK)
        return 0;
    fflush(stdout);
    fputs(vlad_last_error(S)->text, stderr);
    return 1;
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

static int parse_count(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || v < 0)
        return 0;
    *out = v;
    return 1;
}

int main(int argc, char **argv)
{
    const char **exprs = calloc((size_t)argc + 1, sizeof(char *));
    const char **dirs = calloc((size_t)argc + 1, sizeof(char *));
    if (exprs == NULL || dirs == NULL)
        return 1;
    int nexprs = 0, ndirs = 0, stats = 0, quiet = 0;
    long long step_limit = 0;
    const char *checkpoint = NULL, *checkpoint_from = "--checkpoint";
    int k = 1;
    for (; k < argc; k++) {
        const char *a = argv[k];
        if (strcmp(a, "--") == 0) {
            k++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break;
        if (strcmp(a, "-e") == 0 || strcmp(a, "-I") == 0
            || strcmp(a, "--step-limit") == 0
            || strcmp(a, "--checkpoint") == 0) {
            if (k + 1 >= argc)
                return usage_error("option '%s' needs an argument", a);
            const char *v = argv[++k];
            if (a[1] == 'e')
                exprs[nexprs++] = v;
            else if (a[1] == 'I')
                dirs[ndirs++] = v;
            else if (a[2] == 'c')
                checkpoint = v;
            else if (!parse_count(v, &step_limit))
                return usage_error("--step-limit needs a non-negative "
                                   "integer, got '%s'", v);
        } else if (strncmp(a, "--step-limit=", 13) == 0) {
            if (!parse_count(a + 13, &step_limit))
                return usage_error("--step-limit needs a non-negative "
                                   "integer, got '%s'", a + 13);
        } else if (strncmp(a, "--checkpoint=", 13) == 0) {
            checkpoint = a + 13;
        } else if (strncmp(a, "-I", 2) == 0) {
            dirs[ndirs++] = a + 2;
        } else if (strcmp(a, "--stats") == 0) {
            stats = 1;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--version") == 0) {
            printf("vlad %s\n", VLAD_VERSION);
            return 0;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else {
            return usage_error("unknown option '%s'", a);
        }
    }
    /* with -e every remaining word is a program argument */
    const char *file = nexprs == 0 && k < argc ? argv[k++] : NULL;

    VladConfig config;
    vlad_config_init(&config);
    config.include_path = dirs;
    config.step_limit = step_limit;
    config.echo_results = 1;
    VladState *S = vlad_open(&config);
    if (S == NULL) {
        fprintf(stderr, "vlad: cannot create an interpreter (out of memory "
                        "or a broken prelude)\n");
        return 1;
    }
    if (checkpoint == NULL && getenv("VLAD_CHECKPOINT") != NULL) {
        checkpoint = getenv("VLAD_CHECKPOINT");
        checkpoint_from = "VLAD_CHECKPOINT";
    }
    if (checkpoint != NULL && vlad_set_checkpoint(S, checkpoint) != VLAD_OK) {
        fprintf(stderr, "vlad: %s: %s\n", checkpoint_from,
                vlad_last_error(S)->message);
        return 2;
    }
    /* numeric script arguments */
    {
        size_t cap = 64, n = 0;
        char *src = malloc(cap);
        if (src == NULL)
            return 1;
        n += (size_t)snprintf(src, cap, "(define arguments (list");
        for (int j = k; j < argc; j++) {
            if (!is_decimal(argv[j]))
                return usage_error("program arguments must be decimal "
                                   "reals, got '%s'", argv[j]);
            size_t need = n + strlen(argv[j]) + 4;
            if (need > cap) {
                cap = need * 2;
                char *ns = realloc(src, cap);
                if (ns == NULL)
                    return 1;
                src = ns;
            }
            n += (size_t)snprintf(src + n, cap - n, " %s", argv[j]);
        }
        snprintf(src + n, cap - n, "))");
        VladStatus st = vlad_eval_string(S, src, "<arguments>", NULL);
        free(src);
        if (st != VLAD_OK)
            return report(S, st);
    }

    double t0 = now_seconds();
    int status = 0;
    if (nexprs > 0) {
        for (int j = 0; j < nexprs && status == 0; j++)
            status = report(S, vlad_eval_string(S, exprs[j], "<-e>", NULL));
    } else if (file != NULL) {
        status = report(S, vlad_eval_file(S, file, NULL));
    } else if (isatty(0)) {
        status = vl_repl_run(S, quiet);
    } else {
        char *src = read_stdin();
        if (src == NULL) {
            fprintf(stderr, "vlad: cannot read standard input\n");
            status = 1;
        } else {
            status = report(S, vlad_eval_string(S, src, "<stdin>", NULL));
            free(src);
        }
    }
    if (stats)
        print_stats(S, now_seconds() - t0);
    fflush(stdout);
    vlad_close(S);
    free(exprs);
    free(dirs);
    return status;
}
