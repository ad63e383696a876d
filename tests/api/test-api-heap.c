/*
 * tests/api/test-api-heap.c -- the heap limit (VladConfig.heap_limit,
 * vlad_set_heap_limit): an evaluation that needs more stops with
 * VLAD_ERR_MEMORY
 *
 * A process of its own: the collector's heap is shared by all the states
 * of a process, and this test grows it to the limit.  Then the pages of
 * a grown continuation stack must go back to the system.
 *
 * After an out-of-memory error the state must stay usable: small
 * evaluations, a second OOM reported the same way, no limit, another
 * state.  That is checked in a child process (a crash there is a failure
 * of this test, not the end of it).
 */
/* POSIX and XSI functions (signals, timers, fork, mkdtemp, usleep)
   under -std=c11 */
#define _DEFAULT_SOURCE 1
#define _XOPEN_SOURCE 700

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vlad.h>
#include "apitest.h"

#define LIMIT (48u << 20)

/* 10^7 pairs: about 320 MB, far beyond the limit */
static const char *big = "(length (iota 10000000))";

/* What should hold after an out-of-memory error; returns the number of
   failed checks (run in a child). */
static int after_oom(VladState *S)
{
    int bad = 0;
    VladValue v;
    if (vlad_eval_string(S, "(+ 1 2)", "after", &v) != VLAD_OK
        || vlad_to_number(v) != 3) {
        printf("FAIL: a small evaluation after the OOM failed\n");
        bad++;
    }
    if (vlad_eval_string(S, "(length (iota 1000))", "after", &v) != VLAD_OK) {
        printf("FAIL: allocating after the OOM failed: %s",
               vlad_last_error(S)->text);
        bad++;
    }
    /* a second OOM is reported the same way */
    if (vlad_eval_string(S, big, "again", &v) != VLAD_ERR_MEMORY) {
        printf("FAIL: a second OOM was not VLAD_ERR_MEMORY\n");
        bad++;
    }
    vlad_set_heap_limit(S, 0);
    if (vlad_eval_string(S, "(length (iota 100000))", "unlimited", &v)
        != VLAD_OK) {
        printf("FAIL: after removing the limit: %s",
               vlad_last_error(S)->text);
        bad++;
    }
    VladState *T = vlad_open(NULL);
    if (T == NULL || vlad_eval_string(T, "(length (iota 1000))", "other", &v)
                         != VLAD_OK) {
        printf("FAIL: another state after the OOM failed\n");
        bad++;
    }
    vlad_close(T);
    return bad;
}

static void check_after_oom_in_child(VladState *S)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        printf("fork failed: the state after OOM is not checked\n");
        return;
    }
    if (pid == 0) {
        int bad = after_oom(S);
        fflush(stdout);
        _exit(bad == 0 ? 0 : 1);
    }
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (WIFSIGNALED(status))
        printf("after the OOM the state crashed (signal %d)\n",
               WTERMSIG(status));
}

/* vlad_set_heap_limit on a state opened without one: in a child, so
   that the parent's first OOM is the first of its process. */
static void test_set_heap_limit(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        printf("fork failed: vlad_set_heap_limit is not checked\n");
        return;
    }
    if (pid == 0) {
        VladState *T = vlad_open(NULL);
        VladValue v;
        int ok = T != NULL
            && vlad_eval_string(T, "(length (iota 100000))", "t", &v)
                   == VLAD_OK;
        vlad_set_heap_limit(T, LIMIT);
        ok = ok && vlad_eval_string(T, big, "t", &v) == VLAD_ERR_MEMORY
            && vlad_last_error(T)->status == VLAD_ERR_MEMORY;
        fflush(stdout);
        _exit(ok ? 0 : 1);
    }
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The resident memory of this process in KiB, or -1 where /proc is
   missing. */
static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = atol(line + 6);
    fclose(f);
    return kib;
}

/* R4: a deep recursion grows the continuation stack by doubling, a copy
   at a time; the pages of each old copy, and of the stack itself once the
   evaluation is over, go back to the system.  Before, they stayed
   resident: 131 MB more after 10^6 pending frames (a 64 MB stack and
   its copies), now under 1 MB.  (Boehm keeps freed blocks mapped.) */
static void test_stack_pages_released(void)
{
    VladState *S = vlad_open(NULL);
    if (S == NULL) {
        CHECK(S != NULL);
        return;
    }
    VladValue v = vlad_nil();
    CHECK_STATUS(S, vlad_eval_string(S, "(define (deep n) (if (= n 0) 0 "
                                     "(+ 1 (deep (- n 1)))))", "deep",
                                     NULL), VLAD_OK);
    long before = rss_kib();
    CHECK_STATUS(S, vlad_eval_string(S, "(deep 1000000)", "deep", &v),
                 VLAD_OK);
    CHECK_NEAR(vlad_to_number(v), 1000000, 0);
    VladStats st;
    vlad_get_stats(S, &st);
    CHECK(st.peak_stack_bytes >= (32u << 20));    /* it did grow */
    long after = rss_kib();
    if (before >= 0 && after >= 0) {
        if (after - before >= 16 * 1024)
            printf("resident memory grew by %ld KiB\n", after - before);
        CHECK(after - before < 16 * 1024);
    }
    vlad_close(S);
}

int main(void)
{
    test_set_heap_limit();

    /* the limit from the configuration */
    VladConfig c;
    vlad_config_init(&c);
    c.heap_limit = LIMIT;
    VladState *S = vlad_open(&c);
    if (S == NULL) {
        printf("vlad_open failed\n");
        return 99;
    }
    VladValue v = vlad_number(1);
    /* within the limit */
    CHECK_STATUS(S, vlad_eval_string(S, "(length (iota 10000))", "small", &v),
                 VLAD_OK);
    CHECK_NEAR(vlad_to_number(v), 10000, 0);

    CHECK_STATUS(S, vlad_eval_string(S, big, "big", &v), VLAD_ERR_MEMORY);
    CHECK(vlad_is_nil(v));
    const VladError *e = vlad_last_error(S);
    CHECK_INT(e->status, VLAD_ERR_MEMORY);
    CHECK_PREFIX(e->message, "out of memory");
    CHECK_CONTAINS(e->text, "error: out of memory");
    CHECK_CONTAINS(e->backtrace, "in top level at big:1:");
    VladStats st;
    vlad_get_stats(S, &st);
    CHECK(st.peak_heap_bytes <= (size_t)LIMIT + (8u << 20));
    CHECK(!vlad_interrupted(S, NULL));

    check_after_oom_in_child(S);
    vlad_close(S);

    test_stack_pages_released();   /* last: it grows the peak heap */
    return CHECK_DONE();
}
