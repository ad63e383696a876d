/*
 * parser/parser.y -- the bison grammar of VLAD data (see parser/read.h)
 *
 * A pure LALR(1) parser over the tokens of lexer.l.  The grammar accepts
 * any sequence of datums and dots inside brackets; read.c checks each list
 * when it closes and reports misplaced dots and mismatched brackets, so no
 * logic lives here: every action is one call.  Datum comments ('#;') are
 * grammar symbols that produce nothing; the datum after '#;' or a quote may
 * itself be preceded by datum comments ("#; #; a b" skips a and b).
 *
 * Depth.  Nesting is limited only by memory: YYMAXDEPTH is practically
 * unbounded, and the parse stacks, which hold GC pointers in their values,
 * grow in scanned GC memory (YYMALLOC/YYFREE) instead of malloc'ed memory
 * Boehm would not see.  The grammar itself never needs C recursion.
 *
 * Errors.  The only syntax errors are ')' ']' '.' or the end of input right
 * after a quote or '#;'; the 'error' rules below turn the unfinished form
 * into a placeholder and parsing continues (yyerrok, so nothing is silently
 * skipped).  End of input inside a form is reported by read.c, which knows
 * the innermost open form.
 */
%code top {
#include "config.h"
}

%code requires {
#include "parser/scanner.h"
}

%code {
#include <stddef.h>
#include <stdint.h>

/* The value stack holds GC pointers: grow it in scanned GC memory. */
#define YYMALLOC vl_gc_alloc
#define YYFREE vl_gc_free
/* Deep enough for anything memory allows (bison documents that
   YYSTACK_BYTES (YYMAXDEPTH) must not overflow; a stack entry takes far
   fewer than 64 bytes). */
#define YYMAXDEPTH (PTRDIFF_MAX / 64)

#define POS(loc) vl_read_pos(P, (loc))

static int yylex(YYSTYPE *val, YYLTYPE *loc, Reader *P);
static void yyerror(YYLTYPE *loc, Reader *P, const char *msg);
}

%define api.pure full
%define api.prefix {vl_parser_}
%define api.token.prefix {TOK_}
%define api.value.type {TokVal}
%define api.location.type {TokLoc}
%define parse.error detailed
%locations
%param {Reader *P}

%token <num> NUM "number"
%token <boolean> BOOL "boolean"
%token <sym> SYM "symbol"
%token <str> STR "string"
%token BAD "invalid token"
%token <delim> OPEN "opening bracket"
%token <delim> CLOSE "closing bracket"
%token DOT "'.'"
%token QUOTE "quote"
%token DATUM_COMMENT "'#;'"

%type <datum> datum
%type <list> items

%%

program
    : %empty
    | program datum             { vl_read_top(P, $2); }
    | program dcomment
    | program CLOSE             { vl_read_stray(P, @2, $2); }
    | program DOT               { vl_read_stray(P, @2, '.'); }
    ;

datum
    : NUM                       { $$ = vl_datum_num(POS(@1), $1); }
    | BOOL                      { $$ = vl_datum_bool(POS(@1), $1); }
    | SYM                       { $$ = vl_datum_sym(POS(@1), $1); }
    | STR                       { $$ = vl_datum_str(POS(@1), $1); }
    | BAD                       { $$ = vl_datum_nil(POS(@1)); }
    | OPEN items CLOSE          {
                                  $$ = vl_read_list_close(P, @1, $1, $2,
                                                          @3, $3);
                                }
    | QUOTE skips datum         { $$ = vl_read_quote(P, @1, $3); }
    | QUOTE skips error         {
                                  $$ = vl_datum_nil(POS(@1));
                                  yyerrok;
                                }
    ;

items
    : %empty                    { $$ = vl_read_list_new(P); }
    | items datum               { $$ = vl_read_list_add(P, $1, $2); }
    | items DOT                 { $$ = vl_read_list_dot(P, $1, @2); }
    | items dcomment            { $$ = $1; }
    ;

/* '#;' and the datum it comments out. */
dcomment
    : DATUM_COMMENT skips datum
    | DATUM_COMMENT skips error { yyerrok; }
    ;

/* Datum comments before a datum. */
skips
    : %empty
    | skips dcomment
    ;

%%

/* Flex returns TokKind codes; bison wants its own token numbers. */
static int yylex(YYSTYPE *val, YYLTYPE *loc, Reader *P)
{
    static const int map[] = {
        [TK_END] = TOK_YYEOF, [TK_NUM] = TOK_NUM, [TK_BOOL] = TOK_BOOL,
        [TK_SYM] = TOK_SYM, [TK_STR] = TOK_STR, [TK_BAD] = TOK_BAD,
        [TK_OPEN] = TOK_OPEN, [TK_CLOSE] = TOK_CLOSE, [TK_DOT] = TOK_DOT,
        [TK_QUOTE] = TOK_QUOTE, [TK_DATUM_COMMENT] = TOK_DATUM_COMMENT
    };
    return map[vl_read_token(P, val, loc)];
}

static void yyerror(YYLTYPE *loc, Reader *P, const char *msg)
{
    vl_read_syntax_error(P, *loc, msg);
}
