/*
 * vm/ad.c -- forward and reverse mode (see vm/ad.h for the invariants)
 *
 * Lifting.  vl_ad_binary / vl_ad_unary pick the innermost tag among their
 * operands, split each operand into its primal and its perturbation (dual)
 * or tape identity at that tag, compute the primal result by recursion and
 * the partial derivatives from the rule table below, and build a dual
 * (tangent = sum of partial * operand tangent) or a tape node (parents
 * with partials).  Partials are reals computed with the same lifted
 * operations, so they carry outer perturbations: forward-over-reverse and
 * reverse-over-reverse need nothing more.
 *
 * Derivative rules (one place, read by both modes):
 *   +: 1, 1        -: 1, -1         *: b, a        /: 1/b, -a/b^2
 *   atan(y,x): x/(x^2+y^2), -y/(x^2+y^2)
 *   expt(b,e): e*b^(e-1), b^e*log(b) (0 when b = 0)
 *   modulo(a,b): 1, -floor(a/b)
 *   sqrt: 1/(2 sqrt x)  exp: exp x  log: 1/x  sin: cos x  cos: -sin x
 *   floor: 0
 */
#include "config.h"
#include "vm/ad.h"

#include <math.h>
#include <string.h>
#include "vm/except.h"
#include "vm/print.h"
#include "vm/walk.h"

/* ===== The stack of active invocations ===== */

void vl_ad_push(VladState *S, int64_t tag, int reverse, size_t frame,
                TapeNode *head, uint32_t count)
{
    if (S->nad == S->ad_cap) {
        size_t n = S->ad_cap ? S->ad_cap * 2 : 8;
        AdFrame *a = vl_gc_alloc(n * sizeof(AdFrame));
        if (S->nad)
            memcpy(a, S->ad, S->nad * sizeof(AdFrame));
        S->ad = a;
        S->ad_cap = n;
    }
    AdFrame *f = &S->ad[S->nad++];
    f->tag = tag;
    f->reverse = reverse;
    f->frame = frame;
    f->head = head;
    f->count = count;
}

AdFrame *vl_ad_top(VladState *S)
{
    return S->nad ? &S->ad[S->nad - 1] : NULL;
}

void vl_ad_pop(VladState *S)
{
    if (S->nad)
        S->nad--;
}

/* Rank of a tag: 1 + its position among active invocations, 0 if it is
   not active. */
static size_t rank_of(VladState *S, int64_t tag)
{
    for (size_t k = S->nad; k-- > 0;)
        if (S->ad[k].tag == tag)
            return k + 1;
    return 0;
}

static AdFrame *frame_of(VladState *S, int64_t tag)
{
    for (size_t k = S->nad; k-- > 0;)
        if (S->ad[k].tag == tag)
            return &S->ad[k];
    return NULL;
}

/* ===== Building reals ===== */

static int64_t tag_of(Value v)
{
    if (v.tag == VT_DUAL)
        return ((Dual *)v.as.obj)->tag;
    if (v.tag == VT_TAPE)
        return ((TapeNode *)v.as.obj)->tag;
    return -1;
}

static Value make_dual(int64_t tag, Value primal, Value tangent)
{
    Dual *d = vl_gc_alloc(sizeof *d);
    d->primal = primal;
    d->tangent = tangent;
    d->tag = tag;
    return vl_obj(VT_DUAL, d);
}

static Value make_node(VladState *S, int64_t tag, Value primal, int n,
                       TapeNode **parents, Value *partials)
{
    AdFrame *f = frame_of(S, tag);
    if (f == NULL)          /* its invocation has ended: a constant */
        return primal;
    TapeNode *t = vl_gc_alloc(sizeof *t);
    t->primal = primal;
    t->tag = tag;
    t->prev = f->head;
    t->index = f->count++;
    t->nparents = (uint32_t)n;
    for (int k = 0; k < n; k++) {
        t->parents[k] = parents[k];
        t->partials[k] = partials[k];
    }
    f->head = t;
    return vl_obj(VT_TAPE, t);
}

/* ===== Lifted arithmetic ===== */

double vl_ad_plain2(int op, double a, double b)
{
    switch (op) {
    case IN_ADD: return a + b;
    case IN_SUB: return a - b;
    case IN_MUL: return a * b;
    case IN_DIV: return a / b;
    case IN_ATAN: return atan2(a, b);
    case IN_EXPT: return pow(a, b);
    default: {
        double r = fmod(a, b);
        if (r != 0 && ((r < 0) != (b < 0)))
            r += b;
        if (r == 0)
            r = copysign(0.0, b);
        return r;
    }
    }
}

static Value add(VladState *S, Value a, Value b)
{
    return vl_ad_binary(S, IN_ADD, a, b);
}

static Value mul(VladState *S, Value a, Value b)
{
    return vl_ad_binary(S, IN_MUL, a, b);
}

static int is_zero(Value v)
{
    return v.tag == VT_NUM && v.as.num == 0;
}

