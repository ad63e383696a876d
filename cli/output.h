/*
 * cli/output.h -- the vlad program's standard output and its write errors
 */
#ifndef VL_CLI_OUTPUT_H
#define VL_CLI_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include "include/vlad.h"

/* Give each of the standard descriptors 0, 1, 2 that is closed a
   placeholder (/dev/null; read-only for 1, so that writes to a closed
   standard output fail with EBADF), so that no file the program opens
   later takes its number. */
void vl_output_reserve_fds(void);

/* The state whose evaluation a failed write stops (NULL: none). */
void vl_output_attach(VladState *S);

/* Write VLAD's output to standard output now (after what stdio holds),
   whole, through EINTR.  After a failed write, does nothing. */
void vl_output_write(const char *text, size_t len);

/* Drop the next 'bytes' bytes of VLAD's output: what a run killed after
   its last autosave wrote to this same file (vlad --resume). */
void vl_output_skip(uint64_t bytes);

/* The errno of the first failed write to standard output, or 0. */
int vl_output_error(void);

/* Flush stdio's standard output; after a failed write (this one or an
   earlier one) print "vlad: write error: REASON" on standard error, once,
   and return 1; else 0. */
int vl_output_finish(void);

#endif
