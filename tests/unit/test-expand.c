/*
 * tests/unit/test-expand.c -- unit tests of the expander (parser/expand.c)
 *
 * Self-contained: a tiny test-only reader turns source text into Datums
 * (with LINE:COL positions laid out as parser/datum.h describes), the
 * expander runs on each top-level datum, and a printer renders the TopForm
 * as a tagged s-expression that is compared with the expected text:
 *
 *   (define NAME E) (include "NAME")   top-level forms; an expression as is
 *   (lambda PAT BODY)  (lambda:NAME PAT BODY)
 *   (app F A ...)  (if T A B)  (or A B)  (cons A B)
 *   (let ((PAT INIT) ...) BODY)  (letrec ((NAME LAMBDA) ...) BODY)
 *   constants as 'DATUM, variables and P_VAR as their names,
 *   P_CONST as 'DATUM and P_CONS as (cons P Q)
 *
 * Errors are checked by message and LINE:COL.  Prints "N passed, N
 * failed" and exits 0 iff nothing failed.
 */
#include "config.h"
#include "parser/expand.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
static VlSymtab *syms;

/* ===== A test-only reader ===== */

typedef struct Rd {
    const char *s;        /* next character */
    int line, col;        /* its position */
    int error;            /* set on malformed test input */
} Rd;

static SrcPos rd_pos(const Rd *r)
{
    SrcPos p = { "t.vlad", r->line, r->col };
    return p;
}

static void rd_advance(Rd *r)
{
    if (*r->s == '\n') {
        r->line++;
        r->col = 1;
    } else {
        r->col++;
    }
    r->s++;
}

static void rd_skip(Rd *r)
{
    for (;;) {
        if (*r->s == ' ' || *r->s == '\n' || *r->s == '\t') {
            rd_advance(r);
        } else if (*r->s == ';') {
            while (*r->s != '\0' && *r->s != '\n')
                rd_advance(r);
        } else {
            return;
        }
    }
}

static int rd_delim(char ch)
{
    return ch == '\0' || ch == ' ' || ch == '\n' || ch == '\t' || ch == '('
           || ch == ')' || ch == ';' || ch == '"' || ch == '\'';
}

static Datum *rd_datum(Rd *r);

static Datum *rd_list(Rd *r)
{
    SrcPos open = rd_pos(r);
    rd_advance(r);
    Datum *head = NULL, *last = NULL;
    for (;;) {
        rd_skip(r);
        if (*r->s == ')') {
            Datum *nil = vl_datum_nil(last == NULL ? open : rd_pos(r));
            rd_advance(r);
            if (last == NULL)
                return nil;
            last->u.pair.cdr = nil;
            return head;
        }
        if (*r->s == '\0') {
            r->error = 1;
            return vl_datum_nil(open);
        }
        if (*r->s == '.' && rd_delim(r->s[1]) && last != NULL) {
            rd_advance(r);
            last->u.pair.cdr = rd_datum(r);
            rd_skip(r);
            if (*r->s != ')')
                r->error = 1;
            else
                rd_advance(r);
            return head;
        }
        SrcPos at = rd_pos(r);
        Datum *x = rd_datum(r);
        Datum *p = vl_datum_cons(last == NULL ? open : at, x, NULL);
        if (last == NULL)
            head = p;
        else
            last->u.pair.cdr = p;
        last = p;
    }
}

static Datum *rd_datum(Rd *r)
{
    rd_skip(r);
    SrcPos pos = rd_pos(r);
    if (*r->s == '(')
        return rd_list(r);
    if (*r->s == '\'') {
        rd_advance(r);
        Datum *x = rd_datum(r);
        Datum *q = vl_datum_sym(pos, vl_symbol_intern_c(syms, "quote"));
        return vl_datum_cons(pos, q, vl_datum_cons(pos, x,
                                                   vl_datum_nil(pos)));
    }
    if (*r->s == '"') {
        rd_advance(r);
        const char *start = r->s;
        while (*r->s != '"' && *r->s != '\0')
            rd_advance(r);
        char *str = vl_gc_strndup(start, (size_t)(r->s - start));
        if (*r->s == '"')
            rd_advance(r);
        return vl_datum_str(pos, str);
    }
    if (*r->s == ')' || *r->s == '\0') {
        r->error = 1;
        if (*r->s)
            rd_advance(r);
        return vl_datum_nil(pos);
    }
    const char *start = r->s;
    while (!rd_delim(*r->s))
        rd_advance(r);
    size_t len = (size_t)(r->s - start);
    char *tok = vl_gc_strndup(start, len);
    if (strcmp(tok, "#t") == 0 || strcmp(tok, "#f") == 0)
        return vl_datum_bool(pos, tok[1] == 't');
    char *end;
    double x = strtod(tok, &end);
    if (*end == '\0' && end != tok && strcmp(tok, "+") != 0
        && strcmp(tok, "-") != 0)
        return vl_datum_num(pos, x);
    return vl_datum_sym(pos, vl_symbol_intern(syms, start, len));
}

