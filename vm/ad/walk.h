/*
 * vm/ad/walk.h -- the generic walker over values
 *
 * One traversal maps a function over the real leaves of a value, or over
 * the corresponding real leaves of two values of the same shape (zip).  It
 * goes through pairs, closures (their captured values) and checkpoints
 * (the pending application, the result, and every live register of every
 * captured frame, with the frames' closures), and it preserves sharing and
 * cycles: each object is visited once and maps to one new object (a memo
 * table keyed by the object's address).  Booleans, the empty list and
 * primitives are kept as they are; in a zip they must be identical in both
 * values.  Bundling, unbundling, tapifying and cotangent extraction (vm/ad/ad.c)
 * all use it.  It uses no C recursion (any depth of nesting works) and
 * visits the leaves depth first, car before cdr, in a fixed order that
 * the callbacks may rely on (tape numbering, seeding).
 */
#ifndef VL_WALK_H
#define VL_WALK_H

#include "vm/core/state.h"

/* The slot of object address p in an open-addressing table of cap
   slots, a power of two (the walker's memo, vm/ad/ad.c's tape copies). */
static inline size_t vl_walk_hash(const void *p, size_t cap)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0x9E3779B97F4A7C15ull;
    return (size_t)(x >> 7) & (cap - 1);
}

/* Returns the new leaf for real leaf 'a' ('b': the corresponding leaf of
   the second value in a zip, or 'a' itself in a map). */
typedef Value (*WalkLeaf)(VladState *S, Value a, Value b, void *ud);

VL_INTERNAL Value vl_walk_map(VladState *S, Value v, WalkLeaf leaf, void *ud);

/* A map in which each checkpoint met is first given to 'hook', which
   returns the checkpoint to walk in its place (the same object, or a
   copy): vm/ad/ad.c relabels a checkpoint holding a j* of the walk's own
   tag.  Later meetings of the same checkpoint reuse its result. */
typedef Value (*WalkCkpt)(VladState *S, Value ckpt, void *ud);
VL_INTERNAL Value vl_walk_map_hook(VladState *S, Value v, WalkLeaf leaf,
                                   void *ud, WalkCkpt hook);

/* Zip 'a' with 'b'; a shape mismatch raises an error that names 'who' (the
   operator), 'what' (e.g. "tangent") and both values. */
VL_INTERNAL Value vl_walk_zip(VladState *S, Value a, Value b, WalkLeaf leaf,
                              void *ud, const char *who, const char *what);

/* Whether some real leaf of v, reached through pairs only (each pair
   visited once), satisfies pred: a search that builds nothing. */
VL_INTERNAL int vl_walk_any(VladState *S, Value v, int (*pred)(Value leaf));

#endif
