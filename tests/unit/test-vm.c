/*
 * tests/unit/test-vm.c -- white-box tests of the VM's parts
 *
 * Number printing, equality, the calling convention, steps, checkpoint
 * capture (size = live state only, independent of steps already run),
 * multi-shot resume, the walker's sharing, and every derivative rule of
 * vm/ad/ad.c against its closed form in both modes.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/check.h"
#include "vm/ad/ad.h"
#include "vm/core/cont.h"
#include "vm/core/print.h"
#include "vm/core/state.h"
#include "vm/exec/toplevel.h"
#include "vm/ad/walk.h"

/* Output of the state, captured. */
static char out[1 << 16];
static size_t nout;

static void capture(void *ud, const char *text, size_t len)
{
    (void)ud;
    if (nout + len >= sizeof out)
        len = sizeof out - 1 - nout;
    memcpy(out + nout, text, len);
    nout += len;
    out[nout] = '\0';
}

static VladState *open_state(void)
{
    VladConfig c;
    memset(&c, 0, sizeof c);
    c.write = capture;
    c.echo_results = 1;
    return vl_toplevel_open(&c);
}

/* Run 'src' and compare what it prints with 'want'. */
static int runs(VladState *S, const char *src, const char *want)
{
    nout = 0;
    out[0] = '\0';
    Value v;
    VladStatus st = vl_toplevel_eval(S, src, strlen(src), "<test>", 0, &v);
    if (st != VLAD_OK) {
        printf("  error in %s: %s", src, S->err.text);
        return 0;
    }
    if (strcmp(out, want) != 0) {
        printf("  %s printed '%s', expected '%s'\n", src, out, want);
        return 0;
    }
    return 1;
}

static Value eval(VladState *S, const char *src)
{
    Value v = NIL_VAL;
    int echo = S->config.echo_results;
    S->config.echo_results = 0;
    VladStatus st = vl_toplevel_eval(S, src, strlen(src), "<test>", 0, &v);
    S->config.echo_results = echo;
    if (st != VLAD_OK)
        printf("  error in %s: %s", src, S->err.text);
    return v;
}

static void test_printing(void)
{
    StrBuf b;
    const double xs[] = {0, 1, -3, 120, 0.5, 0.1, 1e-7, 1e300, 1e21, 1e22,
                         123456.5, 2.0 / 3, M_PI, -1e-300, 5e-324,
                         1.7976931348623157e308};
    for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++) {
        vl_strbuf_init(&b);
        vl_print_number(&b, xs[k]);
        CHECK(strtod(b.data, NULL) == xs[k]);
    }
    srand(7);
    for (int k = 0; k < 10000; k++) {
        double x = ((double)rand() / RAND_MAX - 0.5)
                   * pow(10, rand() % 40 - 20);
        vl_strbuf_init(&b);
        vl_print_number(&b, x);
        CHECK(strtod(b.data, NULL) == x);
    }
    vl_strbuf_init(&b);
    vl_print_number(&b, 832040);
    CHECK(strcmp(b.data, "832040") == 0);
    vl_strbuf_init(&b);
    vl_print_number(&b, 1e-7);
    CHECK(strcmp(b.data, "1e-07") == 0);
    vl_strbuf_init(&b);
    vl_print_number(&b, NAN);
    CHECK(strcmp(b.data, "+nan.0") == 0);
}

static void test_equality(VladState *S)
{
    Value a = eval(S, "'(1 (2 3) #t ())");
    Value b = eval(S, "(list 1 (list 2 3) #t '())");
    Value c = eval(S, "'(1 (2 4) #t ())");
    CHECK(vl_object_equal(a, b));
    CHECK(!vl_object_equal(a, c));
    CHECK(vl_object_equal(vl_num(2), vl_num(2)));
    CHECK(!vl_object_equal(vl_num(2), TRUE_VAL));
}

static void test_calls(VladState *S)
{
    CHECK(runs(S, "((lambda (a b c) (list a b c)) 1 2 3)", "(1 2 3)\n"));
    CHECK(runs(S, "((lambda (t) t) 1 2 3)", "(1 2 . 3)\n"));
    CHECK(runs(S, "((lambda (a b c) (list a b c)) (cons* 1 2 3))",
               "(1 2 3)\n"));
    CHECK(runs(S, "((lambda (a b) (list a b)) 1 2 3)", "(1 (2 . 3))\n"));
    CHECK(runs(S, "((lambda () 7))", "7\n"));
    CHECK(runs(S, "(+ 1 2 3 4)", "10\n"));
    CHECK(runs(S, "((lambda (f) (f 1 2)) +)", "3\n"));
    CHECK(runs(S, "(define (g x) (* x 2)) (define (h x) (g x)) (h 4)",
               "8\n"));
    /* late binding: redefining + after k was compiled (own state) */
    VladState *T = open_state();
    CHECK(runs(T, "(define (k x) (+ x 1)) (define (+ a b) (* a b)) (k 5)",
               "5\n"));
    vl_toplevel_close(T);
}

