/*
 * cli/stats.h -- printing the statistics of a state (--stats, ,stats)
 */
#ifndef VL_CLI_STATS_H
#define VL_CLI_STATS_H

#include <stdio.h>
#include "include/vlad.h"

/* Print the statistics 'now' of a whole run (vlad --stats): totals since
   the state was opened and 'seconds' of wall time.  The line formats are
   stable (bench/ parses them). */
void vl_stats_print_run(FILE *f, const VladStats *now, double seconds);

/* Print what one evaluation did (,stats): the difference between the
   snapshots 'before' and 'after' it, and its wall time.  Peaks are the
   state's, so they are attributed to the evaluation only when it raised
   them. */
void vl_stats_print_delta(FILE *f, const VladStats *before,
                          const VladStats *after, double seconds);

#endif
