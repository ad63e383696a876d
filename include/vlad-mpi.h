/*
 * vlad-mpi.h -- for hosts that use MPI themselves: hand a state the
 * host's communicator
 *
 * Installed only when vlad is built with MPI; include it after mpi.h.
 * include/vlad.h needs no mpi.h: everything else about parallel programs
 * is there (vlad_mpi_init, vlad_mpi_rank, vlad_mpi_size, vlad_mpi_abort).
 */
#ifndef VLAD_MPI_H
#define VLAD_MPI_H

#include <mpi.h>
#include "vlad.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Make the state one rank of 'comm' (the state duplicates it: vlad's
   messages never match the host's).  MPI must be initialised (by the
   host, which also finalises it, after vlad_close).  [returns status:
   VLAD_ERR_ARGUMENT when MPI is not initialised or the state has joined
   already, VLAD_ERR_IO when MPI fails] */
VLAD_API VladStatus vlad_mpi_attach(VladState *S, MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif
