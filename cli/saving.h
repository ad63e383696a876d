/*
 * cli/saving.h -- --autosave and --resume of the vlad program: which
 * FILE may be saved to, what a resumed run must not print or read again,
 * and removing FILE when the program is done
 */
#ifndef VL_CLI_SAVING_H
#define VL_CLI_SAVING_H

#include "include/vlad.h"
#include "cli/options.h"

/* --autosave FILE for a program that starts now (not --resume): FILE is
   checked (cli/saving.c) and autosaving starts, with warnings on standard
   error.  0, or 1 when FILE is refused (said on standard error). */
int vl_saving_start(VladState *S, const VlOptions *o);

/* --resume of a program saved by autosave ('info' of o->resume): it goes
   on autosaving, to --autosave's FILE if given, else to o->resume, at
   every= if given, else at the saved interval; what the killed run wrote
   to the same output file after its last save is not written again
   (vl_output_skip); standard input, given whole again, is positioned
   after the bytes the saved run had consumed.  0, or 1 (said). */
int vl_saving_resume(VladState *S, const VlOptions *o,
                     const VladSavedInfo *info);

/* The run is over with 'status': autosaving stops, and the file is
   removed when the status is 0 (if it is still the autosave's own).
   Returns 'status', or 1 when the removal failed (said). */
int vl_saving_end(VladState *S, int status);

#endif
