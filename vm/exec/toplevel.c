/*
 * vm/exec/toplevel.c -- running programs: the top level, include, the prelude
 *
 * A program is read whole (so a syntax error anywhere is reported before
 * anything runs), then its forms are expanded, compiled and run one by one
 * in order, as at a Scheme top level: a definition binds its global when
 * reached, an expression's value is printed when the state echoes results.
 * (include "name") processes another file's forms in place; the file is
 * searched in the including file's directory, then in the -I directories,
 * then in the directories of $VLAD_PATH, then in the installed library
 * directory.  Including a file that is being included is an error (the
 * file given to vlad_eval_file is on the include stack from the start), and
 * so is nesting includes more than VL_INCLUDE_MAX deep.  Includes do not
 * recurse on the C stack: run_text keeps the files being run in a stack of
 * its own, in the heap.  A UTF-8 byte-order mark at the start of a text is
 * skipped (the reader rejects one anywhere else).
 */
#include "config.h"
#include "vm/exec/toplevel.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "parser/expand.h"
#include "parser/read.h"
#include "vm/core/compile.h"
#include "vm/core/cont.h"
#include "vm/cpj/cpj.h"
#include "vm/core/stdinwait.h"
#include "vm/core/delim.h"
#include "vm/core/disasm.h"
#include "vm/core/except.h"
#include "vm/exec/prims.h"
#include "vm/mpi/comm.h"
#include "vm/core/print.h"
#include "vm/persist/ckptload.h"
#include "vm/persist/savefile.h"
#include "vm/persist/spill.h"
#include "vm/core/unit.h"
#include "vm/exec/vm.h"

static const char prelude_source[] =
#include "stdlib/prelude.inc"
    ;

#ifndef VLAD_LIBDIR
#define VLAD_LIBDIR "/usr/local/share/vlad"
#endif

/* ===== Files ===== */

/* Read a whole file into GC memory; NULL (errno set) on failure, EFBIG
   when it is longer than VL_READ_MAX_INPUT (nothing more is read: a huge
   file or an endless pipe costs no more than the limit). */
char *vl_toplevel_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode)
        && (uintmax_t)sb.st_size > VL_READ_MAX_INPUT) {
        fclose(f);
        errno = EFBIG;
        return NULL;
    }
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
        if (n > VL_READ_MAX_INPUT) {
            fclose(f);
            errno = EFBIG;
            return NULL;
        }
        /* at most one byte beyond the limit is ever buffered */
        size_t ncap = cap > VL_READ_MAX_INPUT / 2 ? VL_READ_MAX_INPUT + 1
                                                  : cap * 2;
        char *nb = vl_gc_alloc_atomic(ncap + 1);
        memcpy(nb, buf, n);
        buf = nb;
        cap = ncap;
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
    int kept;             /* src and name are copies in the heap */
} RunCtx;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A file name or path for a message: at most NAME_SHOW_MAX bytes, then
   "..." (an include name may be megabytes long), control bytes as \xNN. */
#define NAME_SHOW_MAX 200

static const char *show_name(const char *name)
{
    size_t n = strlen(name);
    int plain = n <= NAME_SHOW_MAX;
    for (size_t i = 0; plain && i < n; i++)
        plain = (unsigned char)name[i] >= 0x20 && name[i] != 0x7f;
    if (plain)
        return name;
    StrBuf b;
    vl_strbuf_init(&b);
    for (size_t i = 0; i < n && i < NAME_SHOW_MAX; i++) {
        unsigned char c = (unsigned char)name[i];
        char hex[8];
        if (c >= 0x20 && c != 0x7f) {
            vl_strbuf_add(&b, (const char *)&name[i], 1);
        } else {
            snprintf(hex, sizeof hex, "\\x%02x", c);
            vl_strbuf_adds(&b, hex);
        }
    }
    if (n > NAME_SHOW_MAX)
        vl_strbuf_adds(&b, "...");
    return b.data;
}

