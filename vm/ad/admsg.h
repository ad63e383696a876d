/*
 * vm/ad/admsg.h -- derivatives through messages: the communication of
 * parallel programs under j*, *j and checkpoint-*j
 *
 * What the primitives of vm/exec/mpiprims.c do, the transport below
 * (vm/mpi/comm.h) and the messages (vm/mpi/message.h) given:
 *
 * - A real is sent with what it carries for each active AD invocation,
 *   innermost first (the message's header names them: both ranks must be
 *   inside the same ones): for a j*, its tangent ('D') or none ('K'); for
 *   a *j, nothing travels, but every real of the message is a node of the
 *   tape on both sides: the sender appends a copy of it (partial 1; a leaf
 *   when the real is a constant of that *j), the receiver a leaf, so that
 *   the two tapes have as many nodes for the message, in the same order.
 * - After those nodes, a communication record (vm/ad/tape.h) on each
 *   tape; the reverse sweep (vm/ad/adsweep.c, vm/ad/ad.c) meets it after
 *   every use of the leaves and performs the adjoint communication
 *   (vl_admsg_adjoint): the cotangents of a receive's leaves are sent back
 *   to the source; a send receives its copies' cotangents from the
 *   destination; a collective reduces its leaves' cotangents over the
 *   ranks (mpi-allreduce's adjoint is mpi-allreduce; mpi-bcast's, the sum
 *   at the root).  Adjoint messages go on their own channel.  The
 *   adjoint communication is itself communication at the invocations
 *   around the sweep, so that derivatives of derivatives through messages
 *   follow.
 * - Under checkpoint-*j (receive logging, Taftaf and Hascoet): a first run
 *   logs what it receives (S->msglog_hooks, vm/cpj/cpjlog.c) with the reals
 *   as they were at the floor of each recording segment (the AD
 *   invocations below it); a re-execution does not communicate: a receive
 *   decodes the logged message again against the invocations now running
 *   (those of the re-execution's own base case get leaves and records, so
 *   that its sweep performs the adjoint communication once), a send
 *   records the same nodes and sends nothing.
 */
#ifndef VL_ADMSG_H
#define VL_ADMSG_H

#include "vm/ad/ad.h"

/* The primitives' work ('who' names the primitive in errors; 'ch' a
   channel of vm/mpi/comm.h). */
VL_INTERNAL Value vl_admsg_send(VladState *S, const char *who, int ch,
                                int dest, Value v);
VL_INTERNAL Value vl_admsg_recv(VladState *S, const char *who, int ch,
                                int src);
VL_INTERNAL Value vl_admsg_allreduce(VladState *S, const char *who, Value v);
VL_INTERNAL Value vl_admsg_bcast(VladState *S, const char *who, int root,
                                 Value v);
VL_INTERNAL void vl_admsg_barrier(VladState *S, const char *who);

/* Install vl_admsg_adjoint as S->adjoint_comm, which the reverse sweeps
   (vm/ad/ad.c, vm/ad/adsweep.c, below this file) call at a record. */
VL_INTERNAL void vl_admsg_install(VladState *S);

/* The adjoint communication of record t, at tape index r. */
VL_INTERNAL void vl_admsg_adjoint(VladState *S, const TapeSlot *t,
                                  uint32_t r, const VlAdjointIO *io);

#endif
