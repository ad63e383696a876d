/*
 * parser/expand.c -- the expander: surface forms to the core AST
 *
 * Owns the meaning of every special form, pattern and definition form of
 * the surface language (doc/spec/language.md) and rewrites them into
 * the core of parser/ast.h:
 *
 *   (f)  (f a)  (f a b c)      app with the argument '(), a, or the n-tuple
 *   (lambda (p ...) body)      one parameter pattern: '(), p, (cons* p ...)
 *   let / named let / let*     A_LET, A_LETREC + app, nested one-binding lets
 *   cond, and                  nested A_IF;  or: nested A_OR
 *   cons* / list               nested A_CONS (list ends in the constant '())
 *   bodies with definitions    A_LETREC for the procedures, A_LET per value
 *
 * Keywords are recognised by name unless a local binding of that name is in
 * scope.  Only the keyword-named local bindings matter for this, so the
 * scope ('Env') is a list holding just those; lexical addressing of every
 * other variable is left to the compiler.
 *
 * Internal definitions (letrec*): every procedure definition of a body
 * joins one mutually recursive A_LETREC; value definitions stay in order as
 * nested one-binding A_LETs.  The group goes right after the last value
 * definition that a group lambda refers to (or before all of them), and a
 * reference that would be evaluated before its variable is bound is a
 * compile error.  A small free-variable scan over the produced AST
 * ('Scan') decides both.
 *
 * Errors: 'fail' records one diagnostic and longjmps to the setjmp in
 * vl_expand_toplevel, which is the only entry point; nothing escapes it.
 * Recursion follows the nesting of the source, with small frames; long
 * lists (arguments, bindings, clauses, list elements) are handled by loops.
 * Every recursive function over expressions, patterns or the AST checks
 * the C stack guard (parser/cstack.h) and stops with "... nested too
 * deeply" (VL_EXPAND_TOO_DEEP) before the stack is exhausted.  Quoted
 * data are checked by a loop with an explicit stack: any depth the reader
 * accepts works.
 */
#include "config.h"
#include "parser/expand.h"

#include "parser/cstack.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __GNUC__
#define EX_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define EX_PRINTF(f, a)
#endif

/* The handlers of the special forms stay out of 'expand', so that its
   frame, which is on the C stack once per nesting level, stays small. */
#ifdef __GNUC__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* Longest rendering of a form inside an error message. */
#define SHOW_MAX 60

/* ===== Context, keywords and scopes ===== */

typedef enum Keyword {
    K_NONE, K_QUOTE, K_LAMBDA, K_LET, K_LETSTAR, K_LETREC, K_IF, K_COND,
    K_ELSE, K_AND, K_OR, K_CONS, K_CONSSTAR, K_LIST, K_DEFINE, K_INCLUDE,
    K_BEGIN, K_COUNT
} Keyword;

static const char *const keyword_names[K_COUNT] = {
    NULL, "quote", "lambda", "let", "let*", "letrec", "if", "cond",
    "else", "and", "or", "cons", "cons*", "list", "define", "include",
    "begin"
};

typedef struct Ctx {
    Symbol *kw[K_COUNT];  /* the keyword symbols, indexed by Keyword */
    VlSymtab *syms;       /* for the temporaries of begin */
    VlDiag *diag;         /* the error being reported */
    int too_deep;         /* the error is the C stack guard's */
    VlCStack *cs;         /* the C stack guard */
    int depth;            /* guarded recursive calls active */
    int in_pattern;       /* pattern calls active within one pattern */
    jmp_buf fail;         /* where 'fail' jumps to */
} Ctx;

/* The keyword-named local variables in scope, innermost first. */
typedef struct Env {
    Symbol *sym;          /* a local variable spelled like a keyword */
    const struct Env *next;
} Env;

/* One definition of a body. */
typedef struct Def {
    Datum *form;          /* the (define ...) form */
    Datum *name;          /* the symbol datum it defines */
    bool proc;            /* a procedure definition (joins the letrec) */
    Ast *init;            /* the expanded value */
} Def;

/* The variables of one pattern (or of the patterns of one let), for
   reporting a variable bound twice. */
typedef struct VarSet {
    Symbol **v;           /* GC array */
    int n, cap;
} VarSet;

static _Noreturn void fail(Ctx *c, SrcPos pos, const char *fmt, ...)
    EX_PRINTF(3, 4);

/* Record the diagnostic "'fmt' at 'pos'" and abandon the expansion. */
static _Noreturn void fail(Ctx *c, SrcPos pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *msg = vl_gc_vformat(fmt, ap);
    va_end(ap);
    if (msg == NULL)
        msg = "out of memory";
    VlDiag *dg = vl_gc_alloc(sizeof *dg);
    dg->pos = pos;
    dg->message = msg;
    dg->next = NULL;
    c->diag = dg;
    longjmp(c->fail, 1);
}

/* Stop when the C stack is nearly exhausted, at the form at 'pos' ('what':
   "expression", or "pattern" when a pattern's own nesting is the deep
   part). */
static void check_stack(Ctx *c, SrcPos pos, const char *what)
{
    if (vl_cstack_exhausted(c->cs)) {
        c->too_deep = 1;
        fail(c, pos, "%s nested too deeply (the C stack is exhausted at "
             "depth %d)", what, c->depth);
    }
}

static const char *show(const Datum *d)
{
    return vl_datum_to_string(d, SHOW_MAX);
}

static Datum *car(const Datum *d)
{
    return d->u.pair.car;
}

static Datum *cdr(const Datum *d)
{
    return d->u.pair.cdr;
}

static Datum *nthcdr(Datum *d, int i)
{
    while (i-- > 0)
        d = cdr(d);
    return d;
}

static Datum *nth(Datum *d, int i)
{
    return car(nthcdr(d, i));
}

static Keyword keyword_of(const Ctx *c, const Symbol *s)
{
    for (int k = 1; k < K_COUNT; k++)
        if (c->kw[k] == s)
            return (Keyword)k;
    return K_NONE;
}

