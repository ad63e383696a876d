/*
 * vm/toplevel.c -- running programs: the top level, include, the prelude
 *
 * A program is read whole (so a syntax error anywhere is reported before
 * anything runs), then its forms are expanded, compiled and run one by one
 * in order, as at a Scheme top level: a definition binds its global when
 * reached, an expression's value is printed when the state echoes results.
 * (include "name") processes another file's forms in place; the file is
 * searched in the including file's directory, then in the -I directories,
 * then in the directories of $VLAD_PATH, then in the installed library
 * directory.  Including a file that is being included is an error.
 */
#include "config.h"
#include "vm/toplevel.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "parser/expand.h"
#include "parser/read.h"
#include "vm/compile.h"
#include "vm/cont.h"
#include "vm/cpj.h"
#include "vm/except.h"
#include "vm/prims.h"
#include "vm/print.h"
#include "vm/vm.h"

static const char prelude_source[] =
#include "stdlib/prelude.inc"
    ;

#ifndef VLAD_LIBDIR
#define VLAD_LIBDIR "/usr/local/share/vlad"
#endif

/* ===== Files ===== */

/* Read a whole file into GC memory; NULL (errno set) on failure. */
char *vl_toplevel_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 8192, n = 0;
    char *buf = vl_gc_alloc_atomic(cap + 1);
    for (;;) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap) {
            if (ferror(f)) {
                int e = errno;
                fclose(f);
                errno = e ? e : EIO;
                return NULL;
            }
            break;
        }
        char *nb = vl_gc_alloc_atomic(cap * 2 + 1);
        memcpy(nb, buf, n);
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int file_exists(const char *path)
{
    return access(path, R_OK) == 0;
}

static char *dir_of(const char *file)
{
    const char *slash = strrchr(file, '/');
    if (slash == NULL)
        return vl_gc_strdup(".");
    if (slash == file)
        return vl_gc_strdup("/");
    return vl_gc_strndup(file, (size_t)(slash - file));
}

static char *join(const char *dir, const char *name)
{
    if (name[0] == '/')
        return vl_gc_strdup(name);
    return vl_except_format("%s/%s", dir, name);
}

/* Where 'name' (included from 'from') is, or NULL. */
static char *find_include(VladState *S, const char *from, const char *name)
{
    size_t n = strlen(name);
    const char *fname = name;
    if (n < 5 || strcmp(name + n - 5, ".vlad") != 0)
        fname = vl_except_format("%s.vlad", name);
    if (fname[0] == '/')
        return file_exists(fname) ? vl_gc_strdup(fname) : NULL;
    int real_file = from != NULL && from[0] != '<';
    char *p = join(real_file ? dir_of(from) : ".", fname);
    if (file_exists(p))
        return p;
    for (size_t k = 0; k < S->ninclude_dirs; k++) {
        p = join(S->include_dirs[k], fname);
        if (file_exists(p))
            return p;
    }
    const char *env = getenv("VLAD_PATH");
    if (env != NULL && env[0] != '\0') {
        const char *s = env;
        while (*s) {
            const char *e = strchr(s, ':');
            size_t len = e ? (size_t)(e - s) : strlen(s);
            if (len > 0) {
                p = join(vl_gc_strndup(s, len), fname);
                if (file_exists(p))
                    return p;
            }
            s += len + (e != NULL);
        }
    }
    p = join(VLAD_LIBDIR, fname);
    if (file_exists(p))
        return p;
    return NULL;
}

/* ===== Running forms ===== */

typedef struct RunCtx {
    const char *src;
    size_t len;
    const char *name;
    int prelude;
    Value last;
} RunCtx;

