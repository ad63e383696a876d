/*
 * cli/progress.h -- the progress bar of --progress
 */
#ifndef VL_CLI_PROGRESS_H
#define VL_CLI_PROGRESS_H

#include <stdint.h>

/* Whether a progress bar can be drawn on standard error (a terminal). */
int vl_progress_available(void);

/* The VladConfig.progress callback: 'done' of 'total' primal steps of the
   outermost checkpoint-*j have been reversed, or, with total 0, counted
   by its first run.  Redraws the bar on stderr at most ten times a
   second. */
void vl_progress_update(void *userdata, int64_t done, int64_t total);

/* The VladConfig.waiting callback: a line on stderr when a wait for a
   message or a collective has lasted a second ("rank R: waiting for a
   message from rank S (1.0 s)") and when it ends ("rank R: the wait
   ended after 3.2 s").  vl_progress_rank: the rank that prints (after
   vlad_mpi_init; none for one process). */
void vl_progress_waiting(void *userdata, const char *what, double seconds);
void vl_progress_rank(int rank);

/* Erase the bar, if one is drawn (after every evaluation). */
void vl_progress_end(void);

/* Have a SIGINT that ends the program (a script; the REPL installs its
   own handler over this one) erase the bar first. */
void vl_progress_catch_sigint(void);

#endif
