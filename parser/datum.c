/*
 * parser/datum.c -- datum constructors and printing (see parser/datum.h)
 *
 * Datums are small immutable records in scanned GC memory.  Printing is
 * iterative (an explicit stack of the list tails still to print) so that a
 * datum nested a million levels deep prints without deep C recursion, and
 * it stops as soon as the output passes the byte limit.  Numbers print in
 * the shortest of %.15g, %.16g and %.17g that reads back to the same double,
 * always with '.' as the decimal point whatever the locale (parser/cnum.h).
 */
#include "config.h"
#include "parser/datum.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parser/cnum.h"

/* ---------------------------------------------------------------------
 * Constructors
 * --------------------------------------------------------------------- */

static Datum *make(DatumKind kind, SrcPos pos)
{
    Datum *d = vl_gc_alloc(sizeof *d);
    d->kind = kind;
    d->pos = pos;
    return d;
}

Datum *vl_datum_num(SrcPos pos, double x)
{
    Datum *d = make(D_NUM, pos);
    d->u.num = x;
    return d;
}

Datum *vl_datum_bool(SrcPos pos, bool b)
{
    Datum *d = make(D_BOOL, pos);
    d->u.boolean = b;
    return d;
}

Datum *vl_datum_sym(SrcPos pos, Symbol *s)
{
    Datum *d = make(D_SYM, pos);
    d->u.sym = s;
    return d;
}

Datum *vl_datum_str(SrcPos pos, const char *s)
{
    Datum *d = make(D_STR, pos);
    d->u.str = s;
    return d;
}

Datum *vl_datum_nil(SrcPos pos)
{
    return make(D_NIL, pos);
}

Datum *vl_datum_cons(SrcPos pos, Datum *car, Datum *cdr)
{
    Datum *d = make(D_PAIR, pos);
    d->u.pair.car = car;
    d->u.pair.cdr = cdr;
    return d;
}

int vl_datum_list_length(const Datum *d)
{
    int n = 0;
    while (d->kind == D_PAIR) {
        if (n == INT_MAX)
            return -1;
        n++;
        d = d->u.pair.cdr;
    }
    return d->kind == D_NIL ? n : -1;
}

/* ---------------------------------------------------------------------
 * Printing
 * --------------------------------------------------------------------- */

/* An output buffer that stops growing once it holds more than 'max'
   bytes: the caller only needs to know that the limit was passed. */
typedef struct Out {
    char *buf;            /* atomic GC memory, 'cap' bytes */
    size_t len;           /* bytes written */
    size_t cap;           /* allocated bytes (always > len) */
    size_t max;           /* the caller's limit */
} Out;

static bool full(const Out *o)
{
    return o->len > o->max;
}

static void put(Out *o, const char *s, size_t n)
{
    if (full(o))
        return;
    if (o->max - o->len < n)
        n = o->max - o->len + 1;      /* one byte past 'max' is enough */
    o->buf = vl_gc_reserve(o->buf, o->len, o->len + n + 1, &o->cap, 1, 1);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static void puts_(Out *o, const char *s)
{
    put(o, s, strlen(s));
}

/* Format 'x' as the shortest of %.15g/%.16g/%.17g that reads back to 'x'
   (%.17g always does). */
static void format_num(char *buf, size_t size, double x)
{
    if (isnan(x)) {
        snprintf(buf, size, "+nan.0");
        return;
    }
    if (isinf(x)) {
        snprintf(buf, size, x > 0 ? "+inf.0" : "-inf.0");
        return;
    }
    vl_cnum_shortest(buf, size, x, 15);
}

static void put_string_literal(Out *o, const char *s)
{
    put(o, "\"", 1);
    for (const char *p = s; *p != '\0' && !full(o); p++) {
        switch (*p) {
        case '"':  put(o, "\\\"", 2); break;
        case '\\': put(o, "\\\\", 2); break;
        case '\n': put(o, "\\n", 2); break;
        case '\t': put(o, "\\t", 2); break;
        default:   put(o, p, 1); break;
        }
    }
    put(o, "\"", 1);
}

/* Print a datum that is not a pair. */
static void put_atom(Out *o, const Datum *d)
{
    char buf[40];
    switch (d->kind) {
    case D_NUM:
        format_num(buf, sizeof buf, d->u.num);
        puts_(o, buf);
        break;
    case D_BOOL:
        puts_(o, d->u.boolean ? "#t" : "#f");
        break;
    case D_SYM:
        puts_(o, d->u.sym->name);
        break;
    case D_STR:
        put_string_literal(o, d->u.str);
        break;
    case D_NIL:
        puts_(o, "()");
        break;
    case D_PAIR:
        break;
    }
}

/* True when 'd' is (quote x), which prints as 'x. */
static bool is_quote_form(const Datum *d)
{
    const Datum *a = d->u.pair.car, *rest = d->u.pair.cdr;
    return a->kind == D_SYM && strcmp(a->u.sym->name, "quote") == 0
           && rest->kind == D_PAIR && rest->u.pair.cdr->kind == D_NIL;
}

/* The list tails still to print, innermost last.  A quoted datum pushes
   NULL: nothing is printed after it. */
typedef struct Stack {
    const Datum **items;  /* scanned GC memory */
    size_t n, cap;
} Stack;

static void push(Stack *s, const Datum *d)
{
    s->items = vl_gc_grow(s->items, s->n, &s->cap, sizeof *s->items);
    s->items[s->n++] = d;
}

char *vl_datum_to_string(const Datum *d, size_t max)
{
    Out o = { vl_gc_alloc_atomic(64), 0, 64, max };
    Stack st = { NULL, 0, 0 };
    const Datum *cur = d;
    while (!full(&o)) {
        /* Print the start of 'cur'. */
        if (cur->kind == D_PAIR && is_quote_form(cur)) {
            put(&o, "'", 1);
            push(&st, NULL);
            cur = cur->u.pair.cdr->u.pair.car;
            continue;
        }
        if (cur->kind == D_PAIR) {
            put(&o, "(", 1);
            push(&st, cur->u.pair.cdr);
            cur = cur->u.pair.car;
            continue;
        }
        put_atom(&o, cur);
        /* 'cur' is done: continue with the innermost unfinished list. */
        cur = NULL;
        while (st.n > 0 && cur == NULL && !full(&o)) {
            const Datum *rest = st.items[--st.n];
            if (rest == NULL)
                continue;                       /* end of a quote */
            if (rest->kind == D_PAIR) {
                put(&o, " ", 1);
                push(&st, rest->u.pair.cdr);
                cur = rest->u.pair.car;
            } else if (rest->kind == D_NIL) {
                put(&o, ")", 1);
            } else {
                put(&o, " . ", 3);
                put_atom(&o, rest);
                put(&o, ")", 1);
            }
        }
        if (cur == NULL)
            break;
    }
    if (full(&o)) {
        size_t keep = max > 3 ? max - 3 : 0;
        /* Do not cut a UTF-8 sequence in the middle. */
        while (keep > 0 && ((unsigned char)o.buf[keep] & 0xC0) == 0x80)
            keep--;
        o.len = keep;
        o.max = keep + 3;
        put(&o, "...", 3);
    }
    o.buf[o.len] = '\0';
    return o.buf;
}
