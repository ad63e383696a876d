/*
 * tests/api/test-api-hangs.c -- work that ran unbounded inside one step
 * (issue 19, H1-H3), seen by a host
 *
 * H1  binomial slots of 10^9 and 2^53: checkpoint-*j gives *j's result,
 *     and an interrupt asked for from the progress callback (at the first
 *     base case, when every split before it is done) stops it; resumed, it
 *     finishes with the same result.  Before the fix the first split took
 *     minutes (10^9 slots) or failed (2^53).
 * H2  the driver's %cpj-* primitives and the prelude's '%' helpers are not
 *     globals of the user environment: vlad_get_global does not find them,
 *     vlad_globals does not list them, and a host's own binding of such a
 *     name does not disturb checkpoint-*j.
 * H3  printing a structure that shares its parts (2^40 leaves from 40
 *     pairs):
 *     - write hands the text to the write callback in bounded pieces as
 *       it is made and stops for an interrupt asked for from that
 *       callback: VLAD_ERR_INTERRUPTED, "interrupted while printing",
 *       nothing to resume, the state usable;
 *     - write and the echo of a result stop at the step limit (one step
 *       per pair printed) with VLAD_ERR_LIMIT, under a heap limit far
 *       below the text's size (before the fix: the whole text was built
 *       in memory first: VLAD_ERR_MEMORY, or terabytes);
 *     - vlad_to_string returns the first 64 MiB and "...";
 *     - a list of 10^6 reals still prints in full, through the echo,
 *       write and vlad_to_string, identical to the text built here.
 */
#define _DEFAULT_SOURCE 1

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

/* ===== Output, counted and (optionally) kept ===== */

typedef struct Out {
    VladState *S;           /* the state writing */
    size_t bytes;           /* written in all */
    size_t calls;           /* write callbacks */
    size_t biggest;         /* the largest piece */
    int interrupt_at;       /* ask for an interrupt at this call (0: never) */
    char *keep;             /* the text, when not NULL */
    size_t keep_cap;
} Out;

static void out_write(void *ud, const char *text, size_t len)
{
    Out *o = ud;
    o->calls++;
    if (len > o->biggest)
        o->biggest = len;
    if (o->keep != NULL && o->bytes + len < o->keep_cap) {
        memcpy(o->keep + o->bytes, text, len);
        o->keep[o->bytes + len] = '\0';
    }
    o->bytes += len;
    if (o->interrupt_at != 0 && o->calls == (size_t)o->interrupt_at)
        vlad_interrupt(o->S);
}

static VladState *open_with(Out *o, int64_t steps, size_t heap,
                            const char *spec, int echo)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = out_write;
    c.userdata = o;
    c.step_limit = steps;
    c.heap_limit = heap;
    c.checkpoint = spec;
    c.echo_results = echo;
    VladState *S = vlad_open(&c);
    o->S = S;
    return S;
}

static const char *dbl =
    "(define (dbl l n) (if (= n 0) l (dbl (cons l l) (- n 1))))";

/* ===== H1 ===== */

static VladState *progress_state;
static int progress_calls;

static void interrupt_on_progress(void *ud, int64_t done, int64_t total)
{
    (void)ud;
    (void)done;
    (void)total;
    if (progress_calls++ == 0)
        vlad_interrupt(progress_state);
}

static const char *loop_f =
    "(define (f x) (let loop ((i 0) (a x)) "
    "  (if (= i 3000) a (loop (+ i 1) (* a 1.0001)))))";

