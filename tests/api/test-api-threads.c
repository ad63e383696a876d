/*
 * tests/api/test-api-threads.c -- states used from several threads
 * (include/vlad.h, "Threads"; doc/embedding.md)
 *
 * libvlad registers every thread that calls it with the collector, so a
 * host needs no GC calls of its own.  Covers: a state created and used by
 * a thread other than the main one, while the main thread holds values
 * of its own state (their collection must still see the main stack);
 * several states used concurrently by several threads, each allocating
 * enough to make the collector run many times while the others run;
 * a state handed over between threads (one at a time), with values and
 * references it made in the previous thread; threads that call libvlad
 * and exit (registered and unregistered again), many times over; heap
 * limits of states that run at the same time; an interrupt of a state
 * running in a thread.
 */
#define _DEFAULT_SOURCE 1
#define _XOPEN_SOURCE 700

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vlad.h>
#include "apitest.h"

/* The threads record their findings in their Job; the main thread
   checks them after joining (the counters of apitest.h are not shared). */

/* A program that conses a lot (garbage for the collector) and checks its
   own result: (churn n k) builds n lists of k reals and sums the last. */
static const char prog[] =
    "(define (build k) (let loop ((i 0) (l '())) (if (= i k) l "
    "(loop (+ i 1) (cons i l)))))"
    "(define (sum l) (if (null? l) 0 (+ (car l) (sum (cdr l)))))"
    "(define (churn n k) (let loop ((i 0) (s 0)) (if (= i n) s "
    "(loop (+ i 1) (sum (build k))))))";

/* ===== a state created and used in another thread ===== */

typedef struct Job {
    int id;
    int rounds;
    int ok;                     /* every evaluation gave what it should */
    VladState *S;               /* for handing over: the state to use */
} Job;

static int run_rounds(VladState *S, int id, int rounds)
{
    int ok = 1;
    char src[160];
    for (int r = 0; r < rounds; r++) {
        int k = 200 + 37 * id + r;
        snprintf(src, sizeof src, "(churn 300 %d)", k);
        VladValue v;
        if (vlad_eval_string(S, src, "thread", &v) != VLAD_OK
            || vlad_to_number(v) != (double)k * (k - 1) / 2)
            ok = 0;
        /* values built by the host in this thread survive collections */
        double xs[3] = {id, r, k};
        VladValue l = vlad_list_of_numbers(S, xs, 3);
        vlad_collect(S);
        double back[3] = {0, 0, 0};
        if (vlad_numbers_of_list(l, back, 3) != 3 || back[0] != id
            || back[1] != r || back[2] != k)
            ok = 0;
        /* derivatives too */
        VladValue sq;
        double y = 0, d = 0;
        if (vlad_eval_string(S, "(lambda (x) (* x (sin x)))", "thread", &sq)
                != VLAD_OK
            || vlad_derivative(S, sq, 1.0 + id, &y, &d) != VLAD_OK
            || fabs(d - (sin(1.0 + id) + (1.0 + id) * cos(1.0 + id))) > 1e-12)
            ok = 0;
    }
    return ok;
}

static void *own_state(void *p)
{
    Job *job = p;
    VladState *S = vlad_open(NULL);
    if (S == NULL)
        return NULL;
    job->ok = vlad_eval_string(S, prog, "prog", NULL) == VLAD_OK
              && run_rounds(S, job->id, job->rounds);
    vlad_close(S);
    return NULL;
}

static void test_other_thread(void)
{
    /* the main thread keeps a value of its own state meanwhile */
    VladState *M = vlad_open(NULL);
    CHECK(M != NULL);
    VladValue keep;
    CHECK_STATUS(M, vlad_eval_string(M, "(list 1 2 3 4 5)", "main", &keep),
                 VLAD_OK);
    Job job = {1, 5, 0, NULL};
    pthread_t t;
    CHECK_INT(pthread_create(&t, NULL, own_state, &job), 0);
    pthread_join(t, NULL);
    CHECK(job.ok);
    vlad_collect(M);
    CHECK_STR(vlad_to_string(M, keep), "(1 2 3 4 5)");
    vlad_close(M);
}

/* ===== several states at once ===== */

static void test_concurrent(void)
{
    enum { N = 4 };
    Job jobs[N];
    pthread_t t[N];
    for (int k = 0; k < N; k++) {
        jobs[k] = (Job){k, 8, 0, NULL};
        CHECK_INT(pthread_create(&t[k], NULL, own_state, &jobs[k]), 0);
    }
    /* the main thread evaluates too, in a state of its own */
    VladState *M = vlad_open(NULL);
    CHECK(M != NULL);
    CHECK_STATUS(M, vlad_eval_string(M, prog, "prog", NULL), VLAD_OK);
    CHECK(run_rounds(M, 9, 4));
    for (int k = 0; k < N; k++) {
        pthread_join(t[k], NULL);
        CHECK(jobs[k].ok);
    }
    vlad_close(M);
}

/* ===== a state handed over between threads ===== */

static VladRef *handed;          /* a reference made in an earlier thread */

