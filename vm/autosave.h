/*
 * vm/autosave.h -- saving the running program now and then
 * (vlad_set_autosave, vlad --autosave)
 *
 * While S->autosave_path is set, the VM calls S->autosave_hook at each
 * poll (every VL_POLL_QUANTUM steps, vm/vm.c).  When the program the top
 * level runs (vl_toplevel_program) has run S->autosave_every seconds
 * since the last save, the hook flushes the output, takes a snapshot of
 * the running evaluation -- a checkpoint, the computation going on
 * untouched (vl_cont_snapshot) -- and writes it, with the texts being run,
 * where, and how much output the program has written, to the file
 * atomically (vm/ckptfile.h).  vl_toplevel_run_saved finishes such a file
 * in another process.  A failure to save stops the evaluation with the
 * reason.  Internal header.
 */
#ifndef VL_AUTOSAVE_H
#define VL_AUTOSAVE_H

#include "vm/state.h"

/* Monotonic seconds. */
VL_INTERNAL double vl_autosave_clock(void);

/* The hook the VM calls at a poll, before entering the application of
   fb[1] to the 'nargs' values at fb[2..] at step 'now'. */
VL_INTERNAL void vl_autosave_hook(VladState *S, Value *fb, int nargs,
                                  int64_t now);

#endif
