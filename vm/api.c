/*
 * vm/api.c -- the public interface (include/vlad.h)
 *
 * The only file that converts between public and internal types.  Every
 * entry point that runs VLAD code goes through vl_toplevel_eval or another
 * protected call, so nothing longjmps out of libvlad.
 */
#include "config.h"
#include "include/vlad.h"

#include <errno.h>
#include <string.h>
#include "vm/except.h"
#include "vm/prims.h"
#include "vm/print.h"
#include "vm/toplevel.h"
#include "vm/vm.h"

static const char prelude_source[] =
#include "stdlib/prelude.inc"
    ;

static Value to_internal(VladValue v)
{
    Value r;
    memcpy(&r, &v, sizeof r);
    return r;
}

static VladValue to_public(Value v)
{
    VladValue r;
    memcpy(&r, &v, sizeof r);
    return r;
}

void vlad_config_init(VladConfig *config)
{
    memset(config, 0, sizeof *config);
}

static void open_job(VladState *S, void *ud)
{
    (void)ud;
    S->syms = vl_symtab_new();
    vl_prims_install(S);
    vl_vm_init(S);
}

VladState *vlad_open(const VladConfig *config)
{
    vl_gc_init();
    /* the state is referenced only from the host: never collected */
    VladState *S = vl_gc_alloc_uncollectable(sizeof *S);
    if (S == NULL)
        return NULL;
    if (config != NULL)
        S->config = *config;
    else
        vlad_config_init(&S->config);
    S->max_stack = VL_MAX_STACK;
    S->step_limit = S->config.step_limit;
    if (vl_except_protect(S, open_job, NULL) != VLAD_OK) {
        vl_gc_free(S);
        return NULL;
    }
    if (S->config.include_path != NULL) {
        size_t n = 0;
        while (S->config.include_path[n] != NULL)
            n++;
        S->include_dirs = vl_gc_alloc((n + 1) * sizeof(char *));
        for (size_t k = 0; k < n; k++)
            S->include_dirs[k] = vl_gc_strdup(S->config.include_path[k]);
        S->ninclude_dirs = n;
    }
    if (!S->config.no_prelude) {
        int echo = S->config.echo_results;
        S->config.echo_results = 0;
        VladStatus st = vl_toplevel_eval(S, prelude_source,
                                         sizeof prelude_source - 1,
                                         "<prelude>", 1, NULL);
        S->config.echo_results = echo;
        if (st != VLAD_OK) {
            vl_gc_free(S);
            return NULL;
        }
    }
    vl_prims_bind_inline_cells(S);
    S->steps = 0;
    return S;
}

void vlad_close(VladState *S)
{
    if (S == NULL)
        return;
    vl_state_flush(S);
    vl_gc_free(S);
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
        S->err.status = VLAD_ERR_IO;
        S->err.message = vl_except_format("cannot read '%s': %s", path,
                                          strerror(errno));
        S->err.file = "";
        S->err.line = S->err.column = 0;
        S->err.backtrace = "";
        S->err.text = vl_except_format("error: %s\n", S->err.message);
        if (out != NULL)
            *out = to_public(NIL_VAL);
        return VLAD_ERR_IO;
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

void vlad_set_step_limit(VladState *S, int64_t limit)
{
    S->step_limit = limit > 0 ? limit : 0;
}

void vlad_get_stats(VladState *S, VladStats *stats)
{
    stats->steps_total = S->steps;
    stats->steps_last = S->last_steps;
    stats->heap_bytes = vl_gc_heap_size();
    stats->peak_heap_bytes = vl_gc_peak_heap_size();
    stats->peak_stack_bytes = S->stack_size * sizeof(Value);
}

const char *vlad_to_string(VladState *S, VladValue v)
{
    return vl_print_to_string(S, to_internal(v), 0);
}

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
