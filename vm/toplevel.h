/*
 * vm/toplevel.h -- evaluating program text form by form
 */
#ifndef VL_TOPLEVEL_H
#define VL_TOPLEVEL_H

#include "vm/state.h"

/* Read, expand, compile and run every form of 'src' ('len' bytes, named
   'name' in messages) in the user environment, or in the prelude's when
   'prelude' is set.  Never raises: returns the status, with S->err set on
   failure.  '*out' receives the last expression's value. */
VL_INTERNAL VladStatus vl_toplevel_eval(VladState *S, const char *src,
                                        size_t len, const char *name,
                                        int prelude, Value *out);

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

VL_INTERNAL VladState *vl_toplevel_open(const VladConfig *config);
VL_INTERNAL void vl_toplevel_close(VladState *S);

/* A whole file in GC memory (NUL-terminated), or NULL with errno set. */
VL_INTERNAL char *vl_toplevel_read_file(const char *path, size_t *len);

#endif