/* The keyword 's' denotes in 'env': K_NONE when 's' is no keyword or a
   local variable of that name is in scope. */
static Keyword syntax_of(const Ctx *c, const Env *env, const Symbol *s)
{
    Keyword k = keyword_of(c, s);
    if (k == K_NONE)
        return K_NONE;
    for (; env != NULL; env = env->next)
        if (env->sym == s)
            return K_NONE;
    return k;
}

/* The keyword that the combination 'd' starts with, if any. */
static Keyword head_syntax(const Ctx *c, const Env *env, const Datum *d)
{
    if (d->kind != D_PAIR || car(d)->kind != D_SYM)
        return K_NONE;
    return syntax_of(c, env, car(d)->u.sym);
}

/* 'env' extended by the local variable 's'. */
static const Env *env_push(const Ctx *c, const Env *env, Symbol *s)
{
    if (keyword_of(c, s) == K_NONE)
        return env;
    Env *e = vl_gc_alloc(sizeof *e);
    e->sym = s;
    e->next = env;
    return e;
}

/* 'env' extended by the variables of pattern 'p'. */
static const Env *env_push_subpattern(Ctx *c, const Env *env,
                                      const Pattern *p, int level)
{
    check_stack(c, p->pos, level > 0 ? "pattern" : "expression");
    for (; p->kind == P_CONS; p = p->cdr)
        env = env_push_subpattern(c, env, p->car, level + 1);
    return p->kind == P_VAR ? env_push(c, env, p->var) : env;
}

static const Env *env_push_pattern(Ctx *c, const Env *env,
                                   const Pattern *p)
{
    return env_push_subpattern(c, env, p, 0);
}

/* ===== Free-variable scan ===== */

/* Finds the free occurrences of a set of target names in an AST,
   respecting shadowing by lambda, let and letrec binders. */
typedef struct Scan {
    Ctx *c;               /* for the C stack guard */
    Symbol **keys;        /* open-addressing table of the targets */
    int *slot;            /* target index of each key */
    uint32_t mask;        /* table size - 1 */
    int *shadow;          /* per target: enclosing binders hiding it */
    bool *seen;           /* per target: it occurs free */
    bool *stop;           /* per target: stop at its first free use */
} Scan;

static void scan_init(Ctx *c, Scan *s, Symbol **names, int n)
{
    s->c = c;
    uint32_t size = 4;
    while (size < 2u * (uint32_t)n)
        size *= 2;
    s->keys = vl_gc_alloc(size * sizeof *s->keys);
    s->slot = vl_gc_alloc(size * sizeof *s->slot);
    s->mask = size - 1;
    for (int i = 0; i < n; i++) {
        uint32_t h = names[i]->hash & s->mask;
        while (s->keys[h] != NULL)
            h = (h + 1) & s->mask;
        s->keys[h] = names[i];
        s->slot[h] = i;
    }
    s->shadow = vl_gc_alloc((size_t)n * sizeof *s->shadow);
    s->seen = vl_gc_alloc((size_t)n * sizeof *s->seen);
    s->stop = vl_gc_alloc((size_t)n * sizeof *s->stop);
}

static int scan_lookup(const Scan *s, const Symbol *sym)
{
    uint32_t h = sym->hash & s->mask;
    for (; s->keys[h] != NULL; h = (h + 1) & s->mask)
        if (s->keys[h] == sym)
            return s->slot[h];
    return -1;
}

static void scan_bind(Scan *s, const Symbol *sym, int delta)
{
    int i = scan_lookup(s, sym);
    if (i >= 0)
        s->shadow[i] += delta;
}

static void scan_bind_subpattern(Scan *s, const Pattern *p, int delta,
                                 int level)
{
    check_stack(s->c, p->pos, level > 0 ? "pattern" : "expression");
    for (; p->kind == P_CONS; p = p->cdr)
        scan_bind_subpattern(s, p->car, delta, level + 1);
    if (p->kind == P_VAR)
        scan_bind(s, p->var, delta);
}

static void scan_bind_pattern(Scan *s, const Pattern *p, int delta)
{
    scan_bind_subpattern(s, p, delta, 0);
}

/* Mark the targets occurring free in 'a' as seen; return the first free
   occurrence (an A_VAR) of a target marked 'stop', or NULL.  After a
   non-NULL return the shadow counts are left unbalanced (the caller
   reports an error and drops the Scan). */
static Ast *scan(Scan *s, Ast *a)
{
    Ast *r;
    check_stack(s->c, a->pos, "expression");
    for (;;) {
        switch (a->kind) {
        case A_CONST:
            return NULL;
        case A_VAR: {
            int i = scan_lookup(s, a->u.var);
            if (i >= 0 && s->shadow[i] == 0) {
                s->seen[i] = true;
                if (s->stop[i])
                    return a;
            }
            return NULL;
        }
        case A_LAMBDA:
            scan_bind_pattern(s, a->u.lambda.param, 1);
            if ((r = scan(s, a->u.lambda.body)) != NULL)
                return r;
            scan_bind_pattern(s, a->u.lambda.param, -1);
            return NULL;
        case A_APP:
            if ((r = scan(s, a->u.app.fn)) != NULL)
                return r;
            for (int i = 0; i < a->u.app.nargs; i++)
                if ((r = scan(s, a->u.app.args[i])) != NULL)
                    return r;
            return NULL;
        case A_IF:
            if ((r = scan(s, a->u.if_.test)) != NULL
                || (r = scan(s, a->u.if_.then)) != NULL)
                return r;
            a = a->u.if_.els;
            break;
        case A_OR:
            if ((r = scan(s, a->u.or_.first)) != NULL)
                return r;
            a = a->u.or_.second;
            break;
        case A_LET:
            for (int i = 0; i < a->u.let.n; i++)
                if ((r = scan(s, a->u.let.inits[i])) != NULL)
                    return r;
            for (int i = 0; i < a->u.let.n; i++)
                scan_bind_pattern(s, a->u.let.pats[i], 1);
            if ((r = scan(s, a->u.let.body)) != NULL)
                return r;
            for (int i = 0; i < a->u.let.n; i++)
                scan_bind_pattern(s, a->u.let.pats[i], -1);
            return NULL;
        case A_LETREC:
            for (int i = 0; i < a->u.letrec.n; i++)
                scan_bind(s, a->u.letrec.names[i], 1);
            for (int i = 0; i < a->u.letrec.n; i++)
                if ((r = scan(s, a->u.letrec.lambdas[i])) != NULL)
                    return r;
            if ((r = scan(s, a->u.letrec.body)) != NULL)
                return r;
            for (int i = 0; i < a->u.letrec.n; i++)
                scan_bind(s, a->u.letrec.names[i], -1);
            return NULL;
        case A_CONS:
            if ((r = scan(s, a->u.cons.car)) != NULL)
                return r;
            a = a->u.cons.cdr;
            break;
        }
    }
}