static void test_steps(VladState *S)
{
    eval(S, "(define (loop i x) (if (= i 0) x (loop (- i 1) (+ x 1))))");
    Value r1 = eval(S, "(primops loop 10 0)");
    Value r2 = eval(S, "(primops loop 10 0)");
    CHECK(vl_object_equal(r1, r2));
    CHECK(IS_PAIR(r1));
    if (IS_PAIR(r1) && IS_PAIR(AS_PAIR(r1)->cdr))
        CHECK(vl_object_primal(AS_PAIR(AS_PAIR(r1)->cdr)->car) == 11);
}

static void test_checkpoint_size(VladState *S)
{
    eval(S, "(define (run x) (let loop ((i 0) (y x)) "
            "(if (= i 1000000) y (loop (+ i 1) (* y 1.0000001)))))");
    size_t sizes[3];
    const char *progs[3] = {"(checkpoint run 1.5 10)",
                            "(checkpoint run 1.5 1000)",
                            "(checkpoint run 1.5 100000)"};
    for (int k = 0; k < 3; k++) {
        Value u = eval(S, progs[k]);
        CHECK(IS_CKPT(u));
        sizes[k] = IS_CKPT(u) ? AS_CKPT(u)->bytes : 0;
        printf("  checkpoint after %s steps: %zu bytes, %llu frames\n",
               progs[k] + 20, sizes[k],
               IS_CKPT(u) ? (unsigned long long)AS_CKPT(u)->nframes : 0);
    }
    CHECK(sizes[0] == sizes[1] && sizes[1] == sizes[2]);
    CHECK(sizes[2] < 400);
    /* multi-shot: resuming twice gives the same value, u is unchanged */
    Value u = eval(S, "(define u (checkpoint run 1.5 500)) u");
    size_t before = AS_CKPT(u)->bytes;
    Value a = eval(S, "(resume u)");
    Value b = eval(S, "(resume u)");
    Value c = eval(S, "(run 1.5)");
    CHECK(vl_object_equal(a, b) && vl_object_equal(a, c));
    CHECK(AS_CKPT(u)->bytes == before);
    /* deep non-tail recursion: the checkpoint holds one frame per level */
    eval(S, "(define (sum n) (if (= n 0) 0 (+ n (sum (- n 1)))))");
    Value d = eval(S, "(checkpoint sum 1000 500)");
    CHECK(IS_CKPT(d) && AS_CKPT(d)->nframes >= 499);
    CHECK(vl_object_primal(eval(S, "(resume (checkpoint sum 1000 500))"))
          == 500500);
}

/* Chains of (checkpoint resume u 1) share their frames: level n's
   checkpoint is one segment over level n-1's sequence (vm/core/cont.h), its
   logical size grows by one resume frame a level; an interrupt in the
   middle of a chain over such a checkpoint captures the evaluation with
   the shared sequence, and resuming it finishes with the direct run's
   value and step count. */
static void test_chain_sharing(VladState *S)
{
    eval(S, "(define (count-up x) (let loop ((i 0) (y x)) "
            "(if (= i 1000) y (loop (+ i 1) (+ y 1)))))"
            "(define (chain u n) (if (zero? n) u "
            "(chain (checkpoint resume u 1) (- n 1))))"
            "(define u0 (checkpoint count-up 3 5))");
    Value a = eval(S, "(define ua (chain u0 3000)) ua");
    Value b = eval(S, "(define ub (checkpoint resume ua 1)) ub");
    Value c = eval(S, "(checkpoint resume ub 1)");
    CHECK(IS_CKPT(a) && IS_CKPT(b) && IS_CKPT(c));
    if (!IS_CKPT(a) || !IS_CKPT(b) || !IS_CKPT(c))
        return;
    const Checkpoint *ka = AS_CKPT(a), *kb = AS_CKPT(b), *kc = AS_CKPT(c);
    CHECK(kb->seq != NULL && kb->seq->ref == ka->seq);
    CHECK(kc->seq != NULL && kc->seq->ref == kb->seq);
    CHECK(kb->nframes == ka->nframes + 1 && kc->nframes == kb->nframes + 1);
    CHECK(kc->bytes - kb->bytes == kb->bytes - ka->bytes);
    CHECK(kb->bytes - ka->bytes < 64);
    /* interrupted in the middle of a chain of 100 more levels */
    Value r0 = eval(S, "(primops resume u0)");
    S->interrupt = 1;
    Value v;
    const char *src = "(primops resume (chain ub 100))";
    CHECK(vl_toplevel_eval(S, src, strlen(src), "<test>", 0, &v)
          == VLAD_ERR_INTERRUPTED);
    Value u = S->interrupted;
    CHECK(IS_CKPT(u) && AS_CKPT(u)->nframes > kb->nframes);
    Value r1 = NIL_VAL, r2 = NIL_VAL;
    CHECK(vl_toplevel_apply(S, S->resume_value, u, &r1) == VLAD_OK);
    CHECK(vl_toplevel_apply(S, S->resume_value, u, &r2) == VLAD_OK);
    CHECK(vl_object_equal(r1, r0) && vl_object_equal(r2, r0));
}

static Value leaf_id(VladState *S, Value a, Value b, void *ud)
{
    (void)S;
    (void)b;
    (*(int *)ud)++;
    return vl_num(vl_object_primal(a) * 2);
}