static Datum *read1(const char *src)
{
    Rd r = { src, 1, 1, 0 };
    Datum *d = rd_datum(&r);
    rd_skip(&r);
    if (r.error || *r.s != '\0') {
        fprintf(stderr, "bad test input: %s\n", src);
        exit(2);
    }
    return d;
}

/* ===== Printing ASTs ===== */

typedef struct Buf {
    char *s;
    size_t n, cap;
} Buf;

static void put(Buf *b, const char *s)
{
    size_t l = strlen(s);
    if (b->n + l + 1 > b->cap) {
        b->cap = 2 * (b->n + l + 1);
        b->s = realloc(b->s, b->cap);
        if (b->s == NULL)
            exit(2);
    }
    memcpy(b->s + b->n, s, l + 1);
    b->n += l;
}

static void put_datum(Buf *b, const Datum *d)
{
    char tmp[64];
    switch (d->kind) {
    case D_NUM:
        snprintf(tmp, sizeof tmp, "%g", d->u.num);
        put(b, tmp);
        break;
    case D_BOOL:
        put(b, d->u.boolean ? "#t" : "#f");
        break;
    case D_SYM:
        put(b, d->u.sym->name);
        break;
    case D_STR:
        put(b, "\"");
        put(b, d->u.str);
        put(b, "\"");
        break;
    case D_NIL:
        put(b, "()");
        break;
    case D_PAIR:
        put(b, "(");
        for (;;) {
            put_datum(b, d->u.pair.car);
            d = d->u.pair.cdr;
            if (d->kind == D_NIL)
                break;
            if (d->kind != D_PAIR) {
                put(b, " . ");
                put_datum(b, d);
                break;
            }
            put(b, " ");
        }
        put(b, ")");
        break;
    }
}

static void put_const(Buf *b, const Datum *d)
{
    put(b, "'");
    put_datum(b, d);
}

static void put_pat(Buf *b, const Pattern *p)
{
    switch (p->kind) {
    case P_VAR:
        put(b, p->var->name);
        break;
    case P_CONST:
        put_const(b, p->constant);
        break;
    case P_CONS:
        put(b, "(cons ");
        put_pat(b, p->car);
        put(b, " ");
        put_pat(b, p->cdr);
        put(b, ")");
        break;
    }
}

static void put_ast(Buf *b, const Ast *a)
{
    switch (a->kind) {
    case A_CONST:
        put_const(b, a->u.constant);
        break;
    case A_VAR:
        put(b, a->u.var->name);
        break;
    case A_LAMBDA:
        put(b, "(lambda");
        if (a->u.lambda.name != NULL) {
            put(b, ":");
            put(b, a->u.lambda.name);
        }
        put(b, " ");
        put_pat(b, a->u.lambda.param);
        put(b, " ");
        put_ast(b, a->u.lambda.body);
        put(b, ")");
        break;
    case A_APP:
        put(b, "(app ");
        put_ast(b, a->u.app.fn);
        for (int i = 0; i < a->u.app.nargs; i++) {
            put(b, " ");
            put_ast(b, a->u.app.args[i]);
        }
        put(b, ")");
        break;
    case A_IF:
        put(b, "(if ");
        put_ast(b, a->u.if_.test);
        put(b, " ");
        put_ast(b, a->u.if_.then);
        put(b, " ");
        put_ast(b, a->u.if_.els);
        put(b, ")");
        break;
    case A_OR:
        put(b, "(or ");
        put_ast(b, a->u.or_.first);
        put(b, " ");
        put_ast(b, a->u.or_.second);
        put(b, ")");
        break;
    case A_LET:
        put(b, "(let (");
        for (int i = 0; i < a->u.let.n; i++) {
            put(b, i ? " (" : "(");
            put_pat(b, a->u.let.pats[i]);
            put(b, " ");
            put_ast(b, a->u.let.inits[i]);
            put(b, ")");
        }
        put(b, ") ");
        put_ast(b, a->u.let.body);
        put(b, ")");
        break;
    case A_LETREC:
        put(b, "(letrec (");
        for (int i = 0; i < a->u.letrec.n; i++) {
            put(b, i ? " (" : "(");
            put(b, a->u.letrec.names[i]->name);
            put(b, " ");
            put_ast(b, a->u.letrec.lambdas[i]);
            put(b, ")");
        }
        put(b, ") ");
        put_ast(b, a->u.letrec.body);
        put(b, ")");
        break;
    case A_CONS:
        put(b, "(cons ");
        put_ast(b, a->u.cons.car);
        put(b, " ");
        put_ast(b, a->u.cons.cdr);
        put(b, ")");
        break;
    }
}

static void put_top(Buf *b, const TopForm *t)
{
    switch (t->kind) {
    case TOP_EXPR:
        put_ast(b, t->expr);
        break;
    case TOP_DEFINE:
        put(b, "(define ");
        put(b, t->name->name);
        put(b, " ");
        put_ast(b, t->expr);
        put(b, ")");
        break;
    case TOP_INCLUDE:
        put(b, "(include \"");
        put(b, t->include_name);
        put(b, "\")");
        break;
    }
}

