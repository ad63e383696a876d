/*
 * vm/core/stdinwait.h -- read-real's wait for standard input, which
 * vlad_interrupt ends
 *
 * An interrupt is a flag (S->interrupt) that code looks at; a wait for
 * input that began just after such a look would not see a flag set a
 * moment later, and would go on waiting (a lost Ctrl-C).  So the flag
 * has a wake-up pipe beside it: vl_stdinwait_wake sets the flag and writes a
 * byte to the pipe, and vl_stdinwait_read waits for standard input and the
 * pipe together (poll), after emptying the pipe and looking at the flag.
 * A terminal is read through a non-blocking description of its own, so
 * that a line the terminal discards on Ctrl-C (after poll saw it) makes
 * the read come back to the wait rather than block.
 */
#ifndef VL_STDINWAIT_H
#define VL_STDINWAIT_H

#include <sys/types.h>
#include "vm/core/state.h"

/* Ask the evaluation running on 'S' to stop (vlad_interrupt): the flag,
   then a byte on the wake-up pipe if the state has one.  Only
   async-signal-safe calls; callable from a signal handler or from another
   thread; errno is left as it was. */
VL_INTERNAL void vl_stdinwait_wake(VladState *S);

/* Read at most 'cap' bytes of standard input into 'buf' for read-real:
   their number, 0 at the end of the input or on an error, or -1 once
   S->interrupt is set (before the wait or during it; the flag stays
   set).  The wake-up pipe is made at the first call (without it, when
   no descriptor is left, the wait is a plain read(2) that a signal
   without SA_RESTART ends). */
VL_INTERNAL ssize_t vl_stdinwait_read(VladState *S, char *buf, size_t cap);

/* Close the wake-up pipe (the state is being freed). */
VL_INTERNAL void vl_stdinwait_close(VladState *S);

#endif
