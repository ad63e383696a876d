/*
 * vm/except.c -- raising and catching errors, messages and backtraces
 *
 * vl_except_protect is the only setjmp site of libvlad.  An error fills
 * S->err (status, message, location, backtrace and the full text
 * "FILE:LINE:COL: error: MESSAGE" plus backtrace lines) and longjmps to
 * the innermost protected call.  Run-time errors find their location and
 * the backtrace by walking the VM's frame chain from the position the VM
 * published (S->vm_base, S->vm_ip, S->vm_cl).
 */
#include "config.h"
#include "vm/except.h"

#include <stdio.h>
#include <string.h>
#include "vm/cont.h"
#include "vm/print.h"
#include "vm/vm.h"

#define BACKTRACE_HEAD 10
#define BACKTRACE_TAIL 5

char *vl_except_vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    char *s = vl_gc_alloc_atomic((size_t)n + 1);
    if (s == NULL) {
        /* only outside a protected call (no out-of-memory hook): the
           caller records a message it must not modify */
        static const char oom[] = "out of memory";
        return (char *)oom;
    }
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *vl_except_format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vl_except_vformat(fmt, ap);
    va_end(ap);
    return s;
}

static VL_NORETURN void throw_error(VladState *S)
{
    /* Every code path that may raise runs under vl_except_protect (the
       out-of-memory hook is set only there): S->protect is not NULL */
    longjmp(S->protect->jb, 1);
}

static void set_text(VladState *S)
{
    VladError *e = &S->err;
    StrBuf b;
    vl_buf_init(&b);
    if (e->file && e->file[0]) {
        char loc[64];
        vl_buf_adds(&b, e->file);
        if (e->line > 0) {
            snprintf(loc, sizeof loc, ":%d:%d", e->line, e->column);
            vl_buf_adds(&b, loc);
        }
        vl_buf_adds(&b, ": ");
    }
    vl_buf_adds(&b, "error: ");
    vl_buf_adds(&b, e->message);
    vl_buf_adds(&b, "\n");
    if (e->backtrace && e->backtrace[0])
        vl_buf_adds(&b, e->backtrace);
    e->text = b.data;
}

void vl_except_at(VladState *S, VladStatus status, SrcPos pos,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    S->err.message = vl_except_vformat(fmt, ap);
    va_end(ap);
    S->err.status = status;
    S->err.file = pos.file ? pos.file : "";
    S->err.line = pos.line;
    S->err.column = pos.col;
    S->err.backtrace = "";
    set_text(S);
    throw_error(S);
}

void vl_except_plain(VladState *S, VladStatus status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    S->err.message = vl_except_vformat(fmt, ap);
    va_end(ap);
    S->err.status = status;
    S->err.file = "";
    S->err.line = 0;
    S->err.column = 0;
    S->err.backtrace = "";
    set_text(S);
    throw_error(S);
}

/* Source location of the instruction before 'ip' in 'p', if valid. */
static int locate(const Proto *p, const Instr *ip, Loc *out)
{
    if (p == NULL || ip == NULL || ip <= p->code || ip > p->code + p->ncode)
        return 0;
    *out = p->locs[ip - 1 - p->code];
    return out->line > 0;
}

static const char *frame_name(const Proto *p)
{
    switch (p->kind) {
    case PK_TOPLEVEL: return "top level";
    case PK_CHECKPOINT: return "checkpoint";
    case PK_PRIMOPS: return "primops";
    case PK_RESUME: return "resume";
    case PK_JSTAR: return "j*";
    case PK_STARJ: return "*j";
    case PK_SEGMENT: return "checkpoint-*j";
    default: return p->name ? p->name : "anonymous procedure";
    }
}

/* One backtrace line; returns whether it has a position. */
static int frame_line(StrBuf *b, const Proto *p, const Instr *ip)
{
    Loc loc;
    char buf[64];
    vl_buf_adds(b, "  in ");
    vl_buf_adds(b, frame_name(p));
    int located = 0;
    /* the prelude's source is not the user's to open: its frames are
       named without a position */
    if ((p->kind == PK_TOPLEVEL || p->kind == PK_LAMBDA) && !p->prelude
        && locate(p, ip, &loc)) {
        located = 1;
        vl_buf_adds(b, " at ");
        vl_buf_adds(b, p->file ? p->file : "?");
        snprintf(buf, sizeof buf, ":%d:%d", loc.line, loc.col);
        vl_buf_adds(b, buf);
    }
    vl_buf_adds(b, "\n");
    return located;
}

/* The frames of the continuation, innermost first. */
typedef struct FrameRef {
    const Proto *proto;
    const Instr *ip;
} FrameRef;

typedef struct Frames {
    FrameRef *fr;
    size_t n, cap;
} Frames;

static void add_frame(Frames *fs, const Proto *p, const Instr *ip)
{
    if (fs->n == fs->cap) {
        FrameRef *nf = vl_gc_alloc_atomic(fs->cap * 2 * sizeof *nf);
        memcpy(nf, fs->fr, fs->n * sizeof *nf);
        fs->fr = nf;
        fs->cap *= 2;
    }
    fs->fr[fs->n++] = (FrameRef){p, ip};
}

