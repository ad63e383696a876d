/*
 * parser/datum.h -- the reader's output: source data with positions
 *
 * The reader turns text into Datums: numbers, booleans, symbols, strings
 * (only used by 'include'), the empty list and pairs.  Every datum carries
 * the FILE:LINE:COL where it starts (lines and columns count from 1; a
 * column counts bytes).  A list '(a b c)' is a chain of D_PAIR nodes; each
 * pair node carries the position of the element it holds in its car, and the
 * first pair carries the position of the opening parenthesis.  'x is read
 * as the list (quote x) whose pairs carry the position of the quote mark.
 * Datums are immutable once read and live in the GC heap.
 */
#ifndef VL_DATUM_H
#define VL_DATUM_H

#include <stdbool.h>
#include "parser/symbol.h"

typedef struct SrcPos {
    const char *file;     /* file name as given (GC string), or "<stdin>"... */
    int line;             /* 1-based line */
    int col;              /* 1-based column (bytes) */
} SrcPos;

typedef enum DatumKind {
    D_NUM,                /* real number */
    D_BOOL,               /* #t / #f */
    D_SYM,                /* symbol */
    D_STR,                /* string literal (for include only) */
    D_NIL,                /* () */
    D_PAIR                /* pair */
} DatumKind;

typedef struct Datum {
    DatumKind kind;
    SrcPos pos;
    union {
        double num;                    /* D_NUM */
        bool boolean;                  /* D_BOOL */
        Symbol *sym;                   /* D_SYM */
        const char *str;               /* D_STR: GC string, NUL-terminated */
        struct { struct Datum *car, *cdr; } pair;   /* D_PAIR */
    } u;
} Datum;

VL_INTERNAL Datum *vl_datum_num(SrcPos pos, double x);
VL_INTERNAL Datum *vl_datum_bool(SrcPos pos, bool b);
VL_INTERNAL Datum *vl_datum_sym(SrcPos pos, Symbol *s);
VL_INTERNAL Datum *vl_datum_str(SrcPos pos, const char *s);
VL_INTERNAL Datum *vl_datum_nil(SrcPos pos);
VL_INTERNAL Datum *vl_datum_cons(SrcPos pos, Datum *car, Datum *cdr);

/* Length of a proper list, or -1 when 'd' is not a proper list. */
VL_INTERNAL int vl_datum_list_length(const Datum *d);

/* Print 'd' as source text into a GC string (for error messages); output
   longer than 'max' bytes is cut and ends with "...". */
VL_INTERNAL char *vl_datum_to_string(const Datum *d, size_t max);

#endif