/* ===== Quoted data and patterns ===== */

/* Add the variable named by the symbol datum 'd' to 'vs'; a variable
   already there is an error. */
static void varset_add(Ctx *c, const char *who, VarSet *vs, const Datum *d)
{
    Symbol *s = d->u.sym;
    for (int i = 0; i < vs->n; i++)
        if (vs->v[i] == s)
            fail(c, d->pos, "%s: variable '%s' is bound twice", who,
                 s->name);
    if (vs->n == vs->cap) {
        vs->cap = vs->cap ? 2 * vs->cap : 8;
        vs->v = vl_gc_realloc(vs->v, (size_t)vs->cap * sizeof *vs->v);
    }
    vs->v[vs->n++] = s;
}

static _Noreturn void bad_pattern(Ctx *c, const Datum *d, const char *why)
{
    fail(c, d->pos, "malformed pattern '%s': %s", show(d), why);
}

#define PATTERN_FORMS "expected a variable, a number, #t, #f, a quoted " \
    "value, (cons p q), (cons* p ...) or (list p ...)"

static Pattern *pattern(Ctx *c, const char *who, VarSet *vs, Datum *d);

/* Right-nest 'pats[0..n-1]' (written as the elements of the list 'l') into
   P_CONS nodes ending in 'tail', or in the last pattern when 'tail' is
   NULL.  The outermost node is attributed to 'outer'. */
static Pattern *fold_patterns(Datum *outer, Datum *l, Pattern **pats, int n,
                              Pattern *tail)
{
    if (n == 0)
        return tail;
    Datum **subs = vl_gc_alloc((size_t)n * sizeof *subs);
    for (int i = 0; i < n; i++, l = cdr(l))
        subs[i] = l;
    subs[0] = outer;
    int i = n - 1;
    Pattern *acc = tail != NULL ? tail : pats[i--];
    for (; i >= 0; i--)
        acc = vl_ast_pat_cons(subs[i]->pos, subs[i], pats[i], acc);
    return acc;
}

/* The patterns written as the 'n' elements of list 'l' (inside the form
   'outer'), right-nested; with 'nil_tail' the chain ends in '() as for
   (list p ...), else in the last pattern as for (cons* p ...). */
static Pattern *pattern_list(Ctx *c, const char *who, VarSet *vs,
                             Datum *outer, Datum *l, int n, bool nil_tail)
{
    Pattern **pats = vl_gc_alloc((size_t)(n > 0 ? n : 1) * sizeof *pats);
    Datum *e = l;
    for (int i = 0; i < n; i++, e = cdr(e))
        pats[i] = pattern(c, who, vs, car(e));
    Pattern *tail = NULL;
    if (nil_tail)
        tail = n == 0 ? vl_ast_pat_const(outer->pos, outer, e)
                      : vl_ast_pat_const(e->pos, e, e);
    return fold_patterns(outer, l, pats, n, tail);
}

/* The pattern written as 'd'; its variables are added to 'vs'.  Inside a
   pattern quote, cons, cons* and list are always the constructors. */
static Pattern *pattern_datum(Ctx *c, const char *who, VarSet *vs, Datum *d)
{
    switch (d->kind) {
    case D_SYM:
        varset_add(c, who, vs, d);
        return vl_ast_pat_var(d->pos, d, d->u.sym);
    case D_NUM:
    case D_BOOL:
        return vl_ast_pat_const(d->pos, d, d);
    case D_NIL:
        bad_pattern(c, d, "write '() for the empty list");
    case D_STR:
        return vl_ast_pat_const(d->pos, d, d);
    case D_PAIR:
        break;
    }
    int len = vl_datum_list_length(d);
    Keyword k = K_NONE;
    if (len > 0 && car(d)->kind == D_SYM)
        k = keyword_of(c, car(d)->u.sym);
    switch (k) {
    case K_QUOTE:
        if (len != 2)
            bad_pattern(c, d, "quote takes exactly one datum");
        return vl_ast_pat_const(d->pos, d, nth(d, 1));
    case K_CONS: {
        if (len != 3)
            bad_pattern(c, d, "cons takes exactly 2 patterns");
        Pattern *a = pattern(c, who, vs, nth(d, 1));
        Pattern *b = pattern(c, who, vs, nth(d, 2));
        return vl_ast_pat_cons(d->pos, d, a, b);
    }
    case K_CONSSTAR:
        if (len == 1)
            return vl_ast_pat_const(d->pos, d, cdr(d));
        return pattern_list(c, who, vs, d, cdr(d), len - 1, false);
    case K_LIST:
        return pattern_list(c, who, vs, d, cdr(d), len - 1, true);
    default:
        bad_pattern(c, d, PATTERN_FORMS);
    }
}

static Pattern *pattern(Ctx *c, const char *who, VarSet *vs, Datum *d)
{
    check_stack(c, d->pos, c->in_pattern > 0 ? "pattern" : "expression");
    c->depth++;
    c->in_pattern++;
    Pattern *p = pattern_datum(c, who, vs, d);
    c->in_pattern--;
    c->depth--;
    return p;
}

