/*
 * cli/repl.c -- the interactive REPL (the only file using readline)
 *
 * Lines are accumulated until they form complete top-level forms (the
 * evaluator answers VLAD_ERR_INCOMPLETE otherwise), then evaluated with
 * their values printed.  An error is printed and the loop goes on with
 * every definition made so far intact.  Ctrl-C interrupts a running
 * evaluation (vlad_interrupt) and clears the line at the prompt.
 */
#include "config.h"
#include "cli/repl.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#endif

static VladState *running_state;

static void on_sigint(int sig)
{
    (void)sig;
    if (running_state != NULL)
        vlad_interrupt(running_state);
}

/* One line of input (malloc'ed, without newline) or NULL at end. */
static char *read_line(const char *prompt)
{
#ifdef HAVE_READLINE
    return readline(prompt);
#else
    fputs(prompt, stdout);
    fflush(stdout);
    size_t cap = 256, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL)
        return NULL;
    int c;
    while ((c = getchar()) != EOF && c != '\n') {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap *= 2);
            if (nb == NULL) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
        buf[n++] = (char)c;
    }
    if (c == EOF && n == 0) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
#endif
}

int vl_repl_run(VladState *S, int quiet)
{
    if (!quiet)
        printf("vlad %s -- Ctrl-D exits\n", VLAD_VERSION);
    signal(SIGINT, on_sigint);
    size_t cap = 1024, len = 0;
    char *input = malloc(cap);
    if (input == NULL)
        return 1;
    input[0] = '\0';
    for (;;) {
        char *line = read_line(len == 0 ? "vlad> " : "  ... ");
        if (line == NULL) {
            if (len == 0)
                break;
            /* end of input inside a form: report it */
            running_state = S;
            VladStatus st = vlad_eval_string(S, input, "<repl>", NULL);
            running_state = NULL;
            if (st != VLAD_OK)
                fputs(vlad_last_error(S)->text, stderr);
            break;
        }
        size_t ln = strlen(line);
        if (len + ln + 2 > cap) {
            while (len + ln + 2 > cap)
                cap *= 2;
            char *ni = realloc(input, cap);
            if (ni == NULL) {
                free(line);
                break;
            }
            input = ni;
        }
        memcpy(input + len, line, ln);
        len += ln;
        input[len++] = '\n';
        input[len] = '\0';
#ifdef HAVE_READLINE
        if (ln > 0)
            add_history(line);
#endif
        free(line);
        running_state = S;
        VladStatus st = vlad_eval_string(S, input, "<repl>", NULL);
        running_state = NULL;
        if (st == VLAD_ERR_INCOMPLETE)
            continue;
        if (st != VLAD_OK) {
            fflush(stdout);
            fputs(vlad_last_error(S)->text, stderr);
        }
        len = 0;
        input[0] = '\0';
    }
    free(input);
    if (!quiet)
        putchar('\n');
    return 0;
}
