/*
 * vm/core/except.c -- raising and catching errors, messages and backtraces
 *
 * vl_except_protect is the only setjmp site of libvlad.  An error fills
 * S->err (status, message, location, backtrace and the full text
 * "FILE:LINE:COL: error: MESSAGE" plus backtrace lines) and longjmps to
 * the innermost protected call.  Run-time errors find their location and
 * the backtrace by walking the VM's frame chain from the position the VM
 * published (S->vm_base, S->vm_ip, S->vm_cl).
 */
#include "config.h"
#include "vm/core/except.h"

#include <stdio.h>
#include <string.h>
#include "vm/core/contseg.h"
#include "vm/core/strbuf.h"

/* A backtrace shows at most BACKTRACE_HEAD lines from the innermost frame
   and BACKTRACE_TAIL from the outermost; a run of BACKTRACE_RUN or more
   frames that print the same line takes two lines. */
#define BACKTRACE_HEAD 10
#define BACKTRACE_TAIL 5
#define BACKTRACE_RUN 3

char *vl_except_vformat(const char *fmt, va_list ap)
{
    char *s = vl_gc_vformat(fmt, ap);
    if (s == NULL) {
        /* only outside a protected call (no out-of-memory hook): the
           caller records a message it must not modify */
        static const char oom[] = "out of memory";
        return (char *)oom;
    }
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

void vl_except_record(VladState *S, VladStatus status, const char *message,
                      const char *file, int line, int column)
{
    VladError *e = &S->err;
    e->status = status;
    e->message = message;
    e->file = file != NULL ? file : "";
    e->line = line;
    e->column = column;
    e->backtrace = "";
    e->text = "";
}

void vl_except_make_text(VladState *S)
{
    VladError *e = &S->err;
    StrBuf b;
    vl_strbuf_init(&b);
    if (e->file && e->file[0]) {
        char loc[64];
        vl_strbuf_adds(&b, e->file);
        if (e->line > 0) {
            snprintf(loc, sizeof loc, ":%d:%d", e->line, e->column);
            vl_strbuf_adds(&b, loc);
        }
        vl_strbuf_adds(&b, ": ");
    }
    vl_strbuf_adds(&b, "error: ");
    vl_strbuf_adds(&b, e->message);
    vl_strbuf_adds(&b, "\n");
    if (e->backtrace && e->backtrace[0])
        vl_strbuf_adds(&b, e->backtrace);
    e->text = b.data;
}

void vl_except_at(VladState *S, VladStatus status, SrcPos pos,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *message = vl_except_vformat(fmt, ap);
    va_end(ap);
    vl_except_record(S, status, message, pos.file, pos.line, pos.col);
    vl_except_make_text(S);
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
    case PK_CHECKPOINT:     /* checkpoint, or checkpoint-*j's advance */
        return p->name ? p->name : "checkpoint";
    case PK_PRIMOPS: return "primops";
    case PK_RESUME: return "resume";
    case PK_JSTAR: return "j*";
    case PK_STARJ: return "*j";
    case PK_SEGMENT: return "checkpoint-*j";
    default: break;
    }
    /* the checkpoint-*j driver's own procedures (stdlib/prelude.vlad) are
       checkpoint-*j to the user, whose names they cannot reach */
    if (p->prelude && p->name != NULL && strncmp(p->name, "%cpj-", 5) == 0)
        return "checkpoint-*j";
    return p->name ? p->name : "anonymous procedure";
}

/* Where frame 'p' (at 'ip') is shown: 1 and '*loc' for a position in
   the user's code; the prelude's source is not the user's to open, so
   its frames (and control frames) are named without a position. */
static int frame_loc(const Proto *p, const Instr *ip, Loc *loc)
{
    return (p->kind == PK_TOPLEVEL || p->kind == PK_LAMBDA) && !p->prelude
           && locate(p, ip, loc);
}

/* One backtrace line. */
static void frame_line(StrBuf *b, const Proto *p, const Instr *ip)
{
    Loc loc;
    char buf[64];
    vl_strbuf_adds(b, "  in ");
    vl_strbuf_adds(b, frame_name(p));
    if (frame_loc(p, ip, &loc)) {
        vl_strbuf_adds(b, " at ");
        vl_strbuf_adds(b, p->file ? p->file : "?");
        snprintf(buf, sizeof buf, ":%d:%d", loc.line, loc.col);
        vl_strbuf_adds(b, buf);
    }
    vl_strbuf_adds(b, "\n");
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
    fs->fr = vl_gc_grow(fs->fr, fs->n, &fs->cap, sizeof *fs->fr);
    fs->fr[fs->n++] = (FrameRef){p, ip};
}

static int add_lazy(void *ud, const ContRun *run, uint32_t f)
{
    const Proto *p = run->frames[f].closure->proto;
    add_frame(ud, p, p->code + run->frames[f].ret_pc);
    return 0;
}