static void test_walker(VladState *S)
{
    Value v = eval(S, "(let ((s (list 1 2))) (list s s 3))");
    int leaves = 0;
    Value w = vl_walk_map(S, v, leaf_id, &leaves);
    CHECK(leaves == 3);     /* the shared sublist is visited once */
    Value s1 = AS_PAIR(w)->car;
    Value s2 = AS_PAIR(AS_PAIR(w)->cdr)->car;
    CHECK(s1.as.obj == s2.as.obj);
    StrBuf b;
    vl_strbuf_init(&b);
    vl_print_value(S, &b, w, 0);
    CHECK(strcmp(b.data, "((2 4) (2 4) 6)") == 0);
    /* a recursive closure (a cycle through letrec) */
    Value f = eval(S, "(letrec ((ev (lambda (n) (if (= n 0) #t (od (- n 1)))))"
                      " (od (lambda (n) (if (= n 0) #f (ev (- n 1))))))"
                      " ev)");
    leaves = 0;
    Value g = vl_walk_map(S, f, leaf_id, &leaves);
    CHECK(IS_CLOSURE(g));
}

/* Every derivative rule against its closed form, forward and reverse. */
static void test_derivatives(VladState *S)
{
    struct { const char *f; double x; double d; } u[] = {
        {"sin", 0.7, cos(0.7)}, {"cos", 0.7, -sin(0.7)},
        {"exp", 0.3, exp(0.3)}, {"log", 2.5, 1 / 2.5},
        {"sqrt", 4, 0.25}, {"floor", 2.5, 0},
        {"(lambda (x) (* x x x))", 2, 12},
        {"(lambda (x) (/ 1 x))", 4, -1.0 / 16},
        {"(lambda (x) (- 3 x))", 4, -1},
        {"(lambda (x) (expt x 3))", 2, 12},
        {"(lambda (x) (expt 2 x))", 3, 8 * log(2)},
        {"(lambda (x) (atan x 2))", 1, 2.0 / 5},
        {"(lambda (x) (atan 2 x))", 1, -2.0 / 5},
        {"(lambda (x) (modulo x 3))", 7.5, 1},
        {"(lambda (x) (modulo 7.5 x))", 2, -3},
    };
    char src[256];
    for (size_t k = 0; k < sizeof u / sizeof u[0]; k++) {
        snprintf(src, sizeof src, "(cadr (j* %s %.17g 1))", u[k].f, u[k].x);
        CHECK_NEAR(vl_object_primal(eval(S, src)), u[k].d, 1e-14);
        snprintf(src, sizeof src, "(cadr (*j %s %.17g 1))", u[k].f, u[k].x);
        CHECK_NEAR(vl_object_primal(eval(S, src)), u[k].d, 1e-14);
    }
}

/* Plain duals keep their tag in the low 31 bits of the value's aux word
   (the top bit is the activity mark); a tag beyond them makes a general
   dual instead.  The same computations, run with tags just below and
   across VL_PLAIN_DUAL_MAX_TAG (nested j*, j* over *j, a checkpoint
   resumed inside j*), print what they print with small tags. */
static void test_big_tags(VladState *S)
{
    static const char *const progs[] = {
        "(j* (lambda (x) (* (sin x) (sqrt x))) 2 1)\n",
        "(j* (lambda (x) (cadr (j* (lambda (y) (* x (* y y))) x 1))) 3 1)\n",
        "(j* (lambda (x) (cadr (*j (lambda (y) (* x (* y y))) x 1))) 3 1)\n",
        "(*j (lambda (x) (cadr (j* (lambda (y) (/ x (+ y 1))) x 1))) 3 1)\n",
        "(j* (lambda (x) (resume (checkpoint (lambda (y) (* y (exp y))) x 3)))"
        " 0.5 1)\n",
    };
    const size_t n = sizeof progs / sizeof progs[0];
    char want[8][256];
    for (size_t k = 0; k < n; k++) {       /* with small tags */
        nout = 0;
        out[0] = '\0';
        Value v;
        CHECK(vl_toplevel_eval(S, progs[k], strlen(progs[k]), "<test>", 0,
                               &v) == VLAD_OK);
        CHECK(nout > 0);
        snprintf(want[k], sizeof want[k], "%s", out);
    }
    const int64_t starts[] = {VL_PLAIN_DUAL_MAX_TAG - 2,
                              VL_PLAIN_DUAL_MAX_TAG + 5};
    for (size_t j = 0; j < 2; j++)
        for (size_t k = 0; k < n; k++) {
            S->next_tag = starts[j];
            CHECK(runs(S, progs[k], want[k]));
        }
}

int main(void)
{
    VladState *S = open_state();
    CHECK(S != NULL);
    if (S == NULL)
        return CHECK_DONE();
    test_printing();
    test_equality(S);
    test_calls(S);
    test_steps(S);
    test_checkpoint_size(S);
    test_chain_sharing(S);
    test_walker(S);
    test_derivatives(S);
    test_big_tags(S);
    vl_toplevel_close(S);
    return CHECK_DONE();
}