/* ===== Checks ===== */

static void ok(int cond, const char *what, const char *detail)
{
    if (cond) {
        passed++;
    } else {
        failed++;
        printf("FAIL: %s\n      %s\n", what, detail);
    }
}

/* Expand 'src' and return the status; '*t' and '*dg' get the results. */
static VlExpandStatus run(const char *src, TopForm *t, VlDiag **dg)
{
    return vl_expand_toplevel(syms, read1(src), t, dg, NULL);
}

/* 'src' expands to the printed form 'want'. */
static void expect(const char *src, const char *want)
{
    TopForm t;
    VlDiag *dg = NULL;
    char detail[4096];
    if (run(src, &t, &dg) != VL_EXPAND_OK) {
        snprintf(detail, sizeof detail, "unexpected error %d:%d: %s",
                 dg ? dg->pos.line : 0, dg ? dg->pos.col : 0,
                 dg ? dg->message : "(no diagnostic)");
        ok(0, src, detail);
        return;
    }
    Buf b = { NULL, 0, 0 };
    put(&b, "");
    put_top(&b, &t);
    snprintf(detail, sizeof detail, "got  %s\n      want %s", b.s, want);
    ok(strcmp(b.s, want) == 0 && dg == NULL, src, detail);
    free(b.s);
}

/* 'src' fails with one diagnostic at 'line':'col' whose message is 'want'
   (or starts with it, when 'want' ends in "..."). */
static void expect_error(const char *src, int line, int col,
                         const char *want)
{
    TopForm t;
    VlDiag *dg = NULL;
    char detail[4096];
    VlExpandStatus st = run(src, &t, &dg);
    if (st != VL_EXPAND_ERROR || dg == NULL) {
        ok(0, src, "expected an error, expansion succeeded");
        return;
    }
    size_t wl = strlen(want);
    int match;
    if (wl >= 3 && strcmp(want + wl - 3, "...") == 0)
        match = strncmp(dg->message, want, wl - 3) == 0;
    else
        match = strcmp(dg->message, want) == 0;
    snprintf(detail, sizeof detail, "got  %d:%d: %s\n      want %d:%d: %s",
             dg->pos.line, dg->pos.col, dg->message, line, col, want);
    ok(match && dg->pos.line == line && dg->pos.col == col
       && dg->next == NULL && strcmp(dg->pos.file, "t.vlad") == 0,
       src, detail);
}

/* ===== Test cases ===== */

static void test_top_level(void)
{
    expect("(define x 1)", "(define x '1)");
    expect("(define (f x) x)", "(define f (lambda:f x x))");
    expect("(define (f) 1)", "(define f (lambda:f '() '1))");
    expect("(define (f a b) a)", "(define f (lambda:f (cons a b) a))");
    expect("(define ((adder n) m) (+ n m))",
           "(define adder (lambda:adder n (lambda m (app + n m))))");
    expect("(define (((f a) b c)) a)",
           "(define f (lambda:f a (lambda (cons b c) (lambda '() a))))");
    expect("(define f (lambda (x) x))", "(define f (lambda:f x x))");
    expect("(define (car (cons x y)) x)",
           "(define car (lambda:car (cons x y) x))");
    expect("(define (cadr (list x y)) y)",
           "(define cadr (lambda:cadr (cons x (cons y '())) y))");
    expect("(include \"lib\")", "(include \"lib\")");
    expect("(f 1)", "(app f '1)");
    expect("42", "'42");
    expect("x", "x");
    expect("cons", "cons");
    /* Globals are not resolved: a global 'list' is no local binding. */
    expect("(define (g list) (list 1 2))",
           "(define g (lambda:g list (app list '1 '2)))");
    expect_error("(define if 3)", 1, 9,
                 "cannot define 'if': it is a syntax keyword");
    expect_error("(define (list a) a)", 1, 10,
                 "cannot define 'list': it is a syntax keyword");
    expect_error("(define x)", 1, 1, "define: expected (define name "
                 "expression) or (define (name pattern ...) body)");
    expect_error("(define x 1 2)", 1, 13,
                 "define: expected exactly one expression after 'x', got 2");
    expect_error("(define 5 1)", 1, 9,
                 "define: expected a name or (name pattern ...), got 5");
    expect_error("(define ((1 a) b) 1)", 1, 11,
                 "define: expected a name or (name pattern ...), got "
                 "((1 a) b)");
    expect_error("(define (f . args) 1)", 1, 14,
                 "define: the parameter list must be a list of patterns, "
                 "got 'args'...");
    expect_error("(define (f a . r) 1)", 1, 12,
                 "define: improper parameter list '(a . r)'...");
    expect_error("(define (f x))", 1, 1, "define: body has no expression");
    expect_error("(define x . 1)", 1, 1,
                 "define: malformed definition (define x . 1)");
    expect_error("(include lib)", 1, 1,
                 "include: expected (include \"name\") with exactly one "
                 "string");
    expect_error("(include \"a\" \"b\")", 1, 1,
                 "include: expected (include \"name\") with exactly one "
                 "string");
    expect_error("(include)", 1, 1,
                 "include: expected (include \"name\") with exactly one "
                 "string");
}

