/*
 * vm/api/api.c -- the public interface (include/vlad.h)
 *
 * With the other files of vm/api/ -- apivalue.c (values, references, AD
 * conveniences), apihost.c (host primitives), apickpt.c (saving and
 * loading checkpoints), apiio.c (output) and apiconv.c (the conversions
 * themselves, vm/api/apiconv.h) -- the only files that convert between
 * public and internal types.  Every entry point that runs
 * VLAD code goes through vl_toplevel_eval or another protected call, so
 * nothing longjmps out of libvlad; the others that allocate run under
 * vl_except_protect too (an exhausted heap must not end the process).
 *
 * Every entry point that touches the collector's heap first registers the
 * calling thread with the collector (API_ENTER); every one accepts NULL
 * for its pointers (a NULL state: VLAD_ERR_ARGUMENT or nothing done).
 */
#include "config.h"
#include "include/vlad.h"

#include <errno.h>
#include <string.h>
#include "parser/read.h"
#include "vm/api/apiconv.h"
#include "vm/cpj/cpj.h"
#include "vm/core/disasm.h"
#include "vm/core/except.h"
#include "vm/exec/prims.h"
#include "vm/core/print.h"
#include "vm/persist/spill.h"
#include "vm/core/stdinwait.h"
#include "vm/exec/toplevel.h"
#include "vm/exec/vm.h"

void vlad_config_init(VladConfig *config)
{
    if (config != NULL)
        memset(config, 0, sizeof *config);
}

VladState *vlad_open(const VladConfig *config)
{
    if (!vl_gc_thread_attach())
        return NULL;
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
    if (S == NULL || !vl_gc_thread_attach())
        return;
    vl_toplevel_close(S);   /* deferred while the state runs (C1) */
}

/* Check the state and register the thread; a status to return, or
   VLAD_OK to go on.  '*out' (if not NULL) gets the empty list first. */
static VladStatus enter(VladState *S, VladValue *out)
{
    if (out != NULL)
        *out = to_public(NIL_VAL);
    if (S == NULL)
        return VLAD_ERR_ARGUMENT;
    if (!vl_gc_thread_attach())
        return vl_toplevel_attach_error(S);
    return VLAD_OK;
}

VladStatus vlad_eval_string(VladState *S, const char *src,
                            const char *chunkname, VladValue *out)
{
    VladStatus st = enter(S, out);
    if (st != VLAD_OK)
        return st;
    if (src == NULL)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "vlad_eval_string: the source text is NULL");
    Value v;
    st = vl_toplevel_eval(S, src, strlen(src),
                          chunkname ? chunkname : "<string>", 0, &v);
    if (out != NULL)
        *out = to_public(v);
    return st;
}

typedef struct ReadJob {
    const char *path;
    char *src;
    size_t len;
    int err;
} ReadJob;

static void read_job(VladState *S, void *ud)
{
    (void)S;
    ReadJob *job = ud;
    job->src = vl_toplevel_read_file(job->path, &job->len);
    job->err = errno;
}

/* Read the program file 'path' (who: the entry point, for a NULL path)
   into job; the status (S->err set on failure). */
static VladStatus read_program(VladState *S, const char *who,
                               const char *path, ReadJob *job)
{
    if (path == NULL)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT, "%s: the path is NULL",
                                who);
    *job = (ReadJob){path, NULL, 0, 0};
    VladStatus st = vl_except_protect(S, read_job, job);
    if (st != VLAD_OK)
        return st;
    if (job->src == NULL && job->err == EFBIG)
        return vl_toplevel_fail(S, VLAD_ERR_IO, "cannot read '%s': the file "
                                "is larger than %zu bytes", path,
                                (size_t)VL_READ_MAX_INPUT);
    if (job->src == NULL)
        return vl_toplevel_fail(S, VLAD_ERR_IO, "cannot read '%s': %s",
                                path, strerror(job->err));
    return VLAD_OK;
}

VladStatus vlad_eval_file(VladState *S, const char *path, VladValue *out)
{
    VladStatus st = enter(S, out);
    if (st != VLAD_OK)
        return st;
    ReadJob job;
    st = read_program(S, "vlad_eval_file", path, &job);
    if (st != VLAD_OK)
        return st;
    Value v;
    st = vl_toplevel_eval_file(S, job.src, job.len, path, &v);
    if (out != NULL)
        *out = to_public(v);
    return st;
}

