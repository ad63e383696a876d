/*
 * parser/ast.c -- constructors of the core AST (see parser/ast.h)
 *
 * A node is allocated with only the part of its union its kind uses, so
 * a node must never be copied whole or read through another member.
 */
#include "config.h"
#include "parser/ast.h"

#include <stddef.h>

static Pattern *pat(PatternKind kind, SrcPos pos, Datum *src)
{
    Pattern *p = vl_gc_alloc(sizeof *p);
    p->kind = kind;
    p->pos = pos;
    p->source = src;
    return p;
}

Pattern *vl_ast_pat_var(SrcPos pos, Datum *src, Symbol *var)
{
    Pattern *p = pat(P_VAR, pos, src);
    p->var = var;
    return p;
}

Pattern *vl_ast_pat_const(SrcPos pos, Datum *src, Datum *constant)
{
    Pattern *p = pat(P_CONST, pos, src);
    p->constant = constant;
    return p;
}

Pattern *vl_ast_pat_cons(SrcPos pos, Datum *src, Pattern *car, Pattern *cdr)
{
    Pattern *p = pat(P_CONS, pos, src);
    p->car = car;
    p->cdr = cdr;
    return p;
}

/* A node of 'size' bytes: only as much of the union as its kind uses
   (a variable or a constant takes 32 bytes, not 64; every element of a
   long list form is one of those and a cons). */
static Ast *node(AstKind kind, SrcPos pos, size_t size)
{
    Ast *a = vl_gc_alloc(size);
    a->kind = kind;
    a->pos = pos;
    return a;
}

#define NODE(kind, pos, member) \
    node(kind, pos, offsetof(Ast, u) + sizeof(((Ast *)0)->u.member))

Ast *vl_ast_const(SrcPos pos, Datum *constant)
{
    Ast *a = NODE(A_CONST, pos, constant);
    a->u.constant = constant;
    return a;
}

Ast *vl_ast_var(SrcPos pos, Symbol *var)
{
    Ast *a = NODE(A_VAR, pos, var);
    a->u.var = var;
    return a;
}

Ast *vl_ast_lambda(SrcPos pos, Pattern *param, Ast *body, const char *name)
{
    Ast *a = NODE(A_LAMBDA, pos, lambda);
    a->u.lambda.param = param;
    a->u.lambda.body = body;
    a->u.lambda.name = name;
    return a;
}

Ast *vl_ast_app(SrcPos pos, Ast *fn, int nargs, Ast **args)
{
    Ast *a = NODE(A_APP, pos, app);
    a->u.app.fn = fn;
    a->u.app.nargs = nargs;
    a->u.app.args = args;
    return a;
}

Ast *vl_ast_if(SrcPos pos, Ast *test, Ast *then, Ast *els)
{
    Ast *a = NODE(A_IF, pos, if_);
    a->u.if_.test = test;
    a->u.if_.then = then;
    a->u.if_.els = els;
    return a;
}

Ast *vl_ast_or(SrcPos pos, Ast *first, Ast *second)
{
    Ast *a = NODE(A_OR, pos, or_);
    a->u.or_.first = first;
    a->u.or_.second = second;
    return a;
}

Ast *vl_ast_let(SrcPos pos, int n, Pattern **pats, Ast **inits, Ast *body)
{
    Ast *a = NODE(A_LET, pos, let);
    a->u.let.n = n;
    a->u.let.pats = pats;
    a->u.let.inits = inits;
    a->u.let.body = body;
    return a;
}

Ast *vl_ast_letrec(SrcPos pos, int n, Symbol **names, Ast **lambdas, Ast *body)
{
    Ast *a = NODE(A_LETREC, pos, letrec);
    a->u.letrec.n = n;
    a->u.letrec.names = names;
    a->u.letrec.lambdas = lambdas;
    a->u.letrec.body = body;
    return a;
}

Ast *vl_ast_cons(SrcPos pos, Ast *car, Ast *cdr)
{
    Ast *a = NODE(A_CONS, pos, cons);
    a->u.cons.car = car;
    a->u.cons.cdr = cdr;
    return a;
}
