/*
 * tests/unit/test-cli-signals.c -- the REPL's SIGINT bookkeeping
 * (cli/signals.c; doc/hardening.md S1 (issue 31))
 *
 * Linked with cli/signals.c and libvlad.  Covers: a SIGINT noted while
 * disarmed (a Ctrl-C after Enter, before the REPL began evaluating the
 * line: on a busy machine that gap is long) interrupts the evaluation
 * armed next -- before S1, arming dropped it and the evaluation ran to
 * its end; vl_signals_disarm then says the evaluation was hit, and the
 * note is gone; without a note nothing is interrupted; a SIGINT while
 * armed interrupts; one noted before vl_signals_read makes it return -2
 * at once and stays noted.
 */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "cli/signals.h"
#include "include/vlad.h"
#include "tests/unit/check.h"

/* (spin 0 1e8) takes some 10^8 steps; interrupted, it stops within
   4096 */
static const char prog[] =
    "(define (spin i n) (if (= i n) i (spin (+ i 1) n)))";

/* A host primitive that raises SIGINT while the evaluation runs. */
static VladStatus p_sigint(VladState *S, void *ud, const VladValue *args,
                           VladValue *result)
{
    (void)S, (void)ud;
    raise(SIGINT);
    *result = args[0];
    return VLAD_OK;
}

int main(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    CHECK(vlad_eval_string(S, prog, "t", NULL) == VLAD_OK);
    vl_signals_install();

    /* a Ctrl-C noted before arming is the next evaluation's */
    raise(SIGINT);
    vl_signals_arm(S);
    VladStatus st = vlad_eval_string(S, "(spin 0 1e8)", "t", NULL);
    CHECK(st == VLAD_ERR_INTERRUPTED);
    CHECK(vl_signals_disarm() == 1);
    CHECK(vl_signals_take_sigint() == 0);

    /* no note: the evaluation runs to its end */
    vl_signals_arm(S);
    VladValue v;
    CHECK(vlad_eval_string(S, "(spin 0 10000)", "t", &v) == VLAD_OK);
    CHECK(vlad_is_number(v) && vlad_to_number(v) == 10000);
    CHECK(vl_signals_disarm() == 0);

    /* a SIGINT while armed interrupts */
    VladHostPrim prim;
    memset(&prim, 0, sizeof prim);
    prim.name = "sigint!";
    prim.arity = 1;
    prim.fn = p_sigint;
    prim.effect = 1;
    CHECK(vlad_register(S, &prim) == VLAD_OK);
    vl_signals_arm(S);
    st = vlad_eval_string(S, "(spin (sigint! 0) 1e8)", "t", NULL);
    CHECK(st == VLAD_ERR_INTERRUPTED);
    CHECK(vl_signals_disarm() == 1);
    CHECK(vl_signals_take_sigint() == 0);

    /* disarmed: noted, and a read then returns -2 at once */
    raise(SIGINT);
    int p[2];
    CHECK(pipe(p) == 0);
    char c;
    CHECK(vl_signals_read(p[0], &c, 1) == -2);
    CHECK(vl_signals_take_sigint() == 1);
    CHECK(vl_signals_take_sigint() == 0);
    close(p[0]);
    close(p[1]);

    vl_signals_restore();
    vlad_close(S);
    return CHECK_DONE();
}
