/*
 * vm/core/keymap.h -- maps of 64-bit keys whose hash has a secret seed
 *
 * For tables built from untrusted input (vm/persist/ckptload.c: the tags, the
 * objects and the frames a checkpoint file names): an open-addressing
 * map of nonzero 64-bit keys to 64-bit values whose hash mixes each key
 * with a seed the input cannot know (vl_keymap_seed), so a file cannot
 * choose keys that collide and every operation takes O(1) expected time
 * whatever the keys.  The seed changes the layout only, never a result.
 * Internal header.
 */
#ifndef VL_KEYMAP_H
#define VL_KEYMAP_H

#include <stddef.h>
#include <stdint.h>
#include "vm/core/gc.h"

typedef struct VlKeyMap {
    uint64_t *keys;         /* 0: an empty slot */
    uint64_t *values;
    size_t n, cap;          /* cap: 0 or a power of two, n <= cap / 2 */
    uint64_t seed;
} VlKeyMap;

/* A seed from the address space's layout and the clock. */
VL_INTERNAL uint64_t vl_keymap_seed(const void *salt);

/* An empty map (no allocation until the first vl_keymap_put). */
static inline void vl_keymap_init(VlKeyMap *m, uint64_t seed)
{
    m->keys = m->values = NULL;
    m->n = m->cap = 0;
    m->seed = seed;
}

/* The value of 'key' (nonzero), or NULL when it is not in the map. */
VL_INTERNAL uint64_t *vl_keymap_get(const VlKeyMap *m, uint64_t key);

/* The value of 'key' (nonzero), added with the value 0 when it is not
   in the map ('*added' says which; may be NULL). */
VL_INTERNAL uint64_t *vl_keymap_put(VlKeyMap *m, uint64_t key, int *added);

#endif
