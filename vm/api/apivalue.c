/*
 * vm/api/apivalue.c -- the public interface to values: building and
 * inspecting them, references held by the host, and the derivative
 * conveniences (include/vlad.h, "Values", "References", "Derivatives")
 */
#include "config.h"
#include "include/vlad.h"

#include "vm/api/apiconv.h"
#include "vm/core/cont.h"
#include "vm/core/except.h"
#include "vm/core/object.h"
#include "vm/core/state.h"
#include "vm/core/print.h"
#include "vm/exec/toplevel.h"

/* ===== Values =====
   A value the host forged or left zeroed (vm/api/apiconv.h) is no value:
   every predicate gives 0, vlad_to_number 0, vlad_to_boolean 0, vlad_car
   and vlad_cdr (), vlad_numbers_of_list -1, and vlad_cons, vlad_ref and
   vlad_ref_set refuse it (the empty list, NULL, no change). */

VladValue vlad_number(double x)
{
    return to_public(vl_num(x));
}

int vlad_is_number(VladValue v)
{
    Value x = to_internal(v);
    return IS_REAL(x) && vl_api_valid(x);
}

double vlad_to_number(VladValue v)
{
    return vlad_is_number(v) ? vl_object_primal(to_internal(v)) : 0.0;
}

VladValue vlad_boolean(int b)
{
    return to_public(vl_bool(b != 0));
}

int vlad_is_boolean(VladValue v)
{
    Value x = to_internal(v);
    return IS_BOOL(x) && vl_api_valid(x);
}

int vlad_to_boolean(VladValue v)
{
    Value x = to_internal(v);
    return vl_api_valid(x) && !IS_FALSE(x);
}

VladValue vlad_nil(void)
{
    return to_public(NIL_VAL);
}

int vlad_is_nil(VladValue v)
{
    return IS_NIL(to_internal(v));
}

/* Allocation of pairs for the host: protected (an exhausted heap gives
   the empty list), the state's last error left as it was. */
typedef struct ConsJob {
    const double *xs;       /* a list of numbers, or NULL: one pair */
    size_t n;
    Value car, cdr, result;
} ConsJob;

static void cons_job(VladState *S, void *ud)
{
    (void)S;
    ConsJob *job = ud;
    if (job->xs == NULL) {
        Value items[2] = {job->car, job->cdr};
        job->result = vl_object_tuple(items, 2);
        return;
    }
    Value l = NIL_VAL;
    for (size_t k = job->n; k-- > 0;) {
        Value items[2] = {vl_num(job->xs[k]), l};
        l = vl_object_tuple(items, 2);
    }
    job->result = l;
}

static Value protected_cons(VladState *S, ConsJob *job)
{
    if (S == NULL || !vl_gc_thread_attach())
        return NIL_VAL;
    VladError saved = S->err;
    VladStatus st = vl_except_protect(S, cons_job, job);
    S->err = saved;
    return st == VLAD_OK ? job->result : NIL_VAL;
}

VladValue vlad_cons(VladState *S, VladValue car, VladValue cdr)
{
    if (!vl_api_valid_public(car) || !vl_api_valid_public(cdr))
        return to_public(NIL_VAL);
    ConsJob job = {NULL, 0, to_internal(car), to_internal(cdr), NIL_VAL};
    return to_public(protected_cons(S, &job));
}

int vlad_is_pair(VladValue v)
{
    Value x = to_internal(v);
    return IS_PAIR(x) && vl_api_valid(x);
}

VladValue vlad_car(VladValue v)
{
    return to_public(vlad_is_pair(v) ? AS_PAIR(to_internal(v))->car
                                     : NIL_VAL);
}

VladValue vlad_cdr(VladValue v)
{
    return to_public(vlad_is_pair(v) ? AS_PAIR(to_internal(v))->cdr
                                     : NIL_VAL);
}

int vlad_is_procedure(VladValue v)
{
    Value x = to_internal(v);
    return IS_PROC(x) && vl_api_valid(x);
}

int vlad_is_checkpoint(VladValue v)
{
    Value x = to_internal(v);
    return IS_CKPT(x) && vl_api_valid(x);
}

VladValue vlad_list_of_numbers(VladState *S, const double *xs, size_t n)
{
    if (xs == NULL || n == 0)
        return to_public(NIL_VAL);
    ConsJob job = {xs, n, NIL_VAL, NIL_VAL, NIL_VAL};
    return to_public(protected_cons(S, &job));
}

long vlad_numbers_of_list(VladValue list, double *out, size_t cap)
{
    Value l = to_internal(list);
    size_t n = 0;
    if (out == NULL)
        cap = 0;
    if (!vl_api_valid(l))
        return -1;
    for (; IS_PAIR(l); l = AS_PAIR(l)->cdr, n++) {
        Value x = AS_PAIR(l)->car;
        if (!IS_REAL(x))
            return -1;
        if (n < cap)
            out[n] = vl_object_primal(x);
    }
    return IS_NIL(l) ? (long)n : -1;
}

/* ===== References ===== */

struct VladRef {
    Value value;
};

VladRef *vlad_ref(VladState *S, VladValue v)
{
    (void)S;
    if (!vl_api_valid_public(v) || !vl_gc_thread_attach())
        return NULL;
    VladRef *r = vl_gc_alloc_uncollectable(sizeof *r);
    if (r != NULL)
        r->value = to_internal(v);
    return r;
}

VladValue vlad_ref_get(const VladRef *ref)
{
    return to_public(ref != NULL ? ref->value : NIL_VAL);
}

void vlad_ref_set(VladRef *ref, VladValue v)
{
    if (ref != NULL && vl_api_valid_public(v))
        ref->value = to_internal(v);
}