static void test_huge_slots(const char *spec)
{
    Out o = {0};
    VladState *S = open_with(&o, 1000000, 0, spec, 0);
    CHECK(S != NULL);
    if (S == NULL)
        return;
    VladValue r, ref;
    CHECK_STATUS(S, vlad_eval_string(S, loop_f, "f", NULL), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(*j f 1 1)", "ref", &ref), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j f 1 1)", "cpj", &r),
                 VLAD_OK);
    CHECK_STR(vlad_to_string(S, r), vlad_to_string(S, ref));
    vlad_close(S);

    /* interrupted at its first base case, then resumed */
    VladConfig c;
    vlad_config_init(&c);
    c.checkpoint = spec;
    c.step_limit = 1000000;
    c.progress = interrupt_on_progress;
    S = vlad_open(&c);
    CHECK(S != NULL);
    if (S == NULL)
        return;
    progress_state = S;
    progress_calls = 0;
    CHECK_STATUS(S, vlad_eval_string(S, loop_f, "f", NULL), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j f 1 1)", "cpj", &r),
                 VLAD_ERR_INTERRUPTED);
    VladValue u;
    CHECK(vlad_interrupted(S, &u));
    CHECK_STATUS(S, vlad_resume(S, u, &r), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(*j f 1 1)", "ref", &ref), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r), vlad_to_string(S, ref));
    CHECK(progress_calls >= 2);
    vlad_close(S);
}

/* ===== H2 ===== */

typedef struct Seen {
    int percent;            /* names starting with '%' listed */
    int checkpoint_starj;   /* checkpoint-*j listed */
} Seen;

static void see(void *ud, const char *name, int user)
{
    Seen *s = ud;
    (void)user;
    if (name[0] == '%')
        s->percent++;
    if (strcmp(name, "checkpoint-*j") == 0)
        s->checkpoint_starj++;
}

static void test_private_names(void)
{
    Out o = {0};
    VladState *S = open_with(&o, 1000000, 0, NULL, 0);
    CHECK(S != NULL);
    if (S == NULL)
        return;
    static const char *names[] = {
        "%cpj-split", "%cpj-first", "%cpj-slots", "%cpj-runner",
        "%cpj-advancer", "%cpj-*j", "%cpj-final", "%cpj-middle",
        "%checkpoint-input", "%cpj-hold", "%map", "%gradient",
    };
    VladValue v = vlad_number(1), r;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        CHECK(!vlad_get_global(S, names[k], &v));
        char src[64];
        snprintf(src, sizeof src, "(%s 9e15 9e15)", names[k]);
        CHECK_STATUS(S, vlad_eval_string(S, src, "p", &r),
                     VLAD_ERR_RUNTIME);
        CHECK_PREFIX(vlad_last_error(S)->message, "unbound variable %");
    }
    Seen seen = {0, 0};
    vlad_globals(S, see, &seen);
    CHECK_INT(seen.percent, 0);
    CHECK_INT(seen.checkpoint_starj, 1);
    /* a host's binding of the driver's names is its own */
    vlad_set_global(S, "%cpj-split", vlad_number(0));
    vlad_set_global(S, "%cpj-first", vlad_number(0));
    CHECK(vlad_get_global(S, "%cpj-split", &v));
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j (lambda (x) "
                                     "(* x x x)) 2 1)", "c", &r), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r), "(8 12)");
    vlad_close(S);
}

/* ===== H3 ===== */

