/*
 * parser/ast.c -- constructors of the core AST (see parser/ast.h)
 */
#include "config.h"
#include "parser/ast.h"

static Pattern *pat(PatternKind kind, SrcPos pos, Datum *src)
{
    Pattern *p = vl_gc_alloc(sizeof *p);
    p->kind = kind;
    p->pos = pos;
    p->source = src;
    return p;
}

Pattern *vl_pat_var(SrcPos pos, Datum *src, Symbol *var)
{
    Pattern *p = pat(P_VAR, pos, src);
    p->var = var;
    return p;
}

Pattern *vl_pat_const(SrcPos pos, Datum *src, Datum *constant)
{
    Pattern *p = pat(P_CONST, pos, src);
    p->constant = constant;
    return p;
}

Pattern *vl_pat_cons(SrcPos pos, Datum *src, Pattern *car, Pattern *cdr)
{
    Pattern *p = pat(P_CONS, pos, src);
    p->car = car;
    p->cdr = cdr;
    return p;
}

static Ast *node(AstKind kind, SrcPos pos)
{
    Ast *a = vl_gc_alloc(sizeof *a);
    a->kind = kind;
    a->pos = pos;
    return a;
}

Ast *vl_ast_const(SrcPos pos, Datum *constant)
{
    Ast *a = node(A_CONST, pos);
    a->u.constant = constant;
    return a;
}

Ast *vl_ast_var(SrcPos pos, Symbol *var)
{
    Ast *a = node(A_VAR, pos);
    a->u.var = var;
    return a;
}

Ast *vl_ast_lambda(SrcPos pos, Pattern *param, Ast *body, const char *name)
{
    Ast *a = node(A_LAMBDA, pos);
    a->u.lambda.param = param;
    a->u.lambda.body = body;
    a->u.lambda.name = name;
    return a;
}

Ast *vl_ast_app(SrcPos pos, Ast *fn, int nargs, Ast **args)
{
    Ast *a = node(A_APP, pos);
    a->u.app.fn = fn;
    a->u.app.nargs = nargs;
    a->u.app.args = args;
    return a;
}

Ast *vl_ast_if(SrcPos pos, Ast *test, Ast *then, Ast *els)
{
    Ast *a = node(A_IF, pos);
    a->u.if_.test = test;
    a->u.if_.then = then;
    a->u.if_.els = els;
    return a;
}

Ast *vl_ast_or(SrcPos pos, Ast *first, Ast *second)
{
    Ast *a = node(A_OR, pos);
    a->u.or_.first = first;
    a->u.or_.second = second;
    return a;
}

Ast *vl_ast_let(SrcPos pos, int n, Pattern **pats, Ast **inits, Ast *body)
{
    Ast *a = node(A_LET, pos);
    a->u.let.n = n;
    a->u.let.pats = pats;
    a->u.let.inits = inits;
    a->u.let.body = body;
    return a;
}

Ast *vl_ast_letrec(SrcPos pos, int n, Symbol **names, Ast **lambdas, Ast *body)
{
    Ast *a = node(A_LETREC, pos);
    a->u.letrec.n = n;
    a->u.letrec.names = names;
    a->u.letrec.lambdas = lambdas;
    a->u.letrec.body = body;
    return a;
}

Ast *vl_ast_cons(SrcPos pos, Ast *car, Ast *cdr)
{
    Ast *a = node(A_CONS, pos);
    a->u.cons.car = car;
    a->u.cons.cdr = cdr;
    return a;
}