/* The parameter pattern of a procedure whose parameter list is 'params':
   '() for (), p for (p), (cons* p ...) otherwise. */
static Pattern *params_pattern(Ctx *c, const char *who, Datum *params)
{
    VarSet vs = { NULL, 0, 0 };
    if (params->kind == D_NIL)
        return vl_ast_pat_const(params->pos, params, params);
    if (params->kind != D_PAIR)
        fail(c, params->pos, "%s: the parameter list must be a list of "
             "patterns, got '%s' (a procedure takes exactly one argument; "
             "there are no rest parameters)", who, show(params));
    int n = vl_datum_list_length(params);
    if (n < 0)
        fail(c, params->pos, "%s: improper parameter list '%s' (there are "
             "no rest parameters)", who, show(params));
    return pattern_list(c, who, &vs, params, params, n, false);
}

/* ===== Expressions ===== */

static Ast *expand(Ctx *c, const Env *env, Datum *d);
static NOINLINE Ast *expand_body(Ctx *c, const Env *env, const char *who,
                                 Datum *form, Datum *forms);

/* Give the procedure 'a' (when it is one) the name it is bound to. */
static void name_lambda(Ast *a, const Symbol *name)
{
    if (a->kind == A_LAMBDA && a->u.lambda.name == NULL)
        a->u.lambda.name = name->name;
}

static Ast *nil_const(SrcPos pos)
{
    return vl_ast_const(pos, vl_datum_nil(pos));
}

static NOINLINE Ast *expand_symbol(Ctx *c, const Env *env, Datum *d)
{
    Keyword k = syntax_of(c, env, d->u.sym);
    /* 'cons' is also the name of a primitive procedure. */
    if (k != K_NONE && k != K_CONS)
        fail(c, d->pos, "syntax keyword '%s' used as a value",
             d->u.sym->name);
    return vl_ast_var(d->pos, d->u.sym);
}

/* (f), (f a) or (f a b ...): 'len' is the length of 'form'. */
static NOINLINE Ast *expand_app(Ctx *c, const Env *env, Datum *form, int len)
{
    Ast *fn = expand(c, env, car(form));
    int nargs = len > 1 ? len - 1 : 1;
    Ast **args = vl_gc_alloc((size_t)nargs * sizeof *args);
    if (len == 1) {
        args[0] = nil_const(form->pos);
    } else {
        Datum *e = cdr(form);
        for (int i = 0; i < nargs; i++, e = cdr(e))
            args[i] = expand(c, env, car(e));
    }
    return vl_ast_app(form->pos, fn, nargs, args);
}

static NOINLINE Ast *expand_quote(Ctx *c, Datum *form, int len)
{
    if (len != 2)
        fail(c, form->pos, "quote: expected exactly one datum, got %d",
             len - 1);
    return vl_ast_const(form->pos, nth(form, 1));
}

static NOINLINE Ast *expand_lambda(Ctx *c, const Env *env, Datum *form, int len)
{
    if (len < 2)
        fail(c, form->pos, "lambda: expected (lambda (pattern ...) body)");
    Pattern *p = params_pattern(c, "lambda", nth(form, 1));
    const Env *inner = env_push_pattern(c, env, p);
    Ast *body = expand_body(c, inner, "lambda", form, nthcdr(form, 2));
    return vl_ast_lambda(form->pos, p, body, NULL);
}

/* The number of bindings in the binding list 'b' of a let-like form. */
static int bindings_length(Ctx *c, const char *who, Datum *b)
{
    int n = -1;
    if (b->kind == D_NIL || b->kind == D_PAIR)
        n = vl_datum_list_length(b);
    if (n < 0)
        fail(c, b->pos, "%s: expected a list of bindings "
             "((pattern expression) ...), got %s", who, show(b));
    return n;
}

static void check_binding(Ctx *c, const char *who, Datum *b,
                          const char *shape)
{
    if (b->kind != D_PAIR || vl_datum_list_length(b) != 2)
        fail(c, b->pos, "%s: malformed binding %s; expected %s", who,
             show(b), shape);
}

/* The 'n' (pattern init) bindings of a let or named let: the patterns
   share 'vs', the inits are expanded in 'env'. */
static void let_bindings(Ctx *c, const Env *env, Datum *bindings, int n,
                         VarSet *vs, Pattern **pats, Ast **inits)
{
    Datum *e = bindings;
    for (int i = 0; i < n; i++, e = cdr(e)) {
        Datum *b = car(e);
        check_binding(c, "let", b, "(pattern expression)");
        pats[i] = pattern(c, "let", vs, car(b));
        inits[i] = expand(c, env, nth(b, 1));
        if (pats[i]->kind == P_VAR)
            name_lambda(inits[i], pats[i]->var);
    }
}

/* Whether 'name' occurs free in one of 'xs[0..n-1]'. */
static bool occurs_free(Ctx *c, Symbol *name, Ast **xs, int n)
{
    Scan s;
    scan_init(c, &s, &name, 1);
    for (int i = 0; i < n; i++)
        scan(&s, xs[i]);
    return s.seen[0];
}

/* (let name ((p e) ...) body): a local recursive procedure applied to the
   inits, which are evaluated outside the scope of 'name'. */