static void test_application(void)
{
    expect("(f)", "(app f '())");
    expect("(f a)", "(app f a)");
    expect("(f a b c)", "(app f a b c)");
    expect("((g 1) 2)", "(app (app g '1) '2)");
    expect("((lambda (x) x) 3)", "(app (lambda x x) '3)");
    expect("(5 3)", "(app '5 '3)");
    expect_error("(f . x)", 1, 1, "dotted list (f . x) is not an expression");
    expect_error("(f a . x)", 1, 1,
                 "dotted list (f a . x) is not an expression");
    expect_error("(f ())", 1, 4,
                 "empty combination (); write '() for the empty list");
    expect_error("()", 1, 1,
                 "empty combination (); write '() for the empty list");
    expect("(f \"s\")", "(app f '\"s\")");
}

static void test_constants(void)
{
    expect("#t", "'#t");
    expect("#f", "'#f");
    expect("'()", "'()");
    expect("'5", "'5");
    expect("(quote (1 (2 #t) . 3))", "'(1 (2 #t) . 3)");
    expect("'(1 (2 3) #t #f ())", "'(1 (2 3) #t #f ())");
    /* symbols and strings are labels (doc/reference.md, 2) */
    expect("'a", "'a");
    expect("'(1 (2 x))", "'(1 (2 x))");
    expect("'(1 . \"s\")", "'(1 . \"s\")");
    expect("\"s\"", "'\"s\"");
    expect_error("(quote)", 1, 1, "quote: expected exactly one datum, got 0");
    expect_error("(quote 1 2)", 1, 1,
                 "quote: expected exactly one datum, got 2");
}

static void test_keywords_as_values(void)
{
    expect_error("if", 1, 1, "syntax keyword 'if' used as a value");
    expect_error("(f list)", 1, 4, "syntax keyword 'list' used as a value");
    expect_error("(f else)", 1, 4, "syntax keyword 'else' used as a value");
    expect_error("(g define)", 1, 4,
                 "syntax keyword 'define' used as a value");
    expect("(map cons xs)", "(app map cons xs)");
    expect_error("(define x 1 . 2)", 1, 1, "define: malformed definition...");
    expect_error("(f (define x 1))", 1, 4, "definition not allowed here");
    expect_error("(if (include \"a\") 1 2)", 1, 5,
                 "include is only allowed at top level");
    expect_error("(else 1)", 1, 1, "'else' is only allowed as the test of "
                 "the last clause of cond");
    /* Local bindings turn keywords into variables. */
    expect("(lambda (if) (if 1 2))", "(lambda if (app if '1 '2))");
    expect("(lambda (list) list)", "(lambda list list)");
    expect("(let ((cons 1)) (cons 1 2))",
           "(let ((cons '1)) (app cons '1 '2))");
    expect("(lambda (quote) 'x)", "(lambda quote (app quote x))");
    expect("(letrec ((and (lambda (x) x))) (and 1 2))",
           "(letrec ((and (lambda:and x x))) (app and '1 '2))");
    expect("(lambda (f) (define (list x) x) (list 1 2))",
           "(lambda f (letrec ((list (lambda:list x x))) "
           "(app list '1 '2)))");
    expect_error("(lambda (else) (cond (else 1) ((g) 2) (#t 3)))", 1, 39,
                 "cond: the last clause must be (else e)");
    expect("(lambda (cond) (lambda (else) (cond (else 1) (else 2))))",
           "(lambda cond (lambda else (app cond (app else '1) "
           "(app else '2))))");
}