void vlad_unref(VladRef *ref)
{
    if (ref != NULL && vl_gc_thread_attach())
        vl_gc_free(ref);
}

/* ===== Derivatives ===== */

/* Apply the built-in 'op' (j* or *j) to (f x bar) and return the parts
   of its result (list y d).  'x' and 'bar' are lists of numbers when
   'xs' is not NULL, else the reals x0 and bar0. */
typedef struct AdJob {
    const char *op;
    Value f;
    const double *xs, *bars;
    double x0, bar0;
    size_t n;
    Value fn, arg;
} AdJob;

static void ad_args_job(VladState *S, void *ud)
{
    AdJob *job = ud;
    /* the built-in value (immune to user redefinition) */
    job->fn = vl_state_prelude_cell(S, vl_symbol_intern_c(S->syms, job->op))
                  ->value;
    Value x = vl_num(job->x0), bar = vl_num(job->bar0);
    if (job->xs != NULL) {
        x = bar = NIL_VAL;
        for (size_t k = job->n; k-- > 0;) {
            Value a[2] = {vl_num(job->xs[k]), x};
            x = vl_object_tuple(a, 2);
            if (job->bars != NULL) {
                Value b[2] = {vl_num(job->bars[k]), bar};
                bar = vl_object_tuple(b, 2);
            }
        }
        if (job->bars == NULL)
            bar = vl_num(job->bar0);
    }
    Value items[3] = {job->f, x, bar};
    job->arg = vl_object_tuple(items, 3);
}

static VladStatus apply_ad(VladState *S, AdJob *job, Value *y, Value *d)
{
    VladStatus st = vl_except_protect(S, ad_args_job, job);
    if (st != VLAD_OK)
        return st;
    Value r;
    st = vl_toplevel_apply(S, job->fn, job->arg, &r);
    if (st != VLAD_OK)
        return st;
    *y = AS_PAIR(r)->car;
    *d = AS_PAIR(AS_PAIR(r)->cdr)->car;
    return VLAD_OK;
}

typedef struct NotRealJob {
    const char *who;
    Value v;
} NotRealJob;

static void not_real_job(VladState *S, void *ud)
{
    NotRealJob *job = ud;
    vl_toplevel_fail(S, VLAD_ERR_RUNTIME,
                     "%s: the procedure must return a real, got %s",
                     job->who, vl_print_to_string(S, job->v, 60));
}

static VladStatus not_real(VladState *S, const char *who, Value v)
{
    NotRealJob job = {who, v};
    if (vl_except_protect(S, not_real_job, &job) != VLAD_OK)
        return S->err.status;
    return VLAD_ERR_RUNTIME;
}

/* Check the state, the procedure and the arrays (NULL only when n is
   0). */
static VladStatus check_args(VladState *S, const char *who, VladValue fn,
                             int ok)
{
    if (S == NULL)
        return VLAD_ERR_ARGUMENT;
    if (!vl_gc_thread_attach())
        return vl_toplevel_attach_error(S);
    if (!ok)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "%s: an array of the point is NULL", who);
    if (!vl_api_valid_public(fn))
        return vl_api_refuse_value(S, who, "the procedure");
    return VLAD_OK;
}

VladStatus vlad_derivative(VladState *S, VladValue fn, double x,
                           double *value, double *derivative)
{
    VladStatus st = check_args(S, "vlad_derivative", fn, 1);
    if (st != VLAD_OK)
        return st;
    Value y, d;
    AdJob job = {"j*", to_internal(fn), NULL, NULL, x, 1, 0, NIL_VAL,
                 NIL_VAL};
    st = apply_ad(S, &job, &y, &d);
    if (st != VLAD_OK)
        return st;
    if (!IS_REAL(y))
        return not_real(S, "vlad_derivative", y);
    if (value != NULL)
        *value = vl_object_primal(y);
    if (derivative != NULL)
        *derivative = vl_object_primal(d);
    return VLAD_OK;
}

VladStatus vlad_gradient(VladState *S, VladValue fn, const double *x,
                         size_t n, double *value, double *gradient)
{
    VladStatus st = check_args(S, "vlad_gradient", fn,
                               x != NULL || n == 0);
    if (st != VLAD_OK)
        return st;
    Value y, g;
    AdJob job = {"*j", to_internal(fn), x, NULL, 0, 1, n, NIL_VAL, NIL_VAL};
    static const double none[1] = {0};
    if (n == 0)
        job.xs = none;          /* the empty list */
    st = apply_ad(S, &job, &y, &g);
    if (st != VLAD_OK)
        return st;
    if (!IS_REAL(y))
        return not_real(S, "vlad_gradient", y);
    if (value != NULL)
        *value = vl_object_primal(y);
    if (gradient != NULL)
        vlad_numbers_of_list(to_public(g), gradient, n);
    return VLAD_OK;
}

VladStatus vlad_directional_derivative(VladState *S, VladValue fn,
                                       const double *x, const double *v,
                                       size_t n, double *value,
                                       double *derivative)
{
    VladStatus st = check_args(S, "vlad_directional_derivative", fn,
                               (x != NULL && v != NULL) || n == 0);
    if (st != VLAD_OK)
        return st;
    Value y, d;
    static const double none[1] = {0};
    AdJob job = {"j*", to_internal(fn), n ? x : none, n ? v : none, 0, 0, n,
                 NIL_VAL, NIL_VAL};
    st = apply_ad(S, &job, &y, &d);
    if (st != VLAD_OK)
        return st;
    if (!IS_REAL(y))
        return not_real(S, "vlad_directional_derivative", y);
    if (value != NULL)
        *value = vl_object_primal(y);
    if (derivative != NULL)
        *derivative = vl_object_primal(d);
    return VLAD_OK;
}