static NOINLINE Ast *expand_named_let(Ctx *c, const Env *env, Datum *form,
                                      int len)
{
    Datum *name = nth(form, 1);
    Symbol *sym = name->u.sym;
    if (len < 3)
        fail(c, form->pos, "let: expected (let %s ((pattern expression) "
             "...) body)", sym->name);
    Datum *bindings = nth(form, 2);
    int n = bindings_length(c, "let", bindings);
    VarSet vs = { NULL, 0, 0 };
    int nargs = n > 0 ? n : 1;
    Pattern **pats = vl_gc_alloc((size_t)nargs * sizeof *pats);
    Ast **args = vl_gc_alloc((size_t)nargs * sizeof *args);
    let_bindings(c, env, bindings, n, &vs, pats, args);

    Pattern *param;
    if (n == 0) {
        param = vl_ast_pat_const(bindings->pos, bindings, bindings);
        args[0] = nil_const(bindings->pos);
    } else {
        /* The parameter list as if written (lambda (p ...) ...). */
        Datum *srcs = vl_datum_nil(bindings->pos);
        for (int i = n - 1; i >= 0; i--)
            srcs = vl_datum_cons(i == 0 ? bindings->pos : pats[i]->pos,
                                 pats[i]->source, srcs);
        param = fold_patterns(srcs, srcs, pats, n, NULL);
    }
    const Env *inner = env_push_pattern(c, env_push(c, env, sym), param);
    Ast *body = expand_body(c, inner, "let", form, nthcdr(form, 3));

    Symbol **names = vl_gc_alloc(sizeof *names);
    Ast **lambdas = vl_gc_alloc(sizeof *lambdas);
    names[0] = sym;
    lambdas[0] = vl_ast_lambda(form->pos, param, body, sym->name);
    Ast *self = vl_ast_var(name->pos, sym);
    if (occurs_free(c, sym, args, nargs)) {
        /* ((letrec ((name (lambda ...))) name) init ...) */
        Ast *proc = vl_ast_letrec(form->pos, 1, names, lambdas, self);
        return vl_ast_app(form->pos, proc, nargs, args);
    }
    Ast *call = vl_ast_app(form->pos, self, nargs, args);
    return vl_ast_letrec(form->pos, 1, names, lambdas, call);
}

static NOINLINE Ast *expand_let(Ctx *c, const Env *env, Datum *form, int len)
{
    if (len < 2)
        fail(c, form->pos, "let: expected (let ((pattern expression) ...) "
             "body)");
    Datum *bindings = nth(form, 1);
    if (bindings->kind == D_SYM)
        return expand_named_let(c, env, form, len);
    int n = bindings_length(c, "let", bindings);
    if (n == 0)
        return expand_body(c, env, "let", form, nthcdr(form, 2));
    VarSet vs = { NULL, 0, 0 };
    Pattern **pats = vl_gc_alloc((size_t)n * sizeof *pats);
    Ast **inits = vl_gc_alloc((size_t)n * sizeof *inits);
    let_bindings(c, env, bindings, n, &vs, pats, inits);
    const Env *inner = env;
    for (int i = 0; i < n; i++)
        inner = env_push_pattern(c, inner, pats[i]);
    Ast *body = expand_body(c, inner, "let", form, nthcdr(form, 2));
    return vl_ast_let(form->pos, n, pats, inits, body);
}

/* (let* ((p e) ...) body): one A_LET per binding, innermost last. */
static NOINLINE Ast *expand_letstar(Ctx *c, const Env *env, Datum *form,
                                    int len)
{
    if (len < 2)
        fail(c, form->pos, "let*: expected (let* ((pattern expression) "
             "...) body)");
    Datum *bindings = nth(form, 1);
    int n = bindings_length(c, "let*", bindings);
    if (n == 0)
        return expand_body(c, env, "let*", form, nthcdr(form, 2));
    Datum **bs = vl_gc_alloc((size_t)n * sizeof *bs);
    Pattern **pats = vl_gc_alloc((size_t)n * sizeof *pats);
    Ast **inits = vl_gc_alloc((size_t)n * sizeof *inits);
    Datum *e = bindings;
    for (int i = 0; i < n; i++, e = cdr(e)) {
        VarSet vs = { NULL, 0, 0 };
        bs[i] = car(e);
        check_binding(c, "let*", bs[i], "(pattern expression)");
        pats[i] = pattern(c, "let*", &vs, car(bs[i]));
        inits[i] = expand(c, env, nth(bs[i], 1));
        if (pats[i]->kind == P_VAR)
            name_lambda(inits[i], pats[i]->var);
        env = env_push_pattern(c, env, pats[i]);
    }
    Ast *body = expand_body(c, env, "let*", form, nthcdr(form, 2));
    for (int i = n - 1; i >= 0; i--) {
        Pattern **p1 = vl_gc_alloc(sizeof *p1);
        Ast **i1 = vl_gc_alloc(sizeof *i1);
        p1[0] = pats[i];
        i1[0] = inits[i];
        body = vl_ast_let(i == 0 ? form->pos : bs[i]->pos, 1, p1, i1, body);
    }
    return body;
}

static NOINLINE Ast *expand_letrec(Ctx *c, const Env *env, Datum *form, int len)
{
    if (len < 2)
        fail(c, form->pos, "letrec: expected (letrec ((name (lambda ...)) "
             "...) body)");
    Datum *bindings = nth(form, 1);
    int n = bindings_length(c, "letrec", bindings);
    if (n == 0)
        return expand_body(c, env, "letrec", form, nthcdr(form, 2));
    Symbol **names = vl_gc_alloc((size_t)n * sizeof *names);
    Ast **lambdas = vl_gc_alloc((size_t)n * sizeof *lambdas);
    VarSet vs = { NULL, 0, 0 };
    const Env *inner = env;
    Datum *e = bindings;
    for (int i = 0; i < n; i++, e = cdr(e)) {
        Datum *b = car(e);
        check_binding(c, "letrec", b, "(name (lambda ...))");
        if (car(b)->kind != D_SYM)
            fail(c, car(b)->pos, "letrec: expected a variable name, got %s",
                 show(car(b)));
        varset_add(c, "letrec", &vs, car(b));
        names[i] = car(b)->u.sym;
        inner = env_push(c, inner, names[i]);
    }
    e = bindings;
    for (int i = 0; i < n; i++, e = cdr(e)) {
        Datum *rhs = nth(car(e), 1);
        lambdas[i] = expand(c, inner, rhs);
        if (lambdas[i]->kind != A_LAMBDA)
            fail(c, rhs->pos, "letrec: the value of '%s' must be a lambda "
                 "expression", names[i]->name);
        name_lambda(lambdas[i], names[i]);
    }
    Ast *body = expand_body(c, inner, "letrec", form, nthcdr(form, 2));
    return vl_ast_letrec(form->pos, n, names, lambdas, body);
}