static void test_lambda(void)
{
    expect("(lambda () 1)", "(lambda '() '1)");
    expect("(lambda (x) x)", "(lambda x x)");
    expect("(lambda (x y) x)", "(lambda (cons x y) x)");
    expect("(lambda (x y z) z)", "(lambda (cons x (cons y z)) z)");
    expect("(lambda ((list a b)) a)",
           "(lambda (cons a (cons b '())) a)");
    expect("(lambda ('(1 2) x) x)", "(lambda (cons '(1 2) x) x)");
    expect("(lambda (1 #t) 2)", "(lambda (cons '1 '#t) '2)");
    expect("(lambda ((cons* a b c)) a)",
           "(lambda (cons a (cons b c)) a)");
    expect("(lambda ((cons*)) 1)", "(lambda '() '1)");
    expect("(lambda ((cons* a)) a)", "(lambda a a)");
    expect("(lambda ((list)) 1)", "(lambda '() '1)");
    expect("(lambda ((cons (cons a b) c)) a)",
           "(lambda (cons (cons a b) c) a)");
    expect("(lambda ('()) 1)", "(lambda '() '1)");
    expect_error("(lambda args 1)", 1, 9, "lambda: the parameter list must "
                 "be a list of patterns, got 'args' (a procedure takes "
                 "exactly one argument; there are no rest parameters)");
    expect_error("(lambda (a . b) 1)", 1, 9,
                 "lambda: improper parameter list '(a . b)' (there are no "
                 "rest parameters)");
    expect_error("(lambda)", 1, 1,
                 "lambda: expected (lambda (pattern ...) body)");
    expect_error("(lambda (x))", 1, 1, "lambda: body has no expression");
    expect_error("(lambda (x) 1 2)", 1, 15,
                 "lambda: body has more than one expression (a body is "
                 "definitions followed by exactly one expression; (begin e1 "
                 "e2 ...) sequences expressions)");
    expect_error("(lambda (x) (define y 1))", 1, 1,
                 "lambda: body has only definitions and no expression");
    expect_error("(lambda (x) 1 (define y 1))", 1, 15,
                 "lambda: definitions must come before the body's "
                 "expression");
    expect_error("(lambda (x x) 1)", 1, 12,
                 "lambda: variable 'x' is bound twice");
    expect_error("(lambda ((cons x (list y x))) 1)", 1, 26,
                 "lambda: variable 'x' is bound twice");
    expect_error("(lambda ((f x)) 1)", 1, 10, "malformed pattern '(f x)'...");
    expect_error("(lambda ((cons a)) 1)", 1, 10,
                 "malformed pattern '(cons a)': cons takes exactly 2 "
                 "patterns");
    expect_error("(lambda ((cons a . b)) 1)", 1, 10,
                 "malformed pattern '(cons a . b)'...");
    expect_error("(lambda (()) 1)", 1, 10,
                 "malformed pattern '()': write '() for the empty list");
    expect_error("(lambda ((quote)) 1)", 1, 10,
                 "malformed pattern '(quote)': quote takes exactly one "
                 "datum");
    expect("(lambda ('x) 1)", "(lambda 'x '1)");
    expect("(lambda (\"s\") 1)", "(lambda '\"s\" '1)");
    /* Inside patterns the constructors are never shadowed. */
    expect("(lambda (list) (lambda ((list a)) a))",
           "(lambda list (lambda (cons a '()) a))");
}

static void test_let(void)
{
    expect("(let ((x 1) (y 2)) (+ x y))",
           "(let ((x '1) (y '2)) (app + x y))");
    expect("(let () 5)", "'5");
    expect("(let (((list a b) (f))) a)",
           "(let (((cons a (cons b '())) (app f '()))) a)");
    expect("(let ((f (lambda (x) x))) f)",
           "(let ((f (lambda:f x x))) f)");
    expect("(let* () 5)", "'5");
    expect("(let* ((x 1) (y x)) y)", "(let ((x '1)) (let ((y x)) y))");
    expect("(let* ((x 1) (x x)) x)", "(let ((x '1)) (let ((x x)) x))");
    expect("(let* ((f (lambda () 1))) f)",
           "(let ((f (lambda:f '() '1))) f)");
    expect_error("(let ((x 1) (x 2)) x)", 1, 14,
                 "let: variable 'x' is bound twice");
    expect_error("(let ((x)) 1)", 1, 7,
                 "let: malformed binding (x); expected (pattern expression)");
    expect_error("(let (x) 1)", 1, 7, "let: malformed binding x...");
    expect_error("(let ((x 1 2)) 1)", 1, 7, "let: malformed binding...");
    expect_error("(let)", 1, 1,
                 "let: expected (let ((pattern expression) ...) body)");
    expect_error("(let 5 1)", 1, 6, "let: expected a list of bindings "
                 "((pattern expression) ...), got 5");
    expect_error("(let ((x 1)))", 1, 1, "let: body has no expression");
    expect_error("(let* ((x 1) (y)) 1)", 1, 14,
                 "let*: malformed binding (y); expected (pattern "
                 "expression)");
    expect_error("(let* (((list x x) 1)) 1)", 1, 17,
                 "let*: variable 'x' is bound twice");
    expect_error("(let*)", 1, 1, "let*: expected...");
    expect_error("(let* ((x 1)) 1 2)", 1, 17,
                 "let*: body has more than one expression...");
    /* inits are outside the patterns' scope (for keywords too) */
    expect_error("(let ((if 1) (y if)) y)", 1, 17,
                 "syntax keyword 'if' used as a value");
    expect("(let* ((if 1) (y if)) y)", "(let ((if '1)) (let ((y if)) y))");
}

