/*
 * vm/core/keymap.c -- maps of 64-bit keys whose hash has a secret seed (see
 * vm/core/keymap.h)
 */
#include "config.h"
#include "vm/core/keymap.h"

#include <string.h>
#include <time.h>

/* splitmix64's finalizer: every bit of x moves every bit of the result */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t vl_keymap_seed(const void *salt)
{
    int local;
    uint64_t s = (uint64_t)(uintptr_t)salt;
    s = mix(s ^ (uint64_t)(uintptr_t)&local);
    s = mix(s ^ (uint64_t)time(NULL));
    return mix(s ^ (uint64_t)clock());
}

static size_t slot(const VlKeyMap *m, uint64_t key)
{
    size_t mask = m->cap - 1, h = (size_t)mix(key ^ m->seed) & mask;
    while (m->keys[h] != 0 && m->keys[h] != key)
        h = (h + 1) & mask;
    return h;
}

uint64_t *vl_keymap_get(const VlKeyMap *m, uint64_t key)
{
    if (m->cap == 0)
        return NULL;
    size_t h = slot(m, key);
    return m->keys[h] == key ? &m->values[h] : NULL;
}

uint64_t *vl_keymap_put(VlKeyMap *m, uint64_t key, int *added)
{
    if (2 * (m->n + 1) > m->cap) {
        VlKeyMap old = *m;
        m->cap = old.cap ? 2 * old.cap : 16;
        m->keys = vl_gc_alloc_atomic(m->cap * sizeof *m->keys);
        m->values = vl_gc_alloc_atomic(m->cap * sizeof *m->values);
        memset(m->keys, 0, m->cap * sizeof *m->keys);
        for (size_t k = 0; k < old.cap; k++)
            if (old.keys[k] != 0) {
                size_t h = slot(m, old.keys[k]);
                m->keys[h] = old.keys[k];
                m->values[h] = old.values[k];
            }
    }
    size_t h = slot(m, key);
    int add = m->keys[h] == 0;
    if (add) {
        m->keys[h] = key;
        m->values[h] = 0;
        m->n++;
    }
    if (added != NULL)
        *added = add;
    return &m->values[h];
}
