/*
 * tests/api/test-api-spill.c -- checkpoint-*j with spill=DIR through the
 * API (vlad_set_checkpoint; doc/embedding.md)
 *
 * Covers: states of several threads spilling at the same time into the
 * same directory (each state its own file: results right in every
 * thread, nothing left in the directory); the statistics of spilling
 * (VladCpjStats: bytes written and read, in all and in the last run); a
 * checkpoint captured in the middle of a spilling run (checkpoint) saved
 * to a buffer -- the states it holds in
 * the spill file come back to be saved -- and resumed in a fresh state,
 * and resumed in its own state twice; a state closed while states of it
 * are in its file; the directory changed between runs again and again
 * (the files of the old ones closed); a directory that cannot be used.
 */
#define _DEFAULT_SOURCE 1
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vlad.h>
#include "apitest.h"

/* A run long enough, with states big enough, that a small budget sends
   states to the file: a list of 40 reals scaled 300 times. */
static const char prog[] =
    "(define (build n x acc) (if (= n 0) acc "
    "(build (- n 1) x (cons (* x n) acc))))"
    "(define (scale xs c) (if (null? xs) '() "
    "(cons (* c (car xs)) (scale (cdr xs) c))))"
    "(define (f x) (let loop ((i 0) (xs (build 40 (car x) '()))) "
    "(if (= i 300) (fold-left + 0 xs) "
    "(loop (+ i 1) (scale xs (+ 1 (* 0.001 (sin (car xs)))))))))";

static char dir[] = "/tmp/vlad-spill-test-XXXXXX";
static char spec[256];

static int dir_empty(void)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n == 0;
}

/* (y x`) of checkpoint-*j (or *j) of f at (x0 1) in S, as text. */
static int result(VladState *S, const char *op, double x0, char *out,
                  size_t len)
{
    char src[128];
    VladValue v;
    snprintf(src, sizeof src, "(%s f '(%.17g 1) 1)", op, x0);
    if (vlad_eval_string(S, src, "spill", &v) != VLAD_OK)
        return 0;
    snprintf(out, len, "%s", vlad_to_string(S, v));
    return 1;
}

static VladState *fresh(void)
{
    VladState *S = vlad_open(NULL);
    if (S == NULL || vlad_eval_string(S, prog, "prog", NULL) != VLAD_OK
        || vlad_set_checkpoint(S, spec) != VLAD_OK)
        return NULL;
    return S;
}

/* ===== several threads ===== */

typedef struct Job {
    int id, ok;
    long long written, read;
} Job;

static void *job(void *p)
{
    Job *j = p;
    VladState *S = fresh();
    j->ok = S != NULL;
    for (int r = 0; S != NULL && r < 3; r++) {
        char a[4096], b[4096];
        double x0 = 0.25 + 0.1 * j->id + 0.01 * r;
        if (!result(S, "checkpoint-*j", x0, a, sizeof a)
            || !result(S, "*j", x0, b, sizeof b))
            j->ok = 0;
        /* the text of x` may differ in the last digits: compare y and
           the reals one by one */
        const char *pa = a, *pb = b;
        char *ea, *eb;
        for (;;) {
            while (*pa == '(' || *pa == ')' || *pa == ' ')
                pa++;
            while (*pb == '(' || *pb == ')' || *pb == ' ')
                pb++;
            if (*pa == '\0' || *pb == '\0') {
                if (*pa != *pb)
                    j->ok = 0;
                break;
            }
            double u = strtod(pa, &ea), w = strtod(pb, &eb);
            if (ea == pa || eb == pb
                || fabs(u - w) > 1e-12 * (1 + fabs(u) + fabs(w))) {
                j->ok = 0;
                break;
            }
            pa = ea;
            pb = eb;
        }
    }
    if (S != NULL) {
        VladStats st;
        vlad_get_stats(S, &st);
        j->written = st.checkpoint.spill_bytes_written;
        j->read = st.checkpoint.spill_bytes_read;
        vlad_close(S);
    }
    return NULL;
}