static void test_named_let(void)
{
    expect("(let loop ((i 0) (acc 1)) (loop i acc))",
           "(letrec ((loop (lambda:loop (cons i acc) (app loop i acc)))) "
           "(app loop '0 '1))");
    expect("(let loop () (loop))",
           "(letrec ((loop (lambda:loop '() (app loop '())))) "
           "(app loop '()))");
    expect("(let loop ((x 1)) x)",
           "(letrec ((loop (lambda:loop x x))) (app loop '1))");
    /* an init naming the loop refers to the outer binding */
    expect("(let loop ((x loop)) x)",
           "(app (letrec ((loop (lambda:loop x x))) loop) loop)");
    expect("(let loop ((x (lambda (loop) loop))) x)",
           "(letrec ((loop (lambda:loop x x))) "
           "(app loop (lambda:x loop loop)))");
    expect_error("(let loop)", 1, 1,
                 "let: expected (let loop ((pattern expression) ...) body)");
    expect_error("(let loop ((x 1)))", 1, 1, "let: body has no expression");
    expect_error("(let loop ((x 1) (x 2)) x)", 1, 19,
                 "let: variable 'x' is bound twice");
    expect_error("(let loop x 1)", 1, 11, "let: expected a list of "
                 "bindings...");
}

static void test_letrec(void)
{
    expect("(letrec ((f (lambda (n) (g n))) (g (lambda (n) (f n)))) f)",
           "(letrec ((f (lambda:f n (app g n))) (g (lambda:g n (app f n)))) "
           "f)");
    expect("(letrec () 1)", "'1");
    expect("(letrec ((f (let () (lambda () 1)))) f)",
           "(letrec ((f (lambda:f '() '1))) f)");
    expect_error("(letrec ((x 1)) x)", 1, 13,
                 "letrec: the value of 'x' must be a lambda expression");
    expect_error("(letrec ((f (lambda () 1)) (f (lambda () 2))) f)", 1, 29,
                 "letrec: variable 'f' is bound twice");
    expect_error("(letrec (((list f) (lambda () 1))) f)", 1, 11,
                 "letrec: expected a variable name, got (list f)");
    expect_error("(letrec ((f)) f)", 1, 10, "letrec: malformed binding (f); "
                 "expected (name (lambda ...))");
    expect_error("(letrec)", 1, 1, "letrec: expected...");
    /* the names are in scope in the right-hand sides */
    expect_error("(letrec ((lambda (lambda (x) x))) 1)", 1, 18,
                 "letrec: the value of 'lambda' must be a lambda "
                 "expression");
}

static void test_if_cond_and_or(void)
{
    expect("(if 1 2 3)", "(if '1 '2 '3)");
    expect_error("(if 1 2)", 1, 1,
                 "if: expected 3 subforms (test, then, else), got 2");
    expect_error("(if 1 2 3 4)", 1, 1,
                 "if: expected 3 subforms (test, then, else), got 4");
    expect("(cond (a 1) (b 2) (else 3))", "(if a '1 (if b '2 '3))");
    expect("(cond (else 3))", "'3");
    expect_error("(cond)", 1, 1, "cond: the last clause must be (else e)");
    expect_error("(cond (a 1))", 1, 7, "cond: the last clause must be "
                 "(else e)");
    expect_error("(cond (else 1) (a 2))", 1, 7,
                 "cond: else must be the last clause");
    expect_error("(cond (a 1 2) (else 1))", 1, 7,
                 "cond: malformed clause (a 1 2); expected (test "
                 "expression)");
    expect_error("(cond a (else 1))", 1, 7, "cond: malformed clause a...");
    expect_error("(cond (a) (else 1))", 1, 7, "cond: malformed clause...");
    expect("(and)", "'#t");
    expect("(and a)", "a");
    expect("(and a b c)", "(if a (if b c '#f) '#f)");
    expect("(or)", "'#f");
    expect("(or a)", "a");
    expect("(or a b c)", "(or a (or b c))");
    expect("(or #f (and 1 2))", "(or '#f (if '1 '2 '#f))");
}

static void test_cons_list(void)
{
    expect("(cons 1 2)", "(cons '1 '2)");
    expect("(cons* 1 2 3)", "(cons '1 (cons '2 '3))");
    expect("(cons* 1)", "'1");
    expect("(cons*)", "'()");
    expect("(list 1 2)", "(cons '1 (cons '2 '()))");
    expect("(list)", "'()");
    expect_error("(cons 1)", 1, 1, "cons: expected 2 subforms, got 1");
    expect_error("(cons 1 2 3)", 1, 1, "cons: expected 2 subforms, got 3");
}

