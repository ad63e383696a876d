/*
 * cli/meta.h -- the REPL's comma commands (,help ,load ,time ...)
 */
#ifndef VL_CLI_META_H
#define VL_CLI_META_H

#include "cli/session.h"

/* Whether 'text' (the input so far) is a command: its first non-blank
   byte is a comma. */
int vl_meta_is_command(const char *text);

/* What vl_meta_run did. */
enum {
    VL_META_DONE = 0,       /* the command ran (or was reported as bad) */
    VL_META_INCOMPLETE      /* ,time with an unfinished EXPR: read more */
};

/* Run the command 'text' (which may span lines for ,time). */
int vl_meta_run(VlSession *s, const char *text);

/* The name of the i-th command with its comma (",help"), or NULL past the
   last one: for completion. */
const char *vl_meta_name(int i);

/* Completion words for the argument of the command 'name' (",checkpoint"),
   the i-th or NULL; 'files' is set when the argument is a file name. */
const char *vl_meta_arg_word(const char *name, int i, int *files);

/* The i-th special-form keyword ("define"), or NULL past the last one:
   for completion and ,describe. */
const char *vl_meta_keyword(int i);

/* The whole input 'text' typed at the prompt, when it is (exit),
   (exit N), (quit) or (quit N) -- and exit or quit is not bound -- sets
   s->quit and s->exit_status, and returns 1; when it is a bare exit or
   quit (unbound), prints how to leave and returns 1.  0 otherwise: the
   text is VLAD code. */
int vl_meta_leave(VlSession *s, const char *text);

#endif
