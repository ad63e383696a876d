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
 *     'D' r r             a dual number of the next j* below: its
 *                         primal, then its tangent, each a real
 *     'K' r               a real that is no dual of the next j* below
 *
 * 'D' and 'K' appear only when the reals are written by a caller's
 * VlMessageReals (vm/ad/admsg.c: derivatives through messages, which
 * says what a real is made of); without one, reals are plain and a real
 * that carries a derivative is an error.  A procedure, a checkpoint or
 * #<void> cannot be encoded: an error naming the kind.
 */
#ifndef VL_MESSAGE_H
#define VL_MESSAGE_H

#include <stddef.h>
#include <stdint.h>
#include "vm/core/state.h"
#include "vm/core/strbuf.h"

/* The bytes of one message, in the GC heap (atomic: no pointers). */
typedef struct VlMessage {
    unsigned char *data;
    size_t len;
} VlMessage;

/* How reals are written and read, when they carry derivatives: 'put'
   appends the tokens of real v; 'get' reads those starting at *p (a
   token 'R', 'D' or 'K'), moves *p past them and returns the real. */
typedef struct VlMessageReals {
    void (*put)(VladState *S, void *ctx, StrBuf *b, Value v);
    Value (*get)(VladState *S, void *ctx, const unsigned char **p,
                 const unsigned char *end);
    void *ctx;
} VlMessageReals;

/* Encode 'v' as a message ('reals' NULL: plain reals only); 'who' names
   the primitive in errors.  _into appends to 'out'. */
VL_INTERNAL VlMessage vl_message_encode(VladState *S, const char *who,
                                        Value v,
                                        const VlMessageReals *reals);
VL_INTERNAL void vl_message_encode_into(VladState *S, const char *who,
                                        Value v,
                                        const VlMessageReals *reals,
                                        StrBuf *out);

/* The value a message encodes (a fresh copy); an error naming 'who' if
   the bytes are not one whole encoded value. */
VL_INTERNAL Value vl_message_decode(VladState *S, const char *who,
                                    const unsigned char *data, size_t len,
                                    const VlMessageReals *reals);

/* The length of the token at p (not past end), or 0 when it is cut off
   or unknown. */
VL_INTERNAL size_t vl_message_token(const unsigned char *p,
                                    const unsigned char *end);

#endif
