/*
 * parser/expand.h -- the expander: datums to core AST
 *
 * Turns one top-level datum into a top-level item (a definition, an
 * expression or an include), expanding every special form, pattern and
 * definition form of the language (see doc/reference.md and
 * doc/spec/language.md) into parser/ast.h.  It never prints and never
 * longjmps out: a malformed form yields VL_EXPAND_ERROR with one diagnostic
 * carrying the location of the offending (sub)form.
 *
 * Keywords (quote lambda let let* letrec if cond else and or cons cons* list
 * define include) are recognised by name unless a local binding of the same
 * name is in scope, in which case the name is an ordinary variable there.
 * Global names are never resolved here.  Code nested too deeply for the C
 * stack is VL_EXPAND_TOO_DEEP, with a diagnostic like any other.
 */
#ifndef VL_EXPAND_H
#define VL_EXPAND_H

#include "parser/ast.h"
#include "parser/read.h"
#include "parser/cstack.h"

typedef enum TopKind {
    TOP_EXPR,             /* evaluate 'expr' and print its value */
    TOP_DEFINE,           /* evaluate 'expr' and bind global 'name' */
    TOP_INCLUDE           /* read and process 'include_name' here */
} TopKind;

typedef struct TopForm {
    TopKind kind;
    SrcPos pos;           /* position of the whole form */
    Symbol *name;         /* TOP_DEFINE */
    Ast *expr;            /* TOP_EXPR, TOP_DEFINE */
    const char *include_name;  /* TOP_INCLUDE: the string as written */
} TopForm;

typedef enum VlExpandStatus {
    VL_EXPAND_OK = 0,
    VL_EXPAND_ERROR,      /* a malformed form */
    VL_EXPAND_TOO_DEEP    /* nested too deeply for the C stack */
} VlExpandStatus;

/* 'cs': the C stack guard of the caller's entry point (parser/cstack.h);
   NULL: the call of vl_expand_toplevel is the entry point. */
VL_INTERNAL VlExpandStatus vl_expand_toplevel(VlSymtab *syms, Datum *form,
                                              TopForm *out, VlDiag **diag,
                                              VlCStack *cs);

#endif
