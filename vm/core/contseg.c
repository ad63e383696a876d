/*
 * vm/core/contseg.c -- building and reading shared frame sequences
 *
 * See vm/core/contseg.h.  Everything here is O(1) per call except the scan of
 * a new run's range for delimiter frames and the iteration, which keeps
 * its pending pieces on an explicit stack (sequences may be nested as
 * deep as a chain is long: no C recursion).
 */
#include "config.h"
#include "vm/core/contseg.h"

#include <string.h>

ContRun *vl_contseg_run(uint32_t nframes, size_t nvalues)
{
    ContRun *r = vl_gc_alloc(sizeof *r + nframes * sizeof(CapFrame)
                             + nvalues * sizeof(Value));
    r->nframes = nframes;
    r->nvalues = (uint32_t)nvalues;
    r->values = (Value *)(r->frames + nframes);
    return r;
}

uint64_t vl_contseg_range_values(const ContRun *r, uint32_t a, uint32_t b)
{
    if (b <= a)
        return 0;
    return (uint64_t)r->frames[b - 1].first + r->frames[b - 1].nlive
           - r->frames[a].first;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The counts and the delimiter flag of s from its parts. */
static void seg_sums(ContSeg *s)
{
    s->hooks = s->hook_lo >= 0 || (s->below != NULL && s->below->hooks)
               || (s->ref != NULL && s->ref->hooks);
    s->nframes = sat_add(sat_add(vl_contseg_frames(s->below), s->count),
                         vl_contseg_frames(s->ref));
    s->nvalues = sat_add(sat_add(vl_contseg_values(s->below),
                                 s->count ? vl_contseg_range_values(
                                     s->run, s->first, s->first + s->count)
                                          : 0),
                         vl_contseg_values(s->ref));
}

const ContSeg *vl_contseg_make(const VladState *S, const ContSeg *below,
                               const ContRun *run, uint32_t first,
                               uint32_t count, const ContSeg *ref, int scan)
{
    if (count == 0 && ref == NULL)
        return below;
    if (count == 0 && below == NULL)
        return ref;
    return vl_contseg_init(S, vl_gc_alloc(sizeof(ContSeg)), below, run, first,
                           count, ref, scan);
}

const ContSeg *vl_contseg_init(const VladState *S, ContSeg *s,
                               const ContSeg *below, const ContRun *run,
                               uint32_t first, uint32_t count,
                               const ContSeg *ref, int scan)
{
    s->below = below;
    s->ref = ref;
    s->run = count ? run : NULL;
    s->first = count ? first : 0;
    s->count = count;
    s->hook_lo = s->hook_hi = -1;
    for (uint32_t f = first; scan && f < first + count; f++)
        if (vl_contseg_delimiter(S, run->frames[f].closure->proto)) {
            if (s->hook_lo < 0)
                s->hook_lo = (int32_t)f;
            s->hook_hi = (int32_t)f;
        }
    seg_sums(s);
    return s;
}

const ContSeg *vl_contseg_cat(const VladState *S, const ContSeg *b,
                              const ContSeg *x)
{
    if (x == NULL)
        return b;
    if (b == NULL)
        return x;
    if (x->below != NULL)           /* one more piece: b, then all of x */
        return vl_contseg_make(S, b, NULL, 0, 0, x, 0);
    ContSeg *s = vl_gc_alloc(sizeof *s);    /* x's top piece over b */
    *s = *x;
    s->below = b;
    seg_sums(s);
    return s;
}

/* ===== Iteration ===== */

/* A pending piece: a whole sequence, or (run_only) the range of one. */
typedef struct Pending {
    const ContSeg *s;
    int run_only;
} Pending;

void vl_contseg_each_frame(const ContSeg *seq,
                           int (*fn)(void *ud, const ContRun *run, uint32_t f),
                           void *ud)
{
    Pending local[32];
    Pending *st = local;
    size_t n = 0, cap = 32;
    if (seq != NULL)
        st[n++] = (Pending){seq, 0};
    while (n > 0) {
        Pending it = st[--n];
        const ContSeg *s = it.s;
        if (it.run_only) {
            for (uint32_t f = s->first + s->count; f-- > s->first;)
                if (fn(ud, s->run, f))
                    return;
            continue;
        }
        st = vl_gc_reserve(st, n, n + 3, &cap, sizeof *st, 0);
        /* top first: ref, then the range, then below */
        if (s->below != NULL)
            st[n++] = (Pending){s->below, 0};
        if (s->count > 0)
            st[n++] = (Pending){s, 1};
        if (s->ref != NULL)
            st[n++] = (Pending){s->ref, 0};
    }
}

/* An underflow frame holds its sequence in R0 and, when the sequence's
   top piece is its range (no ref), how many frames of that range are
   still to copy in R1. */
const ContSeg *vl_contseg_lazy(VladState *S, const Value *ubase)
{
    const ContSeg *s = ubase[0].as.ptr;
    uint32_t cnt = (uint32_t)ubase[1].as.i;
    if (s->ref == NULL && cnt < s->count)
        return vl_contseg_make(S, s->below, s->run, s->first, cnt, NULL, 0);
    return s;
}

/* Register r of frame f of run (live there), in the run's values. */
Value *vl_contseg_run_reg(const ContRun *run, uint32_t f, int r)
{
    const CapFrame *cf = &run->frames[f];
    const Proto *p = cf->closure->proto;
    uint32_t nruns;
    const LiveRun *l = vl_proto_live_set(p, p->code + cf->ret_pc, &nruns);
    size_t j = cf->first;
    for (uint32_t q = 0; q < nruns && l[q].first <= r; q++)
        j += r < l[q].first + l[q].count ? (size_t)(r - l[q].first)
                                         : l[q].count;
    return &run->values[j];
}

size_t vl_contseg_bytes(uint64_t nframes, uint64_t nvalues)
{
    uint64_t cap = SIZE_MAX / 4;
    if (nframes > cap / sizeof(CapFrame) || nvalues > cap / sizeof(Value))
        return SIZE_MAX;
    return VL_SEG_CKPT_BYTES + (size_t)nframes * sizeof(CapFrame)
           + (size_t)nvalues * sizeof(Value);
}