static void test_bodies(void)
{
    /* procedure definitions: one letrec */
    expect("(lambda (x) (define (f y) (g y)) (define (g y) (f y)) (f x))",
           "(lambda x (letrec ((f (lambda:f y (app g y))) "
           "(g (lambda:g y (app f y)))) (app f x)))");
    /* value definitions: nested lets, in order */
    expect("(lambda (x) (define a 1) (define b a) (+ a b))",
           "(lambda x (let ((a '1)) (let ((b a)) (app + a b))))");
    /* the group goes before the values when it uses none of them */
    expect("(lambda (x) (define a (f 1)) (define (f y) y) a)",
           "(lambda x (letrec ((f (lambda:f y y))) (let ((a (app f '1))) "
           "a)))");
    /* ...and right after the last value it uses */
    expect("(lambda (x) (define a 1) (define b 2) (define (f) b) "
           "(define c (f)) c)",
           "(lambda x (let ((a '1)) (let ((b '2)) (letrec ((f (lambda:f '() "
           "b))) (let ((c (app f '()))) c)))))");
    /* transitively through other group members */
    expect("(lambda (x) (define a 1) (define (f) (g)) (define b 2) "
           "(define (g) b) (f))",
           "(lambda x (let ((a '1)) (let ((b '2)) (letrec ((f (lambda:f "
           "'() (app g '()))) (g (lambda:g '() b))) (app f '())))))");
    /* a value definition whose init is a lambda is a procedure */
    expect("(lambda (x) (define f (lambda (y) y)) (f x))",
           "(lambda x (letrec ((f (lambda:f y y))) (app f x)))");
    /* curried internal definitions */
    expect("(lambda (x) (define ((f a) b) a) (f x))",
           "(lambda x (letrec ((f (lambda:f a (lambda b a)))) (app f x)))");
    /* bodies of let, let*, letrec, named let and define */
    expect("(let ((x 1)) (define y x) y)",
           "(let ((x '1)) (let ((y x)) y))");
    expect("(let* ((x 1)) (define y x) y)",
           "(let ((x '1)) (let ((y x)) y))");
    expect("(letrec ((f (lambda () 1))) (define y 2) y)",
           "(letrec ((f (lambda:f '() '1))) (let ((y '2)) y))");
    expect("(let loop ((i 0)) (define j i) j)",
           "(letrec ((loop (lambda:loop i (let ((j i)) j)))) "
           "(app loop '0))");
    expect("(define (f x) (define y x) y)",
           "(define f (lambda:f x (let ((y x)) y)))");
    expect("(let () (define y 1) y)", "(let ((y '1)) y)");
    /* shadowing: a parameter with a body-defined name is another
       variable */
    expect("(lambda (x) (define a (lambda (b) b)) (define b 1) (a b))",
           "(lambda x (letrec ((a (lambda:a b b))) (let ((b '1)) "
           "(app a b))))");
    expect("(lambda (x) (define a (let ((a 1)) a)) a)",
           "(lambda x (let ((a (let ((a '1)) a))) a))");
    /* errors */
    expect_error("(lambda (x) (define a b) (define b 1) a)", 1, 23,
                 "'b' is used before its definition");
    expect_error("(lambda (x) (define a (+ a 1)) a)", 1, 26,
                 "'a' is used before its definition");
    expect_error("(lambda (x) (define (f) b) (define b (f)) b)", 1, 39,
                 "'f' is used before its definition");
    expect_error("(lambda (x) (define (f) c) (define b (g f)) (define c 1) "
                 "b)", 1, 41, "'f' is used before its definition");
    expect_error("(lambda (x) (define a 1) (define a 2) a)", 1, 34,
                 "define: 'a' is defined twice in the same body");
    expect_error("(lambda (x) (define (a) 1) (define a 2) a)", 1, 36,
                 "define: 'a' is defined twice in the same body");
    expect_error("(lambda (x) (define x) x)", 1, 13,
                 "define: expected (define name expression) or (define "
                 "(name pattern ...) body)");
    expect_error("(lambda (x) (define (f) (define y 1)) x)", 1, 13,
                 "define: body has only definitions and no expression");
    expect_error("(lambda (x) (define (f x x) 1) x)", 1, 26,
                 "define: variable 'x' is bound twice");
    /* references inside lambdas in values before the group also count */
    expect_error("(lambda (x) (define (f) b) "
                 "(define b (let ((z 1)) (lambda (w) (f)))) b)", 1, 64,
                 "'f' is used before its definition");
    /* a define that shadows define */
    expect("(lambda (x) (define (define y) y) (define 1))",
           "(lambda x (letrec ((define (lambda:define y y))) "
           "(app define '1)))");
}

static void test_positions(void)
{
    TopForm t;
    VlDiag *dg;
    int good;
    good = run("(f)", &t, &dg) == VL_EXPAND_OK && t.kind == TOP_EXPR
           && t.pos.line == 1 && t.pos.col == 1
           && t.expr->kind == A_APP && t.expr->pos.col == 1
           && t.expr->u.app.args[0]->kind == A_CONST
           && t.expr->u.app.args[0]->u.constant->kind == D_NIL;
    ok(good, "positions of (f)", "app or its '() argument");
    good = run("(lambda (a b)\n  (g a b))", &t, &dg) == VL_EXPAND_OK
           && t.expr->kind == A_LAMBDA
           && t.expr->u.lambda.param->kind == P_CONS
           && t.expr->u.lambda.param->pos.col == 9
           && t.expr->u.lambda.param->car->pos.col == 10
           && t.expr->u.lambda.param->cdr->pos.col == 12
           && t.expr->u.lambda.body->pos.line == 2
           && t.expr->u.lambda.body->pos.col == 3
           && t.expr->u.lambda.param->source->kind == D_PAIR;
    ok(good, "positions of lambda patterns", "param or body position");
    good = run("(define (f x) x)", &t, &dg) == VL_EXPAND_OK
           && t.kind == TOP_DEFINE && strcmp(t.name->name, "f") == 0
           && t.expr->pos.col == 1
           && strcmp(t.expr->u.lambda.name, "f") == 0;
    ok(good, "define f", "name or position");
    good = run("(if 1 2)", &t, &dg) == VL_EXPAND_ERROR && dg != NULL
           && t.expr == NULL;
    ok(good, "failed expansion clears the output", "output not cleared");
}