static NOINLINE Ast *expand_if(Ctx *c, const Env *env, Datum *form, int len)
{
    if (len != 4)
        fail(c, form->pos, "if: expected 3 subforms (test, then, else), "
             "got %d", len - 1);
    Ast *test = expand(c, env, nth(form, 1));
    Ast *then = expand(c, env, nth(form, 2));
    Ast *els = expand(c, env, nth(form, 3));
    return vl_ast_if(form->pos, test, then, els);
}

/* (cond (t1 e1) ... (else e)): nested A_IF. */
static NOINLINE Ast *expand_cond(Ctx *c, const Env *env, Datum *form, int len)
{
    int n = len - 1;
    if (n == 0)
        fail(c, form->pos, "cond: the last clause must be (else e)");
    Datum **clauses = vl_gc_alloc((size_t)n * sizeof *clauses);
    Ast **tests = vl_gc_alloc((size_t)n * sizeof *tests);
    Ast **exprs = vl_gc_alloc((size_t)n * sizeof *exprs);
    Datum *e = cdr(form);
    for (int i = 0; i < n; i++, e = cdr(e)) {
        Datum *cl = clauses[i] = car(e);
        if (cl->kind != D_PAIR || vl_datum_list_length(cl) != 2)
            fail(c, cl->pos, "cond: malformed clause %s; expected (test "
                 "expression)", show(cl));
        bool is_else = car(cl)->kind == D_SYM
                       && syntax_of(c, env, car(cl)->u.sym) == K_ELSE;
        if (is_else && i < n - 1)
            fail(c, cl->pos, "cond: else must be the last clause");
        if (!is_else && i == n - 1)
            fail(c, cl->pos, "cond: the last clause must be (else e)");
        tests[i] = is_else ? NULL : expand(c, env, car(cl));
        exprs[i] = expand(c, env, nth(cl, 1));
    }
    Ast *acc = exprs[n - 1];
    for (int i = n - 2; i >= 0; i--)
        acc = vl_ast_if(i == 0 ? form->pos : clauses[i]->pos, tests[i],
                        exprs[i], acc);
    return acc;
}

/* The n subforms after the head of form, expanded in order; *tail (if
   not NULL) gets the datum that ends the list. */
static Ast **expand_subforms(Ctx *c, const Env *env, Datum *form, int n,
                             Datum **tail)
{
    Ast **xs = vl_gc_alloc((size_t)n * sizeof *xs);
    Datum *e = cdr(form);
    for (int i = 0; i < n; i++, e = cdr(e))
        xs[i] = expand(c, env, car(e));
    if (tail != NULL)
        *tail = e;
    return xs;
}

/* (and e ...) as nested A_IF, (or e ...) as nested A_OR. */
static NOINLINE Ast *expand_and_or(Ctx *c, const Env *env, Datum *form,
                                   int len, bool is_and)
{
    int n = len - 1;
    if (n == 0)
        return vl_ast_const(form->pos, vl_datum_bool(form->pos, is_and));
    Ast **xs = expand_subforms(c, env, form, n, NULL);
    Ast *acc = xs[n - 1];
    for (int i = n - 2; i >= 0; i--) {
        SrcPos pos = i == 0 ? form->pos : xs[i]->pos;
        if (is_and)
            acc = vl_ast_if(pos, xs[i], acc,
                            vl_ast_const(pos, vl_datum_bool(pos, false)));
        else
            acc = vl_ast_or(pos, xs[i], acc);
    }
    return acc;
}

/* (cons* e ...) (nil_tail false) or (list e ...) (nil_tail true). */
static NOINLINE Ast *expand_cons_chain(Ctx *c, const Env *env, Datum *form,
                                       int len, bool nil_tail)
{
    int n = len - 1;
    if (n == 0)
        return nil_const(form->pos);
    Datum *e;
    Ast **xs = expand_subforms(c, env, form, n, &e);
    int i = n - 1;
    Ast *acc = nil_tail ? nil_const(e->pos) : xs[i--];
    for (; i >= 0; i--)
        acc = vl_ast_cons(i == 0 ? form->pos : xs[i]->pos, xs[i], acc);
    return acc;
}

static NOINLINE Ast *expand_cons(Ctx *c, const Env *env, Datum *form, int len)
{
    if (len != 3)
        fail(c, form->pos, "cons: expected 2 subforms, got %d", len - 1);
    Ast *a = expand(c, env, nth(form, 1));
    Ast *b = expand(c, env, nth(form, 2));
    return vl_ast_cons(form->pos, a, b);
}

/* (begin e1 ... en): e1 ... en in order, the value of en (in tail
   position): (let ((t1 e1)) ... en) with fresh variables. */
static NOINLINE Ast *expand_begin(Ctx *c, const Env *env, Datum *form,
                                  int len)
{
    if (len < 2)
        fail(c, form->pos, "begin: expected at least one expression");
    int n = len - 1;
    Ast **xs = expand_subforms(c, env, form, n, NULL);
    Ast *acc = xs[n - 1];
    for (int i = n - 2; i >= 0; i--) {
        Pattern **p = vl_gc_alloc(sizeof *p);
        Ast **init = vl_gc_alloc(sizeof *init);
        Symbol *t = vl_symbol_gensym(c->syms, "begin");
        p[0] = vl_ast_pat_var(xs[i]->pos, vl_datum_sym(xs[i]->pos, t), t);
        init[0] = xs[i];
        acc = vl_ast_let(i == 0 ? form->pos : xs[i]->pos, 1, p, init, acc);
    }
    return acc;
}

