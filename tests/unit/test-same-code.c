/*
 * tests/unit/test-same-code.c -- vl_object_same_code (vm/core/object.h): which
 * prototypes a zip of a value and its (co)tangent takes for the same code
 *
 * The same prototype; the prototypes of a form and of the same form
 * compiled again (a global redefined by the very text it had: issue 31,
 * W4), place by place, their nested lambdas too; not two lambdas written
 * alike in one form (two codes, tests/ad/error-tangent-closure-code), not
 * forms that differ in a constant (0.0 and -0.0, two NaNs are the same
 * text only when their bits are), in a global they read, in an inline
 * decision (+ rebound in between), or in the place of a nested lambda.
 */
#include "config.h"

#include "tests/unit/check.h"
#include "tests/unit/state.h"
#include "vm/core/object.h"

static const Proto *proto_of(VladState *S, const char *name)
{
    Value v;
    if (!vl_state_lookup(S, name, &v) || !IS_CLOSURE(v))
        return NULL;
    return AS_CLOSURE(v)->proto;
}

/* The first nested lambda of p (the named let's loop). */
static const Proto *child(const Proto *p)
{
    return p != NULL && p->nchildren > 0 ? p->children[0] : NULL;
}

int main(void)
{
    VladState *S = open_state();
    CHECK(S != NULL);
    if (S == NULL)
        return CHECK_DONE();
    const char *g =
        "(define (g x) (let loop ((i 0) (a x))"
        " (if (= i 10) a (loop (+ i 1) (+ a 1)))))";
    CHECK(run(S, g) == VLAD_OK);
    const Proto *g1 = proto_of(S, "g");
    CHECK(run(S, g) == VLAD_OK);
    const Proto *g2 = proto_of(S, "g");
    CHECK(g1 != NULL && g2 != NULL && g1 != g2);
    CHECK(vl_object_same_code(g1, g1));
    CHECK(vl_object_same_code(g1, g2));
    CHECK(vl_object_same_code(g2, g1));
    CHECK(vl_object_same_code(child(g1), child(g2)));
    /* a place of one form is not another place of the other */
    CHECK(!vl_object_same_code(g1, child(g2)));
    CHECK(!vl_object_same_code(child(g1), g2));

    /* other code: a constant, a global read, the inline decision */
    CHECK(run(S, "(define (g x) (let loop ((i 0) (a x))"
                 " (if (= i 10) a (loop (+ i 1) (+ a 2)))))") == VLAD_OK);
    CHECK(!vl_object_same_code(g1, proto_of(S, "g")));
    CHECK(!vl_object_same_code(child(g1), child(proto_of(S, "g"))));
    CHECK(run(S, "(define (z x) (* x 0.0))") == VLAD_OK);
    const Proto *z1 = proto_of(S, "z");
    CHECK(run(S, "(define (z x) (* x -0.0))") == VLAD_OK);
    CHECK(!vl_object_same_code(z1, proto_of(S, "z")));
    CHECK(run(S, "(define (z x) (* x 0.0))") == VLAD_OK);
    CHECK(vl_object_same_code(z1, proto_of(S, "z")));
    CHECK(run(S, "(define (r x) (+ x a))") == VLAD_OK);
    const Proto *r1 = proto_of(S, "r");
    CHECK(run(S, "(define (r x) (+ x b))") == VLAD_OK);
    CHECK(!vl_object_same_code(r1, proto_of(S, "r")));
    CHECK(run(S, "(define (s x) (+ x 1))") == VLAD_OK);
    const Proto *s1 = proto_of(S, "s");
    CHECK(run(S, "(define (+ a b) (- a b))") == VLAD_OK);
    CHECK(run(S, "(define (s x) (+ x 1))") == VLAD_OK);
    CHECK(!vl_object_same_code(s1, proto_of(S, "s")));

    /* two lambdas written alike in one form are two codes */
    CHECK(run(S, "(define two (list (lambda (x) (* 2 x))"
                 " (lambda (x) (* 2 x))))") == VLAD_OK);
    Value two;
    CHECK(vl_state_lookup(S, "two", &two) && IS_PAIR(two));
    if (IS_PAIR(two) && IS_PAIR(AS_PAIR(two)->cdr)) {
        Value a = AS_PAIR(two)->car;
        Value b = AS_PAIR(AS_PAIR(two)->cdr)->car;
        CHECK(IS_CLOSURE(a) && IS_CLOSURE(b));
        CHECK(!vl_object_same_code(AS_CLOSURE(a)->proto,
                                   AS_CLOSURE(b)->proto));
    }

    /* lambdas nested deeper than the comparison's first stack */
    char deep[4096] = "(define (d x) ";
    for (int k = 0; k < 40; k++)
        strcat(deep, "((lambda (y) ");
    strcat(deep, "y");
    for (int k = 0; k < 40; k++)
        strcat(deep, ") x)");
    strcat(deep, ")");
    CHECK(run(S, deep) == VLAD_OK);
    const Proto *d1 = proto_of(S, "d");
    CHECK(run(S, deep) == VLAD_OK);
    const Proto *d2 = proto_of(S, "d");
    CHECK(d1 != d2 && vl_object_same_code(d1, d2));
    const Proto *c1 = d1, *c2 = d2;
    while (c1 != NULL && c1->nchildren > 0) {
        c1 = child(c1);
        c2 = child(c2);
    }
    CHECK(c1 != d1 && vl_object_same_code(c1, c2));
    CHECK(!vl_object_same_code(c1, d2));
    vl_toplevel_close(S);
    return CHECK_DONE();
}