static int run_datum_ok(Datum *d, TopForm *t, VlDiag **dg)
{
    return vl_expand_toplevel(syms, d, t, dg, NULL) == VL_EXPAND_OK;
}

/* Deep nesting and long lists must not exhaust the C stack. */
static void test_deep(void)
{
    SrcPos pos = { "t.vlad", 1, 1 };
    Symbol *f = vl_symbol_intern_c(syms, "f");
    Symbol *list = vl_symbol_intern_c(syms, "list");
    Symbol *lambda = vl_symbol_intern_c(syms, "lambda");
    Symbol *define = vl_symbol_intern_c(syms, "define");
    Datum *nil = vl_datum_nil(pos);
    TopForm t;
    VlDiag *dg;

    /* (f (f (f ... 1))) 20000 deep */
    Datum *d = vl_datum_num(pos, 1);
    for (int i = 0; i < 20000; i++)
        d = vl_datum_cons(pos, vl_datum_sym(pos, f),
                          vl_datum_cons(pos, d, nil));
    ok(run_datum_ok(d, &t, &dg), "20000 nested applications", "failed");

    /* (list 0 1 ... 199999) */
    d = nil;
    for (int i = 199999; i >= 0; i--)
        d = vl_datum_cons(pos, vl_datum_num(pos, i), d);
    d = vl_datum_cons(pos, vl_datum_sym(pos, list), d);
    int good = run_datum_ok(d, &t, &dg) && t.expr->kind == A_CONS;
    ok(good, "a 200000-element list", "failed");

    /* (lambda (x) (define v0 x) ... (define v4999 v4998) v4999) */
    char name[32];
    Datum *body = nil;
    body = vl_datum_cons(pos, vl_datum_sym(pos,
                         vl_symbol_intern_c(syms, "v4999")), body);
    for (int i = 4999; i >= 0; i--) {
        snprintf(name, sizeof name, "v%d", i);
        Datum *nm = vl_datum_sym(pos, vl_symbol_intern_c(syms, name));
        snprintf(name, sizeof name, i ? "v%d" : "x", i - 1);
        Datum *init = vl_datum_sym(pos, vl_symbol_intern_c(syms, name));
        Datum *def = vl_datum_cons(pos, vl_datum_sym(pos, define),
                                   vl_datum_cons(pos, nm,
                                                 vl_datum_cons(pos, init,
                                                               nil)));
        body = vl_datum_cons(pos, def, body);
    }
    Datum *params = vl_datum_cons(pos, vl_datum_sym(pos,
                                  vl_symbol_intern_c(syms, "x")), nil);
    d = vl_datum_cons(pos, vl_datum_sym(pos, lambda),
                      vl_datum_cons(pos, params, body));
    good = run_datum_ok(d, &t, &dg) && t.expr->kind == A_LAMBDA
           && t.expr->u.lambda.body->kind == A_LET;
    ok(good, "a body with 5000 value definitions", "failed");

    /* (lambda (x) ((lambda (x) ... x) ...)) 5000 deep, each with a
       definition */
    d = vl_datum_sym(pos, vl_symbol_intern_c(syms, "x"));
    for (int i = 0; i < 5000; i++) {
        Datum *nm = vl_datum_sym(pos, vl_symbol_intern_c(syms, "y"));
        Datum *def = vl_datum_cons(pos, vl_datum_sym(pos, define),
                                   vl_datum_cons(pos, nm,
                                                 vl_datum_cons(pos, d, nil)));
        d = vl_datum_cons(pos, vl_datum_sym(pos, lambda),
                          vl_datum_cons(pos, params,
                                        vl_datum_cons(pos, def,
                                                      vl_datum_cons(pos, nm,
                                                                    nil))));
    }
    ok(run_datum_ok(d, &t, &dg), "5000 nested bodies with definitions",
       "failed");
}

int main(void)
{
    vl_gc_init();
    syms = vl_symbol_table_new();
    test_top_level();
    test_application();
    test_constants();
    test_keywords_as_values();
    test_lambda();
    test_let();
    test_named_let();
    test_letrec();
    test_if_cond_and_or();
    test_cons_list();
    test_bodies();
    test_positions();
    test_deep();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
