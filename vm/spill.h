/*
 * vm/spill.h -- checkpoint-*j's held states in files (spill=DIR)
 *
 * Under `spill=DIR` the states a checkpoint-*j driver holds are kept in
 * memory up to an allowance of bytes (the budget's room beside the tape
 * of a base case, vm/cpj.c); past it, the one used least recently is
 * sent away: written to a file in DIR in the local mode of the
 * checkpoint format (vm/ckptsave.h: its data and frames; code, tapes,
 * logs and the checkpoints it holds stay in memory, named by index), its
 * fields cleared, so that its memory can be collected.  The Checkpoint
 * object itself stays where it is, small: whatever reads its fields
 * first brings them back (vl_seg_present, vm/contseg.h: resuming it,
 * walking it, saving it).
 *
 * A state's copy in the file is written once and stays until the
 * Checkpoint is garbage (a weak link tells), so a state brought back and
 * sent away again costs no second write, and a state some captured
 * continuation still holds can always come back -- releasing it tells
 * the driver's bookkeeping, never the file.  The file is made in DIR and
 * unlinked at once: nothing is left behind, even by a killed process;
 * its space is given back as the states die (holes punched, the file
 * emptied when none is left).
 */
#ifndef VL_SPILL_H
#define VL_SPILL_H

#include "vm/contseg.h"
#include "vm/state.h"

/* Install the hook that brings checkpoints back (S->ckpt_back). */
VL_INTERNAL void vl_spill_init(VladState *S);

/* Spill to files in 'dir' (NULL: never), keeping at most 'allowance'
   bytes of held states in memory.  Raises when no file can be made in
   'dir'. */
VL_INTERNAL void vl_spill_config(VladState *S, const char *dir,
                                 int64_t allowance);

/* Whether states are spilled now. */
VL_INTERNAL int vl_spill_on(const VladState *S);

/* State k, of 'bytes' bytes, is held by a driver: it is in memory now
   (just made, or about to be used); states used less recently go away
   while the held bytes in memory pass the allowance. */
VL_INTERNAL void vl_spill_held(VladState *S, Checkpoint *k, int64_t bytes);

/* State k is no longer held by its driver: it leaves the cache (never
   sent away for room again); with a copy in a file already, its fields
   go away at once (no write). */
VL_INTERNAL void vl_spill_released(VladState *S, Checkpoint *k);

/* The held bytes in memory now. */
VL_INTERNAL int64_t vl_spill_cached_bytes(const VladState *S);

/* Bytes written to and read from spill files so far, the states
   written and brought back, and those that had to stay. */
typedef struct SpillCounts {
    int64_t bytes_written, bytes_read, written, read;
    int64_t pinned;             /* states that could not go (they hold a
                                   checkpoint or a suspended tape) */
} SpillCounts;
VL_INTERNAL SpillCounts vl_spill_counts(const VladState *S);

/* A top-level form has ended: no state is held any more. */
VL_INTERNAL void vl_spill_reset(VladState *S);

/* The state is closed: its files too. */
VL_INTERNAL void vl_spill_close(VladState *S);

#endif