/* Push the file 'path' on the include stack, keyed by its real path; an
   error at 'pos' if it is already there (a cycle). */
static void push_include(VladState *S, const char *path, SrcPos pos)
{
    char real[PATH_MAX];
    const char *key = realpath(path, real) ? real : path;
    for (size_t k = 0; k < S->ninclude_stack; k++)
        if (strcmp(S->include_stack[k], key) == 0)
            vl_except_at(S, VLAD_ERR_SYNTAX, pos,
                         "include: cycle: '%s' is already being included",
                         show_name(path));
    S->include_stack = vl_gc_grow(S->include_stack, S->ninclude_stack,
                                  &S->include_stack_cap, sizeof(char *));
    S->include_stack[S->ninclude_stack++] = vl_gc_strdup(key);
}

/* The text of the file that (include "name") at f names, pushed on the
   include stack. */
static RunCtx include_file(VladState *S, const TopForm *f, int prelude)
{
    char *path = find_include(S, f->pos.file, f->include_name);
    if (path == NULL)
        vl_except_at(S, VLAD_ERR_IO, f->pos,
                     "include: cannot find '%s' (searched the including "
                     "file's directory, the -I directories, VLAD_PATH and "
                     "the library directory)", show_name(f->include_name));
    push_include(S, path, f->pos);
    size_t len;
    char *src = vl_toplevel_read_file(path, &len);
    if (src == NULL && errno == EFBIG)
        vl_except_at(S, VLAD_ERR_IO, f->pos, "include: cannot read '%s': "
                     "the file is larger than %zu bytes", show_name(path),
                     (size_t)VL_READ_MAX_INPUT);
    if (src == NULL)
        vl_except_at(S, VLAD_ERR_IO, f->pos, "include: cannot read '%s': %s",
                     show_name(path), strerror(errno));
    return (RunCtx){src, len, path, prelude, NIL_VAL, 1};
}

