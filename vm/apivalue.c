/*
 * vm/apivalue.c -- the public interface to values: building and
 * inspecting them, references held by the host, and the derivative
 * conveniences (include/vlad.h, "Values", "References", "Derivatives")
 */
#include "config.h"
#include "include/vlad.h"

#include "vm/apiconv.h"
#include "vm/cont.h"
#include "vm/object.h"
#include "vm/state.h"
#include "vm/print.h"
#include "vm/toplevel.h"

/* ===== Values ===== */

VladValue vlad_number(double x)
{
    return to_public(vl_num(x));
}

int vlad_is_number(VladValue v)
{
    Value x = to_internal(v);
    return IS_REAL(x);
}

double vlad_to_number(VladValue v)
{
    Value x = to_internal(v);
    return IS_REAL(x) ? vl_value_primal(x) : 0.0;
}

VladValue vlad_boolean(int b)
{
    return to_public(vl_bool(b != 0));
}

int vlad_is_boolean(VladValue v)
{
    return IS_BOOL(to_internal(v));
}

int vlad_to_boolean(VladValue v)
{
    Value x = to_internal(v);
    return !(IS_BOOL(x) && !x.as.boolean);
}

VladValue vlad_nil(void)
{
    return to_public(NIL_VAL);
}

int vlad_is_nil(VladValue v)
{
    return IS_NIL(to_internal(v));
}

VladValue vlad_cons(VladState *S, VladValue car, VladValue cdr)
{
    (void)S;
    Value items[2] = {to_internal(car), to_internal(cdr)};
    return to_public(vl_value_tuple(items, 2));
}

int vlad_is_pair(VladValue v)
{
    return IS_PAIR(to_internal(v));
}

VladValue vlad_car(VladValue v)
{
    Value x = to_internal(v);
    return to_public(IS_PAIR(x) ? AS_PAIR(x)->car : NIL_VAL);
}

VladValue vlad_cdr(VladValue v)
{
    Value x = to_internal(v);
    return to_public(IS_PAIR(x) ? AS_PAIR(x)->cdr : NIL_VAL);
}

int vlad_is_procedure(VladValue v)
{
    return IS_PROC(to_internal(v));
}

int vlad_is_checkpoint(VladValue v)
{
    return IS_CKPT(to_internal(v));
}

VladValue vlad_list_of_numbers(VladState *S, const double *xs, size_t n)
{
    (void)S;
    Value l = NIL_VAL;
    for (size_t k = n; k-- > 0;) {
        Value items[2] = {vl_num(xs[k]), l};
        l = vl_value_tuple(items, 2);
    }
    return to_public(l);
}

long vlad_numbers_of_list(VladValue list, double *out, size_t cap)
{
    Value l = to_internal(list);
    size_t n = 0;
    for (; IS_PAIR(l); l = AS_PAIR(l)->cdr, n++) {
        Value x = AS_PAIR(l)->car;
        if (!IS_REAL(x))
            return -1;
        if (n < cap)
            out[n] = vl_value_primal(x);
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
    if (ref != NULL)
        ref->value = to_internal(v);
}

void vlad_unref(VladRef *ref)
{
    if (ref != NULL)
        vl_gc_free(ref);
}

/* ===== Derivatives ===== */

/* The built-in value of a prelude name (immune to user redefinition). */
static Value builtin(VladState *S, const char *name)
{
    return vl_state_prelude_cell(S, vl_symbol_intern_c(S->syms, name))
        ->value;
}

/* Apply the built-in 'op' (j* or *j) to (f x bar) and return the parts
   of its result (list y d). */
static VladStatus apply_ad(VladState *S, const char *op, Value f, Value x,
                           Value bar, Value *y, Value *d)
{
    Value items[3] = {f, x, bar};
    Value r;
    VladStatus st = vl_toplevel_apply(S, builtin(S, op),
                                      vl_value_tuple(items, 3), &r);
    if (st != VLAD_OK)
        return st;
    *y = AS_PAIR(r)->car;
    *d = AS_PAIR(AS_PAIR(r)->cdr)->car;
    return VLAD_OK;
}

static VladStatus not_real(VladState *S, const char *who, Value v)
{
    return vl_toplevel_fail(S, VLAD_ERR_RUNTIME,
                            "%s: the procedure must return a real, got %s",
                            who, vl_print_to_string(S, v, 60));
}

VladStatus vlad_derivative(VladState *S, VladValue fn, double x,
                           double *value, double *derivative)
{
    Value y, d;
    VladStatus st = apply_ad(S, "j*", to_internal(fn), vl_num(x), vl_num(1),
                             &y, &d);
    if (st != VLAD_OK)
        return st;
    if (!IS_REAL(y))
        return not_real(S, "vlad_derivative", y);
    if (value != NULL)
        *value = vl_value_primal(y);
    if (derivative != NULL)
        *derivative = vl_value_primal(d);
    return VLAD_OK;
}

VladStatus vlad_gradient(VladState *S, VladValue fn, const double *x,
                         size_t n, double *value, double *gradient)
{
    Value y, g;
    VladStatus st = apply_ad(S, "*j", to_internal(fn),
                             to_internal(vlad_list_of_numbers(S, x, n)),
                             vl_num(1), &y, &g);
    if (st != VLAD_OK)
        return st;
    if (!IS_REAL(y))
        return not_real(S, "vlad_gradient", y);
    if (value != NULL)
        *value = vl_value_primal(y);
    if (gradient != NULL)
        vlad_numbers_of_list(to_public(g), gradient, n);
    return VLAD_OK;
}

VladStatus vlad_directional_derivative(VladState *S, VladValue fn,
                                       const double *x, const double *v,
                                       size_t n, double *value,
                                       double *derivative)
{
    Value y, d;
    VladStatus st = apply_ad(S, "j*", to_internal(fn),
                             to_internal(vlad_list_of_numbers(S, x, n)),
                             to_internal(vlad_list_of_numbers(S, v, n)),
                             &y, &d);
    if (st != VLAD_OK)
        return st;
    if (!IS_REAL(y))
        return not_real(S, "vlad_directional_derivative", y);
    if (value != NULL)
        *value = vl_value_primal(y);
    if (derivative != NULL)
        *derivative = vl_value_primal(d);
    return VLAD_OK;
}