/* Choose the innermost tag among the operands. */
static int64_t pick_tag(VladState *S, Value a, Value b, int *is_a, int *is_b)
{
    int64_t ta = tag_of(a), tb = tag_of(b);
    int64_t t;
    if (ta < 0)
        t = tb;
    else if (tb < 0 || ta == tb)
        t = ta;
    else {
        size_t ra = rank_of(S, ta), rb = rank_of(S, tb);
        t = ra > rb || (ra == rb && ta > tb) ? ta : tb;
    }
    *is_a = ta == t;
    *is_b = tb == t;
    return t;
}

/* Primal and tangent (forward) of 'v' at the chosen tag. */
static Value primal_at(Value v, int at)
{
    return at ? *(const Value *)v.as.obj : v;
}

/* Build the result at tag 't' from primal 'y', operands and partials. */
static Value lift_result(VladState *S, int64_t t, int reverse, Value y,
                         Value a, int is_a, Value da, Value b, int is_b,
                         Value db)
{
    if (!reverse) {
        Value tan = vl_num(0);
        if (is_a && !is_zero(da))
            tan = mul(S, da, ((Dual *)a.as.obj)->tangent);
        if (is_b && !is_zero(db))
            tan = add(S, tan, mul(S, db, ((Dual *)b.as.obj)->tangent));
        return make_dual(t, y, tan);
    }
    TapeNode *parents[2];
    Value partials[2];
    int n = 0;
    if (is_a) {
        parents[n] = a.as.obj;
        partials[n++] = da;
    }
    if (is_b) {
        parents[n] = b.as.obj;
        partials[n++] = db;
    }
    return make_node(S, t, y, n, parents, partials);
}

Value vl_ad_binary(VladState *S, int op, Value a, Value b)
{
    if (a.tag == VT_NUM && b.tag == VT_NUM)
        return vl_num(vl_ad_plain2(op, a.as.num, b.as.num));
    int is_a, is_b;
    int64_t t = pick_tag(S, a, b, &is_a, &is_b);
    int reverse = (is_a ? a : b).tag == VT_TAPE;
    Value ap = primal_at(a, is_a), bp = primal_at(b, is_b);
    Value y = vl_ad_binary(S, op, ap, bp);
    Value da, db;
    switch (op) {
    case IN_ADD:
        da = vl_num(1);
        db = vl_num(1);
        break;
    case IN_SUB:
        da = vl_num(1);
        db = vl_num(-1);
        break;
    case IN_MUL:
        da = bp;
        db = ap;
        break;
    case IN_DIV:
        da = vl_ad_binary(S, IN_DIV, vl_num(1), bp);
        db = vl_ad_binary(S, IN_SUB, vl_num(0),
                          vl_ad_binary(S, IN_DIV, y, bp));
        break;
    case IN_ATAN: {
        Value den = add(S, mul(S, ap, ap), mul(S, bp, bp));
        da = vl_ad_binary(S, IN_DIV, bp, den);
        db = vl_ad_binary(S, IN_DIV, vl_ad_binary(S, IN_SUB, vl_num(0), ap),
                          den);
        break;
    }
    case IN_EXPT:
        da = is_a ? mul(S, bp, vl_ad_binary(S, IN_EXPT, ap,
                                            vl_ad_binary(S, IN_SUB, bp,
                                                         vl_num(1))))
                  : vl_num(0);
        db = !is_b || vl_value_primal(ap) == 0
             ? vl_num(0) : mul(S, y, vl_ad_unary(S, IN_LOG, ap));
        break;
    default: /* modulo */
        da = vl_num(1);
        db = vl_ad_binary(S, IN_SUB, vl_num(0),
                          vl_ad_unary(S, IN_FLOOR,
                                      vl_ad_binary(S, IN_DIV, ap, bp)));
        break;
    }
    return lift_result(S, t, reverse, y, a, is_a, da, b, is_b, db);
}

static double plain1(int op, double x)
{
    switch (op) {
    case IN_SQRT: return sqrt(x);
    case IN_EXP: return exp(x);
    case IN_LOG: return log(x);
    case IN_SIN: return sin(x);
    case IN_COS: return cos(x);
    default: return floor(x);
    }
}

Value vl_ad_unary(VladState *S, int op, Value a)
{
    if (a.tag == VT_NUM)
        return vl_num(plain1(op, a.as.num));
    int64_t t = tag_of(a);
    int reverse = a.tag == VT_TAPE;
    Value ap = primal_at(a, 1);
    Value y = vl_ad_unary(S, op, ap);
    Value d;
    switch (op) {
    case IN_SQRT:
        d = vl_ad_binary(S, IN_DIV, vl_num(0.5), y);
        break;
    case IN_EXP:
        d = y;
        break;
    case IN_LOG:
        d = vl_ad_binary(S, IN_DIV, vl_num(1), ap);
        break;
    case IN_SIN:
        d = vl_ad_unary(S, IN_COS, ap);
        break;
    case IN_COS:
        d = vl_ad_binary(S, IN_SUB, vl_num(0), vl_ad_unary(S, IN_SIN, ap));
        break;
    default:
        d = vl_num(0);
        break;
    }
    return lift_result(S, t, reverse, y, a, 1, d, NIL_VAL, 0, NIL_VAL);
}