static void *use_handed(void *p)
{
    Job *job = p;
    VladState *S = job->S;
    /* the reference and the global made by the previous thread */
    VladValue l = vlad_ref_get(handed);
    VladValue v;
    int ok = vlad_numbers_of_list(l, NULL, 0) == job->id;
    ok = ok && vlad_eval_string(S, "(length kept)", "hand", &v) == VLAD_OK
         && vlad_to_number(v) == job->id;
    ok = ok && run_rounds(S, job->id, 2);
    /* the next thread gets one more element */
    char src[80];
    snprintf(src, sizeof src, "(define kept (cons %d kept)) kept", job->id);
    ok = ok && vlad_eval_string(S, src, "hand", &v) == VLAD_OK;
    vlad_ref_set(handed, v);
    job->ok = ok;
    return NULL;
}

static void test_hand_over(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    CHECK_STATUS(S, vlad_eval_string(S, prog, "prog", NULL), VLAD_OK);
    VladValue v;
    CHECK_STATUS(S, vlad_eval_string(S, "(define kept '()) kept", "hand", &v),
                 VLAD_OK);
    handed = vlad_ref(S, v);
    CHECK(handed != NULL);
    for (int k = 0; k < 6; k++) {
        Job job = {k, 0, 0, S};
        pthread_t t;
        CHECK_INT(pthread_create(&t, NULL, use_handed, &job), 0);
        pthread_join(t, NULL);
        CHECK(job.ok);
    }
    /* and back in the thread that made it */
    CHECK_STR(apitest_eval(S, "kept"), "(5 4 3 2 1 0)");
    CHECK_INT(vlad_numbers_of_list(vlad_ref_get(handed), NULL, 0), 6);
    vlad_unref(handed);
    vlad_close(S);
}

/* ===== short-lived threads ===== */

static void *short_lived(void *p)
{
    Job *job = p;
    VladState *S = job->S;
    VladValue v;
    char src[64];
    snprintf(src, sizeof src, "(sum (build %d))", 100 + job->id);
    int k = 100 + job->id;
    job->ok = vlad_eval_string(S, src, "short", &v) == VLAD_OK
              && vlad_to_number(v) == (double)k * (k - 1) / 2;
    return NULL;
}

static void test_short_lived(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    CHECK_STATUS(S, vlad_eval_string(S, prog, "prog", NULL), VLAD_OK);
    int bad = 0;
    for (int k = 0; k < 200; k++) {
        Job job = {k, 0, 0, S};
        pthread_t t;
        if (pthread_create(&t, NULL, short_lived, &job) != 0) {
            bad++;
            continue;
        }
        pthread_join(t, NULL);
        bad += !job.ok;
        if (k % 20 == 0)
            vlad_collect(S);    /* with the exited threads gone */
    }
    CHECK_INT(bad, 0);
    vlad_close(S);
}

/* ===== heap limits of concurrent states ===== */

static void *limited(void *p)
{
    Job *job = p;
    VladConfig c;
    vlad_config_init(&c);
    c.heap_limit = (size_t)64 << 20;
    VladState *S = vlad_open(&c);
    if (S == NULL)
        return NULL;
    job->ok = vlad_eval_string(S, prog, "prog", NULL) == VLAD_OK
              && run_rounds(S, job->id, 3);
    vlad_close(S);
    return NULL;
}

static void test_limits(void)
{
    enum { N = 3 };
    Job jobs[N];
    pthread_t t[N];
    for (int k = 0; k < N; k++) {
        jobs[k] = (Job){k, 0, 0, NULL};
        CHECK_INT(pthread_create(&t[k], NULL, limited, &jobs[k]), 0);
    }
    for (int k = 0; k < N; k++) {
        pthread_join(t[k], NULL);
        CHECK(jobs[k].ok);
    }
    /* a runaway state is stopped by its limit while others run */
    VladConfig c;
    vlad_config_init(&c);
    c.heap_limit = (size_t)48 << 20;
    VladState *S = vlad_open(&c);
    CHECK(S != NULL);
    CHECK_STATUS(S, vlad_eval_string(S, prog, "prog", NULL), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(length (build 100000000))", "oom",
                                     NULL), VLAD_ERR_MEMORY);
    CHECK_STR(apitest_eval(S, "(sum (build 10))"), "45");
    vlad_close(S);
}

/* ===== interrupting a state that runs in another thread ===== */

static volatile int running_flag;

static void *long_run(void *p)
{
    Job *job = p;
    running_flag = 1;
    VladStatus st = vlad_eval_string(job->S, "(churn 1000000 100)", "long",
                                     NULL);
    job->ok = st == VLAD_ERR_INTERRUPTED;
    return NULL;
}

static void test_interrupt(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    CHECK_STATUS(S, vlad_eval_string(S, prog, "prog", NULL), VLAD_OK);
    Job job = {0, 0, 0, S};
    pthread_t t;
    running_flag = 0;
    CHECK_INT(pthread_create(&t, NULL, long_run, &job), 0);
    while (!running_flag)
        usleep(1000);
    usleep(20000);
    vlad_interrupt(S);
    pthread_join(t, NULL);
    CHECK(job.ok);
    /* the checkpoint made in that thread, seen from this one */
    VladValue u;
    CHECK(vlad_interrupted(S, &u));
    CHECK(vlad_is_checkpoint(u));
    vlad_close(S);
}

int main(void)
{
    test_other_thread();
    test_concurrent();
    test_hand_over();
    test_short_lived();
    test_limits();
    test_interrupt();
    return CHECK_DONE();
}
