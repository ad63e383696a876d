/*
 * vm/ad/adsweep.c -- the reverse sweep of an all-compact tape with plain
 * sensitivities (see vm/ad/adsweep.h for when it applies)
 *
 * A node is named on the tape by its index; its slot is found through a
 * directory of the tape's chunks in index order.  Each chunk's
 * sensitivities are a segment of doubles, given to the chunk when the
 * sweep first adds to one of them and taken back (to be given to an
 * earlier chunk of its size class) once the chunk is swept, unless a leaf
 * in it got a sensitivity that the caller reads afterwards.  Parents are
 * nearly always in the chunk being swept or the one before, so few
 * segments are in use at a time: the sweep needs no array of one double
 * per node, which on a big tape is fresh memory, and leaves the tape as
 * it is.  At worst (late nodes with parents in every chunk) the segments
 * add up to such an array.
 */
#include "config.h"
#include "vm/ad/adsweep.h"

#include "vm/ad/adfast.h"

typedef struct Entry {
    const TapeSlot *slots;
    uint32_t base;          /* tape index of slots[0] */
    uint32_t n;             /* nodes of the tape in this chunk */
    double *sens;           /* its sensitivities, NULL while all are 0 */
    double *spare;          /* a segment given back after its sweep */
    uint32_t next_spare;    /* the next entry with a spare of its class */
    unsigned cls;           /* its segments hold 2^cls + 2 doubles */
    int keep;               /* a leaf's sensitivity is in sens */
    int comms;              /* communication records may be in it */
} Entry;

#define NO_ENTRY UINT32_MAX
#define CLASSES 33

/* The directory is found by pages of 2^PAGE_BITS tape indices: a node's
   parent outside the chunk being swept is often in a chunk far back (a
   wide state, as rotation's), where a search of the directory cost 50
   instructions a lookup (9% of checkpoint-*j's, bench/cpj rotation). */
#define PAGE_BITS 6

struct VlSweep {
    Entry *dir;             /* by increasing base */
    uint32_t *page;         /* by index >> PAGE_BITS: the last entry
                               holding nodes that starts in that page or
                               before */
    size_t npages;
    uint32_t nchunks;
    uint32_t hit;           /* the entry found last */
    uint32_t primal_hit;    /* the entry found last for a primal */
    uint32_t spares[CLASSES];   /* by class: an entry holding a spare */
    VladState *S;               /* for the records' adjoint communication */
    VlSweepComm comm;
};

/* The class of a chunk of n slots: segments of 2^cls + 2 doubles, the
   least that holds n (chunks have 2^k + 2 slots, the last two for the
   partials of a node that starts at 2^k - 1, vm/core/object.h), so that a segment
   fits every chunk of its class and a short chunk takes a short one. */
static unsigned class_of(uint32_t n)
{
    unsigned k = 0;
    while (((uint64_t)1 << k) + 2 < n)
        k++;
    return k;
}

VlSweep *vl_adsweep_begin(const TapeChunk *chunk, uint32_t n, VladState *S,
                          VlSweepComm comm)
{
    VlSweep *sw = vl_gc_alloc(sizeof *sw);
    sw->S = S;
    sw->comm = comm;
    uint32_t k = 0;
    for (const TapeChunk *c = chunk; c != NULL; c = c->prev)
        k++;
    sw->nchunks = k;
    sw->hit = sw->primal_hit = 0;
    sw->dir = vl_gc_alloc((k ? k : 1) * sizeof(Entry));
    for (unsigned c = 0; c < CLASSES; c++)
        sw->spares[c] = NO_ENTRY;
    for (const TapeChunk *c = chunk; c != NULL; n = c->prev_n, c = c->prev) {
        Entry *e = &sw->dir[--k];
        e->slots = c->slots;
        e->base = c->base;
        e->n = n;
        e->sens = e->spare = NULL;
        e->next_spare = NO_ENTRY;
        e->cls = class_of(n);
        e->keep = 0;
        e->comms = c->comms;
    }
    /* the pages: indices are contiguous from chunk to chunk */
    uint32_t end = sw->nchunks ? sw->dir[sw->nchunks - 1].base
                                 + sw->dir[sw->nchunks - 1].n : 0;
    sw->npages = ((size_t)end >> PAGE_BITS) + 1;
    sw->page = vl_gc_alloc_atomic(sw->npages * sizeof *sw->page);
    for (size_t p = 0; p < sw->npages; p++)
        sw->page[p] = 0;
    for (uint32_t j = 0; j < sw->nchunks; j++) {
        const Entry *e = &sw->dir[j];
        if (e->n == 0)
            continue;
        for (size_t p = e->base >> PAGE_BITS;
             p <= (size_t)(e->base + e->n - 1) >> PAGE_BITS; p++)
            sw->page[p] = j;
    }
    return sw;
}

/* The segment of entry e, zeroed when it is new to e: a spare of its
   class if there is one. */
static double *segment(VlSweep *sw, Entry *e)
{
    if (e->sens == NULL) {
        uint32_t j = sw->spares[e->cls];
        double *s;
        if (j != NO_ENTRY) {
            Entry *from = &sw->dir[j];
            s = from->spare;
            from->spare = NULL;
            sw->spares[e->cls] = from->next_spare;
        } else
            s = vl_gc_alloc_atomic((((size_t)1 << e->cls) + 2)
                                   * sizeof(double));
        memset(s, 0, e->n * sizeof(double));
        e->sens = s;
    }
    return e->sens;
}

/* The entry of the chunk holding tape index i, starting from entry
   *hit, which it updates. */