static int add_lazy(void *ud, const ContRun *run, uint32_t f)
{
    const Proto *p = run->frames[f].closure->proto;
    add_frame(ud, p, p->code + run->frames[f].ret_pc);
    return 0;
}

/* Frame 'p' returning to 'ip' at 'base': an underflow frame adds the
   frames it stands for (vm/cont.h), top first. */
static void add_frame_at(VladState *S, Frames *fs, const Proto *p,
                         const Instr *ip, const Value *base)
{
    if (vl_cont_is_underflow(S, p))
        vl_seg_each_frame(vl_cont_lazy_seq(S, base), add_lazy, fs);
    else
        add_frame(fs, p, ip);
}

static size_t collect_frames(VladState *S, FrameRef **out)
{
    Frames fs = {vl_gc_alloc_atomic(64 * sizeof(FrameRef)), 0, 64};
    const Proto *entry = S->control[CTL_ENTRY];
    Value *base = S->vm_base;
    add_frame_at(S, &fs, S->vm_cl->proto, S->vm_ip, base);
    while (base != NULL && base - 2 >= S->stack) {
        Value h = base[-2];
        if (h.tag != VT_RAW || h.as.ptr == NULL)
            break;
        Value *caller = base - h.aux;
        if (caller[-1].tag != VT_CLOSURE)
            break;
        const Proto *p = AS_CLOSURE(caller[-1])->proto;
        if (p == entry)
            break;
        add_frame_at(S, &fs, p, h.as.ptr, caller);
        base = caller;
    }
    *out = fs.fr;
    return fs.n;
}

void vl_except_runtime(VladState *S, VladStatus status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    S->err.message = vl_except_vformat(fmt, ap);
    va_end(ap);
    S->err.status = status;
    S->err.file = "";
    S->err.line = 0;
    S->err.column = 0;
    S->err.backtrace = "";
    if (S->vm_running && S->vm_cl != NULL) {
        FrameRef *fr;
        size_t n = collect_frames(S, &fr);
        Loc loc;
        /* the error is located at the innermost frame with a position
           in the user's code (an error raised by the prelude, say by
           checkpoint-*j or map, is the caller's), else in the prelude */
        for (int user = 1; user >= 0 && S->err.line == 0; user--)
            for (size_t k = 0; k < n; k++)
                if ((!user || !fr[k].proto->prelude)
                    && locate(fr[k].proto, fr[k].ip, &loc)) {
                    S->err.file = fr[k].proto->file;
                    S->err.line = loc.line;
                    S->err.column = loc.col;
                    break;
                }
        StrBuf b;
        vl_buf_init(&b);
        size_t last = 0;        /* where the previous line starts */
        for (size_t k = 0; k < n; k++) {
            if (n > BACKTRACE_HEAD + BACKTRACE_TAIL + 1
                && k == BACKTRACE_HEAD) {
                char buf[80];
                snprintf(buf, sizeof buf, "  ... %zu more frames ...\n",
                         n - BACKTRACE_HEAD - BACKTRACE_TAIL);
                vl_buf_adds(&b, buf);
                k = n - BACKTRACE_TAIL;
            }
            size_t start = b.len;
            int located = frame_line(&b, fr[k].proto, fr[k].ip);
            /* one line for consecutive frames that print the same
               without a position (the prelude's, control frames) */
            if (k > 0 && !located && b.len - start == start - last
                && memcmp(b.data + start, b.data + last, b.len - start) == 0)
                b.data[b.len = start] = 0;
            else
                last = start;
        }
        S->err.backtrace = b.data;
    }
    set_text(S);
    throw_error(S);
}

static void oom_hook(void *ud)
{
    VladState *S = ud;
    /* reporting allocates: lift the heap limit (the next evaluation sets
       it again) */
    vl_gc_limit_leave(&S->heap_limit_rec);
    if (S->heap_limit > 0)
        vl_except_runtime(S, VLAD_ERR_MEMORY,
                          "out of memory (heap limit %zu bytes)",
                          S->heap_limit);
    vl_except_runtime(S, VLAD_ERR_MEMORY, "out of memory");
}

VladStatus vl_except_protect(VladState *S, void (*fn)(VladState *, void *),
                             void *ud)
{
    Protect p;
    VlOomHook prev_hook;
    void *prev_ud;
    vl_gc_get_oom_hook(&prev_hook, &prev_ud);
    p.prev = S->protect;
    S->protect = &p;
    vl_gc_set_oom_hook(oom_hook, S);
    if (setjmp(p.jb) == 0) {
        fn(S, ud);
        S->protect = p.prev;
        vl_gc_set_oom_hook(prev_hook, prev_ud);
        return VLAD_OK;
    }
    S->protect = p.prev;
    vl_gc_set_oom_hook(prev_hook, prev_ud);
    return S->err.status;
}
