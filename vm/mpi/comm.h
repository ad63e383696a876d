/*
 * vm/mpi/comm.h -- the transport of messages: MPI, or a queue of one's own
 *
 * A state's ranks and the bytes between them.  The state holds all of it
 * (S->comm, a VlComm): its rank and size, the communicator (a duplicate
 * of MPI_COMM_WORLD, or of the host's: vlad's messages never match the
 * host's), the sends not completed yet, and the queue of messages a rank
 * sends itself.  MPI itself is process-wide (MPI_Init once per process,
 * MPI_Finalize once): the state remembers whether it initialised MPI and
 * then finalises it when it is closed; a host that initialised MPI
 * finalises it itself.
 *
 * Without MPI (built --without-mpi, or a process not started by an MPI
 * launcher, or a state that never joined: vlad_mpi_init), a state is rank
 * 0 of size 1.  A message to one's own rank goes through the queue in
 * every case; a receive from one's own rank with the queue empty is an
 * error (nothing could ever arrive), not a wait.
 *
 * Sends never wait for their receive (MPI_Isend; the bytes are kept,
 * copied, until MPI is done with them; completed sends are reaped at the
 * next send and all are completed before MPI_Finalize).  Every wait --
 * a receive, a collective -- polls (MPI_Iprobe, MPI_Test) and looks at
 * S->interrupt between polls, so vlad_interrupt ends it; collectives are
 * the non-blocking ones (MPI_Iallreduce, MPI_Ibcast) for that reason.
 * A collective interrupted halfway leaves the communicator unusable: its
 * buffer is parked (MPI may still write to it) and later communication is
 * an error.
 */
#ifndef VL_COMM_H
#define VL_COMM_H

#include <stddef.h>
#include <stdint.h>
#include "vm/core/state.h"

typedef struct VlComm VlComm;     /* S->comm */

/* Join the ranks of 'host_comm' (an MPI_Comm *), or, when it is NULL, of
   MPI_COMM_WORLD -- initialising MPI first if the process was started by
   an MPI launcher and nobody has initialised it (the state then finalises
   it when closed).  Without MPI or a launcher: nothing (rank 0 of 1).
   VLAD_OK, or VLAD_ERR_IO with the reason in *why (static or GC text). */
VL_INTERNAL VladStatus vl_comm_join(VladState *S, const void *host_comm,
                                    const char **why);

VL_INTERNAL int vl_comm_rank(VladState *S);
VL_INTERNAL int vl_comm_size(VladState *S);

/* Channels: the program's messages, and the adjoint messages of the
   reverse sweeps (vm/ad/admsg.c), which never match each other (an MPI
   tag, a queue to oneself, each). */
enum { VL_COMM_PROGRAM, VL_COMM_ADJOINT, VL_COMM_CHANNELS };

/* Send 'len' bytes to rank 'dest' (0 <= dest < size) on channel 'ch';
   returns at once. */
VL_INTERNAL void vl_comm_send(VladState *S, const char *who, int ch,
                              int dest, const unsigned char *data,
                              size_t len);

/* The next message from rank 'src' on channel 'ch', waiting for it
   (interruptibly): GC memory, its length in *len. */
VL_INTERNAL unsigned char *vl_comm_recv(VladState *S, const char *who,
                                        int ch, int src, size_t *len);

/* In place, the element-wise maximum over all ranks of v[0..n). */
VL_INTERNAL void vl_comm_max(VladState *S, const char *who, int64_t *v,
                             int n);

/* In place, the element-wise sum over all ranks of v[0..n). */
VL_INTERNAL void vl_comm_sum(VladState *S, const char *who, double *v,
                             size_t n);

/* In place, root's 'len' bytes on every rank (every rank passes the
   same len). */
VL_INTERNAL void vl_comm_bcast(VladState *S, const char *who, int root,
                               void *data, size_t len);

/* Stop every rank of the job with 'status' (MPI_Abort), when the state
   has more than one rank; otherwise return.  First the others are told
   ('why': this rank's error, its first line), so that those waiting
   stop with an error that says so ("stopped: rank R failed: ...") and
   report it before the abort (comm.c, "A rank's failure"). */
VL_INTERNAL void vl_comm_abort(VladState *S, int status, const char *why);

/* Complete the pending sends, free the communicator and finalise MPI if
   the state initialised it (the state is being freed). */
VL_INTERNAL void vl_comm_close(VladState *S);

#endif