static void report_diags(VladState *S, VlReadStatus st, VlDiag *d)
{
    /* the first diagnostic is the error; later ones join its message */
    StrBuf more;
    vl_strbuf_init(&more);
    for (VlDiag *x = d->next; x != NULL; x = x->next) {
        char buf[64];
        vl_strbuf_adds(&more, "\n");
        vl_strbuf_adds(&more, x->pos.file ? x->pos.file : "");
        snprintf(buf, sizeof buf, ":%d:%d: error: ", x->pos.line, x->pos.col);
        vl_strbuf_adds(&more, buf);
        vl_strbuf_adds(&more, x->message);
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
    vl_delim_reset(S);
    vl_cpj_reset(S);
    S->stack_top = 0;
    S->interrupted = NIL_VAL;
    int64_t start = S->steps;
    S->form_start = start;
    S->print_steps = 0;
    if (!counted)
        S->steps--;
    if (S->step_limit > 0 && limited)
        vl_delim_push_limit(S, start + S->step_limit, SIZE_MAX);
    S->poll_due = S->steps + VL_POLL_QUANTUM;
    S->fuel_anchor = vl_delim_anchor(S, S->steps);
    double t0 = now_seconds();
    Value v = vl_vm_apply(S, fn, arg);
    S->last_seconds += now_seconds() - t0;
    vl_delim_reset(S);
    return v;
}

/* Compile form 'index' of ctx's text, f, as a unit (vm/core/unit.h): the
   text and its name are kept in the heap (a host's text may go after the
   call). */
static Proto *compile_form(VladState *S, const TopForm *f, RunCtx *ctx,
                           uint32_t index)
{
    if (!ctx->kept) {
        if (!ctx->prelude) {
            ctx->src = vl_gc_strndup(ctx->src, ctx->len);
            ctx->name = vl_gc_strdup(ctx->name);
        }
        ctx->kept = 1;
    }
    VlUnit *u = vl_unit_begin(S, ctx->src, ctx->len, ctx->name, index,
                              ctx->prelude);
    Proto *p = vl_compile_toplevel(S, f, ctx->prelude);
    vl_unit_end(S, u, p);
    u->internal = ctx->prelude && f->kind == TOP_DEFINE
                  && f->name->name[0] == '%';
    return p;
}

static void run_form(VladState *S, const TopForm *f, RunCtx *ctx,
                     uint32_t index)
{
    Proto *p = compile_form(S, f, ctx, index);
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
    if (S->config.echo_results && !IS_VOID(v))
        vl_print_write(S, v, &f->pos);
    vl_state_flush(S);
}

/* The forms of a text, read whole (a syntax error anywhere stops it before
   any of its forms runs); a byte-order mark at its start is skipped. */
static Datum *read_forms(VladState *S, RunCtx *ctx)
{
    if (ctx->len >= 3 && memcmp(ctx->src, "\xef\xbb\xbf", 3) == 0) {
        ctx->src += 3;
        ctx->len -= 3;
    }
    const char *src = ctx->src;
    size_t len = ctx->len;
    Datum *forms;
    VlDiag *diags = NULL;
    VlReadStatus st = vl_read_string(S->syms, src, len, ctx->name, &forms,
                                     &diags);
    if (st != VL_READ_OK)
        report_diags(S, st, diags);
    return forms;
}

/* A text being run: its context and the forms still to run. */
typedef struct RunFrame {
    RunCtx ctx;           /* the text (ctx.last: its last value so far) */
    Datum *rest;          /* its forms not yet run */
    uint32_t next;        /* the index of the first of them */
} RunFrame;

/* Run the forms of ctx's text in order; an include runs the included
   file's forms in its place.  The texts being run are a stack in the heap
   (an include nests no C frames); the last value of an included file is
   the including one's.  Files pushed on the include stack are popped as
   they end (run_protected empties the stack after an error). */
/* The texts being run, innermost last (S->run_stack while it runs: an
   autosave reads it, vl_toplevel_program). */
typedef struct RunStack {
    RunFrame *run;
    size_t n, cap;
    int list;             /* list the forms' bytecode, do not run them */
    uint64_t defined;     /* listing: the inline ids whose names the forms
                             listed so far define */
    uint32_t listed;      /* listing: the forms listed so far */
} RunStack;

static void push_text(RunStack *rs, RunCtx ctx, Datum *forms, uint32_t next)
{
    rs->run = vl_gc_grow(rs->run, rs->n, &rs->cap, sizeof *rs->run);
    rs->run[rs->n++] = (RunFrame){ctx, forms, next};
}

/* The inline ids whose user cells hold something else than their
   builtin now (what vm/core/compile.c's inline_id_of finds rebound). */
static uint64_t rebound_now(VladState *S)
{
    uint64_t bits = 0;
    for (int id = 0; id < IN__COUNT; id++) {
        const Global *g = S->inline_cells[id];
        Value b = S->inline_values[id];
        if (g != NULL && (g->value.tag != b.tag
                          || g->value.as.ptr != b.as.ptr))
            bits |= (uint64_t)1 << id;
    }
    return bits;
}

/* vlad --disassemble: compile form f without running it and write its
   listing (vm/core/disasm.h), labelled by its number in the listing.  As
   no definition runs, one that binds an inline primitive's name (+, car)
   is taken as rebinding it for the forms after it -- the decisions
   running would have made (vm/core/unit.h) -- except for one that binds
   the name to its own builtin, (define + +), which running would still
   inline. */
static void list_form(VladState *S, const TopForm *f, RunCtx *ctx,
                      uint32_t index, RunStack *rs)
{
    uint64_t forced = rs->defined | rebound_now(S);
    S->compile_forced = &forced;
    Proto *p = compile_form(S, f, ctx, index);
    S->compile_forced = NULL;
    if (f->kind == TOP_DEFINE) {
        int id = vl_state_user_cell(S, f->name)->inline_id;
        if (id >= 0)
            rs->defined |= (uint64_t)1 << id;
    }
    StrBuf b;
    vl_strbuf_init(&b);
    char label[16];
    snprintf(label, sizeof label, "%u", (unsigned)++rs->listed);
    if (rs->listed > 1)
        vl_strbuf_adds(&b, "\n");
    vl_disasm_proto(S, &b, p, label);
    vl_state_write(S, b.data, b.len);
}

static void run_stack(VladState *S, RunStack *rs)
{
    S->run_stack = rs;
    while (rs->n > 0) {
        RunFrame *top = &rs->run[rs->n - 1];
        if (top->rest->kind != D_PAIR) {
            if (--rs->n > 0) {
                rs->run[rs->n - 1].ctx.last = top->ctx.last;
                S->ninclude_stack--;
            }
            continue;
        }
        vl_except_if_closed(S);     /* by a callback of an earlier form */
        Datum *d = top->rest->u.pair.car;
        top->rest = top->rest->u.pair.cdr;
        uint32_t index = top->next++;
        TopForm f;
        VlDiag *diag = NULL;
        VlExpandStatus es = vl_expand_toplevel(S->syms, d, &f, &diag,
                                               &S->cstack);
        if (es != VL_EXPAND_OK)
            vl_except_at(S, es == VL_EXPAND_TOO_DEEP ? VLAD_ERR_MEMORY
                                                     : VLAD_ERR_SYNTAX,
                         diag->pos, "%s", diag->message);
        if (f.kind != TOP_INCLUDE) {
            S->run_define = f.kind == TOP_DEFINE;
            S->run_pos = f.pos;
            if (rs->list)
                list_form(S, &f, &top->ctx, index, rs);
            else
                run_form(S, &f, &top->ctx, index);
            continue;
        }
        if (rs->n > VL_INCLUDE_MAX)
            vl_except_at(S, VLAD_ERR_SYNTAX, f.pos, "include nested too "
                         "deeply (more than %d files)", VL_INCLUDE_MAX);
        RunCtx inc = include_file(S, &f, top->ctx.prelude);
        push_text(rs, inc, read_forms(S, &inc), 0);
    }
    S->run_stack = NULL;
}

static void run_text(VladState *S, RunCtx *ctx, int list)
{
    RunStack rs = {NULL, 0, 0, list, 0, 0};
    Datum *first = read_forms(S, ctx);
    push_text(&rs, *ctx, first, 0);
    run_stack(S, &rs);
    ctx->last = rs.run[0].ctx.last;
}

int vl_toplevel_program(VladState *S, CkptProgram *prog)
{
    const RunStack *rs = S->run_stack;
    memset(prog, 0, sizeof *prog);
    if (rs == NULL || rs->n == 0 || rs->run[0].ctx.prelude)
        return 0;
    prog->present = 1;
    prog->define = S->run_define;
    prog->line = S->run_pos.line;
    prog->col = S->run_pos.col;
    prog->nlevels = rs->n;
    prog->levels = vl_gc_alloc(rs->n * sizeof *prog->levels);
    for (size_t k = 0; k < rs->n; k++) {
        const RunFrame *r = &rs->run[k];
        prog->levels[k] = (CkptLevel){r->ctx.name, r->ctx.src, r->ctx.len,
                                      r->next};
    }
    return 1;
}

typedef struct EvalJob {
    RunCtx ctx;
    int file;             /* ctx.name is a file's path */
    int list;             /* list the forms' bytecode, do not run them */
} EvalJob;

static void eval_job(VladState *S, void *ud)
{
    EvalJob *job = ud;
    if (job->file)
        push_include(S, job->ctx.name, (SrcPos){job->ctx.name, 1, 1});
    run_text(S, &job->ctx, job->list);
}

VladStatus vl_toplevel_fail(VladState *S, VladStatus status,
                            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *message = vl_except_vformat(fmt, ap);
    va_end(ap);
    vl_except_record(S, status, message, NULL, 0, 0);
    vl_except_make_text(S);
    return status;
}

/* An error whose text is static: set where there may be too little stack
   to format or allocate one. */
static VladStatus fail_static(VladState *S, VladStatus status,
                              const char *message, const char *text)
{
    vl_except_record(S, status, message, NULL, 0, 0);
    S->err.text = text;
    return status;
}

#define STR_(x) #x
#define STR(x) STR_(x)
#define STACK_MESSAGE(kib, what)                                        \
    "the C stack is too small: " what " needs at least " STR(kib)        \
    " KiB of stack below the call (doc/embedding.md)"

/* The error of an evaluation refused because there are fewer than
   VL_CSTACK_MIN bytes of stack below 'here'; VLAD_OK if there are
   enough. */
static VladStatus check_room(VladState *S, uintptr_t here)
{
    if (VL_LIKELY(vl_cstack_short(here, VL_CSTACK_MIN) == 0))
        return VLAD_OK;
    return fail_static(S, VLAD_ERR_MEMORY,
                       STACK_MESSAGE(VL_CSTACK_MIN_KIB, "an evaluation"),
                       "error: " STACK_MESSAGE(VL_CSTACK_MIN_KIB,
                                               "an evaluation") "\n");
}

VladStatus vl_toplevel_attach_error(VladState *S)
{
    if (vl_cstack_short(VL_CSTACK_HERE(), VL_CSTACK_RESERVE) != 0)
        return fail_static(S, VLAD_ERR_MEMORY,
                           STACK_MESSAGE(VL_CSTACK_RESERVE_KIB, "a call"),
                           "error: " STACK_MESSAGE(VL_CSTACK_RESERVE_KIB,
                                                   "a call") "\n");
    return vl_toplevel_fail(S, VLAD_ERR_MEMORY, "the thread could not be "
                            "registered with the garbage collector");
}

void vl_toplevel_clear_error(VladState *S)
{
    vl_except_record(S, VLAD_OK, "", NULL, 0, 0);
}

/* Free a closed state (its output flushed first; a callback that calls
   into it meanwhile is refused: 'closing' is set). */
static void destroy(VladState *S)
{
    vl_cpj_reset(S);
    vl_spill_close(S);
    if (S->autosave_file != NULL)           /* its lock (vm/exec/autosave.h) */
        (void)vl_savefile_close(S->autosave_file, 0);
    vl_state_flush(S);
    vl_stdinwait_close(S);
    vl_comm_close(S);
    vl_gc_free(S);
}

/* Run job(S, ud) as one call of the API: errors caught, control state
   reset before and after, output flushed; a state closed meanwhile is
   freed on the way out, and the call returns VLAD_ERR_ARGUMENT (the
   caller must not touch the state after a failure). */
static VladStatus run_protected(VladState *S,
                                void (*job)(VladState *, void *), void *ud,
                                int evaluation)
{
    if (S->vm_running)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "the state is running: a host primitive "
                                "may not call back into its state");
    if (S->closing)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "the state is closed (vlad_close)");
    if (check_room(S, VL_CSTACK_HERE()) != VLAD_OK)
        return S->err.status;
    S->busy++;
    int64_t steps0 = S->steps;
    if (evaluation) {
        S->last_steps = 0;
        S->last_seconds = 0;
        S->interrupted = NIL_VAL;
    }
    vl_toplevel_clear_error(S);
    S->ninclude_stack = 0;
    vl_cstack_enter(&S->cstack);
    if (S->heap_limit > 0)          /* (the common case takes no lock) */
        vl_gc_limit_enter(&S->heap_limit_rec, S->heap_limit);
    VladStatus st = vl_except_protect(S, job, ud);
    vl_gc_limit_leave(&S->heap_limit_rec);
    S->vm_running = 0;
    S->run_stack = NULL;
    S->compile_unit = NULL;
    S->compile_forced = NULL;
    vl_delim_reset(S);
    vl_cpj_reset(S);
    S->stack_top = 0;
    /* the steps of the call, also when it failed (S->steps is kept up
       to date when an error is raised) */
    if (evaluation)
        S->last_steps = S->steps - steps0;
    /* an interrupt the evaluation did not poll in time is dropped: it was
       meant for this evaluation, which is over (one requested while the
       state is idle stops the next evaluation) */
    S->interrupt = 0;
    if (st == VLAD_OK)
        vl_toplevel_clear_error(S);     /* a refused re-entry's error */
    if (S->protect == NULL && st != VLAD_OK) {
        vl_cont_release_stack(S);     /* an abandoned continuation */
        /* its garbage may fill the heap up to the limit: collect it now,
           from a shallow stack, rather than in the middle of the next
           call (whose frames may still hold copies) */
        if (st == VLAD_ERR_MEMORY)
            vl_gc_collect();
    } else if (S->protect == NULL && S->stack_size > VL_STACK_INITIAL) {
        vl_cont_release_stack(S);     /* its pages back to the system */
    } else if (S->protect == NULL) {
        /* nothing is live on the stack after a call, but its slots keep
           what the call left there (a long list just replaced by a
           definition, say) alive until overwritten (vm/core/cont.h) */
        vl_cont_clear_above(S, S->stack);
    }
    if (vl_comm_size(S) > 1 && st == VLAD_OK)
        vl_state_flush_lines(S);    /* the rest of its line waits (ranks) */
    else
        vl_state_flush(S);
    if (--S->busy == 0 && S->closing) {
        destroy(S);             /* closed while it ran (vl_toplevel_close) */
        return VLAD_ERR_ARGUMENT;
    }
    return st;
}

