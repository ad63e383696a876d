/*
 * tests/api/test-api-stdin.c -- vlad_interrupt ends read-real's wait for
 * standard input whenever it comes (doc/hardening.md S1 (issue 31))
 *
 * With VladConfig.read NULL, read-real reads file descriptor 0; here a
 * pipe or a pseudo-terminal is put there.  Covers: vlad_interrupt from
 * another thread once read-real is blocked (before S1 the flag was set
 * for nobody and the read went on waiting); from a signal handler
 * installed with SA_RESTART (the read was restarted); from a handler
 * without it, sent the moment the output before the wait is out, 300
 * times (the window between the look at the flag and the read); after
 * each interrupt the next read-real reads the next line; a terminal:
 * one line per wait, an interrupt while a line is half typed, its end of
 * input (Ctrl-D); no descriptor is left open by a wait, and none by a
 * closed state.
 *
 * "Blocked" is what Linux says of the evaluating thread
 * (/proc/self/task/TID/syscall: in read, poll or select); elsewhere the
 * interrupt comes 0.2 s after the output instead.  A wait the interrupt
 * did not end is ended after WATCHDOG seconds by a line of input, and
 * the evaluation then succeeds where it should have been interrupted: a
 * failure, not a hang.
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <vlad.h>
#include "apitest.h"

#define WATCHDOG 60.0           /* seconds; only a failing check waits */

static VladState *S;
static pid_t main_tid;
static pthread_t main_thread;
static int master = -1;         /* the writing end of fd 0's input */