static void test_write_interrupted(void)
{
    Out o = {0};
    o.interrupt_at = 3;
    VladState *S = open_with(&o, 0, 64u << 20, NULL, 0);
    CHECK(S != NULL);
    if (S == NULL)
        return;
    VladValue r;
    CHECK_STATUS(S, vlad_eval_string(S, dbl, "dbl", NULL), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(write (dbl '() 40))", "w", &r),
                 VLAD_ERR_INTERRUPTED);
    CHECK_STR(vlad_last_error(S)->message, "interrupted while printing");
    CHECK(!vlad_interrupted(S, &r));        /* nothing to resume */
    CHECK(o.calls >= 3);
    CHECK(o.bytes >= 3 * 4096);
    CHECK(o.bytes < ((size_t)1 << 20));     /* stopped at the next poll */
    CHECK(o.biggest <= 65536);
    CHECK_STATUS(S, vlad_eval_string(S, "(+ 1 2)", "after", &r), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r), "3");
    vlad_close(S);
}

static void test_step_limit(int echo)
{
    Out o = {0};
    /* 10^6 pairs print about 2.5 MB; the heap may hold 32 MB: the text
       of 2^40 leaves (3 TB) never is in memory */
    VladState *S = open_with(&o, 1000000, 32u << 20, NULL, echo);
    CHECK(S != NULL);
    if (S == NULL)
        return;
    VladValue r;
    CHECK_STATUS(S, vlad_eval_string(S, dbl, "dbl", NULL), VLAD_OK);
    o.bytes = 0;
    CHECK_STATUS(S, vlad_eval_string(S, echo ? "(dbl '() 40)"
                                             : "(write (dbl '() 40))",
                                     "w", &r), VLAD_ERR_LIMIT);
    CHECK_STR(vlad_last_error(S)->message,
              "step limit exceeded (1000000 steps) while printing");
    CHECK_INT(vlad_last_error(S)->line, 1);
    CHECK(o.bytes > 1000000);               /* what was printed is kept */
    CHECK(o.bytes < 4000000);
    CHECK(o.biggest <= 65536);
    /* the next form has its own budget */
    CHECK_STATUS(S, vlad_eval_string(S, echo ? "(dbl 1 3)"
                                             : "(write (dbl 1 3))",
                                     "w", &r), VLAD_OK);
    vlad_close(S);
}

static void test_to_string_capped(void)
{
    Out o = {0};
    VladState *S = open_with(&o, 0, 0, NULL, 0);
    CHECK(S != NULL);
    if (S == NULL)
        return;
    VladValue r;
    CHECK_STATUS(S, vlad_eval_string(S, dbl, "dbl", NULL), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(dbl '() 40)", "d", &r), VLAD_OK);
    const char *t = vlad_to_string(S, r);
    size_t n = strlen(t);
    CHECK_INT(n, ((size_t)1 << 26) + 3);
    CHECK_PREFIX(t, "((((((((((((((((((((((((((((((((((((((((()) ()) (())");
    CHECK(n > 3 && strcmp(t + n - 3, "...") == 0);
    /* an error message shows a short prefix */
    CHECK_STATUS(S, vlad_eval_string(S, "(+ 1 (dbl '() 40))", "e", &r),
                 VLAD_ERR_RUNTIME);
    CHECK(strlen(vlad_last_error(S)->message) < 400);
    vlad_close(S);
}

static void test_long_list_in_full(void)
{
    const long n = 1000000;
    size_t cap = 16u << 20;
    char *want = malloc(cap);
    Out o = {0};
    o.keep = malloc(cap);
    o.keep_cap = cap;
    CHECK(want != NULL && o.keep != NULL);
    if (want == NULL || o.keep == NULL)
        return;
    size_t len = 0;
    want[len++] = '(';
    for (long k = 0; k < n; k++)
        len += (size_t)snprintf(want + len, cap - len, k ? " %ld.5" : "%ld.5",
                                k);
    want[len++] = ')';
    want[len] = '\0';
    VladState *S = open_with(&o, 0, 0, NULL, 1);
    CHECK(S != NULL);
    if (S != NULL) {
        VladValue r;
        /* echoed */
        CHECK_STATUS(S, vlad_eval_string(S, "(map (lambda (i) (+ i 0.5)) "
                                         "(iota 1000000))", "l", &r),
                     VLAD_OK);
        CHECK_INT(o.bytes, len + 1);
        CHECK(o.bytes == len + 1 && memcmp(o.keep, want, len) == 0
              && o.keep[len] == '\n');
        CHECK(o.biggest <= 65536);
        /* vlad_to_string */
        CHECK_STR(vlad_to_string(S, r), want);
        /* written */
        o.bytes = 0;
        vlad_set_global(S, "l", r);
        CHECK_STATUS(S, vlad_eval_string(S, "(define x (write l))", "w",
                                         NULL), VLAD_OK);
        CHECK(o.bytes == len + 1 && memcmp(o.keep, want, len) == 0);
        vlad_close(S);
    }
    free(want);
    free(o.keep);
}

int main(void)
{
    test_huge_slots("binomial,slots=1000000000,base=1");
    test_huge_slots("binomial,slots=9007199254740992,base=10");
    test_private_names();
    test_write_interrupted();
    test_step_limit(0);
    test_step_limit(1);
    test_to_string_capped();
    test_long_list_in_full();
    return CHECK_DONE();
}