static void threads(void)
{
    enum { N = 4 };
    pthread_t t[N];
    Job jobs[N];
    for (int i = 0; i < N; i++) {
        jobs[i] = (Job){i, 0, 0, 0};
        CHECK(pthread_create(&t[i], NULL, job, &jobs[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].ok);
        CHECK(jobs[i].written > 0);
        CHECK(jobs[i].read > 0);
    }
    CHECK(dir_empty());
}

/* ===== stats, and a checkpoint in the middle of a spilling run ===== */

static void midway(void)
{
    VladState *S = fresh();
    CHECK(S != NULL);
    if (S == NULL)
        return;
    char want[4096], got[4096];
    CHECK(result(S, "*j", 0.5, want, sizeof want));
    VladStats before, after;
    vlad_get_stats(S, &before);
    CHECK(result(S, "checkpoint-*j", 0.5, got, sizeof got));
    vlad_get_stats(S, &after);
    CHECK(after.checkpoint.spill_bytes_written
          > before.checkpoint.spill_bytes_written);
    CHECK(after.checkpoint.last_spill_bytes_written > 0);
    CHECK(after.checkpoint.last_spill_bytes_read > 0);
    CHECK_INT(after.checkpoint.plan_spill, 1);
    /* captured about two thirds in (checkpoint), states in the file */
    int64_t steps = after.steps_last;
    char src[256];
    snprintf(src, sizeof src, "(checkpoint (lambda (x) (checkpoint-*j f x "
             "1)) '(0.5 1) %lld)", (long long)(steps * 2 / 3));
    VladValue v, u;
    CHECK_STATUS(S, vlad_eval_string(S, src, "midway", &u), VLAD_OK);
    /* saved (the states in the file come back for it), loaded in a fresh
       state, resumed there */
    void *data = NULL;
    size_t len = 0;
    CHECK_STATUS(S, vlad_checkpoint_save_buffer(S, u, &data, &len), VLAD_OK);
    VladState *T = fresh();
    CHECK(T != NULL);
    if (T != NULL && data != NULL) {
        VladValue w, r;
        CHECK_STATUS(T, vlad_checkpoint_load_buffer(T, data, len, &w),
                     VLAD_OK);
        CHECK_STATUS(T, vlad_resume(T, w, &r), VLAD_OK);
        CHECK_STR(vlad_to_string(T, r), got);
        vlad_close(T);
    }
    free(data);
    /* resumed twice in its own state: the same result each time */
    VladValue r1, r2;
    CHECK_STATUS(S, vlad_resume(S, u, &r1), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r1), got);
    vlad_collect(S);
    CHECK_STATUS(S, vlad_resume(S, u, &r2), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r2), got);
    /* closed with states of a stopped run still in its file */
    vlad_set_step_limit(S, steps / 2);
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j f '(0.5 1) 1)",
                                     "again", &v), VLAD_ERR_LIMIT);
    vlad_close(S);
    CHECK(dir_empty());
}

/* ===== spilling to one directory, then another, again and again ===== */

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -1;
    int n = 0;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

static void switching(void)
{
    char dir2[] = "/tmp/vlad-spill-test2-XXXXXX";
    if (mkdtemp(dir2) == NULL) {
        CHECK(0);
        return;
    }
    char spec2[256];
    snprintf(spec2, sizeof spec2, "binomial,budget=24k,spill=%s", dir2);
    VladState *S = fresh();
    CHECK(S != NULL);
    if (S != NULL) {
        char a[4096];
        CHECK(result(S, "checkpoint-*j", 0.5, a, sizeof a));
        int before = open_fds();
        for (int i = 0; i < 40; i++) {
            CHECK_STATUS(S, vlad_set_checkpoint(S, i % 2 ? spec : spec2),
                         VLAD_OK);
            char b[4096];
            CHECK(result(S, "checkpoint-*j", 0.5, b, sizeof b));
            CHECK_STR(b, a);
            vlad_collect(S);
        }
        /* the files of directories no longer used are closed once they
           hold nothing: a few at most stay open */
        CHECK(open_fds() <= before + 3);
        vlad_close(S);
    }
    CHECK(open_fds() >= 0);
    rmdir(dir2);
}

/* ===== a directory that will not do ===== */

static void bad_dir(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    if (S == NULL)
        return;
    CHECK_STATUS(S, vlad_eval_string(S, prog, "prog", NULL), VLAD_OK);
    CHECK_STATUS(S, vlad_set_checkpoint(
                        S, "binomial,budget=24k,spill=/nonexistent/vlad"),
                 VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j f '(0.5 1) 1)",
                                     "bad", NULL), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "spill=/nonexistent/vlad: cannot make a file there");
    /* the state goes on: the same run without spill */
    CHECK_STATUS(S, vlad_set_checkpoint(S, "binomial,budget=24k"), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j f '(0.5 1) 1)",
                                     "bad", NULL), VLAD_OK);
    vlad_close(S);
}

int main(void)
{
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(spec, sizeof spec, "binomial,budget=24k,spill=%s", dir);
    threads();
    midway();
    switching();
    bad_dir();
    rmdir(dir);
    return CHECK_DONE();
}
