/*
 * parser/read.c -- vl_read_string and the reader's bookkeeping
 *
 * Owns the Reader of one call: it starts the flex scanner on a copy of the
 * text, runs the bison parser, and turns what they found into either the
 * list of top-level datums or a list of diagnostics in source order.  The
 * grammar (parser.y) is deliberately permissive -- any mix of datums and
 * dots between brackets parses -- and the helpers here check the shape of
 * each list when it closes, so that mismatched brackets and misplaced dots
 * give precise messages and parsing simply goes on.
 *
 * Incomplete input is detected beside the grammar: vl_read_token keeps a
 * stack of the forms still open (lists, quotes, '#;' datum comments) as the
 * tokens go by, so when the input ends the innermost open form can be
 * named in the message, at its own position.  Bison's own complaint about
 * the end of input is then ignored.  The only other syntax errors bison can
 * raise are ')' ']' or '.' right after a quote or '#;'; the stack tells
 * which form was left without its datum.
 */
#include "config.h"
#include "parser/read.h"
#include "parser/scanner.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Diagnostics kept per call; the rest are dropped (the status is already
   known and the first errors are the useful ones). */
#define MAX_DIAGS 100

/* A list between its brackets, as the parser sees it grow. */
typedef struct ListBuilder {
    Datum *head, *tail;   /* the pairs of the elements before any '.' */
    bool has_dot;         /* a '.' was seen */
    bool bad;             /* a misplaced '.' was already reported */
    TokLoc dot;           /* the first '.' */
    Datum *after;         /* the first datum after the '.' */
    int nafter;           /* datums after the '.' */
} ListBuilder;

/* ---------------------------------------------------------------------
 * Diagnostics
 * --------------------------------------------------------------------- */

SrcPos vl_read_pos(const Reader *P, TokLoc loc)
{
    SrcPos pos = { P->file, loc.first_line, loc.first_column };
    return pos;
}

static TokLoc loc_at(int line, int col)
{
    TokLoc loc = { line, col, line, col };
    return loc;
}

static bool before(SrcPos a, SrcPos b)
{
    return a.line < b.line || (a.line == b.line && a.col < b.col);
}

/* Insert a diagnostic in source order; at most one per position, since
   one token gets one complaint. */
static void add_diag(Reader *P, TokLoc loc, const char *fmt, va_list ap)
{
    if (P->ndiags >= MAX_DIAGS)
        return;
    SrcPos pos = vl_read_pos(P, loc);
    VlDiag **link = &P->diags;
    for (VlDiag *d = P->diags; d != NULL; d = d->next) {
        if (d->pos.line == pos.line && d->pos.col == pos.col)
            return;
        if (before(pos, d->pos))
            break;
        link = &d->next;
    }
    const char *msg = vl_gc_vformat(fmt, ap);
    if (msg == NULL)
        msg = "out of memory";
    VlDiag *d = vl_gc_alloc(sizeof *d);
    d->pos = pos;
    d->message = msg;
    d->next = *link;
    *link = d;
    P->ndiags++;
}

void vl_read_error(Reader *P, TokLoc loc, const char *fmt, ...)
{
    va_list ap;
    P->error = true;
    va_start(ap, fmt);
    add_diag(P, loc, fmt, ap);
    va_end(ap);
}

static void incomplete(Reader *P, TokLoc loc, const char *fmt, ...)
{
    va_list ap;
    P->incomplete = true;
    va_start(ap, fmt);
    add_diag(P, loc, fmt, ap);
    va_end(ap);
}

void vl_read_incomplete(Reader *P, TokLoc loc, const char *what)
{
    incomplete(P, loc, "%s", what);
}

/* Flex's fatal errors (out of memory without an OOM hook) land here. */
void vl_read_fatal(Reader *P, const char *msg)
{
    P->fatal_msg = msg;
    longjmp(P->fatal, 1);
}

/* ---------------------------------------------------------------------
 * Tokens and the stack of open forms
 * --------------------------------------------------------------------- */

static void push(Reader *P, char kind, TokLoc loc)
{
    if (P->npend == P->cappend) {
        size_t cap = P->cappend ? P->cappend * 2 : 64;
        Pending *p = vl_gc_alloc_atomic(cap * sizeof *p);
        if (P->npend > 0)
            memcpy(p, P->pend, P->npend * sizeof *p);
        P->pend = p;
        P->cappend = cap;
    }
    Pending *top = &P->pend[P->npend++];
    top->kind = kind;
    top->line = loc.first_line;
    top->col = loc.first_column;
}