typedef struct ListJob {
    const Proto *proto;
    const char *name;
} ListJob;

static void list_job(VladState *S, void *ud)
{
    ListJob *job = ud;
    StrBuf b;
    vl_strbuf_init(&b);
    vl_disasm_proto(S, &b, job->proto, job->name);
    vl_state_write(S, b.data, b.len);
}

VladStatus vlad_disassemble(VladState *S, const char *path,
                            const char *name)
{
    VladStatus st = enter(S, NULL);
    if (st != VLAD_OK)
        return st;
    if ((path == NULL) == (name == NULL))
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT, "vlad_disassemble: "
                                "give a path or a name, not %s",
                                path == NULL ? "neither" : "both");
    if (path != NULL) {
        ReadJob job;
        st = read_program(S, "vlad_disassemble", path, &job);
        if (st != VLAD_OK)
            return st;
        return vl_toplevel_list_file(S, job.src, job.len, path);
    }
    Value v;
    if (!vl_state_lookup(S, name, &v))
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT, "%s is not bound",
                                name);
    if (IS_PRIM(v))
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT, "%s is a primitive, "
                                "built in C: it has no bytecode", name);
    if (!IS_CLOSURE(v))
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT, "%s is not a "
                                "procedure", name);
    ListJob job = {AS_CLOSURE(v)->proto, name};
    return vl_toplevel_job(S, list_job, &job);
}

static const VladError no_state_error = {
    VLAD_ERR_ARGUMENT, "no state (NULL)", "", 0, 0, "",
    "error: no state (NULL)\n"
};

const VladError *vlad_last_error(VladState *S)
{
    return S != NULL ? &S->err : &no_state_error;
}

void vlad_interrupt(VladState *S)
{
    /* no thread registration: callable from a signal handler */
    if (S != NULL)
        vl_stdinwait_wake(S);
}

VladStatus vlad_call(VladState *S, VladValue fn, VladValue arg,
                     VladValue *out)
{
    VladStatus st = enter(S, out);
    if (st != VLAD_OK)
        return st;
    if (!vl_api_valid_public(fn))
        return vl_api_refuse_value(S, "vlad_call", "the procedure");
    if (!vl_api_valid_public(arg))
        return vl_api_refuse_value(S, "vlad_call", "the argument");
    Value v;
    st = vl_toplevel_apply(S, to_internal(fn), to_internal(arg), &v);
    if (out != NULL)
        *out = to_public(v);
    return st;
}

int vlad_interrupted(VladState *S, VladValue *out)
{
    if (S == NULL || !IS_CKPT(S->interrupted))
        return 0;
    if (out != NULL)
        *out = to_public(S->interrupted);
    return 1;
}

VladStatus vlad_resume(VladState *S, VladValue u, VladValue *out)
{
    if (S == NULL)
        return enter(S, out);
    if (!vl_api_valid_public(u)) {
        VladStatus st = enter(S, out);
        return st != VLAD_OK ? st : vl_api_refuse_value(S, "vlad_resume",
                                                        "the checkpoint");
    }
    return vlad_call(S, to_public(S->resume_value), u, out);
}

void vlad_globals(VladState *S,
                  void (*fn)(void *ud, const char *name, int user), void *ud)
{
    if (S == NULL || fn == NULL || !vl_gc_thread_attach())
        return;
    for (uint32_t id = 0; id < S->ncells; id++) {
        const Global *u = S->user_cells[id], *p = S->prelude_cells[id];
        const Global *g = u != NULL && !IS_UNDEF(u->value) ? u : p;
        if (g == NULL || IS_UNDEF(g->value) || g->name->name[0] == '%')
            continue;
        fn(ud, g->name->name, u != NULL && u->defined);
    }
}

/* Run job(S, ud) protected, leaving S->err as it was: for the functions
   that never fail but allocate (an exhausted heap makes them do nothing).
   Returns whether the job finished. */