VladStatus vl_toplevel_job(VladState *S, void (*job)(VladState *, void *),
                          void *ud)
{
    return run_protected(S, job, ud, 0);
}

static VladStatus eval(VladState *S, const char *src, size_t len,
                       const char *name, int prelude, int file, Value *out)
{
    EvalJob job = {{src, len, vl_gc_strdup(name), prelude, NIL_VAL, 0},
                   file, 0};
    VladStatus st = run_protected(S, eval_job, &job, 1);
    if (out != NULL)
        *out = st == VLAD_OK ? job.ctx.last : NIL_VAL;
    return st;
}

VladStatus vl_toplevel_eval(VladState *S, const char *src, size_t len,
                            const char *name, int prelude, Value *out)
{
    return eval(S, src, len, name, prelude, 0, out);
}

VladStatus vl_toplevel_eval_file(VladState *S, const char *src, size_t len,
                                 const char *path, Value *out)
{
    return eval(S, src, len, path, 0, 1, out);
}

VladStatus vl_toplevel_list_file(VladState *S, const char *src, size_t len,
                                 const char *path)
{
    EvalJob job = {{src, len, vl_gc_strdup(path), 0, NIL_VAL, 0}, 1, 1};
    return run_protected(S, eval_job, &job, 0);
}

/* ===== Resuming a saved program (vm/exec/autosave.h) ===== */

