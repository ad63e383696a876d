/*
 * vm/core/except.h -- raising errors and catching them (the only setjmp site)
 *
 * Inside libvlad errors are raised with longjmp to the innermost protected
 * call (Lua's model); public entry points run their work under
 * vl_except_protect and turn what was raised into a VladStatus.  The error
 * record (S->err) holds the message, the FILE:LINE:COL it is attributed to
 * and a VLAD backtrace.
 *
 * Run-time errors raised while the VM runs (vl_except_runtime) are located
 * at the instruction the VM is executing: the VM publishes its position in
 * S->vm_base / S->vm_ip before any operation that may raise.
 */
#ifndef VL_EXCEPT_H
#define VL_EXCEPT_H

#include <stdarg.h>
#include "vm/core/state.h"

/* Record an error in S->err: its status and message, where it is ('file'
   NULL or "": nowhere; 'line' 0: no position), no backtrace and no text
   yet.  Every error record of libvlad is filled by this. */
VL_INTERNAL void vl_except_record(VladState *S, VladStatus status,
                                  const char *message, const char *file,
                                  int line, int column);
/* Make S->err.text from the other fields: "FILE:LINE:COL: error: MESSAGE\n"
   (without what is absent) and the backtrace. */
VL_INTERNAL void vl_except_make_text(VladState *S);

/* Raise an error located at 'pos' (no backtrace): syntax and compile
   errors.  'pos' may have a NULL file. */
VL_INTERNAL VL_NORETURN void vl_except_at(VladState *S, VladStatus status,
                                          SrcPos pos, const char *fmt, ...);

/* Raise a run-time error at the VM's current instruction, with a
   backtrace of the continuation stack. */
VL_INTERNAL VL_NORETURN void vl_except_runtime(VladState *S,
                                               VladStatus status,
                                               const char *fmt, ...);

/* If vlad_close was called on 'S' while it runs (from a host primitive or
   a callback), raise the run-time error that stops the evaluation
   (VLAD_ERR_ARGUMENT); the state is freed when the API call returns. */
VL_INTERNAL void vl_except_if_closed(VladState *S);

/* Run fn(S, ud) catching errors; returns VLAD_OK or the raised status. */
VL_INTERNAL VladStatus vl_except_protect(VladState *S,
                                         void (*fn)(VladState *, void *),
                                         void *ud);

/* Format into a GC string. */
VL_INTERNAL char *vl_except_format(const char *fmt, ...);
VL_INTERNAL char *vl_except_vformat(const char *fmt, va_list ap);


#endif