/* The expression 'd' in the scope 'env'. */
static Ast *expand_datum(Ctx *c, const Env *env, Datum *d)
{
    switch (d->kind) {
    case D_NUM:
    case D_BOOL:
    case D_STR:
        return vl_ast_const(d->pos, d);
    case D_SYM:
        return expand_symbol(c, env, d);
    case D_NIL:
        fail(c, d->pos, "empty combination (); write '() for the empty "
             "list");
    case D_PAIR:
        break;
    }
    int len = vl_datum_list_length(d);
    if (len < 0)
        fail(c, d->pos, "dotted list %s is not an expression", show(d));
    switch (head_syntax(c, env, d)) {
    case K_QUOTE:
        return expand_quote(c, d, len);
    case K_LAMBDA:
        return expand_lambda(c, env, d, len);
    case K_LET:
        return expand_let(c, env, d, len);
    case K_LETSTAR:
        return expand_letstar(c, env, d, len);
    case K_LETREC:
        return expand_letrec(c, env, d, len);
    case K_IF:
        return expand_if(c, env, d, len);
    case K_COND:
        return expand_cond(c, env, d, len);
    case K_AND:
        return expand_and_or(c, env, d, len, true);
    case K_OR:
        return expand_and_or(c, env, d, len, false);
    case K_CONS:
        return expand_cons(c, env, d, len);
    case K_CONSSTAR:
        return expand_cons_chain(c, env, d, len, false);
    case K_LIST:
        return expand_cons_chain(c, env, d, len, true);
    case K_BEGIN:
        return expand_begin(c, env, d, len);
    case K_ELSE:
        fail(c, d->pos, "'else' is only allowed as the test of the last "
             "clause of cond");
    case K_DEFINE:
        fail(c, d->pos, "definition not allowed here");
    case K_INCLUDE:
        fail(c, d->pos, "include is only allowed at top level");
    case K_NONE:
    case K_COUNT:
        break;
    }
    return expand_app(c, env, d, len);
}

static Ast *expand(Ctx *c, const Env *env, Datum *d)
{
    check_stack(c, d->pos, "expression");
    c->depth++;
    Ast *a = expand_datum(c, env, d);
    c->depth--;
    return a;
}

/* ===== Definitions and bodies ===== */

/* Check the shape of the definition 'form' and return the symbol datum
   naming the variable it defines. */
static Datum *define_name(Ctx *c, Datum *form)
{
    int len = vl_datum_list_length(form);
    if (len < 0)
        fail(c, form->pos, "define: malformed definition %s", show(form));
    Datum *target = len >= 2 ? nth(form, 1) : form;
    if (len < 2 || (len == 2 && target->kind != D_PAIR))
        fail(c, form->pos, "define: expected (define name expression) or "
             "(define (name pattern ...) body)");
    Datum *t = target;
    while (t->kind == D_PAIR)
        t = car(t);
    if (t->kind != D_SYM)
        fail(c, t->pos, "define: expected a name or (name pattern ...), "
             "got %s", show(target));
    if (t == target && len != 3)
        fail(c, nth(form, 3)->pos, "define: expected exactly one "
             "expression after '%s', got %d", t->u.sym->name, len - 2);
    return t;
}

/* The procedure of level 'i' of the curried definition 'form' whose
   targets are 'levels' (levels[0] is the innermost, holding the first
   parameter list written). */
static Ast *define_lambda(Ctx *c, const Env *env, Datum *form,
                          Datum **levels, int i)
{
    check_stack(c, levels[i]->pos, "expression");
    Pattern *p = params_pattern(c, "define", cdr(levels[i]));
    const Env *inner = env_push_pattern(c, env, p);
    Ast *body = i == 0
        ? expand_body(c, inner, "define", form, nthcdr(form, 2))
        : define_lambda(c, inner, form, levels, i - 1);
    return vl_ast_lambda(levels[i]->pos, p, body, NULL);
}

/* The value bound by the definition 'form' (already checked by
   define_name) in the scope 'env'; '*proc' tells whether it is a
   procedure definition. */
static NOINLINE Ast *define_value(Ctx *c, const Env *env, Datum *form,
                                  bool *proc)
{
    Datum *target = nth(form, 1);
    if (target->kind == D_SYM) {
        Ast *v = expand(c, env, nth(form, 2));
        name_lambda(v, target->u.sym);
        *proc = v->kind == A_LAMBDA;
        return v;
    }
    /* (define ((f a) b) body) = (define f (lambda (a) (lambda (b) body)))
       with levels = { ((f a) b), (f a) } */
    int depth = 0;
    Datum *t;
    for (t = target; t->kind == D_PAIR; t = car(t))
        depth++;
    Datum **levels = vl_gc_alloc((size_t)depth * sizeof *levels);
    depth = 0;
    for (t = target; t->kind == D_PAIR; t = car(t))
        levels[depth++] = t;
    Ast *v = define_lambda(c, env, form, levels, depth - 1);
    v->pos = form->pos;
    name_lambda(v, t->u.sym);
    *proc = true;
    return v;
}

static bool is_definition(const Ctx *c, const Env *env, const Datum *d)
{
    return head_syntax(c, env, d) == K_DEFINE;
}

static Ast *value_let(Def *d, Ast *body)
{
    Pattern **p = vl_gc_alloc(sizeof *p);
    Ast **init = vl_gc_alloc(sizeof *init);
    p[0] = vl_ast_pat_var(d->name->pos, d->name, d->name->u.sym);
    init[0] = d->init;
    return vl_ast_let(d->form->pos, 1, p, init, body);
}

/* Assemble the definitions 'defs[0..n-1]' of a body around its expanded
   expression 'body' (see the header comment), checking that no reference
   is evaluated before its variable is bound. */