/* ===== j* ===== */

typedef struct TagCtx {
    int64_t tag;
    Value *sens;            /* *j: sensitivities by node index */
    uint32_t count;
} TagCtx;

/* A leaf that is already a dual of another (suspended, inner) invocation
   keeps that perturbation outermost: the new one goes on its primal, so
   when the inner invocation resumes on top it still ranks first. */
static Value leaf_bundle(VladState *S, Value x, Value dx, void *ud)
{
    if (x.tag == VT_DUAL && ((Dual *)x.as.obj)->tag != ((TagCtx *)ud)->tag
        && rank_of(S, ((Dual *)x.as.obj)->tag) == 0) {
        Dual *d = x.as.obj;
        return make_dual(d->tag, leaf_bundle(S, d->primal, dx, ud),
                         d->tangent);
    }
    return make_dual(((TagCtx *)ud)->tag, x, dx);
}

Value vl_ad_bundle(VladState *S, int64_t tag, Value x, Value dx)
{
    TagCtx c = {tag, NULL, 0};
    return vl_walk_zip(S, x, dx, leaf_bundle, &c, "j*", "tangent");
}

static Value leaf_primal(VladState *S, Value y, Value unused, void *ud)
{
    (void)S;
    (void)unused;
    return tag_of(y) == ((TagCtx *)ud)->tag ? *(const Value *)y.as.obj : y;
}

static Value leaf_tangent(VladState *S, Value y, Value unused, void *ud)
{
    (void)S;
    (void)unused;
    if (y.tag == VT_DUAL && ((Dual *)y.as.obj)->tag == ((TagCtx *)ud)->tag)
        return ((Dual *)y.as.obj)->tangent;
    return vl_num(0);
}

Value vl_ad_jstar_result(VladState *S, int64_t tag, Value y)
{
    TagCtx c = {tag, NULL, 0};
    Value primal = vl_walk_map(S, y, leaf_primal, &c);
    Value tangent = vl_walk_map(S, y, leaf_tangent, &c);
    return vl_value_list2(primal, tangent);
}

/* ===== *j ===== */

static Value leaf_tapify(VladState *S, Value x, Value unused, void *ud)
{
    if (x.tag == VT_DUAL && ((Dual *)x.as.obj)->tag != ((TagCtx *)ud)->tag
        && rank_of(S, ((Dual *)x.as.obj)->tag) == 0) {
        Dual *d = x.as.obj;
        return make_dual(d->tag, leaf_tapify(S, d->primal, unused, ud),
                         d->tangent);
    }
    return make_node(S, ((TagCtx *)ud)->tag, x, 0, NULL, NULL);
}

Value vl_ad_tapify(VladState *S, int64_t tag, Value x)
{
    TagCtx c = {tag, NULL, 0};
    return vl_walk_map(S, x, leaf_tapify, &c);
}

static Value leaf_seed(VladState *S, Value y, Value ybar, void *ud)
{
    TagCtx *c = ud;
    if (y.tag == VT_TAPE) {
        TapeNode *t = y.as.obj;
        if (t->tag == c->tag && t->index < c->count)
            c->sens[t->index] = add(S, c->sens[t->index], ybar);
    }
    return y;
}

static Value leaf_extract(VladState *S, Value x, Value unused, void *ud)
{
    (void)S;
    (void)unused;
    TagCtx *c = ud;
    if (x.tag == VT_TAPE) {
        TapeNode *t = x.as.obj;
        if (t->tag == c->tag && t->index < c->count)
            return c->sens[t->index];
    }
    return vl_num(0);
}

Value vl_ad_starj_result(VladState *S, int64_t tag, Value xnodes, Value y,
                         Value ybar, TapeNode *head, uint32_t count)
{
    TagCtx c = {tag, NULL, count};
    c.sens = vl_gc_alloc((count ? count : 1) * sizeof(Value));
    for (uint32_t k = 0; k < count; k++)
        c.sens[k] = vl_num(0);
    vl_walk_zip(S, y, ybar, leaf_seed, &c, "*j", "cotangent");
    for (TapeNode *t = head; t != NULL; t = t->prev) {
        Value s = c.sens[t->index];
        if (is_zero(s))
            continue;
        for (uint32_t k = 0; k < t->nparents; k++) {
            TapeNode *p = t->parents[k];
            c.sens[p->index] = add(S, c.sens[p->index],
                                   mul(S, t->partials[k], s));
        }
    }
    Value xbar = vl_walk_map(S, xnodes, leaf_extract, &c);
    Value primal = vl_walk_map(S, y, leaf_primal, &c);
    return vl_value_list2(primal, xbar);
}
