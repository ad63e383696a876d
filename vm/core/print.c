/*
 * vm/core/print.c -- printing values (see vm/core/print.h)
 *
 * The printer walks lists iteratively along their cdrs and keeps an
 * explicit stack for cars, so arbitrarily long or deeply nested data print
 * without C recursion.  Its memory is that stack, O(nesting depth): text
 * for messages and vlad_to_string is cut at a maximum, and the text of
 * 'write' and of echoed results goes out through vl_state_write in pieces
 * as it is made (H3: a structure sharing its parts, (cons l l) 40 times,
 * prints 2^40 leaves; it was built whole in memory first).  Such a print
 * counts toward the step limit and honours interrupts (print_poll).
 */
#include "config.h"
#include "vm/core/print.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parser/cnum.h"
#include "vm/core/contseg.h"
#include "vm/core/except.h"

void vl_print_number(StrBuf *b, double x)
{
    char buf[40];
    if (isnan(x)) {
        vl_strbuf_adds(b, "+nan.0");
        return;
    }
    if (isinf(x)) {
        vl_strbuf_adds(b, x > 0 ? "+inf.0" : "-inf.0");
        return;
    }
    if (x == floor(x) && fabs(x) < 1e21) {
        vl_cnum_snprintf(buf, sizeof buf, "%.0f", x);
        if (x == 0 && signbit(x))
            snprintf(buf, sizeof buf, "-0");
        vl_strbuf_adds(b, buf);
        return;
    }
    vl_cnum_shortest(buf, sizeof buf, x, 1);
    vl_strbuf_adds(b, buf);
}

/* An explicit stack of pending work for the printer. */
typedef struct Work {
    Value v;
    int kind;               /* 0: print value, 1: list tail, 2: text */
    const char *text;
} Work;

/* A string as 'write' shows it: in double quotes, with the reader's
   escapes for ", \, newline and tab. */
static void print_string(StrBuf *b, const char *s)
{
    vl_strbuf_adds(b, "\"");
    for (; *s; s++) {
        const char *esc = *s == '"' ? "\\\"" : *s == '\\' ? "\\\\"
                        : *s == '\n' ? "\\n" : *s == '\t' ? "\\t" : NULL;
        if (esc != NULL)
            vl_strbuf_adds(b, esc);
        else
            vl_strbuf_add(b, s, 1);
    }
    vl_strbuf_adds(b, "\"");
}

/* Where a printing goes and what stops it. */
typedef struct Printer {
    VladState *S;
    StrBuf *b;              /* the text, or (streaming) its unwritten end */
    size_t max;             /* cut after this many bytes with "..."; 0: none */
    int stream;             /* write b out at PRINT_CHUNK bytes, poll */
    int64_t pairs;          /* pairs printed since the last poll */
    const SrcPos *at;       /* where a stop is reported; NULL: the VM's
                               instruction, with a backtrace */
    int display;            /* 'display': strings without quotes or
                               escapes (also inside lists) */
} Printer;

#define PRINT_CHUNK 4096    /* bytes handed to vl_state_write at once */
#define PRINT_POLL 1024     /* pairs between two polls of a streaming print */

static void emit(Printer *pr)
{
    vl_state_write(pr->S, pr->b->data, pr->b->len);
    pr->b->len = 0;
    pr->b->data[0] = '\0';
}

/* A streaming print counts its pairs as steps of the step limit (without
   changing the step count: a checkpoint-*j re-execution, which prints
   nothing, must take the same steps) and honours an interrupt. */
static void print_poll(Printer *pr)
{
    VladState *S = pr->S;
    S->print_steps += pr->pairs;
    pr->pairs = 0;
    int over = S->step_limit > 0
               && S->steps - S->form_start + S->print_steps > S->step_limit;
    if (!over && !S->interrupt)
        return;
    emit(pr);               /* what was printed is kept, as before errors */
    VladStatus st = over ? VLAD_ERR_LIMIT : VLAD_ERR_INTERRUPTED;
    char msg[80];
    if (over)
        snprintf(msg, sizeof msg, "step limit exceeded (%lld steps) while "
                 "printing", (long long)S->step_limit);
    else
        snprintf(msg, sizeof msg, "interrupted while printing");
    S->interrupt = 0;
    S->interrupted = NIL_VAL;   /* nothing to resume: the value is made */
    if (pr->at != NULL)
        vl_except_at(S, st, *pr->at, "%s", msg);
    vl_except_runtime(S, st, "%s", msg);
}

