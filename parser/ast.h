/*
 * parser/ast.h -- the core language produced by the expander
 *
 * The expander (parser/expand.c) rewrites every derived form of the
 * surface language into this small core; the compiler (vm/core/compile.c)
 * consumes it.  Variables are still symbols here: lexical resolution,
 * free-variable sets and register allocation are the compiler's job.
 *
 *   const     a quoted value (number, boolean, (), or pairs of those)
 *   var       a variable reference (local, or global when not bound)
 *   lambda    one parameter pattern, one body expression
 *   app       (f a1 ... an), n >= 1: with n > 1 the argument is the tuple
 *             (cons* a1 ... an); the compiler may pass the n values
 *             unboxed when the callee's pattern is a tuple of n variables
 *   if        two-armed conditional (only #f is false)
 *   or        (or a b): a's value if it is true, else b's
 *   let       parallel binding: every init is evaluated outside the
 *             patterns' scope, then matched against its pattern
 *   letrec    mutually recursive lambdas
 *   cons      pair construction
 *
 * Every node has the source position of the form it came from; patterns
 * keep the datum they were written as, for error messages.
 */
#ifndef VL_AST_H
#define VL_AST_H

#include "parser/datum.h"

typedef enum PatternKind {
    P_VAR,                /* binds 'var' */
    P_CONST,              /* must be equal? to 'constant' */
    P_CONS                /* a pair whose car/cdr match 'car'/'cdr' */
} PatternKind;

typedef struct Pattern {
    PatternKind kind;
    SrcPos pos;
    Datum *source;        /* the pattern as written (for messages) */
    Symbol *var;          /* P_VAR */
    Datum *constant;      /* P_CONST: a number, boolean, () or quoted data */
    struct Pattern *car;  /* P_CONS */
    struct Pattern *cdr;  /* P_CONS */
} Pattern;

typedef enum AstKind {
    A_CONST, A_VAR, A_LAMBDA, A_APP, A_IF, A_OR, A_LET, A_LETREC, A_CONS
} AstKind;

typedef struct Ast {
    AstKind kind;
    SrcPos pos;
    union {
        Datum *constant;                                   /* A_CONST */
        Symbol *var;                                       /* A_VAR */
        struct { Pattern *param; struct Ast *body;
                 const char *name; } lambda;               /* A_LAMBDA: name may be NULL */
        struct { struct Ast *fn; int nargs;
                 struct Ast **args; } app;                 /* A_APP: nargs >= 1 */
        struct { struct Ast *test, *then, *els; } if_;     /* A_IF */
        struct { struct Ast *first, *second; } or_;        /* A_OR */
        struct { int n; Pattern **pats; struct Ast **inits;
                 struct Ast *body; } let;                  /* A_LET: n >= 1 */
        struct { int n; Symbol **names; struct Ast **lambdas;
                 struct Ast *body; } letrec;               /* A_LETREC: each init A_LAMBDA */
        struct { struct Ast *car, *cdr; } cons;            /* A_CONS */
    } u;
} Ast;

/* Constructors (GC memory; arrays are taken over, not copied). */
VL_INTERNAL Pattern *vl_ast_pat_var(SrcPos pos, Datum *src, Symbol *var);
VL_INTERNAL Pattern *vl_ast_pat_const(SrcPos pos, Datum *src, Datum *constant);
VL_INTERNAL Pattern *vl_ast_pat_cons(SrcPos pos, Datum *src, Pattern *car, Pattern *cdr);
VL_INTERNAL Ast *vl_ast_const(SrcPos pos, Datum *constant);
VL_INTERNAL Ast *vl_ast_var(SrcPos pos, Symbol *var);
VL_INTERNAL Ast *vl_ast_lambda(SrcPos pos, Pattern *param, Ast *body, const char *name);
VL_INTERNAL Ast *vl_ast_app(SrcPos pos, Ast *fn, int nargs, Ast **args);
VL_INTERNAL Ast *vl_ast_if(SrcPos pos, Ast *test, Ast *then, Ast *els);
VL_INTERNAL Ast *vl_ast_or(SrcPos pos, Ast *first, Ast *second);
VL_INTERNAL Ast *vl_ast_let(SrcPos pos, int n, Pattern **pats, Ast **inits, Ast *body);
VL_INTERNAL Ast *vl_ast_letrec(SrcPos pos, int n, Symbol **names, Ast **lambdas, Ast *body);
VL_INTERNAL Ast *vl_ast_cons(SrcPos pos, Ast *car, Ast *cdr);

#endif
