/*
 * vm/api/apihost.c -- host primitives: C functions registered as VLAD
 * procedures (include/vlad.h, "Host primitives")
 *
 * A host primitive is a PrimInfo whose fn is the trampoline below; the VM
 * records the primitive it applies in S->calling_prim, from which the
 * trampoline finds the HostPrim around it.  The trampoline:
 * - effects: under checkpoint-*j, a re-execution returns the result the
 *   first run recorded instead of calling the host again (vm/cpj/cpj.h),
 *   lifted by the partials when its arguments are differentiated;
 * - activity: a plain real argument marked active by checkpoint-*j
 *   (vm/core/value.h) counts as differentiated, and marks the result;
 * - derivatives: when an argument carries a perturbation or tape and the
 *   host gave partial derivatives (other host primitives), the call is
 *   lifted like a built-in operation (vl_ad_lift), so j*, *j and
 *   checkpoint-*j differentiate through it, to any order the partials
 *   themselves support;
 * - errors: a status other than VLAD_OK becomes a VLAD run-time error
 *   ("NAME: message") with location and backtrace.
 * Host functions must not call back into the state while it runs them;
 * one that closes it (vlad_close) stops the evaluation when it returns,
 * and one that returns an invalid value (vm/api/apiconv.h) raises an error.
 */
#include "config.h"
#include "include/vlad.h"

#include <string.h>
#include "vm/ad/ad.h"
#include "vm/api/apiconv.h"
#include "vm/cpj/cpj.h"
#include "vm/core/except.h"
#include "vm/core/object.h"
#include "vm/exec/prims.h"
#include "vm/core/print.h"
#include "vm/core/state.h"
#include "vm/exec/toplevel.h"
#include "vm/ad/walk.h"

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
    vl_except_if_closed(S);     /* the host closed the state: stop */
    if (st != VLAD_OK)
        vl_except_runtime(S, st == VLAD_ERR_MEMORY ? st : VLAD_ERR_RUNTIME,
                          "%s: %s", h->info.name,
                          S->host_message ? S->host_message : "failed");
    if (!vl_api_valid_public(out))
        vl_except_runtime(S, VLAD_ERR_RUNTIME, "%s: the host function "
                          "returned an invalid VladValue (the zero value, "
                          "or one libvlad never made)", h->info.name);
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

/* A real being differentiated: a dual, a tape node, or a plain real
   marked active by checkpoint-*j (vm/core/value.h). */
static int differentiated_real(Value v)
{
    return v.tag == VT_DUAL || v.tag == VT_TAPE
           || (v.tag == VT_NUM && (v.aux & VL_ACTIVE));
}

/* Whether some argument carries a perturbation or a tape (2), or is a
   plain real marked active by checkpoint-*j (1, vm/core/value.h), or neither
   (0); with 1 or 2 a primitive without derivative is an error, as it is
   under *j for an argument being differentiated.  A pair argument holding
   such reals (the host reads them with vlad_car, vlad_cdr and
   vlad_to_number, which see only primals) is an error too, with or
   without partials, which take reals only: its derivative would be a
   silent zero (finding W3).  Closures and checkpoints are opaque to the
   host, which can only give them back as they are. */
static int differentiated(VladState *S, const HostPrim *h, const Value *args)
{
    int d = 0;
    for (int k = 0; k < h->info.arity; k++) {
        if (args[k].tag == VT_DUAL || args[k].tag == VT_TAPE)
            d = 2;
        else if (args[k].tag == VT_NUM && (args[k].aux & VL_ACTIVE) && !d)
            d = 1;
        else if (IS_PAIR(args[k])
                 && vl_walk_any(S, args[k], differentiated_real))
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "%s: cannot be differentiated (argument %d "
                              "is a list or pair holding reals being "
                              "differentiated; host derivatives take reals "
                              "only)", h->info.name, k + 1);
    }
    if (d && h->partial[0] == NULL)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "%s: cannot be differentiated (the host gave no "
                          "derivative)", h->info.name);
    return d;
}

/* A real result of arguments one of which is marked active is marked
   too (vm/core/value.h). */
static Value mark_result(const HostPrim *h, const Value *args, Value v)
{
    for (int k = 0; k < h->info.arity; k++)
        if (IS_REAL(args[k]) && vl_real_marked(args[k]))
            return IS_REAL(v) ? vl_real_mark(v, 1) : v;
    return v;
}

static Value apply_host(VladState *S, const HostPrim *h, const Value *args)
{
    if (differentiated(S, h, args) < 2)
        return mark_result(h, args, call_host(S, h, args));
    return mark_result(h, args, vl_ad_lift(S, h->info.arity, args,
                                           host_rule, (void *)h));
}

