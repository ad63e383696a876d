/*
 * cli/signals.h -- SIGINT and SIGWINCH in the REPL; SIGINT, SIGTERM and
 * SIGHUP in scripts
 */
#ifndef VL_CLI_SIGNALS_H
#define VL_CLI_SIGNALS_H

#include <sys/types.h>
#include "include/vlad.h"

/* Install the handlers (without SA_RESTART, so a blocking read returns
   EINTR); vl_signals_restore puts the previous ones back. */
void vl_signals_install(void);
void vl_signals_restore(void);

/* While armed, SIGINT interrupts the evaluation running on 'S'
   (vlad_interrupt); while disarmed it is only noted.  A note taken
   before vl_signals_arm (a Ctrl-C after Enter, before the evaluation of
   the line began) becomes the armed evaluation's interrupt.
   vl_signals_disarm returns whether vlad_interrupt was called while
   armed. */
void vl_signals_arm(VladState *S);
int vl_signals_disarm(void);

/* read(2) of at most n bytes of fd: their number, 0 at end of file, -1
   on an error, or -2 once a SIGINT has been noted (before the read or
   during it; the note stays for vl_signals_take_sigint).  Other signals
   do not end it. */
ssize_t vl_signals_read(int fd, void *buf, size_t n);

/* Whether a SIGINT (resp. SIGWINCH) was noted since the last call. */
int vl_signals_take_sigint(void);
int vl_signals_take_winch(void);

/* Scripts (a file, -e, standard input; not the REPL): SIGINT, SIGTERM
   and SIGHUP, unless ignored when the program started, stop the
   evaluation running on 'S' (vlad_interrupt), so that libvlad hands all
   output written before the signal over; the first such signal also
   restores its default action, so a second one kills at once.  No
   SA_RESTART: a read-real waiting for input stops too. */
void vl_signals_script(VladState *S);

/* The signal vl_signals_script caught first, or 0. */
int vl_signals_caught(void);

/* If a signal was caught: die of it, with its default action (so the
   exit status says which signal ended the program, as for any program
   killed by it); returns only if that does not end the process. */
void vl_signals_die(void);

#endif