static int quietly(VladState *S, void (*job)(VladState *, void *), void *ud)
{
    VladError saved = S->err;
    VladStatus st = vl_except_protect(S, job, ud);
    S->err = saved;
    return st == VLAD_OK;
}

/* A lookup creates neither a symbol nor a cell (R1: a host probing
   10^6 unbound names must not grow the state). */
int vlad_get_global(VladState *S, const char *name, VladValue *out)
{
    Value v;
    if (S == NULL || name == NULL || !vl_gc_thread_attach()
        || !vl_state_lookup(S, name, &v))
        return 0;
    if (out != NULL)
        *out = to_public(v);
    return 1;
}

typedef struct GlobalJob {
    const char *name;
    Value value;
} GlobalJob;

static void set_global_job(VladState *S, void *ud)
{
    GlobalJob *job = ud;
    Symbol *sym = vl_symbol_intern_c(S->syms, job->name);
    vl_state_define(S, vl_state_user_cell(S, sym), job->value);
}

VladStatus vlad_set_global(VladState *S, const char *name, VladValue value)
{
    VladStatus st = enter(S, NULL);
    if (st != VLAD_OK)
        return st;
    if (name == NULL)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "vlad_set_global: the name is NULL");
    if (!vl_api_valid_public(value))
        return vl_api_refuse_value(S, "vlad_set_global", "the value");
    if (vl_api_refuse_busy(S, "vlad_set_global") != VLAD_OK)
        return VLAD_ERR_ARGUMENT;
    GlobalJob job = {name, to_internal(value)};
    st = vl_except_protect(S, set_global_job, &job);
    if (st == VLAD_OK)
        vl_toplevel_clear_error(S);
    return st;
}

void vlad_set_heap_limit(VladState *S, size_t bytes)
{
    if (S != NULL)
        S->heap_limit = bytes;
}

void vlad_set_step_limit(VladState *S, int64_t limit)
{
    if (S != NULL)
        S->step_limit = limit > 0 ? limit : 0;
}

const char *vlad_checkpoint_strategy(int i)
{
    return vl_cpj_strategy_name(i);
}

VladStatus vlad_set_checkpoint(VladState *S, const char *spec)
{
    VladStatus st = enter(S, NULL);
    if (st != VLAD_OK)
        return st;
    if (vl_api_refuse_busy(S, "vlad_set_checkpoint") != VLAD_OK)
        return VLAD_ERR_ARGUMENT;
    CpjStrategy cs = vl_cpj_default();
    char msg[256];
    if (spec != NULL && spec[0] != '\0'
        && !vl_cpj_parse(spec, &cs, msg, sizeof msg))
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT, "%s", msg);
    S->cpj->strategy = cs;
    vl_toplevel_clear_error(S);
    return VLAD_OK;
}

void vlad_get_stats(VladState *S, VladStats *stats)
{
    if (stats == NULL)
        return;
    memset(stats, 0, sizeof *stats);
    if (S == NULL || !vl_gc_thread_attach())
        return;
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
    stats->messages_sent = S->msg_sent[0];
    stats->message_bytes_sent = S->msg_bytes[0];
    stats->adjoint_messages_sent = S->msg_sent[1];
    stats->adjoint_message_bytes_sent = S->msg_bytes[1];
    stats->collectives = S->collectives;
    SpillCounts sc = vl_spill_counts(S);
    stats->checkpoint.spill_bytes_written = sc.bytes_written;
    stats->checkpoint.spill_bytes_read = sc.bytes_read;
}

void vlad_collect(VladState *S)
{
    if (S == NULL || !vl_gc_thread_attach())
        return;
    vl_gc_collect();
}

typedef struct PrintJob {
    Value v;
    const char *text;
} PrintJob;

static void print_job(VladState *S, void *ud)
{
    PrintJob *job = ud;
    job->text = vl_print_to_string(S, job->v, VL_PRINT_STRING_MAX);
}

const char *vlad_to_string(VladState *S, VladValue v)
{
    if (S == NULL || !vl_gc_thread_attach())
        return "";
    if (!vl_api_valid_public(v))
        return "#<invalid value>";
    PrintJob job = {to_internal(v), ""};
    if (!quietly(S, print_job, &job))
        return "";
    return job.text;
}