char *vl_toplevel_read_saved(VladState *S, const char *path, size_t *len)
{
    char *data = vl_toplevel_read_file(path, len);
    if (data == NULL)
        vl_except_at(S, VLAD_ERR_IO, (SrcPos){NULL, 0, 0},
                     "cannot read '%s': %s", show_name(path),
                     errno == EFBIG ? "the file is too large"
                                    : strerror(errno));
    return data;
}

typedef struct SavedJob {
    const char *path;
    Value out;
    RunCtx *texts;          /* of the program's levels, read */
    Datum **forms;
} SavedJob;

/* The file holds a checkpoint and, for an autosave, a program whose
   texts read and nest no deeper than includes may: checked (and the
   texts read, their files pushed on the include stack, where a cycle is
   refused) before anything of the file is defined or run. */
static void accept_saved(VladState *S, Value u, CkptProgram *prog, void *ud)
{
    SavedJob *job = ud;
    if (!IS_CKPT(u))
        vl_except_at(S, VLAD_ERR_IO, (SrcPos){job->path, 0, 0},
                     "it does not hold a checkpoint");
    if (!prog->present)
        return;
    if (prog->nlevels > VL_INCLUDE_MAX + 1)
        vl_except_at(S, VLAD_ERR_IO, (SrcPos){job->path, 0, 0},
                     "not a valid checkpoint file: its program is nested "
                     "more than %d files deep", VL_INCLUDE_MAX);
    job->texts = vl_gc_alloc(prog->nlevels * sizeof *job->texts);
    job->forms = vl_gc_alloc(prog->nlevels * sizeof *job->forms);
    for (size_t k = 0; k < prog->nlevels; k++) {
        const CkptLevel *l = &prog->levels[k];
        job->texts[k] = (RunCtx){l->text, l->len, l->name, 0, NIL_VAL, 1};
        job->forms[k] = read_forms(S, &job->texts[k]);
        push_include(S, l->name, (SrcPos){l->name, 1, 1});
    }
}

