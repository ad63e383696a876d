/*
 * vm/exec/mpiprims.h -- the primitives of parallel programs: mpi-rank,
 * mpi-size, mpi-send, mpi-recv, mpi-allreduce, mpi-bcast, mpi-barrier
 *
 * Their meaning on values (doc/reference.md, "Parallel programs";
 * ../shared/spec/message-passing.md).  This file checks their arguments;
 * the work, derivatives and checkpoint-*j's receive logging included, is
 * vm/ad/admsg.c's, on the transport of vm/mpi/comm.h.  Every collective
 * first agrees, by one cheap reduction (the maximum of a few numbers and
 * of their negatives), on which collective it is and on its shape, so
 * that ranks that disagree all stop with an error instead of waiting for
 * each other or summing unlike things.
 */
#ifndef VL_MPIPRIMS_H
#define VL_MPIPRIMS_H

#include "vm/core/state.h"

/* Bind the primitives in the prelude environment of 'S'. */
VL_INTERNAL void vl_mpiprims_install(VladState *S);

#endif