/* An effect replayed by a re-execution of checkpoint-*j: the value the
   first run recorded, lifted by the host's partial derivatives at the
   arguments when they are being differentiated (the base cases). */
typedef struct Replay {
    const HostPrim *h;
    Value v;
} Replay;

static Value replay(VladState *S, const Replay *r, const Value *args);

static Value replay_rule(VladState *S, void *ctx, int which, const Value *x)
{
    const Replay *r = ctx;
    if (which < 0)
        return replay(S, r, x);
    return apply_host(S, r->h->partial[which], x);
}

static Value replay(VladState *S, const Replay *r, const Value *args)
{
    if (differentiated(S, r->h, args) < 2)
        return mark_result(r->h, args, r->v);
    return mark_result(r->h, args, vl_ad_lift(S, r->h->info.arity, args,
                                              replay_rule, (void *)r));
}

static Value trampoline(VladState *S, Value *args)
{
    const HostPrim *h = (const HostPrim *)S->calling_prim;
    Value v;
    if (h->effect && vl_cpj_replay_input(S, &v)) {
        Replay r = {h, v};
        return replay(S, &r, args);
    }
    v = apply_host(S, h, args);
    if (h->effect)
        vl_cpj_record_input(S, v);
    return v;
}

static const HostPrim *find_host(VladState *S, const char *name)
{
    Value v;
    if (name == NULL || !vl_state_lookup(S, name, &v))
        return NULL;
    if (!IS_PRIM(v) || AS_PRIM(v)->fn != trampoline)
        return NULL;
    return (const HostPrim *)AS_PRIM(v);
}

typedef struct RegisterJob {
    const VladHostPrim *prim;
    VladStatus status;
} RegisterJob;

/* A registration is ordinary garbage-collected memory: it lives as long
   as something refers to the primitive (its global, code or data that
   captured it, a registration naming it as a partial), so one replaced by
   registering the name again, or left by a closed state, is collected. */
static void register_job(VladState *S, void *ud)
{
    RegisterJob *job = ud;
    const VladHostPrim *prim = job->prim;
    HostPrim *h = vl_gc_alloc(sizeof *h);
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
            job->status = vl_toplevel_fail(
                S, VLAD_ERR_ARGUMENT, "vlad_register: %s: a differentiable "
                "host primitive takes 1 or 2 reals and needs one partial "
                "derivative per argument", prim->name);
            return;
        }
        for (int k = 0; k < prim->arity; k++) {
            h->partial[k] = find_host(S, prim->partial[k]);
            if (h->partial[k] == NULL || h->partial[k]->info.arity
                                             != prim->arity) {
                job->status = vl_toplevel_fail(
                    S, VLAD_ERR_ARGUMENT,
                    "vlad_register: %s: the partial derivative '%s' must "
                    "be a host primitive registered before, of the same "
                    "arity", prim->name, prim->partial[k]);
                return;
            }
        }
    }
    vl_state_define(S, vl_state_user_cell(S, vl_symbol_intern_c(S->syms,
                                                                prim->name)),
                    vl_obj(VT_PRIM, &h->info));
    job->status = VLAD_OK;
}

VladStatus vlad_register(VladState *S, const VladHostPrim *prim)
{
    if (S == NULL)
        return VLAD_ERR_ARGUMENT;
    if (!vl_gc_thread_attach())
        return vl_toplevel_attach_error(S);
    if (vl_api_refuse_busy(S, "vlad_register") != VLAD_OK)
        return VLAD_ERR_ARGUMENT;
    if (prim == NULL || prim->name == NULL || prim->fn == NULL
        || prim->arity < 1 || prim->arity > 3)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "vlad_register: a name, a function and an "
                                "arity of 1, 2 or 3 are required");
    RegisterJob job = {prim, VLAD_OK};
    VladStatus st = vl_except_protect(S, register_job, &job);
    if (st != VLAD_OK)
        return st;
    if (job.status == VLAD_OK)
        vl_toplevel_clear_error(S);
    return job.status;
}

VladStatus vlad_host_error(VladState *S, const char *message)
{
    if (S == NULL || !vl_gc_thread_attach())
        return VLAD_ERR_RUNTIME;
    /* the message must not be lost to an exhausted heap: a static one
       then (host_message is read by the trampoline) */
    char *m = NULL;
    if (message != NULL) {
        VlOomHook hook;
        void *hud;
        vl_gc_get_oom_hook(&hook, &hud);
        vl_gc_set_oom_hook(NULL, NULL);
        m = vl_gc_strdup(message);
        vl_gc_set_oom_hook(hook, hud);
    }
    S->host_message = m != NULL ? m : "failed";
    return VLAD_ERR_RUNTIME;
}
