/*
 * vm/exec/toplevel.h -- evaluating program text form by form
 */
#ifndef VL_TOPLEVEL_H
#define VL_TOPLEVEL_H

#include "vm/persist/ckptfile.h"
#include "vm/core/state.h"

/* The deepest nesting of includes (a file including a file ...). */
#define VL_INCLUDE_MAX 1000

/* Read, expand, compile and run every form of 'src' ('len' bytes, named
   'name' in messages) in the user environment, or in the prelude's when
   'prelude' is set.  Never raises: returns the status, with S->err set on
   failure.  '*out' receives the last expression's value. */
VL_INTERNAL VladStatus vl_toplevel_eval(VladState *S, const char *src,
                                        size_t len, const char *name,
                                        int prelude, Value *out);

/* vl_toplevel_eval of the text of the file 'path' (the file is on the
   include stack from the start: a file that includes itself is a cycle
   before any of its forms runs). */
VL_INTERNAL VladStatus vl_toplevel_eval_file(VladState *S, const char *src,
                                             size_t len, const char *path,
                                             Value *out);

/* vlad --disassemble: compile the forms of the text of the file 'path' in
   order, as vl_toplevel_eval_file would (includes too), without running
   any, and write the bytecode listing of each (vm/core/disasm.h) through
   the state's output.  A definition that binds an inline primitive's name
   counts as rebinding it for the forms after it (toplevel.c, list_form).
   Never raises: returns the status, with S->err set on failure. */
VL_INTERNAL VladStatus vl_toplevel_list_file(VladState *S, const char *src,
                                             size_t len, const char *path);

/* Create a state from 'config' (NULL: defaults) and load the prelude;
   NULL when memory is exhausted or the prelude fails. */
/* Apply fn to arg as one top-level evaluation (step limit, statistics,
   errors caught).  [returns status] */
VL_INTERNAL VladStatus vl_toplevel_apply(VladState *S, Value fn, Value arg,
                                         Value *out);

/* Set S->err to "no error" (status VLAD_OK, empty strings). */
VL_INTERNAL void vl_toplevel_clear_error(VladState *S);

/* Record an error found outside evaluation (no location, no backtrace)
   as the last error of S and return 'status'. */
VL_INTERNAL VladStatus vl_toplevel_fail(VladState *S, VladStatus status,
                                        const char *fmt, ...);

/* The error of an API call refused by vl_gc_thread_attach (too little
   C stack, or the collector refused the thread); its status. */
VL_INTERNAL VladStatus vl_toplevel_attach_error(VladState *S);

VL_INTERNAL VladState *vl_toplevel_open(const VladConfig *config);
VL_INTERNAL void vl_toplevel_close(VladState *S);

/* A whole file in GC memory (NUL-terminated), or NULL with errno set
   (EFBIG: longer than VL_READ_MAX_INPUT, parser/read.h; what is read
   stops there). */
VL_INTERNAL char *vl_toplevel_read_file(const char *path, size_t *len);

/* The program the top level is running (the texts, where it is) in
   '*prog', for an autosave: 1, or 0 when none is (a vlad_call, the
   prelude). */
VL_INTERNAL int vl_toplevel_program(VladState *S, CkptProgram *prog);

/* The saved file at 'path' whole ('*len' bytes), or raise
   VLAD_ERR_IO "cannot read ...". */
VL_INTERNAL char *vl_toplevel_read_saved(VladState *S, const char *path,
                                         size_t *len);

/* Finish what the file at 'path' holds, as one evaluation: an
   autosave's program (its running form, echoed as the top level would,
   then the rest of its texts), or a saved checkpoint (resumed; nothing
   echoed).  '*out': the last value.  [returns status] */
VL_INTERNAL VladStatus vl_toplevel_run_saved(VladState *S, const char *path,
                                             Value *out);

/* Run job(S, ud) as API calls run evaluations (errors caught, the C
   stack guarded, refused while the state runs) but without starting an
   evaluation: the statistics and the interrupted checkpoint stay.
   [returns status] */
VL_INTERNAL VladStatus vl_toplevel_job(VladState *S,
                                       void (*job)(VladState *, void *),
                                       void *ud);

#endif