static void run_text(VladState *S, RunCtx *ctx);

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void include_file(VladState *S, const TopForm *f, RunCtx *outer)
{
    char *path = find_include(S, f->pos.file, f->include_name);
    if (path == NULL)
        vl_except_at(S, VLAD_ERR_IO, f->pos,
                     "include: cannot find '%s' (searched the including "
                     "file's directory, the -I directories, VLAD_PATH and "
                     "the library directory)", f->include_name);
    char real[PATH_MAX];
    const char *key = realpath(path, real) ? real : path;
    for (size_t k = 0; k < S->ninclude_stack; k++)
        if (strcmp(S->include_stack[k], key) == 0)
            vl_except_at(S, VLAD_ERR_SYNTAX, f->pos,
                         "include: cycle: '%s' is already being included",
                         path);
    size_t len;
    char *src = vl_toplevel_read_file(path, &len);
    if (src == NULL)
        vl_except_at(S, VLAD_ERR_IO, f->pos, "include: cannot read '%s': %s",
                     path, strerror(errno));
    if (S->ninclude_stack == S->include_stack_cap) {
        size_t n = S->include_stack_cap ? S->include_stack_cap * 2 : 8;
        const char **st = vl_gc_alloc(n * sizeof(char *));
        if (S->ninclude_stack)
            memcpy(st, S->include_stack, S->ninclude_stack * sizeof(char *));
        S->include_stack = st;
        S->include_stack_cap = n;
    }
    S->include_stack[S->ninclude_stack++] = vl_gc_strdup(key);
    RunCtx ctx = {src, len, path, outer->prelude, NIL_VAL};
    run_text(S, &ctx);
    S->ninclude_stack--;
    outer->last = ctx.last;
}

static void report_diags(VladState *S, VlReadStatus st, VlDiag *d)
{
    /* the first diagnostic is the error; later ones join its message */
    StrBuf more;
    vl_buf_init(&more);
    for (VlDiag *x = d->next; x != NULL; x = x->next) {
        char buf[64];
        vl_buf_adds(&more, "\n");
        vl_buf_adds(&more, x->pos.file ? x->pos.file : "");
        snprintf(buf, sizeof buf, ":%d:%d: error: ", x->pos.line, x->pos.col);
        vl_buf_adds(&more, buf);
        vl_buf_adds(&more, x->message);
    }
    vl_except_at(S, st == VL_READ_INCOMPLETE ? VLAD_ERR_INCOMPLETE
                                             : VLAD_ERR_SYNTAX,
                 d->pos, "%s%s", d->message, more.data);
}

/* Apply fn to arg as one top-level evaluation: fresh control state, the
   step limit, timing.  'counted': whether the application of fn itself is
   a step (not for the thunk of a form, whose steps are its expression's). */
static Value run_apply(VladState *S, Value fn, Value arg, int counted,
                       int limited)
{
    S->nlimits = 0;
    S->nad = 0;
    vl_cpj_reset(S);
    S->stack_top = 0;
    S->interrupted = NIL_VAL;
    int64_t start = S->steps;
    S->form_start = start;
    if (!counted)
        S->steps--;
    if (S->step_limit > 0 && limited)
        vl_cont_push_limit(S, start + S->step_limit, SIZE_MAX);
    S->fuel_anchor = vl_cont_anchor(S, S->steps);
    double t0 = now_seconds();
    Value v = vl_vm_apply(S, fn, arg);
    S->last_seconds += now_seconds() - t0;
    S->nlimits = 0;
    return v;
}

static void run_form(VladState *S, const TopForm *f, RunCtx *ctx)
{
    Proto *p = vl_compile_toplevel(S, f, ctx->prelude);
    Closure *thunk = vl_gc_alloc(sizeof *thunk);
    thunk->proto = p;
    Value v = run_apply(S, vl_obj(VT_CLOSURE, thunk), NIL_VAL, 0,
                        !ctx->prelude);
    if (f->kind == TOP_DEFINE) {
        if (ctx->prelude)
            vl_prims_note_prelude_define(S,
                                         vl_state_prelude_cell(S, f->name));
        return;
    }
    ctx->last = v;
    if (S->config.echo_results && !IS_VOID(v)) {
        StrBuf b;
        vl_buf_init(&b);
        vl_print_value(S, &b, v, 0);
        vl_buf_add(&b, "\n", 1);
        vl_state_write(S, b.data, b.len);
    }
    vl_state_flush(S);
}

