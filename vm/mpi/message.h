/*
 * vm/mpi/message.h -- a value as the bytes of a message, and back
 *
 * What mpi-send, mpi-bcast and mpi-allreduce carry between ranks is data
 * (doc/reference.md, "Parallel programs"): reals, booleans, (), pairs,
 * symbols and strings, nested as deeply as memory allows.  A message is a
 * flat stream of tokens in preorder, each one self-delimiting, so that
 * encoding, decoding and scanning are loops with an explicit stack in
 * the heap, never C recursion over the nesting:
 *
 *     'N'                 ()
 *     'T' 'F'             #t #f
 *     'R' 8 bytes         a real (the host's double, bytes in host order:
 *                         every rank of one job runs on the same kind of
 *                         machine)
 *     'P' car cdr         a pair
 *     'S' 8-byte n, n     a symbol's name (interned again on arrival)
 *     'Z' 8-byte n, n     a string
 *
 * A procedure, a checkpoint or #<void> cannot be encoded: an error naming
 * the kind.  Nor, in this version, a real that carries a derivative (a
 * dual of j*, a tape node of *j): derivatives through messages are issue
 * 33's next phase (doc/parallel.md), and an error is better than a
 * derivative silently lost.
 */
#ifndef VL_MESSAGE_H
#define VL_MESSAGE_H

#include <stddef.h>
#include <stdint.h>
#include "vm/core/state.h"

/* The bytes of one message, in the GC heap (atomic: no pointers). */
typedef struct VlMessage {
    unsigned char *data;
    size_t len;
} VlMessage;

/* Encode 'v' as a message; 'who' names the primitive in errors. */
VL_INTERNAL VlMessage vl_message_encode(VladState *S, const char *who,
                                        Value v);

/* The value a message encodes (a fresh copy); an error naming 'who' if
   the bytes are not one whole encoded value. */
VL_INTERNAL Value vl_message_decode(VladState *S, const char *who,
                                    const unsigned char *data, size_t len);

/* The length of the token at p (not past end), or 0 when it is cut off
   or unknown. */
VL_INTERNAL size_t vl_message_token(const unsigned char *p,
                                    const unsigned char *end);

#endif
