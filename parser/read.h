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

#include <signal.h>
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
    VL_READ_INCOMPLETE,       /* input ended inside a form; '*diags' says where */
    VL_READ_STOPPED           /* vl_read_string_stop: '*stop' was set */
} VlReadStatus;

/* The longest text vl_read_string reads (1 GiB; flex's lengths are ints,
   and the reader needs many times the text's size), and the longest
   token: a symbol, number, '#' token or string literal (16 MiB).  A longer
   text is an error at its line 1, column 1; a longer token an error at its
   start (doc/hardening.md, section 3). */
#define VL_READ_MAX_INPUT ((size_t)1 << 30)
#define VL_READ_MAX_TOKEN ((size_t)1 << 24)

/* Read every datum of 'src' ('len' bytes; NUL bytes are a syntax error).
   'file' names the source in positions (copied).  On VL_READ_OK, '*out' is a
   proper list (D_PAIR chain ending in D_NIL) of the top-level datums in
   order; on failure '*out' is NULL and '*diags' is non-NULL. */
VL_INTERNAL VlReadStatus vl_read_string(VlSymtab *syms, const char *src,
                                        size_t len, const char *file,
                                        Datum **out, VlDiag **diags);

/* The same, looking at '*stop' at every token (an interrupt flag, set
   from a signal handler or another thread): VL_READ_STOPPED, '*out' and
   '*diags' NULL, once it is set.  (A text of a checkpoint file is read so,
   vm/core/unit.c: a load answers an interrupt however long the text.) */
VL_INTERNAL VlReadStatus vl_read_string_stop(VlSymtab *syms, const char *src,
                                             size_t len, const char *file,
                                             const volatile sig_atomic_t *stop,
                                             Datum **out, VlDiag **diags);

#endif