static bool top_wants_datum(const Reader *P)
{
    return P->npend > 0 && (P->pend[P->npend - 1].kind == '\''
                            || P->pend[P->npend - 1].kind == ';');
}

/* A datum was completed: it satisfies the quotes waiting for it (a quoted
   datum is itself complete) or the innermost '#;' (which swallows it). */
static void complete(Reader *P)
{
    while (top_wants_datum(P)) {
        char kind = P->pend[--P->npend].kind;
        if (kind == ';')
            break;
    }
}

static void input_ended(Reader *P)
{
    P->at_end = true;
    if (P->npend == 0 || P->incomplete)
        return;
    const Pending *p = &P->pend[P->npend - 1];
    TokLoc loc = loc_at(p->line, p->col);
    switch (p->kind) {
    case '\'':
        incomplete(P, loc, "unexpected end of input: the quote at %d:%d is "
                   "not followed by a datum", p->line, p->col);
        break;
    case ';':
        incomplete(P, loc, "unexpected end of input: the '#;' at %d:%d is "
                   "not followed by a datum", p->line, p->col);
        break;
    default:
        incomplete(P, loc, "unexpected end of input: '%c' opened at %d:%d "
                   "is not closed", p->kind, p->line, p->col);
        break;
    }
}

/* The parser's yylex: the next token, noted on the stack of open forms.
   The parser reduces its pending quotes and datum comments the same way
   (with its 'error' rules) when ')' or '.' comes too early. */
TokKind vl_read_token(Reader *P, TokVal *val, TokLoc *loc)
{
    if (P->stop != NULL && *P->stop) {
        P->stopped = true;
        longjmp(P->fatal, 1);
    }
    TokKind tk = (TokKind)vl_lexer_lex(val, loc, P->scanner);
    P->last = tk;
    P->ctx.kind = 0;
    switch (tk) {
    case TK_END:
        input_ended(P);
        break;
    case TK_OPEN:
        P->last_delim = val->delim;
        push(P, val->delim, *loc);
        break;
    case TK_QUOTE:
        push(P, '\'', *loc);
        break;
    case TK_DATUM_COMMENT:
        push(P, ';', *loc);
        break;
    case TK_CLOSE:
    case TK_DOT:
        if (tk == TK_CLOSE)
            P->last_delim = val->delim;
        if (top_wants_datum(P))
            P->ctx = P->pend[P->npend - 1];
        while (top_wants_datum(P))
            complete(P);
        if (tk == TK_CLOSE && P->npend > 0) {
            P->npend--;
            complete(P);
        }
        break;
    case TK_NUM:
    case TK_BOOL:
    case TK_SYM:
    case TK_STR:
    case TK_BAD:
        complete(P);
        break;
    }
    return tk;
}

/* Bison's yyerror.  Errors at the end of input were reported by
   input_ended; the others are a ')' ']' or '.' where a datum must come. */
void vl_read_syntax_error(Reader *P, TokLoc loc, const char *msg)
{
    if (strncmp(msg, "syntax error", 12) != 0) {
        vl_read_error(P, loc, "%s", msg);       /* "memory exhausted" */
        return;
    }
    if (P->at_end)
        return;
    char what[16];
    switch (P->last) {
    case TK_CLOSE:
    case TK_OPEN:
        snprintf(what, sizeof what, "'%c'", P->last_delim);
        break;
    case TK_DOT:
        snprintf(what, sizeof what, "'.'");
        break;
    default:
        snprintf(what, sizeof what, "token");
        break;
    }
    if (P->ctx.kind == '\'')
        vl_read_error(P, loc, "unexpected %s: the quote at %d:%d is not "
                      "followed by a datum", what, P->ctx.line, P->ctx.col);
    else if (P->ctx.kind == ';')
        vl_read_error(P, loc, "unexpected %s: the '#;' at %d:%d is not "
                      "followed by a datum", what, P->ctx.line, P->ctx.col);
    else
        vl_read_error(P, loc, "unexpected %s", what);
}

/* ---------------------------------------------------------------------
 * Grammar actions
 * --------------------------------------------------------------------- */

/* A top-level datum: append it to the result. */
void vl_read_top(Reader *P, Datum *d)
{
    Datum *pair = vl_datum_cons(d->pos, d, NULL);
    if (P->tail == NULL)
        P->head = pair;
    else
        P->tail->u.pair.cdr = pair;
    P->tail = pair;
}

/* A ')' ']' or '.' outside any list. */
void vl_read_stray(Reader *P, TokLoc loc, char delim)
{
    vl_read_error(P, loc, "unexpected '%c'", delim);
}

/* 'd as (quote d): both pairs, the symbol and the () carry the position
   of the quote mark. */
