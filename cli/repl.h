/*
 * cli/repl.h -- the interactive read-eval-print loop
 */
#ifndef VL_REPL_H
#define VL_REPL_H

#include "cli/session.h"

/* Run the REPL on the terminal until end of input or ,quit; returns the
   exit status (0).  's' holds the state and the settings (s->quiet: no
   banner). */
int vl_repl_run(VlSession *s);

/* How the REPL edits lines, for vlad --version: "GNU readline 8.2" or
   "none (built without readline)". */
const char *vl_repl_line_editing(void);

#endif