static NOINLINE Ast *assemble_body(Ctx *c, Def *defs, int n, Ast *body)
{
    Symbol **names = vl_gc_alloc((size_t)n * sizeof *names);
    int nproc = 0;
    for (int i = 0; i < n; i++) {
        names[i] = defs[i].name->u.sym;
        nproc += defs[i].proc;
    }
    Scan s;
    scan_init(c, &s, names, n);

    /* The group follows the last value definition its lambdas use. */
    for (int i = 0; i < n; i++)
        if (defs[i].proc)
            scan(&s, defs[i].init);
    int split = -1;
    for (int i = 0; i < n; i++)
        if (!defs[i].proc && s.seen[i])
            split = i;

    /* A value's init is evaluated before its own and later values are
       bound, and before the group when it precedes the group. */
    for (int i = 0; i < n; i++) {
        if (defs[i].proc)
            continue;
        for (int j = 0; j < n; j++)
            s.stop[j] = defs[j].proc ? i <= split : j >= i;
        Ast *bad = scan(&s, defs[i].init);
        if (bad != NULL)
            fail(c, bad->pos, "'%s' is used before its definition",
                 bad->u.var->name);
    }

    Ast *acc = body;
    for (int i = n - 1; i > split; i--)
        if (!defs[i].proc)
            acc = value_let(&defs[i], acc);
    if (nproc > 0) {
        Symbol **gnames = vl_gc_alloc((size_t)nproc * sizeof *gnames);
        Ast **lambdas = vl_gc_alloc((size_t)nproc * sizeof *lambdas);
        SrcPos pos = { NULL, 0, 0 };
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (!defs[i].proc)
                continue;
            if (k == 0)
                pos = defs[i].form->pos;
            gnames[k] = names[i];
            lambdas[k++] = defs[i].init;
        }
        acc = vl_ast_letrec(pos, nproc, gnames, lambdas, acc);
    }
    for (int i = split; i >= 0; i--)
        if (!defs[i].proc)
            acc = value_let(&defs[i], acc);
    return acc;
}

/* The body 'forms' of 'form' (a 'who' form) in the scope 'env': zero or
   more definitions followed by exactly one expression. */
static NOINLINE Ast *expand_body(Ctx *c, const Env *env, const char *who,
                                 Datum *form, Datum *forms)
{
    Def *defs = NULL;
    int n = 0, cap = 0;
    const Env *inner = env;
    Datum *e = forms;
    for (; e->kind == D_PAIR && is_definition(c, inner, car(e)); e = cdr(e)) {
        Datum *name = define_name(c, car(e));
        for (int i = 0; i < n; i++)
            if (defs[i].name->u.sym == name->u.sym)
                fail(c, name->pos, "define: '%s' is defined twice in the "
                     "same body", name->u.sym->name);
        if (n == cap) {
            cap = cap ? 2 * cap : 4;
            defs = vl_gc_realloc(defs, (size_t)cap * sizeof *defs);
        }
        defs[n].form = car(e);
        defs[n].name = name;
        defs[n].proc = false;
        defs[n].init = NULL;
        n++;
        inner = env_push(c, inner, name->u.sym);
    }
    if (e->kind != D_PAIR) {
        if (n > 0)
            fail(c, form->pos, "%s: body has only definitions and no "
                 "expression", who);
        fail(c, form->pos, "%s: body has no expression", who);
    }
    Datum *expr = car(e);
    if (cdr(e)->kind == D_PAIR) {
        Datum *extra = car(cdr(e));
        if (is_definition(c, inner, extra))
            fail(c, extra->pos, "%s: definitions must come before the "
                 "body's expression", who);
        fail(c, extra->pos, "%s: body has more than one expression (a body "
             "is definitions followed by exactly one expression; "
             "(begin e1 e2 ...) sequences expressions)", who);
    }
    if (n == 0)
        return expand(c, env, expr);
    for (int i = 0; i < n; i++)
        defs[i].init = define_value(c, inner, defs[i].form, &defs[i].proc);
    return assemble_body(c, defs, n, expand(c, inner, expr));
}

/* ===== Top level ===== */

static void expand_top(Ctx *c, Datum *form, TopForm *out)
{
    TopForm t;
    memset(&t, 0, sizeof t);
    t.pos = form->pos;
    switch (head_syntax(c, NULL, form)) {
    case K_DEFINE: {
        Datum *name = define_name(c, form);
        if (keyword_of(c, name->u.sym) != K_NONE)
            fail(c, name->pos, "cannot define '%s': it is a syntax keyword",
                 name->u.sym->name);
        bool proc;
        t.kind = TOP_DEFINE;
        t.name = name->u.sym;
        t.expr = define_value(c, NULL, form, &proc);
        break;
    }
    case K_INCLUDE:
        if (vl_datum_list_length(form) != 2 || nth(form, 1)->kind != D_STR)
            fail(c, form->pos, "include: expected (include \"name\") with "
                 "exactly one string");
        t.kind = TOP_INCLUDE;
        t.include_name = nth(form, 1)->u.str;
        break;
    default:
        t.kind = TOP_EXPR;
        t.expr = expand(c, NULL, form);
        break;
    }
    *out = t;
}

VlExpandStatus vl_expand_toplevel(VlSymtab *syms, Datum *form,
                                  TopForm *out, VlDiag **diag, VlCStack *cs)
{
    /* In the heap, so that nothing 'fail' changes lives in a local of
       this frame across the longjmp. */
    Ctx *c = vl_gc_alloc(sizeof *c);
    VlCStack own;
    if (cs == NULL) {
        vl_cstack_enter(&own);
        cs = &own;
    }
    c->cs = cs;
    for (int k = 1; k < K_COUNT; k++)
        c->kw[k] = vl_symbol_intern_c(syms, keyword_names[k]);
    c->syms = syms;
    *diag = NULL;
    if (setjmp(c->fail) != 0) {
        memset(out, 0, sizeof *out);
        *diag = c->diag;
        return c->too_deep ? VL_EXPAND_TOO_DEEP : VL_EXPAND_ERROR;
    }
    expand_top(c, form, out);
    return VL_EXPAND_OK;
}
