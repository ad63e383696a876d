/*
 * tests/api/test-api-small-stack.c -- host threads with small C stacks
 * (doc/embedding.md, "Threads"; doc/hardening.md, section 3: the C stack
 * guard and its minimum)
 *
 * Threads of 16, 24, 32, 48, 64, 96, 128, 256 KiB and 1 MiB of stack run
 * evaluations on one state: shallow code, code that conses enough for the
 * collector to run on the thread, a run-time error with a backtrace, code
 * nested 10^5 deep (the expander's and compiler's guard), derivatives
 * nested 2,000 deep through j* and *j (the guard of vm/ad/ad.c), a call of
 * a procedure and values built and printed from the thread.  Whatever
 * the size, nothing may crash: each call gives its right result, the
 * guard's error, or the refusal of a stack below the documented minimum
 * ("the C stack is too small"); the state still works afterwards.  The
 * sizes at which everything must work (64 KiB and up; 256 KiB in a
 * sanitizer build, whose frames are bigger) are checked too, and below
 * 32 KiB (64 KiB in a sanitizer build) evaluations must be refused.  Finding C2 of issue 19: 16-64 KiB threads crashed.
 */
#define _DEFAULT_SOURCE 1
#define _XOPEN_SOURCE 700

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
#define WORKS_KIB 256          /* everything works from here up */
#define REFUSED_KIB 64         /* evaluations refused below this */
#else
#define WORKS_KIB 64
#define REFUSED_KIB 32
#endif

#define DEPTH 100000
#define AD_DEPTH 2000

typedef struct Outcome {
    VladStatus status;
    char text[160];             /* the result printed, or the message */
} Outcome;

enum { SHALLOW, CONSING, ERROR, DEEP, AD_FORWARD, AD_REVERSE, CALL, NJOBS };

static const char *const names[NJOBS] = {
    "shallow", "consing", "error", "deep", "ad-forward", "ad-reverse", "call"
};

typedef struct Job {
    VladState *S;
    VladValue square;           /* a procedure defined beforehand */
    const char *src[NJOBS];     /* the code of each evaluation */
    Outcome out[NJOBS];
    int built_ok;               /* vlad_cons + vlad_to_string gave "(1)" */
    int built_refused;          /* ... or the empty list and "" */
} Job;

static void record(Job *job, int k, VladStatus st, VladValue v)
{
    Outcome *o = &job->out[k];
    o->status = st;
    const char *t = st == VLAD_OK ? vlad_to_string(job->S, v)
                                  : vlad_last_error(job->S)->message;
    snprintf(o->text, sizeof o->text, "%s", t);
}

static void *run_jobs(void *arg)
{
    Job *job = arg;
    VladValue v;
    for (int k = 0; k < NJOBS; k++) {
        VladStatus st = k == CALL
                        ? vlad_call(job->S, job->square, vlad_number(12), &v)
                        : vlad_eval_string(job->S, job->src[k], names[k], &v);
        record(job, k, st, v);
    }
    VladValue p = vlad_cons(job->S, vlad_number(1), vlad_nil());
    const char *s = vlad_to_string(job->S, p);
    job->built_ok = vlad_is_pair(p) && strcmp(s, "(1)") == 0;
    job->built_refused = vlad_is_nil(p) && strcmp(s, "") == 0;
    return NULL;
}

static char *nested(const char *open, const char *mid, const char *close,
                    int n)
{
    size_t lo = strlen(open), lm = strlen(mid), lc = strlen(close);
    char *s = malloc((lo + lc) * (size_t)n + lm + 1), *p = s;
    if (s == NULL)
        exit(99);
    for (int i = 0; i < n; i++, p += lo)
        memcpy(p, open, lo);
    memcpy(p, mid, lm);
    p += lm;
    for (int i = 0; i < n; i++, p += lc)
        memcpy(p, close, lc);
    *p = '\0';
    return s;
}

static int refused(const Outcome *o)
{
    return o->status == VLAD_ERR_MEMORY
           && strncmp(o->text, "the C stack is too small: ", 26) == 0;
}

static int guarded(const Outcome *o, const char *what)
{
    return o->status == VLAD_ERR_MEMORY && strstr(o->text, what) == o->text
           && strstr(o->text, " nested too deeply (the C stack is "
                     "exhausted at depth ") != NULL;
}

