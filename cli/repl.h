/*
 * cli/repl.h -- the interactive read-eval-print loop
 */
#ifndef VL_REPL_H
#define VL_REPL_H

#include "include/vlad.h"

/* Run the REPL on the terminal until end of input; returns the exit
   status (0).  'quiet' suppresses the banner. */
int vl_repl_run(VladState *S, int quiet);

#endif
