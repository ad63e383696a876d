/*
 * vm/adsweep.h -- the reverse sweep of a private tape, in place
 *
 * When a *j ends and nothing outside it can refer to its tape (no
 * continuation was captured and no host primitive was called while it
 * ran: the condition under which vl_ad_release_tape frees the tape right
 * after), a node's primal is not read again once the result's primal has
 * been taken.  Its primal field then holds its sensitivity: the sweep
 * needs no array of one double per node, which on a big tape is as much
 * fresh memory (page faults) as a quarter of the tape itself.
 *
 * Only tapes whose nodes are all compact (TapeSlot partials are doubles)
 * and whose cotangent leaves are all plain reals are swept this way.
 * Chunks are zeroed when the sweep first needs them, so a chunk is
 * usually zeroed just before it is swept, while its lines are in cache.
 */
#ifndef VL_ADSWEEP_H
#define VL_ADSWEEP_H

#include "vm/ad.h"

typedef struct VlInPlace VlInPlace;

/* A private, all-compact tape (chunk, n). */
VL_INTERNAL VlInPlace *vl_inplace_begin(TapeChunk *chunk, uint32_t n);
/* The sensitivity of node i (a node of the tape), zero until seeded or
   swept into. */
VL_INTERNAL double *vl_inplace_sens(VlInPlace *ip, uint32_t i);
/* Propagate every node's sensitivity to its parents, last node first. */
VL_INTERNAL void vl_inplace_sweep(VlInPlace *ip);
VL_INTERNAL void vl_inplace_end(VlInPlace *ip);

#endif