/* Check the outcomes of a thread of 'kib' KiB. */
static void check_job(const Job *job, size_t kib)
{
    static const char *const want[NJOBS] = {
        "3", "200000", NULL, NULL, "9", "9", "144"
    };
    char what[64];
    for (int k = 0; k < NJOBS; k++) {
        const Outcome *o = &job->out[k];
        int ok = 0, clean;
        if (k == ERROR)
            ok = o->status == VLAD_ERR_RUNTIME
                 && strstr(o->text, "car") != NULL;
        else if (want[k] != NULL)
            ok = o->status == VLAD_OK && strcmp(o->text, want[k]) == 0;
        if (k == DEEP)
            clean = guarded(o, "expression") || refused(o);
        else if (k == AD_FORWARD || k == AD_REVERSE)
            clean = ok || guarded(o, "derivatives") || refused(o);
        else
            clean = ok || refused(o);
        snprintf(what, sizeof what, "%zu KiB, %s: %d %s", kib, names[k],
                 o->status, o->text);
        check_report(clean, __FILE__, __LINE__, what);
        if (kib >= WORKS_KIB && k != DEEP && k != AD_FORWARD
            && k != AD_REVERSE)
            check_report(ok, __FILE__, __LINE__, what);
        if (kib >= WORKS_KIB && k == DEEP)
            check_report(guarded(o, "expression"), __FILE__, __LINE__, what);
        if (kib < REFUSED_KIB)
            check_report(refused(o), __FILE__, __LINE__, what);
    }
    snprintf(what, sizeof what, "%zu KiB: vlad_cons, vlad_to_string", kib);
    check_report(job->built_ok || job->built_refused, __FILE__, __LINE__,
                 what);
    if (kib >= WORKS_KIB)
        check_report(job->built_ok, __FILE__, __LINE__, what);
}

int main(void)
{
    static const size_t sizes[] = { 16, 24, 32, 48, 64, 96, 128, 256, 1024 };
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    if (S == NULL)
        return CHECK_DONE();
    VladValue sq;
    CHECK_STATUS(S, vlad_eval_string(S, "(define (square x) (* x x))",
                                     "setup", NULL), VLAD_OK);
    CHECK(vlad_get_global(S, "square", &sq));
    VladRef *keep = vlad_ref(S, sq);

    Job *job = calloc(1, sizeof *job);
    if (job == NULL)
        return 99;
    job->S = S;
    job->square = sq;
    job->src[SHALLOW] = "(+ 1 2)";
    job->src[CONSING] = "(let loop ((i 0) (l '())) (if (< i 200000) "
                        "(loop (+ i 1) (cons i l)) (length l)))";
    job->src[ERROR] = "(define (g x) (car x))\n(g 1)";
    job->src[DEEP] = nested("(+ 1 ", "0", ")", DEPTH);
    char ad[2][200];
    snprintf(ad[0], sizeof ad[0], "(define (f n x) (if (= n 0) (* x x) "
             "(car (j* (lambda (y) (f (- n 1) y)) x 1))))\n(f %d 3)",
             AD_DEPTH);
    snprintf(ad[1], sizeof ad[1], "(define (h n x) (if (= n 0) (* x x) "
             "(car (*j (lambda (y) (h (- n 1) y)) x 1))))\n(h %d 3)",
             AD_DEPTH);
    job->src[AD_FORWARD] = ad[0];
    job->src[AD_REVERSE] = ad[1];

    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t kib = sizes[i];
        memset(job->out, 0, sizeof job->out);
        job->built_ok = job->built_refused = 0;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        if (pthread_attr_setstacksize(&attr, kib * 1024) != 0) {
            /* below the system's PTHREAD_STACK_MIN: not a stack a host
               can have */
            printf("# %zu KiB: not a valid thread stack size here\n", kib);
            pthread_attr_destroy(&attr);
            continue;
        }
        pthread_t t;
        int rc = pthread_create(&t, &attr, run_jobs, job);
        pthread_attr_destroy(&attr);
        CHECK_INT(rc, 0);
        if (rc != 0)
            continue;
        pthread_join(t, NULL);
        check_job(job, kib);
        printf("# %zu KiB: shallow: %s; deep: %s; ad: %s\n", kib,
               job->out[SHALLOW].text, job->out[DEEP].text,
               job->out[AD_FORWARD].text);
        /* the state is intact */
        VladValue v;
        CHECK_STATUS(S, vlad_eval_string(S, "(square 5)", "after", &v),
                     VLAD_OK);
        CHECK_STR(vlad_to_string(S, v), "25");
    }
    vlad_unref(keep);
    free((char *)job->src[DEEP]);
    free(job);
    vlad_close(S);
    return CHECK_DONE();
}
