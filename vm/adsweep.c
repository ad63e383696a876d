/*
 * vm/adsweep.c -- the reverse sweep of a private tape, in place (see
 * vm/adsweep.h for when it applies)
 *
 * A node is named on the tape by its index; its slot is found through a
 * directory of the tape's chunks in index order.  Parents are nearly
 * always in the chunk being swept, so the directory is searched only for
 * the others (a binary search, after a one-entry cache).
 */
#include "config.h"
#include "vm/adsweep.h"

#include "vm/adfast.h"

typedef struct Entry {
    TapeSlot *slots;
    uint32_t base;          /* tape index of slots[0] */
    uint32_t n;             /* nodes of the tape in this chunk */
    int zeroed;             /* primal fields hold sensitivities */
} Entry;

struct VlInPlace {
    Entry *dir;             /* by increasing base */
    uint32_t nchunks;
    uint32_t hit;           /* the entry found last */
};

VlInPlace *vl_inplace_begin(TapeChunk *chunk, uint32_t n)
{
    VlInPlace *ip = vl_gc_alloc(sizeof *ip);
    uint32_t k = 0;
    for (const TapeChunk *c = chunk; c != NULL; c = c->prev)
        k++;
    ip->nchunks = k;
    ip->dir = vl_gc_alloc((k ? k : 1) * sizeof(Entry));
    for (TapeChunk *c = chunk; c != NULL; n = c->prev_n, c = c->prev) {
        Entry *e = &ip->dir[--k];
        e->slots = c->slots;
        e->base = c->base;
        e->n = n;
        e->zeroed = 0;
    }
    return ip;
}

static Entry *zeroed(Entry *e)
{
    if (!e->zeroed) {
        TapeSlot *t = e->slots, *end = t + e->n;
        for (; end - t >= 4; t += 4) {      /* four per turn: 2x fewer
                                               instructions (callgrind) */
            t[0].primal = 0.0;
            t[1].primal = 0.0;
            t[2].primal = 0.0;
            t[3].primal = 0.0;
        }
        for (; t < end; t++)
            t->primal = 0.0;
        e->zeroed = 1;
    }
    return e;
}

double *vl_inplace_sens(VlInPlace *ip, uint32_t i)
{
    Entry *e = &ip->dir[ip->hit];
    if (i < e->base || i >= e->base + e->n) {
        uint32_t lo = 0, hi = ip->nchunks;     /* dir[lo].base <= i */
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (ip->dir[mid].base <= i)
                lo = mid;
            else
                hi = mid;
        }
        ip->hit = lo;
        e = &ip->dir[lo];
    }
    return &zeroed(e)->slots[i - e->base].primal;
}

/* The sensitivity of parent p of a node of the chunk at s0 (base). */
static inline double *parent_sens(VlInPlace *ip, TapeSlot *s0, uint32_t base,
                                  uint32_t p)
{
    if (VL_LIKELY(p >= base))
        return &s0[p - base].primal;
    return vl_inplace_sens(ip, p);
}

void vl_inplace_sweep(VlInPlace *ip)
{
    for (uint32_t k = ip->nchunks; k-- > 0;) {
        Entry *e = zeroed(&ip->dir[k]);
        TapeSlot *s0 = e->slots, *t = s0 + e->n;
        uint32_t base = e->base;
        while (t > s0) {
            --t;
            double s = t->primal;
            /* a second slot (VL_TAPE_CONT) is never a parent: its
               sensitivity stays 0 */
            if (s == 0)
                continue;
            uint32_t p0 = t->parent, q = t->parent1;
            if (p0 == VL_TAPE_NONE)             /* a leaf */
                continue;
            double d0 = vl_ad_mulz(t->u.partial, s);
            *parent_sens(ip, s0, base, p0) += d0;
            if (q == VL_TAPE_NONE)
                continue;
            /* the second parent's (vl_tape_parents): the same product
               when its partial is the same */
            uint32_t kind = q >> VL_TAPE_INDEX_BITS;
            double d1 = kind == VL_TAPE_SAME
                            ? d0
                            : vl_ad_mulz(kind == VL_TAPE_NEG ? -t->u.partial
                                                             : t[1].u.partial,
                                         s);
            *parent_sens(ip, s0, base, q & VL_TAPE_INDEX_MASK) += d1;
        }
    }
}

void vl_inplace_end(VlInPlace *ip)
{
    vl_gc_free(ip->dir);
    vl_gc_free(ip);
}
