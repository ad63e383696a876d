/*
 * tests/unit/test-cpj-interface.c -- checkpoint-*j's private interface
 * (doc/internals.md section 19) is validated and out of programs' reach
 *
 * The prelude's driver of checkpoint-*j calls vm/cpj/ (vm/cpj/cpj.h) and the segment
 * prototypes of vm/exec/vm.c through private names (%cpj-...,
 * %checkpoint-input): 24 of them.  For every such name bound in the
 * prelude environment (those and the driver's own procedures), found by
 * scanning its cells:
 * - a program cannot reach it: evaluated in the user environment, the
 *   name is unbound;
 * - evaluated in the prelude environment, every call with arguments of
 *   the wrong kind (booleans, lists, negative, fractional, infinite and
 *   NaN counts, procedures, checkpoints, strings), in every position,
 *   ends with a value or a run-time error, never a crash or another
 *   status;
 * - each argument the primitive reads as a step count, an effect log or a
 *   checkpoint is checked: the calls listed in 'must_fail' raise an error
 *   that names checkpoint-*j.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "tests/unit/check.h"
#include "tests/unit/state.h"

static VladStatus run_prelude(VladState *S, const char *src)
{
    return vl_toplevel_eval(S, src, strlen(src), "<test>", 1, NULL);
}

static const char *const bad[] = {
    "#t", "'()", "(cons 1 2)", "-1", "1.5", "(/ 0. 0.)", "(/ 1. 0.)",
    "1e300", "(lambda (x) x)", "(checkpoint (lambda (x) x) 1 0)",
    "\"text\"", "0",
};
#define NBAD (sizeof bad / sizeof bad[0])

/* calls whose arguments are checked: each must raise checkpoint-*j's
   error */
static const char *const must_fail[] = {
    "(%cpj-leaf? -1 4)", "(%cpj-leaf? 1.5 4)", "(%cpj-leaf? #t 4)",
    "(%cpj-leaf? 4 0)", "(%cpj-leaf? 4 #f)",
    "(%cpj-pilot-steps '())", "(%cpj-pilot-steps -5)",
    "(%cpj-plan -1 #f (quote ()))", "(%cpj-plan 10 5 (quote ()))",
    "(%cpj-plan 10 (list 5 5) (quote ()))",
    "(%cpj-plan 10 (list (checkpoint (lambda (x) x) 1 0) -3) (quote ()))",
    "(%cpj-split (/ 0. 0.) 3 4)", "(%cpj-split 10 -2 4)",
    "(%cpj-split 10 2 0)", "(%cpj-split 10 2 1e300)",
    "(%cpj-runner 0 #t)", "(%cpj-runner -3 '())",
    "(%cpj-advancer 0 (cons 1 2) 5)", "(%cpj-advancer 1e300 #f 5)",
    "(%cpj-position 5)", "(%checkpoint-input 5)",
    "(%checkpoint-input (checkpoint (lambda (x) x) 1 100))",
    "(%cpj-count-leaf #f)", "(%cpj-hold 5 -1 #t)",
    "(%cpj-check-cotangent (cons 1 2) 3)",
    "(%cpj-recorder -1 (%cpj-empty-log) 5)", "(%cpj-recorder 0 #t 5)",
    "(%cpj-recorder 0 (%cpj-empty-log) 1.5)", "(%cpj-finished? 5)",
    "(%cpj-recorded 5 (%cpj-empty-log))",
    "(%cpj-recorded (checkpoint (lambda (x) x) 1 0) (%cpj-empty-log))",
    "(%cpj-recorded (checkpoint (lambda (x) x) 1 9) #t)",
    "(%cpj-keep 5 4 '())", "(%cpj-keep (%cpj-start (lambda (x) x) 1) -2 '())",
    "(%cpj-keep (%cpj-start (lambda (x) x) 1) 4 (list 5))",
};

int main(void)
{
    VladState *S = open_state();
    CHECK(S != NULL);
    if (S == NULL)
        return CHECK_DONE();
    int found = 0;
    for (uint32_t id = 0; id < S->ncells; id++) {
        Global *g = S->prelude_cells[id];
        if (g == NULL || IS_UNDEF(g->value))
            continue;
        const char *name = g->name->name;
        if (strncmp(name, "%cpj-", 5) != 0
            && strcmp(name, "%checkpoint-input") != 0)
            continue;
        /* the interface: vm/cpj/cpjprims.c's primitives and vm/exec/vm.c's segment
           prototypes (the driver's own procedures, also private, are
           called with bad arguments too) */
        if (IS_PRIM(g->value)
            || AS_CLOSURE(g->value)->proto->kind != PK_LAMBDA)
            found++;
        char src[512];
        /* out of reach of programs */
        snprintf(src, sizeof src, "%s", name);
        CHECK(run(S, src) != VLAD_OK);
        /* its arity: a primitive's, or the closure's */
        int arity = IS_PRIM(g->value) ? AS_PRIM(g->value)->arity
                    : AS_CLOSURE(g->value)->proto->nparams;
        for (size_t b = 0; b < NBAD; b++)
            for (int pos = -1; pos < arity; pos++) {
                /* all arguments bad (pos -1), or one bad among 4s */
                size_t len = (size_t)snprintf(src, sizeof src, "(%s", name);
                for (int a = 0; a < arity; a++)
                    len += (size_t)snprintf(src + len, sizeof src - len,
                                            " %s", pos < 0 || a == pos
                                                   ? bad[b] : "4");
                snprintf(src + len, sizeof src - len, ")");
                VladStatus st = run_prelude(S, src);
                if (st != VLAD_OK && st != VLAD_ERR_RUNTIME) {
                    printf("FAIL: %s gave status %d: %s\n", src, (int)st,
                           S->err.text ? S->err.text : "");
                    check_failed++;
                } else {
                    check_passed++;
                }
            }
    }
    /* the 16 primitives of vm/cpj/cpjprims.c, the 6 of vm/cpj/cpjfirst.c, the 2
       segment prototypes and %cpj-hide */
    CHECK(found == 25);
    for (size_t k = 0; k < sizeof must_fail / sizeof must_fail[0]; k++) {
        VladStatus st = run_prelude(S, must_fail[k]);
        if (st != VLAD_ERR_RUNTIME || S->err.message == NULL
            || strstr(S->err.message, "checkpoint-*j") == NULL) {
            printf("FAIL: %s gave status %d: %s\n", must_fail[k], (int)st,
                   S->err.message ? S->err.message : "(no message)");
            check_failed++;
        } else {
            check_passed++;
        }
    }
    /* and the driver still works after all that */
    CHECK(run(S, "(checkpoint-*j (lambda (x) (* x x)) 3 1)") == VLAD_OK);
    vl_toplevel_close(S);
    return CHECK_DONE();
}