/* Frame 'p' returning to 'ip' at 'base': an underflow frame adds the
   frames it stands for (vm/core/cont.h), top first. */
static void add_frame_at(VladState *S, Frames *fs, const Proto *p,
                         const Instr *ip, const Value *base)
{
    if (vl_contseg_is_underflow(S, p))
        vl_contseg_each_frame(vl_contseg_lazy(S, base), add_lazy, fs);
    else
        add_frame(fs, p, ip);
}

static size_t collect_frames(VladState *S, FrameRef **out)
{
    Frames fs = {vl_gc_alloc(64 * sizeof(FrameRef)), 0, 64};
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
        /* checkpoint-*j's %cpj-hide stands for the call of checkpoint-*j
           it replaced (a tail call): the driver's frame above it shows */
        if (p->kind != PK_HIDE)
            add_frame_at(S, &fs, p, h.as.ptr, caller);
        base = caller;
    }
    *out = fs.fr;
    return fs.n;
}

/* Whether two frames print the same backtrace line. */
static int same_line(const FrameRef *a, const FrameRef *b)
{
    if (a->proto == b->proto && a->ip == b->ip)
        return 1;
    Loc la, lb;
    int ka = frame_loc(a->proto, a->ip, &la);
    int kb = frame_loc(b->proto, b->ip, &lb);
    if (ka != kb || strcmp(frame_name(a->proto), frame_name(b->proto)) != 0)
        return 0;
    return !ka || (la.line == lb.line && la.col == lb.col
                   && strcmp(a->proto->file ? a->proto->file : "?",
                             b->proto->file ? b->proto->file : "?") == 0);
}

/* The lines a run of 'len' frames that print the same takes: each, up to
   BACKTRACE_RUN, else the first and a count of the others. */
static size_t run_lines(size_t len)
{
    return len < BACKTRACE_RUN ? len : 2;
}

static void emit_run(StrBuf *b, const FrameRef *f, size_t len)
{
    if (len >= BACKTRACE_RUN) {
        char buf[80];
        frame_line(b, f->proto, f->ip);
        snprintf(buf, sizeof buf, "  [previous line repeated %zu more "
                 "time%s]\n", len - 1, len == 2 ? "" : "s");
        vl_strbuf_adds(b, buf);
        return;
    }
    for (size_t k = 0; k < len; k++)
        frame_line(b, f->proto, f->ip);
}

/* The backtrace of the frames fr[0..n), innermost first: consecutive
   frames that print the same line are one run; the runs that fit in
   BACKTRACE_HEAD lines from the innermost and BACKTRACE_TAIL lines from
   the outermost are shown, and the frames between them counted ("...
   N more frames ..."), so a backtrace has at most HEAD + TAIL + 1 lines
   and every frame is shown or counted.  O(n). */
static const char *backtrace(const FrameRef *fr, size_t n)
{
    StrBuf b;
    vl_strbuf_init(&b);
    size_t k = 0, lines = 0;
    while (k < n) {
        size_t len = 1;
        while (k + len < n && same_line(&fr[k], &fr[k + len]))
            len++;
        if (lines + run_lines(len) > BACKTRACE_HEAD)
            break;
        emit_run(&b, &fr[k], len);
        lines += run_lines(len);
        k += len;
    }
    /* the tail's runs, outermost first, within fr[k..n) */
    size_t tail_start[BACKTRACE_TAIL], tail_len[BACKTRACE_TAIL], ntail = 0;
    size_t end = n;
    lines = 0;
    while (end > k) {
        size_t start = end - 1;
        while (start > k && same_line(&fr[start - 1], &fr[end - 1]))
            start--;
        if (lines + run_lines(end - start) > BACKTRACE_TAIL)
            break;
        lines += run_lines(end - start);
        tail_start[ntail] = start;
        tail_len[ntail++] = end - start;
        end = start;
    }
    if (end > k) {
        char buf[80];
        snprintf(buf, sizeof buf, "  ... %zu more frame%s ...\n", end - k,
                 end - k == 1 ? "" : "s");
        vl_strbuf_adds(&b, buf);
    }
    while (ntail-- > 0)
        emit_run(&b, &fr[tail_start[ntail]], tail_len[ntail]);
    return b.data;
}

void vl_except_runtime(VladState *S, VladStatus status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *message = vl_except_vformat(fmt, ap);
    va_end(ap);
    vl_except_record(S, status, message, NULL, 0, 0);
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
        S->err.backtrace = backtrace(fr, n);
    }
    vl_except_make_text(S);
    throw_error(S);
}

void vl_except_if_closed(VladState *S)
{
    if (S->closing)
        vl_except_runtime(S, VLAD_ERR_ARGUMENT,
                          "the state was closed (vlad_close) while it ran");
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