/* What the helper thread does once the output before the wait is out. */
enum { BY_CALL, BY_SIGNAL };
static int how;                 /* BY_CALL or BY_SIGNAL */
static int at_once;             /* without waiting for "blocked" */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int flushed, returned, rescued;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The write callback: the flush before read-real waits comes here. */
static void wr(void *ud, const char *t, size_t n)
{
    (void)ud, (void)t, (void)n;
    pthread_mutex_lock(&mu);
    flushed = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void on_signal(int sig)
{
    (void)sig;
    vlad_interrupt(S);
}

static void install(int sig, int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = flags;
    sa.sa_handler = on_signal;
    sigaction(sig, &sa, NULL);
}

/* 1 when the main thread is blocked in a system call that waits for
   input, 0 when not (yet), -1 when this cannot be known here. */
static int blocked(void)
{
#ifdef __linux__
    char path[64], text[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/syscall",
             (long)main_tid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    long nr = -1;
    int got = fscanf(f, "%ld", &nr);
    if (got != 1 && fscanf(f, "%63s", text) != 1) {
        fclose(f);
        return -1;
    }
    fclose(f);
    if (got != 1)
        return 0;               /* "running" */
    long waits[] = {
        SYS_read,
#ifdef SYS_poll
        SYS_poll,
#endif
#ifdef SYS_ppoll
        SYS_ppoll,
#endif
#ifdef SYS_select
        SYS_select,
#endif
#ifdef SYS_pselect6
        SYS_pselect6,
#endif
    };
    for (size_t i = 0; i < sizeof waits / sizeof *waits; i++)
        if (nr == waits[i])
            return 1;
    return 0;
#else
    return -1;
#endif
}

static void *helper(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!flushed)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    if (!at_once) {
        int b;
        while ((b = blocked()) == 0)
            pause_ms(1);
        if (b < 0)
            pause_ms(200);
    }
    if (how == BY_CALL)
        vlad_interrupt(S);
    else
        pthread_kill(main_thread, SIGUSR1);
    /* the watchdog: a wait the interrupt did not end gets a line */
    double deadline = now() + WATCHDOG;
    pthread_mutex_lock(&mu);
    while (!returned) {
        if (now() > deadline) {
            rescued = 1;
            if (write(master, "5\n", 2) != 2)
                perror("watchdog");
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&cv, &mu, &ts);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

/* (read-real 0) after a line of output, interrupted by the helper:
   1 when it stopped as it should. */
static int interrupted_wait(void)
{
    flushed = returned = rescued = 0;
    pthread_t t;
    pthread_create(&t, NULL, helper, NULL);
    VladStatus st = vlad_eval_string(S, "(let ((a (write-real 1))) "
                                     "(read-real 0))", "stdin", NULL);
    pthread_mutex_lock(&mu);
    returned = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(t, NULL);
    if (rescued)
        printf("the interrupt did not end the wait (%s)\n",
               how == BY_CALL ? "vlad_interrupt from a thread"
                              : "vlad_interrupt from a signal handler");
    return st == VLAD_ERR_INTERRUPTED && !rescued
           && strstr(vlad_last_error(S)->message,
                     "read-real: interrupted while reading input") != NULL;
}

/* read-real of the line typed next: its value, or -1e300. */
static double next_real(const char *line)
{
    if (line != NULL && write(master, line, strlen(line))
                        != (ssize_t)strlen(line))
        return -1e300;
    VladValue v;
    if (vlad_eval_string(S, "(read-real 0)", "stdin", &v) != VLAD_OK)
        return -1e300;
    return vlad_to_number(v);
}

/* The lowest descriptor free now. */
static int lowest_free(void)
{
    int fd = dup(0);
    if (fd >= 0)
        close(fd);
    return fd;
}

static VladState *open_state(void)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = wr;
    return vlad_open(&c);
}

static void test_pipe(void)
{
    int p[2];
    if (pipe(p) != 0 || dup2(p[0], 0) != 0) {
        CHECK(!"a pipe on standard input");
        return;
    }
    close(p[0]);
    master = p[1];
    int free0 = lowest_free();
    S = open_state();
    CHECK(S != NULL);
    how = BY_CALL, at_once = 0;
    CHECK(interrupted_wait());
    CHECK(next_real("2\n") == 2);
    how = BY_SIGNAL;
    install(SIGUSR1, SA_RESTART);
    CHECK(interrupted_wait());
    CHECK(next_real("3\n") == 3);
    /* the handler without SA_RESTART, at once, many times */
    install(SIGUSR1, 0);
    at_once = 1;
    int ok = 0;
    for (int i = 0; i < 300; i++)
        ok += interrupted_wait();
    CHECK_INT(ok, 300);
    CHECK(next_real("4 5\n") == 4);
    CHECK(next_real(NULL) == 5);
    int free1 = lowest_free();
    CHECK(next_real("6\n") == 6);
    CHECK_INT(lowest_free(), free1);        /* a wait leaves none open */
    vlad_close(S);
    CHECK_INT(lowest_free(), free0);        /* nor does a closed state */
    close(master);
}

static void test_terminal(void)
{
    master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        printf("no pseudo-terminal here: its checks are skipped\n");
        return;
    }
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    if (slave < 0 || dup2(slave, 0) != 0) {
        printf("no pseudo-terminal here: its checks are skipped\n");
        return;
    }
    close(slave);
    struct termios tio;
    if (tcgetattr(0, &tio) == 0) {
        tio.c_lflag |= ICANON;
        tio.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(0, TCSANOW, &tio);
    }
    S = open_state();
    CHECK(S != NULL);
    /* one line per wait */
    CHECK(next_real("7\n8\n") == 7);
    int free1 = lowest_free();          /* the wake-up pipe is open */
    CHECK(next_real(NULL) == 8);
    CHECK_INT(lowest_free(), free1);
    how = BY_CALL, at_once = 0;
    CHECK(interrupted_wait());
    /* half a line typed: the wait goes on until its end, and an
       interrupt ends it; the line is still the terminal's */
    CHECK(write(master, "1", 1) == 1);
    CHECK(interrupted_wait());
    CHECK(next_real("2\n") == 12);
    how = BY_SIGNAL;
    install(SIGUSR1, SA_RESTART);
    CHECK(interrupted_wait());
    CHECK(next_real("9\n") == 9);
    CHECK_INT(lowest_free(), free1);
    /* Ctrl-D at the start of a line: the end of the input */
    CHECK(write(master, "\004", 1) == 1);
    CHECK_STATUS(S, vlad_eval_string(S, "(read-real 0)", "stdin", NULL),
                 VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message, "read-real: end of input");
    vlad_close(S);
    close(master);
}

int main(void)
{
#ifdef __linux__
    main_tid = (pid_t)syscall(SYS_gettid);
#endif
    main_thread = pthread_self();
    signal(SIGPIPE, SIG_IGN);
    test_pipe();
    test_terminal();
    return CHECK_DONE();
}
