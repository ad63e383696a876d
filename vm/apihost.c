/*
 * vm/apihost.c -- host primitives: C functions registered as VLAD
 * procedures (include/vlad.h, "Host primitives")
 *
 * A host primitive is a PrimInfo whose fn is the trampoline below; the VM
 * records the primitive it applies in S->calling_prim, from which the
 * trampoline finds the HostPrim around it.  The trampoline:
 * - effects: under checkpoint-*j, a re-execution returns the result the
 *   first run recorded instead of calling the host again (vm/cpj.h);
 * - derivatives: when an argument carries a perturbation or tape and the
 *   host gave partial derivatives (other host primitives), the call is
 *   lifted like a built-in operation (vl_ad_lift), so j*, *j and
 *   checkpoint-*j differentiate through it, to any order the partials
 *   themselves support;
 * - errors: a status other than VLAD_OK becomes a VLAD run-time error
 *   ("NAME: message") with location and backtrace.
 * Host functions must not call back into the state while it runs them.
 */
#include "config.h"
#include "include/vlad.h"

#include <string.h>
#include "vm/ad.h"
#include "vm/apiconv.h"
#include "vm/cpj.h"
#include "vm/except.h"
#include "vm/object.h"
#include "vm/prims.h"
#include "vm/print.h"
#include "vm/state.h"
#include "vm/toplevel.h"

typedef struct HostPrim {
    PrimInfo info;              /* first: the VM sees a PrimInfo */
    VladHostFn fn;
    void *userdata;
    const struct HostPrim *partial[2];
    int effect;
} HostPrim;

/* Call the host function on 'args' (values as they are). */
static Value call_host(VladState *S, const HostPrim *h, const Value *args)
{
    VladValue in[3], out = vlad_nil();
    for (int k = 0; k < h->info.arity; k++)
        in[k] = to_public(args[k]);
    S->host_message = NULL;
    S->escapes++;           /* the host may keep what it is given */
    VladStatus st = h->fn(S, h->userdata, in, &out);
    if (st != VLAD_OK)
        vl_except_runtime(S, st == VLAD_ERR_MEMORY ? st : VLAD_ERR_RUNTIME,
                          "%s: %s", h->info.name,
                          S->host_message ? S->host_message : "failed");
    return to_internal(out);
}

static Value apply_host(VladState *S, const HostPrim *h, const Value *args);

/* vl_ad_lift's rule: the value (which = -1) or a partial derivative. */
static Value host_rule(VladState *S, void *ctx, int which, const Value *x)
{
    const HostPrim *h = ctx;
    if (which < 0)
        return apply_host(S, h, x);
    return apply_host(S, h->partial[which], x);
}

static Value apply_host(VladState *S, const HostPrim *h, const Value *args)
{
    int perturbed = 0;
    for (int k = 0; k < h->info.arity; k++)
        perturbed |= args[k].tag == VT_DUAL || args[k].tag == VT_TAPE;
    if (!perturbed)
        return call_host(S, h, args);
    if (h->partial[0] == NULL)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "%s: cannot be differentiated (the host gave no "
                          "derivative)", h->info.name);
    return vl_ad_lift(S, h->info.arity, args, host_rule, (void *)h);
}

static Value trampoline(VladState *S, Value *args)
{
    const HostPrim *h = (const HostPrim *)S->calling_prim;
    Value v;
    if (h->effect && vl_cpj_replay_input(S, &v))
        return v;
    v = apply_host(S, h, args);
    if (h->effect)
        vl_cpj_record_input(S, v);
    return v;
}

static const HostPrim *find_host(VladState *S, const char *name)
{
    if (name == NULL)
        return NULL;
    Value v = vl_state_user_cell(S, vl_symbol_intern_c(S->syms, name))
                  ->value;
    if (!IS_PRIM(v) || AS_PRIM(v)->fn != trampoline)
        return NULL;
    return (const HostPrim *)AS_PRIM(v);
}

VladStatus vlad_register(VladState *S, const VladHostPrim *prim)
{
    if (prim == NULL || prim->name == NULL || prim->fn == NULL
        || prim->arity < 1 || prim->arity > 3)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "vlad_register: a name, a function and an "
                                "arity of 1, 2 or 3 are required");
    HostPrim *h = vl_gc_alloc_uncollectable(sizeof *h);
    if (h == NULL)
        return vl_toplevel_fail(S, VLAD_ERR_MEMORY, "out of memory");
    h->info.name = vl_gc_strdup(prim->name);
    h->info.fn = trampoline;
    h->info.arity = (uint8_t)prim->arity;
    h->info.inline_id = -1;
    h->fn = prim->fn;
    h->userdata = prim->userdata;
    h->effect = prim->effect != 0;
    int nparts = 0;
    for (int k = 0; k < 2; k++)
        nparts += prim->partial[k] != NULL;
    if (nparts > 0) {
        if (prim->arity > 2 || nparts != prim->arity) {
            vl_gc_free(h);
            return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                    "vlad_register: %s: a differentiable "
                                    "host primitive takes 1 or 2 reals and "
                                    "needs one partial derivative per "
                                    "argument", prim->name);
        }
        for (int k = 0; k < prim->arity; k++) {
            h->partial[k] = find_host(S, prim->partial[k]);
            if (h->partial[k] == NULL || h->partial[k]->info.arity
                                             != prim->arity) {
                vl_gc_free(h);
                return vl_toplevel_fail(
                    S, VLAD_ERR_ARGUMENT,
                    "vlad_register: %s: the partial derivative '%s' must "
                    "be a host primitive registered before, of the same "
                    "arity", prim->name, prim->partial[k]);
            }
        }
    }
    vlad_set_global(S, prim->name, to_public(vl_obj(VT_PRIM, &h->info)));
    return VLAD_OK;
}

VladStatus vlad_host_error(VladState *S, const char *message)
{
    S->host_message = vl_gc_strdup(message ? message : "failed");
    return VLAD_ERR_RUNTIME;
}
