/*
 * vm/ad/adsweep.h -- the reverse sweep of an all-compact tape with plain
 * sensitivities
 *
 * Applies when every node of the tape is compact (TapeSlot partials are
 * doubles) and every cotangent leaf is a plain real: sensitivities are
 * then doubles, kept in per-chunk segments that are reused as the sweep
 * goes (vm/ad/adsweep.c).  The tape is only read.
 */
#ifndef VL_ADSWEEP_H
#define VL_ADSWEEP_H

#include "vm/ad/tape.h"

typedef struct VlSweep VlSweep;

/* What the sweep does at a communication record t (tape index r): its
   adjoint communication (vm/ad/admsg.h), reading and adding to the
   sensitivities through vl_adsweep_sens. */
typedef void (*VlSweepComm)(VladState *S, VlSweep *sw, const TapeSlot *t,
                            uint32_t r);

/* The sweep of the all-compact tape (chunk, n). */
VL_INTERNAL VlSweep *vl_adsweep_begin(const TapeChunk *chunk, uint32_t n,
                                      VladState *S, VlSweepComm comm);
/* The sensitivity of node i (a node of the tape), zero until seeded or
   swept into; after vl_adsweep_run, that of a leaf (a node with no
   parent). */
VL_INTERNAL double *vl_adsweep_sens(VlSweep *sw, uint32_t i);
/* Propagate every node's sensitivity to its parents, last node first. */
VL_INTERNAL void vl_adsweep_run(VlSweep *sw);
VL_INTERNAL void vl_adsweep_end(VlSweep *sw);

#endif