static void run_text(VladState *S, RunCtx *ctx)
{
    Datum *forms;
    VlDiag *diags = NULL;
    VlReadStatus st = vl_read_string(S->syms, ctx->src, ctx->len, ctx->name,
                                     &forms, &diags);
    if (st != VL_READ_OK)
        report_diags(S, st, diags);
    for (Datum *d = forms; d->kind == D_PAIR; d = d->u.pair.cdr) {
        TopForm f;
        VlDiag *diag = NULL;
        VlExpandStatus es = vl_expand_toplevel(S->syms, d->u.pair.car, &f,
                                               &diag, &S->cstack);
        if (es != VL_EXPAND_OK)
            vl_except_at(S, es == VL_EXPAND_TOO_DEEP ? VLAD_ERR_MEMORY
                                                     : VLAD_ERR_SYNTAX,
                         diag->pos, "%s", diag->message);
        if (f.kind == TOP_INCLUDE)
            include_file(S, &f, ctx);
        else
            run_form(S, &f, ctx);
    }
}

typedef struct EvalJob {
    RunCtx ctx;
} EvalJob;

static void eval_job(VladState *S, void *ud)
{
    EvalJob *job = ud;
    run_text(S, &job->ctx);
}

VladStatus vl_toplevel_fail(VladState *S, VladStatus status,
                            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    S->err.message = vl_except_vformat(fmt, ap);
    va_end(ap);
    S->err.status = status;
    S->err.file = "";
    S->err.line = S->err.column = 0;
    S->err.backtrace = "";
    S->err.text = vl_except_format("error: %s\n", S->err.message);
    return status;
}

void vl_toplevel_clear_error(VladState *S)
{
    S->err.status = VLAD_OK;
    S->err.message = "";
    S->err.file = "";
    S->err.line = S->err.column = 0;
    S->err.backtrace = "";
    S->err.text = "";
}

/* After a call, the continuation stack holds nothing live, but its slots
   keep the values the call left there (results, registers of finished
   frames), and Boehm scans the stack object whole: they would keep what
   they point to (say, a long list just replaced by a definition) alive
   until a later call happens to overwrite them.  Slots never written are
   zero, so the part the call used ends before the first STACK_GAP zero
   slots in a row; clearing up to there costs about what the call's own
   frames did (a frame with more than STACK_GAP registers never written
   hides the slots above it: they are left as they are, merely kept
   alive longer). */
#define STACK_GAP 64

static void clear_used_stack(VladState *S)
{
    Value *s = S->stack;
    size_t end = 0, zeros = 0;
    for (size_t k = 0; k < S->stack_size && zeros < STACK_GAP; k++) {
        if (s[k].tag != 0 || s[k].aux != 0 || s[k].as.i != 0) {
            end = k + 1;
            zeros = 0;
        } else {
            zeros++;
        }
    }
    if (end > 0)
        memset(s, 0, end * sizeof(Value));
}

/* Run job(S, ud) as one call of the API: errors caught, control state
   reset before and after, output flushed. */
