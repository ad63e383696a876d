/*
 * tests/api/test-api-backtrace.c -- backtraces are bounded and account
 * for every frame (issue 19: U2)
 *
 * A backtrace line "  in NAME [at FILE:LINE:COL]" stands for one frame,
 * "  [previous line repeated N more times]" for N more frames like the
 * line before it, "  ... N more frames ..." for N frames left out.  For
 * programs whose frames are known from their structure, the lines must
 * account for exactly those frames, in at most 16 lines: a recursion
 * 100,000 deep, 30 nested j* (control frames, printed without a
 * position, which were merged without being counted), mutual recursion,
 * an error raised by a host primitive deep in a recursion, a step limit
 * stopping a runaway recursion, a checkpoint's failing rest resumed twice;
 * and a shallow backtrace is shown whole.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

/* The frames the backtrace 'bt' accounts for, and its lines. */
static long frames_of(const char *bt, int *lines)
{
    long n = 0;
    *lines = 0;
    for (const char *p = bt; *p != '\0';) {
        const char *eol = strchr(p, '\n');
        long k;
        if (strncmp(p, "  in ", 5) == 0)
            n++;
        else if (sscanf(p, "  [previous line repeated %ld more time", &k)
                 == 1)
            n += k;
        else if (sscanf(p, "  ... %ld more frame", &k) == 1)
            n += k;
        else
            return -1;          /* a line of no known form */
        (*lines)++;
        if (eol == NULL)
            break;
        p = eol + 1;
    }
    return n;
}

/* Evaluate 'src' (which must fail) and check its backtrace accounts for
   'frames' frames in at most 16 lines. */
static void check_backtrace(VladState *S, const char *src, long frames,
                            VladStatus status)
{
    VladStatus st = vlad_eval_string(S, src, "bt", NULL);
    CHECK_INT(st, status);
    const char *bt = vlad_last_error(S)->backtrace;
    int lines;
    long n = frames_of(bt, &lines);
    CHECK_INT(n, frames);
    CHECK(lines <= 16);
    if (n != frames || lines > 16)
        printf("backtrace of %.60s...:\n%s", src, bt);
}

static VladStatus h_fail(VladState *S, void *ud, const VladValue *a,
                         VladValue *r)
{
    (void)ud;
    (void)a;
    (void)r;
    return vlad_host_error(S, "deep failure");
}

int main(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    /* car failing in f called at depth 0..N: the frame of car, N+1 frames
       of f, and the top level */
    check_backtrace(S, "(define (f x) (if (= x 0) (car x) (+ 1 (f (- x 1)))))"
                       "(f 100000)", 100003, VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->backtrace,
                   "  in f at bt:1:40\n"
                   "  [previous line repeated 99999 more times]\n"
                   "  in top level at bt:1:54\n");
    /* g tail-calls j*, whose procedure tail-calls g: one j* frame per
       level, 30, below the frame of g that fails and the top level */
    check_backtrace(S, "(define (g n) (if (= n 0) (car n) "
                       "(j* (lambda (x) (g (- n 1))) 1 1))) (g 30)",
                    33, VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->backtrace,
                   "  in j*\n  [previous line repeated 29 more times]\n");
    /* mutual recursion: ev and od alternate, 61 frames and the top
       level; the middle is left out and counted */
    check_backtrace(S, "(define (ev n) (if (= n 0) (car 5) (+ 1 (od (- n 1)))))"
                       "(define (od n) (+ 1 (ev (- n 1)))) (ev 60)", 63,
                    VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->backtrace, " more frames ...\n");
    /* a host primitive failing 5,000 calls deep */
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = "fail!";
    p.arity = 1;
    p.fn = h_fail;
    CHECK_STATUS(S, vlad_register(S, &p), VLAD_OK);
    check_backtrace(S, "(define (h x) (if (= x 0) (fail! x) (+ 1 (h (- x 1)))))"
                       "(h 5000)", 5002, VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message, "fail!: deep failure");
    /* a shallow one whole: car, two frames of k and the top level */
    check_backtrace(S, "(define (k x) (if (= x 0) (car x) (+ 1 (k (- x 1)))))"
                       "(k 1)", 4, VLAD_ERR_RUNTIME);
    CHECK_STR(vlad_last_error(S)->backtrace,
              "  in car\n  in k at bt:1:27\n  in k at bt:1:40\n"
              "  in top level at bt:1:54\n");
    /* a step limit: every frame is accounted for, whatever the depth
       reached */
    vlad_set_step_limit(S, 20000);
    VladStatus st = vlad_eval_string(S, "(define (r n) (+ 1 (r (+ n 1))))"
                                        " (r 0)", "bt", NULL);
    CHECK_INT(st, VLAD_ERR_LIMIT);
    int lines;
    long n = frames_of(vlad_last_error(S)->backtrace, &lines);
    CHECK(n > 1000);
    CHECK(lines <= 16);
    vlad_set_step_limit(S, 0);
    /* a checkpoint taken 50,000 calls deep, whose rest fails, resumed
       twice: the same bounded backtrace both times, counting the frames
       of the captured continuation and those made after (50,001 of f)
       and the resume frame running them */
    VladValue u;
    CHECK_STATUS(S, vlad_eval_string(S, "(define (f x) (if (= x 0) (car x)"
                                        " (+ 1 (f (- x 1))))) (checkpoint f "
                                        "50000 1000)", "bt", &u), VLAD_OK);
    CHECK(vlad_is_checkpoint(u));
    char first[2048];
    for (int k = 0; k < 2; k++) {
        CHECK_INT(vlad_resume(S, u, NULL), VLAD_ERR_RUNTIME);
        n = frames_of(vlad_last_error(S)->backtrace, &lines);
        CHECK_INT(n, 50003);
        CHECK(lines <= 16);
        if (k == 0)
            snprintf(first, sizeof first, "%s", vlad_last_error(S)->backtrace);
        else
            CHECK_STR(vlad_last_error(S)->backtrace, first);
    }
    vlad_close(S);
    return CHECK_DONE();
}