Datum *vl_read_quote(Reader *P, TokLoc loc, Datum *d)
{
    SrcPos q = vl_read_pos(P, loc);
    return vl_datum_cons(q, vl_datum_sym(q, P->quote),
                         vl_datum_cons(q, d, vl_datum_nil(q)));
}

ListBuilder *vl_read_list_new(Reader *P)
{
    (void)P;
    return vl_gc_alloc(sizeof(ListBuilder));
}

ListBuilder *vl_read_list_add(Reader *P, ListBuilder *b, Datum *d)
{
    (void)P;
    if (b->has_dot) {
        if (b->nafter++ == 0)
            b->after = d;
        return b;
    }
    Datum *pair = vl_datum_cons(d->pos, d, NULL);
    if (b->tail == NULL)
        b->head = pair;
    else
        b->tail->u.pair.cdr = pair;
    b->tail = pair;
    return b;
}

ListBuilder *vl_read_list_dot(Reader *P, ListBuilder *b, TokLoc loc)
{
    if (b->has_dot) {
        if (!b->bad)
            vl_read_error(P, loc, "unexpected second '.' in a list");
        b->bad = true;
        return b;
    }
    if (b->head == NULL) {
        vl_read_error(P, loc, "'.' must be preceded by at least one datum");
        b->bad = true;
    }
    b->has_dot = true;
    b->dot = loc;
    return b;
}

/* The list is closed: check the brackets and the dot, link the pairs. */
Datum *vl_read_list_close(Reader *P, TokLoc open, char odelim,
                          ListBuilder *b, TokLoc close, char cdelim)
{
    char want = odelim == '[' ? ']' : ')';
    if (cdelim != want)
        vl_read_error(P, close, "mismatched '%c' closing '%c' opened at "
                      "%d:%d", cdelim, odelim, open.first_line,
                      open.first_column);
    if (b->has_dot && !b->bad && b->nafter != 1)
        vl_read_error(P, b->dot, "'.' must be followed by exactly one datum "
                      "before '%c'", cdelim);
    if (b->head == NULL)
        return vl_datum_nil(vl_read_pos(P, open));
    b->head->pos = vl_read_pos(P, open);
    b->tail->u.pair.cdr = b->has_dot && b->nafter > 0
                          ? b->after : vl_datum_nil(vl_read_pos(P, close));
    return b->head;
}

/* ---------------------------------------------------------------------
 * Entry point
 * --------------------------------------------------------------------- */

VlReadStatus vl_read_string(VlSymtab *syms, const char *src, size_t len,
                            const char *file, Datum **out, VlDiag **diags)
{
    return vl_read_string_stop(syms, src, len, file, NULL, out, diags);
}

VlReadStatus vl_read_string_stop(VlSymtab *syms, const char *src, size_t len,
                                 const char *file,
                                 const volatile sig_atomic_t *stop,
                                 Datum **out, VlDiag **diags)
{
    /* In GC memory, so that its fields are well defined after longjmp. */
    Reader *P = vl_gc_alloc(sizeof *P);
    P->stop = stop;
    P->syms = syms;
    P->quote = vl_symbol_intern_c(syms, "quote");
    P->file = vl_gc_strdup(file != NULL ? file : "<string>");
    P->line = 1;
    P->col = 1;
    *out = NULL;
    *diags = NULL;

    if (len > VL_READ_MAX_INPUT) {
        vl_read_error(P, loc_at(1, 1), "input too large (%zu bytes; at most "
                      "%zu)", len, (size_t)VL_READ_MAX_INPUT);
    } else if (setjmp(P->fatal) == 0) {
        vl_lexer_open(P, src, len);
        if (vl_parser_parse(P) != 0 && !P->error && !P->incomplete)
            vl_read_error(P, loc_at(P->line, P->col), "syntax error");
        vl_lexer_close(P);
    } else if (P->stopped) {
        return VL_READ_STOPPED;     /* (the scanner to the collector) */
    } else {
        /* The scanner is abandoned to the collector. */
        vl_read_error(P, loc_at(P->line, P->col), "reader failure: %s",
                      P->fatal_msg != NULL ? P->fatal_msg : "unknown");
    }

    if (P->error || P->incomplete) {
        *diags = P->diags;
        return P->error ? VL_READ_ERROR : VL_READ_INCOMPLETE;
    }
    Datum *end = vl_datum_nil(vl_read_pos(P, loc_at(P->line, P->col)));
    if (P->tail == NULL)
        P->head = end;
    else
        P->tail->u.pair.cdr = end;
    *out = P->head;
    return VL_READ_OK;
}