static VladStatus run_protected(VladState *S,
                                void (*job)(VladState *, void *), void *ud)
{
    if (S->vm_running)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "the state is running: a host primitive "
                                "may not call back into its state");
    int64_t steps0 = S->steps;
    S->last_steps = 0;
    S->last_seconds = 0;
    vl_toplevel_clear_error(S);
    S->interrupted = NIL_VAL;
    S->ninclude_stack = 0;
    vl_cstack_enter(&S->cstack);
    if (S->heap_limit > 0)          /* (the common case takes no lock) */
        vl_gc_limit_enter(&S->heap_limit_rec, S->heap_limit);
    VladStatus st = vl_except_protect(S, job, ud);
    vl_gc_limit_leave(&S->heap_limit_rec);
    S->vm_running = 0;
    S->nlimits = 0;
    S->nad = 0;
    vl_cpj_reset(S);
    S->stack_top = 0;
    /* the steps of the call, also when it failed (S->steps is kept up
       to date when an error is raised) */
    S->last_steps = S->steps - steps0;
    /* an interrupt the evaluation did not poll in time is dropped: it was
       meant for this evaluation, which is over (one requested while the
       state is idle stops the next evaluation) */
    S->interrupt = 0;
    if (st == VLAD_OK)
        vl_toplevel_clear_error(S);     /* a refused re-entry's error */
    if (S->protect == NULL && st != VLAD_OK) {
        vl_vm_release_stack(S);     /* an abandoned continuation */
        /* its garbage may fill the heap up to the limit: collect it now,
           from a shallow stack, rather than in the middle of the next
           call (whose frames may still hold copies) */
        if (st == VLAD_ERR_MEMORY)
            vl_gc_collect();
    } else if (S->protect == NULL) {
        clear_used_stack(S);
    }
    vl_state_flush(S);
    return st;
}

VladStatus vl_toplevel_eval(VladState *S, const char *src, size_t len,
                            const char *name, int prelude, Value *out)
{
    EvalJob job = {{src, len, vl_gc_strdup(name), prelude, NIL_VAL}};
    VladStatus st = run_protected(S, eval_job, &job);
    if (out != NULL)
        *out = st == VLAD_OK ? job.ctx.last : NIL_VAL;
    return st;
}

typedef struct ApplyJob {
    Value fn, arg, result;
} ApplyJob;

static void apply_job(VladState *S, void *ud)
{
    ApplyJob *job = ud;
    job->result = run_apply(S, job->fn, job->arg, 1, 1);
}

VladStatus vl_toplevel_apply(VladState *S, Value fn, Value arg, Value *out)
{
    ApplyJob job = {fn, arg, NIL_VAL};
    VladStatus st = run_protected(S, apply_job, &job);
    if (out != NULL)
        *out = st == VLAD_OK ? job.result : NIL_VAL;
    return st;
}

/* ===== Opening and closing states ===== */

static void open_job(VladState *S, void *ud)
{
    (void)ud;
    S->syms = vl_symtab_new();
    vl_prims_install(S);
    vl_cpj_init(S);
    vl_cpj_install(S);
    vl_vm_init(S);
    if (S->config.include_path != NULL) {
        size_t n = 0;
        while (S->config.include_path[n] != NULL)
            n++;
        S->include_dirs = vl_gc_alloc((n + 1) * sizeof(char *));
        for (size_t k = 0; k < n; k++)
            S->include_dirs[k] = vl_gc_strdup(S->config.include_path[k]);
        S->ninclude_dirs = n;
    }
}

static void bind_job(VladState *S, void *ud)
{
    (void)ud;
    vl_prims_bind_inline_cells(S);
}

VladState *vl_toplevel_open(const VladConfig *config)
{
    vl_gc_init();
    /* the state is referenced only from the host: never collected */
    VladState *S = vl_gc_alloc_uncollectable(sizeof *S);
    if (S == NULL)
        return NULL;
    vl_cstack_enter(&S->cstack);
    if (config != NULL)
        S->config = *config;
    vl_toplevel_clear_error(S);
    S->interrupted = NIL_VAL;
    S->max_stack = VL_MAX_STACK;
    S->step_limit = S->config.step_limit;
    if (vl_except_protect(S, open_job, NULL) != VLAD_OK) {
        vl_gc_free(S);
        return NULL;
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
    if (vl_except_protect(S, bind_job, NULL) != VLAD_OK) {
        vl_gc_free(S);
        return NULL;
    }
    vl_toplevel_clear_error(S);
    S->steps = 0;
    S->last_steps = 0;
    S->last_seconds = 0;
    return S;
}

void vl_toplevel_close(VladState *S)
{
    vl_state_flush(S);
    vl_gc_free(S);
}