/* Print v: lists along their cdrs, an explicit stack for cars, so memory
   is O(nesting depth) however long the text grows. */
static void walk(Printer *pr, Value v)
{
    StrBuf *b = pr->b;
    size_t cap = 16, n = 0;
    Work *st = vl_gc_alloc(cap * sizeof(Work));
    st[n++] = (Work){v, 0, NULL};
    while (n > 0) {
        if (pr->max && b->len > pr->max) {
            b->len = pr->max;
            b->data[pr->max] = '\0';
            vl_strbuf_adds(b, "...");
            return;
        }
        if (pr->stream) {
            if (b->len >= PRINT_CHUNK)
                emit(pr);
            if (pr->pairs >= PRINT_POLL)
                print_poll(pr);
        }
        Work w = st[--n];
        st = vl_gc_reserve(st, n, n + 4, &cap, sizeof *st, 0);
        if (w.kind == 2) {
            vl_strbuf_adds(b, w.text);
            continue;
        }
        if (w.kind == 1) {
            /* 'w.v' is the rest of a list whose previous element was just
               printed */
            if (IS_NIL(w.v)) {
                vl_strbuf_adds(b, ")");
            } else if (IS_PAIR(w.v)) {
                pr->pairs++;
                vl_strbuf_adds(b, " ");
                st[n++] = (Work){AS_PAIR(w.v)->cdr, 1, NULL};
                st[n++] = (Work){AS_PAIR(w.v)->car, 0, NULL};
            } else {
                vl_strbuf_adds(b, " . ");
                st[n++] = (Work){NIL_VAL, 2, ")"};
                st[n++] = (Work){w.v, 0, NULL};
            }
            continue;
        }
        Value x = w.v;
        switch ((ValueTag)x.tag) {
        case VT_NUM:
        case VT_DUAL:
        case VT_TAPE:
            vl_print_number(b, vl_object_primal(x));
            break;
        case VT_BOOL:
            vl_strbuf_adds(b, x.as.boolean ? "#t" : "#f");
            break;
        case VT_NIL:
            vl_strbuf_adds(b, "()");
            break;
        case VT_PAIR:
            pr->pairs++;
            vl_strbuf_adds(b, "(");
            st[n++] = (Work){AS_PAIR(x)->cdr, 1, NULL};
            st[n++] = (Work){AS_PAIR(x)->car, 0, NULL};
            break;
        case VT_CLOSURE: {
            const char *nm = AS_CLOSURE(x)->proto->name;
            vl_strbuf_adds(b, "#<procedure");
            if (nm) {
                vl_strbuf_adds(b, " ");
                vl_strbuf_adds(b, nm);
            }
            vl_strbuf_adds(b, ">");
            break;
        }
        case VT_PRIM:
            vl_strbuf_adds(b, "#<procedure ");
            vl_strbuf_adds(b, AS_PRIM(x)->name);
            vl_strbuf_adds(b, ">");
            break;
        case VT_CKPT:
            vl_strbuf_adds(b, AS_CKPT(x)->finished ? "#<checkpoint finished>"
                                                 : "#<checkpoint>");
            break;
        case VT_SYM:
            vl_strbuf_adds(b, ((const Symbol *)x.as.ptr)->name);
            break;
        case VT_STR:
            if (pr->display)
                vl_strbuf_adds(b, x.as.ptr);
            else
                print_string(b, x.as.ptr);
            break;
        case VT_VOID:
            vl_strbuf_adds(b, "#<void>");
            break;
        case VT_UNDEF:
        case VT_RAW:
            vl_strbuf_adds(b, "#<internal>");
            break;
        }
    }
}

void vl_print_value(VladState *S, StrBuf *b, Value v, size_t max)
{
    Printer pr = {S, b, max, 0, 0, NULL, 0};
    walk(&pr, v);
}

void vl_print_display(VladState *S, StrBuf *b, Value v)
{
    Printer pr = {S, b, 0, 0, 0, NULL, 1};
    walk(&pr, v);
}

char *vl_print_to_string(VladState *S, Value v, size_t max)
{
    StrBuf b;
    vl_strbuf_init(&b);
    vl_print_value(S, &b, v, max);
    return b.data;
}

void vl_print_write(VladState *S, Value v, const SrcPos *at)
{
    StrBuf b;
    vl_strbuf_init(&b);
    Printer pr = {S, &b, 0, 1, 0, at, 0};
    walk(&pr, v);
    S->print_steps += pr.pairs;     /* the next print's polls count them */
    vl_strbuf_add(&b, "\n", 1);
    emit(&pr);
}
