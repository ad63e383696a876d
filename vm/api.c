/*
 * vm/api.c -- the public interface (include/vlad.h)
 *
 * With vm/apivalue.c (values, references, AD conveniences) and
 * vm/apihost.c (host primitives), the only files that convert between
 * public and internal types (vm/apiconv.h).  Every entry point that runs
 * VLAD code goes through vl_toplevel_eval or another protected call, so
 * nothing longjmps out of libvlad.
 */
#include "config.h"
#include "include/vlad.h"

#include <errno.h>
#include <string.h>
#include "vm/apiconv.h"
#include "vm/cpj.h"
#include "vm/except.h"
#include "vm/prims.h"
#include "vm/print.h"
#include "vm/toplevel.h"
#include "vm/vm.h"

void vlad_config_init(VladConfig *config)
{
    memset(config, 0, sizeof *config);
}

VladState *vlad_open(const VladConfig *config)
{
    VladState *S = vl_toplevel_open(config);
    if (S != NULL && config != NULL)
        S->heap_limit = config->heap_limit;
    if (S != NULL && config != NULL && config->checkpoint != NULL
        && vlad_set_checkpoint(S, config->checkpoint) != VLAD_OK) {
        vl_toplevel_close(S);
        return NULL;
    }
    return S;
}

void vlad_close(VladState *S)
{
    if (S == NULL)
        return;
    vl_toplevel_close(S);
}

VladStatus vlad_eval_string(VladState *S, const char *src,
                            const char *chunkname, VladValue *out)
{
    Value v;
    VladStatus st = vl_toplevel_eval(S, src, strlen(src),
                                     chunkname ? chunkname : "<string>", 0,
                                     &v);
    if (out != NULL)
        *out = to_public(v);
    return st;
}

VladStatus vlad_eval_file(VladState *S, const char *path, VladValue *out)
{
    size_t len;
    char *src = vl_toplevel_read_file(path, &len);
    if (src == NULL) {
        if (out != NULL)
            *out = to_public(NIL_VAL);
        return vl_toplevel_fail(S, VLAD_ERR_IO, "cannot read '%s': %s",
                                path, strerror(errno));
    }
    Value v;
    VladStatus st = vl_toplevel_eval(S, src, len, path, 0, &v);
    if (out != NULL)
        *out = to_public(v);
    return st;
}

const VladError *vlad_last_error(VladState *S)
{
    return &S->err;
}

void vlad_interrupt(VladState *S)
{
    S->interrupt = 1;
}

VladStatus vlad_call(VladState *S, VladValue fn, VladValue arg,
                     VladValue *out)
{
    Value v;
    VladStatus st = vl_toplevel_apply(S, to_internal(fn), to_internal(arg),
                                      &v);
    if (out != NULL)
        *out = to_public(v);
    return st;
}

int vlad_interrupted(VladState *S, VladValue *out)
{
    if (S->err.status != VLAD_ERR_INTERRUPTED || !IS_CKPT(S->interrupted))
        return 0;
    if (out != NULL)
        *out = to_public(S->interrupted);
    return 1;
}

VladStatus vlad_resume(VladState *S, VladValue u, VladValue *out)
{
    return vlad_call(S, to_public(S->resume_value), u, out);
}

void vlad_globals(VladState *S,
                  void (*fn)(void *ud, const char *name, int user), void *ud)
{
    for (uint32_t id = 0; id < S->ncells; id++) {
        const Global *u = S->user_cells[id], *p = S->prelude_cells[id];
        const Global *g = u != NULL && !IS_UNDEF(u->value) ? u : p;
        if (g == NULL || IS_UNDEF(g->value) || g->name->name[0] == '%')
            continue;
        fn(ud, g->name->name, u != NULL && u->defined);
    }
}

int vlad_get_global(VladState *S, const char *name, VladValue *out)
{
    Symbol *sym = vl_symbol_intern_c(S->syms, name);
    const Global *g = vl_state_user_cell(S, sym);
    if (IS_UNDEF(g->value))
        return 0;
    if (out != NULL)
        *out = to_public(g->value);
    return 1;
}

void vlad_set_global(VladState *S, const char *name, VladValue value)
{
    Symbol *sym = vl_symbol_intern_c(S->syms, name);
    vl_state_define(S, vl_state_user_cell(S, sym), to_internal(value));
}

void vlad_set_heap_limit(VladState *S, size_t bytes)
{
    S->heap_limit = bytes;
}

void vlad_set_step_limit(VladState *S, int64_t limit)
{
    S->step_limit = limit > 0 ? limit : 0;
}

VladStatus vlad_set_checkpoint(VladState *S, const char *spec)
{
    CpjStrategy st = vl_cpj_default();
    char msg[256];
    if (spec != NULL && spec[0] != '\0'
        && !vl_cpj_parse(spec, &st, msg, sizeof msg))
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT, "%s", msg);
    S->cpj->strategy = st;
    return VLAD_OK;
}

void vlad_get_stats(VladState *S, VladStats *stats)
{
    stats->steps_total = S->steps;
    stats->steps_last = S->last_steps;
    stats->heap_bytes = vl_gc_heap_size();
    size_t free_bytes = vl_gc_free_bytes();
    stats->heap_used_bytes = stats->heap_bytes > free_bytes
                             ? stats->heap_bytes - free_bytes : 0;
    stats->peak_heap_bytes = vl_gc_peak_heap_size();
    stats->peak_stack_bytes = S->peak_stack_size * sizeof(Value);
    stats->tape_nodes = S->tape_nodes;
    stats->tape_bytes = S->tape_bytes;
    stats->peak_tape_nodes = S->peak_tape_nodes;
    stats->checkpoint = S->cpj->stats;
}

void vlad_collect(VladState *S)
{
    (void)S;
    vl_gc_collect();
}

const char *vlad_to_string(VladState *S, VladValue v)
{
    return vl_print_to_string(S, to_internal(v), 0);
}
