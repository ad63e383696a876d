/*
 * vm/mpi/mpiprims.h -- the primitives of parallel programs: mpi-rank,
 * mpi-size, mpi-send, mpi-recv, mpi-allreduce, mpi-bcast, mpi-barrier
 *
 * Their meaning on values (doc/reference.md, "Parallel programs";
 * ../shared/spec/message-passing.md): a value sent is encoded
 * (vm/mpi/message.h) and carried by the state's transport
 * (vm/mpi/comm.h).  Every collective first agrees, by one cheap
 * reduction (the maximum of a few numbers and of their negatives), on
 * which collective it is and on its shape -- the hash of the value's
 * shape and its number of reals for mpi-allreduce, the root for
 * mpi-bcast -- so that ranks that disagree all stop with an error
 * instead of waiting for each other or summing unlike things.
 *
 * Not yet (issue 33's later phases, doc/parallel.md): derivatives
 * through messages (a real carrying a j* tangent or a *j tape node is
 * refused) and receive logging (communication inside checkpoint-*j is
 * refused).
 */
#ifndef VL_MPIPRIMS_H
#define VL_MPIPRIMS_H

#include "vm/core/state.h"

/* Bind the primitives in the prelude environment of 'S'. */
VL_INTERNAL void vl_mpiprims_install(VladState *S);

#endif
