/*
 * cli/signals.c -- SIGINT and SIGWINCH in the REPL; SIGINT, SIGTERM and
 * SIGHUP in scripts
 *
 * The handlers only set flags or call vlad_interrupt, which is safe in a
 * signal handler.  The REPL's input loop (cli/repl.c) looks at the flags
 * when a read is interrupted: SIGINT at the prompt clears the line,
 * SIGWINCH makes readline measure the terminal again.  In a script the
 * signals that end the program first stop the evaluation, whose output
 * libvlad then flushes, and cli/main.c dies of the signal afterwards
 * (vl_signals_die).
 */
#include "config.h"
#include "cli/signals.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static VladState *volatile armed_state;
static volatile sig_atomic_t armed, armed_hits, sigint_seen, winch_seen;
static struct sigaction old_int, old_winch;
/* vl_signals_read is between its last look at sigint_seen and the end of
   its read(2): a SIGINT then jumps out of the read */
static volatile sig_atomic_t in_read;
static sigjmp_buf read_escape;

static void on_sigint(int sig)
{
    (void)sig;
    if (armed && armed_state != NULL) {
        vlad_interrupt(armed_state);
        armed_hits = 1;
    } else {
        sigint_seen = 1;
        if (in_read)
            siglongjmp(read_escape, 1);
    }
}

static void on_winch(int sig)
{
    (void)sig;
    winch_seen = 1;
}

void vl_signals_install(void)
{
    struct sigaction sa;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;            /* no SA_RESTART: reads return EINTR */
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, &old_int);
    sa.sa_handler = on_winch;
    sigaction(SIGWINCH, &sa, &old_winch);
}

void vl_signals_restore(void)
{
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGWINCH, &old_winch, NULL);
}

/* A SIGINT noted since the line was read (the REPL drops older notes
   when it reads a line) came after Enter: it is meant for the evaluation
   starting now, however late it starts on a busy machine.  The note is
   looked at after 'armed' is set, so that one arriving meanwhile goes
   to vlad_interrupt by the handler or is seen here. */
void vl_signals_arm(VladState *S)
{
    armed_state = S;
    armed_hits = 0;
    armed = 1;
    if (sigint_seen) {
        sigint_seen = 0;
        vlad_interrupt(S);
        armed_hits = 1;
    }
}

int vl_signals_disarm(void)
{
    armed = 0;
    armed_state = NULL;
    return armed_hits;
}

int vl_signals_take_sigint(void)
{
    int r = sigint_seen;
    sigint_seen = 0;
    return r;
}

int vl_signals_take_winch(void)
{
    int r = winch_seen;
    winch_seen = 0;
    return r;
}

/* A Ctrl-C makes the terminal discard the input it holds.  A read that
   was about to start when the SIGINT came (the input seen ready a moment
   before) would then wait for the next line with the Ctrl-C already
   handled; so the handler jumps out of the read instead. */
ssize_t vl_signals_read(int fd, void *buf, size_t n)
{
    if (sigsetjmp(read_escape, 1)) {
        in_read = 0;
        return -2;
    }
    for (;;) {
        in_read = 1;
        if (sigint_seen) {
            in_read = 0;
            return -2;
        }
        ssize_t r = read(fd, buf, n);
        in_read = 0;
        if (r >= 0 || errno != EINTR)
            return r < 0 ? -1 : r;
    }
}

/* ===== Scripts ===== */

static const int script_signals[] = {SIGINT, SIGTERM, SIGHUP};
static VladState *volatile script_state;
static volatile sig_atomic_t script_caught;

static void on_script_signal(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);         /* the next one kills */
    if (!script_caught)
        script_caught = sig;
    if (script_state != NULL)
        vlad_interrupt(script_state);
}

void vl_signals_script(VladState *S)
{
    script_state = S;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;            /* no SA_RESTART: reads return EINTR */
    sa.sa_handler = on_script_signal;
    for (size_t i = 0; i < sizeof script_signals / sizeof *script_signals;
         i++) {
        int sig = script_signals[i];
        if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sig, &sa, NULL);
    }
}

int vl_signals_caught(void)
{
    return script_caught;
}

void vl_signals_die(void)
{
    int sig = script_caught;
    if (sig == 0)
        return;
    fflush(stdout);
    fflush(stderr);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}
