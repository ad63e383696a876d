/*
 * vm/persist/spill.h -- checkpoint-*j's held states in files (spill=DIR)
 *
 * Under `spill=DIR` the states a checkpoint-*j driver holds are kept in
 * memory up to an allowance of bytes (the budget's room beside the tape
 * of a base case, vm/cpj/cpjplan.c); past it, the one used least recently is
 * sent away: written to a file in DIR in the local mode of the
 * checkpoint format (vm/persist/ckptsave.h: its data and frames; code, tapes,
 * logs and the checkpoints it holds stay in memory, named by index), its
 * fields cleared, so that its memory can be collected.  The Checkpoint
 * object itself stays where it is, small: whatever reads its fields
 * first brings them back (vl_contseg_present, vm/core/contseg.h: resuming it,
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
 *
 * Files.  One per directory in use, at most VL_SPILL_FILES open: the
 * first outermost run after a top-level form that spilled collects
 * (so the weak links of the states no Checkpoint refers to any more are
 * cleared), gives their space back and closes the files left empty but
 * the one it writes; a run that needs a new file while VL_SPILL_FILES
 * are open collects too, and if they are still all needed (their states
 * belong to suspended computations -- a `checkpoint`, an interrupted
 * evaluation, an autosave) moves the records of the oldest into the new
 * file and closes it.  So however runs end (the step limit, an error, an
 * interrupt), the files of a state stay few, and a state some suspended
 * computation holds can always come back.
 *
 * Records.  Each is a frame, then the state in the local mode of the
 * checkpoint format (its own header and CRC):
 *
 *     offset  size
 *     0       8     VL_SPILL_MAGIC
 *     8       8     the record's offset in its file (little-endian)
 *     16      8     its serial number (the state's records count from 1)
 *     24      8     payload length P
 *     32      8     MAC: SipHash-2-4 of bytes [0, 32) then the payload,
 *                   keyed by 16 random bytes the state drew when it made
 *                   its first file, and never wrote anywhere
 *     40      P     the payload
 *
 * A record read back must be whole, have the frame, the MAC, and the
 * offset and serial number it was written with: a file cut short,
 * zeroed, overwritten, or with records swapped or copied over others is
 * an error (VLAD_ERR_IO, at the running checkpoint-*j, naming DIR, the
 * record's offset and what is wrong), never another state.  Whoever can
 * write the file can still make the run fail, but forging a record the
 * state accepts takes its key: reading its memory.
 */
#ifndef VL_SPILL_H
#define VL_SPILL_H

#include "vm/core/contseg.h"
#include "vm/core/state.h"

/* The frame of a record, its first 8 bytes, and the most files open. */
#define VL_SPILL_FRAME 40
#define VL_SPILL_MAGIC "VLADSPIL"
#define VL_SPILL_FILES 4

/* SipHash-2-4 under 'key' of head[0, nhead) (nhead a multiple of 8;
   head may be NULL when it is 0) followed by p[0, n). */
VL_INTERNAL uint64_t vl_spill_mac(const uint64_t key[2],
                                  const unsigned char *head, size_t nhead,
                                  const unsigned char *p, size_t n);

/* Install the spill hook, the one that brings checkpoints back
   (S->spill_hooks, vm/core/state.h): when the state opens. */
VL_INTERNAL void vl_spill_init(VladState *S);

/* Spill to files in 'dir' (NULL: never), keeping at most 'allowance'
   bytes of held states in memory (called as each outermost run starts
   and when it has its plan; the first call after a top-level form that
   spilled collects, and closes the files no state needs any more).
   Raises when no file can be made in 'dir', or the records that must
   move to it cannot be written. */
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

/* A top-level form has ended (or starts): no state is held any more;
   if it spilled, the next run's start collects. */
VL_INTERNAL void vl_spill_reset(VladState *S);

/* The state is closed: its files too. */
VL_INTERNAL void vl_spill_close(VladState *S);

#endif