static Entry *entry_of(VlSweep *sw, uint32_t *hit, uint32_t i)
{
    Entry *e = &sw->dir[*hit];
    if (i < e->base || i >= e->base + e->n) {
        /* the page's last entry, or one before it: the entry holding
           i is the last that holds nodes and starts at or before i */
        size_t p = i >> PAGE_BITS;
        uint32_t k = sw->page[p < sw->npages ? p : sw->npages - 1];
        while (k > 0 && (sw->dir[k].base > i || sw->dir[k].n == 0))
            k--;
        *hit = k;
        e = &sw->dir[k];
    }
    return e;
}

double *vl_adsweep_sens(VlSweep *sw, uint32_t i)
{
    Entry *e = entry_of(sw, &sw->hit, i);
    return &segment(sw, e)[i - e->base];
}

/* The chunk being swept, for the rules that read a parent's primal. */
typedef struct Swept {
    VlSweep *sw;
    const TapeSlot *t0;     /* its slots */
    uint32_t base;
    uint32_t limit;         /* the index of the node being swept */
} Swept;

/* The primal of node p, a parent of a node of the chunk being swept:
   nearly always in that chunk. */
static inline double parent_primal(void *ctx, uint32_t p)
{
    const Swept *c = ctx;
    if (VL_UNLIKELY(p >= c->limit))     /* not a parent (see the sweep) */
        return 0;
    if (VL_LIKELY(p >= c->base))
        return c->t0[p - c->base].primal;
    const Entry *e = entry_of(c->sw, &c->sw->primal_hit, p);
    return e->slots[p - e->base].primal;
}

/* The sensitivity of parent p of a node of the chunk whose segment is s0
   (base). */
static inline double *parent_sens(VlSweep *sw, double *s0, uint32_t base,
                                  uint32_t p)
{
    if (VL_LIKELY(p >= base))
        return &s0[p - base];
    return vl_adsweep_sens(sw, p);
}

void vl_adsweep_run(VlSweep *sw)
{
    for (uint32_t k = sw->nchunks; k-- > 0;) {
        Entry *e = &sw->dir[k];
        if (e->sens == NULL) {  /* nothing to propagate from this chunk */
            if (!e->comms)      /* (a record sends its zeros all the same) */
                continue;
            (void)segment(sw, e);
        }
        double *s0 = e->sens;
        const TapeSlot *t0 = e->slots;
        uint32_t base = e->base;
        Swept swept = {sw, t0, base, base};
        /* What node j adds to node j - 1 (its parent in a chain, the
           usual case) is carried to the next turn in registers, c0 then
           c1, rather than through s0[j - 1]: the same additions in the
           same order, without a store and a load on the chain of
           dependent operations.  (When only c1 is pending, c0 adds a
           +0, which changes nothing: a sensitivity is never -0, since
           segments start at +0 and round-to-nearest sums from +0 never
           give -0.) */
        double c0 = 0, c1 = 0;
        int carried = 0;
        for (uint32_t j = e->n; j-- > 0;) {
            double s = s0[j];
            if (carried) {
                s = s + c0 + c1;
                s0[j] = s;                      /* a leaf's is read */
                c0 = c1 = 0;
                carried = 0;
            }
            /* a slot holding a partial (VL_TAPE_CONT) is never a
               parent: its sensitivity stays 0; nor is a communication
               record, whose adjoint communication is performed here,
               when the sweep has passed every use of the nodes it names
               (vm/ad/admsg.h) */
            if (s == 0) {
                if (VL_UNLIKELY(e->comms)
                    && t0[j].parent == VL_TAPE_COMM) {
                    sw->comm(sw->S, sw, &t0[j], base + j);
                    s0 = e->sens;       /* (still this chunk's segment) */
                }
                continue;
            }
            uint32_t p[2];
            double d[2];
            swept.limit = base + j;
            int n = vl_tape_decode(&t0[j], p, d, parent_primal, &swept);
            if (n <= 0) {       /* a leaf; or a partial's slot, which a
                                   damaged saved tape may name (vm/persist/ckptload.c) */
                if (n == 0)
                    e->keep = 1;
                continue;
            }
            /* parents come before their node on a tape: one that does
               not (a saved tape forged so) gets nothing */
            if (VL_UNLIKELY(p[0] >= base + j
                            || (n == 2 && p[1] >= base + j)))
                continue;
            uint32_t prev = base + j - 1;       /* j > 0: node j - 1 */
            double d0 = vl_ad_mulz(d[0], s);
            if (p[0] == prev && j > 0) {
                c0 = d0;
                carried = 1;
            } else
                *parent_sens(sw, s0, base, p[0]) += d0;
            if (n == 1)
                continue;
            double d1 = vl_ad_mulz(d[1], s);
            if (p[1] == prev && j > 0) {
                c1 = d1;
                carried = 1;
            } else
                *parent_sens(sw, s0, base, p[1]) += d1;
        }
        if (!e->keep) {         /* its sensitivities are read no more */
            e->spare = e->sens;
            e->sens = NULL;
            e->next_spare = sw->spares[e->cls];
            sw->spares[e->cls] = k;
        }
    }
}

void vl_adsweep_end(VlSweep *sw)
{
    for (uint32_t k = 0; k < sw->nchunks; k++) {
        if (sw->dir[k].sens != NULL)
            vl_gc_free(sw->dir[k].sens);
        if (sw->dir[k].spare != NULL)
            vl_gc_free(sw->dir[k].spare);
    }
    vl_gc_free(sw->dir);
    vl_gc_free(sw->page);
    vl_gc_free(sw);
}
