/*
 * examples/embed/timeslice.c -- run a long VLAD computation in slices:
 * interrupt it from a signal handler, keep it as a checkpoint, resume it
 *
 * A timer (SIGALRM every 20 ms) calls vlad_interrupt, which is safe in a
 * signal handler.  The evaluation then returns VLAD_ERR_INTERRUPTED, and
 * vlad_interrupted gives the whole unfinished evaluation as a checkpoint:
 * an immutable VLAD value.  Between slices the host is free (a game would
 * draw a frame); vlad_resume continues the checkpoint where it stopped.
 * The result is the same as an uninterrupted run's, which this program
 * checks.  A step limit guards against a computation that never ends.
 *
 * make check builds and runs it; it exits nonzero on a mismatch.
 */
/* POSIX and XSI functions (signals, timers, fork, mkdtemp, usleep)
   under -std=c11 */
#define _DEFAULT_SOURCE 1
#define _XOPEN_SOURCE 700

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <vlad.h>

static VladState *volatile running;

static void on_alarm(int sig)
{
    (void)sig;
    if (running != NULL)
        vlad_interrupt(running);    /* only sets a flag */
}

static void set_timer(long usec)
{
    struct itimerval tv;
    memset(&tv, 0, sizeof tv);
    tv.it_value.tv_usec = usec;
    tv.it_interval.tv_usec = usec;
    setitimer(ITIMER_REAL, &tv, NULL);
}

static const char *program =
    "(define (count-primes n)\n"
    "  (let loop ((k 2) (found 0))\n"
    "    (if (> k n)\n"
    "        found\n"
    "        (loop (+ k 1) (if (prime? k) (+ found 1) found)))))\n"
    "(define (prime? k)\n"
    "  (let try ((d 2))\n"
    "    (cond ((> (* d d) k) #t)\n"
    "          ((zero? (modulo k d)) #f)\n"
    "          (else (try (+ d 1))))))\n";

int main(void)
{
    VladState *S = vlad_open(NULL);
    if (S == NULL
        || vlad_eval_string(S, program, "primes.vlad", NULL) != VLAD_OK)
        return 1;
    const char *job = "(count-primes 100000)";

    /* The reference: one uninterrupted run. */
    VladValue expect;
    if (vlad_eval_string(S, job, "job", &expect) != VLAD_OK) {
        fputs(vlad_last_error(S)->text, stderr);
        return 1;
    }
    VladStats st;
    vlad_get_stats(S, &st);
    printf("uninterrupted: %s primes below 100000 (%lld steps)\n",
           vlad_to_string(S, expect), (long long)st.steps_last);

    /* The same job in slices of about 20 ms. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);

    VladValue v, u;
    int slices = 1;
    running = S;
    set_timer(20000);
    VladStatus status = vlad_eval_string(S, job, "job", &v);
    while (status == VLAD_ERR_INTERRUPTED) {
        /* The unfinished evaluation, as a checkpoint.  It is a C local,
           so the collector sees it; keep it with vlad_ref if it must
           live in malloc'ed memory. */
        if (!vlad_interrupted(S, &u))
            return 1;
        if (slices <= 3)
            printf("slice %d: %s\n", slices, vlad_last_error(S)->message);
        /* ... the host does other work here ... */
        slices++;
        status = vlad_resume(S, u, &v);
    }
    running = NULL;
    set_timer(0);
    if (status != VLAD_OK) {
        fputs(vlad_last_error(S)->text, stderr);
        return 1;
    }
    printf("in %d slice%s: %s\n", slices, slices == 1 ? "" : "s",
           vlad_to_string(S, v));
    int failed = vlad_to_number(v) != vlad_to_number(expect);

    /* A step limit stops runaway code with VLAD_ERR_LIMIT; the state
       stays usable. */
    vlad_set_step_limit(S, 100000);
    status = vlad_eval_string(S, job, "job", NULL);
    printf("with a limit of 100000 steps: status %d: %s", status,
           vlad_last_error(S)->text);
    failed |= status != VLAD_ERR_LIMIT;
    vlad_set_step_limit(S, 0);

    vlad_close(S);
    printf(failed ? "timeslice: FAILED\n" : "timeslice: ok\n");
    return failed;
}
