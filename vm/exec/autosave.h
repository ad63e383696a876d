/*
 * vm/exec/autosave.h -- saving the running program now and then
 * (vlad_set_autosave, vlad --autosave)
 *
 * While autosave is on (vl_autosave_start), the VM calls
 * S->autosave_hook at each regular poll (every VL_POLL_QUANTUM steps,
 * vm/exec/vm.c; limits that start and end do not put it off, vm/core/delim.h).
 * When the program the top level runs (vl_toplevel_program) has run
 * 'every' seconds since the last save, the hook flushes the output, takes
 * a snapshot of the running evaluation -- a checkpoint, the computation
 * going on untouched (vl_cont_snapshot) -- and writes it, with the texts
 * being run, where, how much output the program has written and how much
 * input read-real has consumed, to the file atomically (vm/persist/savefile.h:
 * the file is checked and locked for the whole run when autosave
 * starts).  vl_toplevel_run_saved finishes such a file in another
 * process.
 *
 * A save that fails (a full disk, a directory removed, a heap limit, a
 * file put in the place of the saved one) does not stop the program: the
 * host is warned (vlad_set_warning) once, when the first save of a run of
 * failures fails, and again when a save succeeds after them; each
 * interval the save is tried again.  Internal header.
 */
#ifndef VL_AUTOSAVE_H
#define VL_AUTOSAVE_H

#include "vm/core/state.h"

/* Monotonic seconds. */
VL_INTERNAL double vl_autosave_clock(void);

/* Autosave the programs S runs to 'path' every 'every' seconds, with the
   host's 'note' (replacing any autosave S had: its lock released, its
   file kept).  Raises VLAD_ERR_IO with the reason when 'path' may not be
   written (vm/persist/savefile.h) or is locked by another writer. */
VL_INTERNAL void vl_autosave_start(VladState *S, const char *path,
                                   double every, const char *note);

/* Stop autosaving; with 'remove', remove the file if it is still the one
   the autosave wrote last or found there when it started.  0, or -1
   when the removal failed (raises nothing: '*why' gets the reason, a
   string valid until the next autosave call). */
VL_INTERNAL int vl_autosave_stop(VladState *S, int remove,
                                 const char **why);

/* The hook the VM calls at a poll, before entering the application of
   fb[1] to the 'nargs' values at fb[2..] at step 'now'. */
VL_INTERNAL void vl_autosave_hook(VladState *S, Value *fb, int nargs,
                                  int64_t now);

#endif
