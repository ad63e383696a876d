/*
 * parser/read.h -- the reader (flex + bison): text to datums
 *
 * vl_read_string parses a whole text into the list of its top-level datums.
 * It never prints and never longjmps: syntax errors are collected as
 * diagnostics (FILE:LINE:COL plus a message).  When the text ends inside an
 * open form (an unclosed parenthesis, a quote with nothing after it, an
 * unterminated #| comment or string) the status is VL_READ_INCOMPLETE, which
 * the REPL uses to ask for a continuation line; a script reports it as a
 * syntax error.  Nesting depth is limited only by memory.
 */
#ifndef VL_READ_H
#define VL_READ_H

#include <stddef.h>
#include "parser/datum.h"

typedef struct VlDiag {
    SrcPos pos;               /* where the problem is */
    const char *message;      /* GC string, no trailing newline, no prefix */
    struct VlDiag *next;      /* next diagnostic, in source order */
} VlDiag;

typedef enum VlReadStatus {
    VL_READ_OK = 0,           /* '*out' is the list of datums */
    VL_READ_ERROR,            /* '*diags' lists the syntax errors */
    VL_READ_INCOMPLETE        /* input ended inside a form; '*diags' says where */
} VlReadStatus;

/* Read every datum of 'src' ('len' bytes; NUL bytes are a syntax error).
   'file' names the source in positions (copied).  On VL_READ_OK, '*out' is a
   proper list (D_PAIR chain ending in D_NIL) of the top-level datums in
   order; on failure '*out' is NULL and '*diags' is non-NULL. */
VL_INTERNAL VlReadStatus vl_read_string(VlSymtab *syms, const char *src,
                                        size_t len, const char *file,
                                        Datum **out, VlDiag **diags);

#endif