static void saved_job(VladState *S, void *ud)
{
    SavedJob *job = ud;
    size_t len;
    char *data = vl_toplevel_read_saved(S, job->path, &len);
    CkptProgram prog;
    CkptAccept accept = {accept_saved, job, NULL};
    Value u = vl_ckptload_value(S, (const unsigned char *)data, len, job->path,
                                &prog, &accept);
    if (prog.present) {
        S->out_total = prog.output_bytes;
        /* the input consumed counts on from the saved run's (the host
           gave the input from there: vlad_saved_autosave) */
        S->in_read = prog.input_bytes + (S->in_len - S->in_pos);
    }
    if (!prog.present) {
        job->out = run_apply(S, S->resume_value, u, 1, 1);
        return;
    }
    /* the texts being run, read again, each past the forms run: set
       while the running form is finished too, so that an autosave then
       saves it (with the same texts and places) */
    RunStack rs = {NULL, 0, 0, 0, 0, 0};
    for (size_t k = 0; k < prog.nlevels; k++) {
        Datum *forms = job->forms[k];
        for (uint32_t i = 0; i < prog.levels[k].next && forms->kind == D_PAIR;
             i++)
            forms = forms->u.pair.cdr;
        push_text(&rs, job->texts[k], forms, prog.levels[k].next);
    }
    SrcPos pos = {prog.levels[prog.nlevels - 1].name, prog.line, prog.col};
    S->run_define = prog.define;
    S->run_pos = pos;
    S->run_stack = &rs;
    Value v = run_apply(S, S->resume_value, u, 1, 1);
    S->run_stack = NULL;
    /* the running form is finished: as run_form ends it, then the rest
       of each text being run, the innermost first */
    if (!prog.define && S->config.echo_results && !IS_VOID(v))
        vl_print_write(S, v, &pos);
    vl_state_flush(S);
    if (!prog.define)
        rs.run[rs.n - 1].ctx.last = v;
    run_stack(S, &rs);
    job->out = rs.run[0].ctx.last;
}

VladStatus vl_toplevel_run_saved(VladState *S, const char *path, Value *out)
{
    SavedJob job = {path, NIL_VAL, NULL, NULL};
    VladStatus st = run_protected(S, saved_job, &job, 1);
    if (out != NULL)
        *out = st == VLAD_OK ? job.out : NIL_VAL;
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
    VladStatus st = run_protected(S, apply_job, &job, 1);
    if (out != NULL)
        *out = st == VLAD_OK ? job.result : NIL_VAL;
    return st;
}

/* ===== Opening and closing states ===== */

static void open_job(VladState *S, void *ud)
{
    (void)ud;
    S->syms = vl_symbol_table_new();
    vl_prims_install(S);
    vl_cpj_init(S);
    vl_spill_init(S);
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
    if (S->closing)
        return;                 /* closed already, or being closed */
    S->closing = 1;
    if (S->busy > 0) {
        /* called from a host primitive or a callback of the running
           evaluation: stop it (vm/exec/vm.c polls the interrupt flag, host
           primitives check 'closing' when they return) and free the state
           when the outermost call returns (run_protected) */
        S->interrupt = 1;
        return;
    }
    destroy(S);
}
