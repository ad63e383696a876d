/*
 * vm/core/contseg.h -- the frames of checkpoints: runs and shared segments
 *
 * A checkpoint's suspended frames (vm/core/cont.h) are a SEQUENCE, bottom
 * first, described by immutable heap objects that checkpoints share:
 *
 *   ContRun   frames copied off the stack by one capture (or made by a
 *             walk): for each its closure, where it resumes, the distance
 *             to the frame above and only its live registers.
 *   ContSeg   one piece of a sequence, read bottom to top:
 *                 below  ++  run[first .. first+count)  ++  ref
 *             'below' and 'ref' are whole sequences (or NULL).  A capture
 *             makes one ContSeg per underflow frame it meets (vm/core/cont.c):
 *             the frames it copied under that frame, then the sequence the
 *             underflow frame stands for, uncopied, as 'ref'.
 *
 * A sequence is a DAG: the chain u1 = (checkpoint resume u0 1),
 * u2 = (checkpoint resume u1 1), ... gives u(n) = { below: NULL,
 * run: [the resume frame of level n], ref: u(n-1)'s sequence }, one small
 * object per level instead of a copy of the n frames.
 *
 * Invariant: a 'ref' never holds a delimiter frame (vl_contseg_delimiter), as
 * it is always a sequence an underflow frame stood for, and those are
 * made only of plain frames.  So delimiters lie in runs along the 'below'
 * chain of a checkpoint's top segment, where reinstalling finds them.
 *
 * Counts.  nframes and nvalues count a sequence as if it were stored
 * flat: a segment that appears twice counts twice (saturating at
 * UINT64_MAX).  They give a checkpoint's logical size (Checkpoint.bytes).
 */
#ifndef VL_CONTSEG_H
#define VL_CONTSEG_H

#include "vm/core/state.h"

typedef struct CapFrame {
    Closure *closure;       /* the suspended procedure */
    uint32_t ret_pc;        /* instruction index where it resumes */
    uint32_t delta;         /* distance (slots) from its base to the base
                               of the frame above it */
    uint32_t first;         /* index of its first live value in the run's
                               'values' */
    uint32_t nlive;         /* number of live registers kept */
} CapFrame;

typedef struct ContRun ContRun;

typedef struct ContSeg {
    const struct ContSeg *below;    /* frames under the run's, or NULL */
    const struct ContSeg *ref;      /* a shared sequence over them, with
                                       no delimiter frame; or NULL */
    const ContRun *run;             /* own frames (NULL when count = 0) */
    uint32_t first, count;          /* ... run->frames[first .. +count) */
    int32_t hook_lo, hook_hi;       /* run indices of the lowest and the
                                       highest delimiter frame of that
                                       range; -1: none */
    int hooks;                      /* a delimiter frame anywhere in the
                                       sequence (range or below) */
    uint64_t nframes;               /* frames of the whole sequence */
    uint64_t nvalues;               /* live values of the whole sequence */
} ContSeg;

/* A checkpoint: a suspended computation as a value (vm/core/cont.h says how
   it is captured and reinstalled). */
typedef struct Checkpoint {
    int finished;           /* the computation has ended */
    Value result;           /* finished: its value */
    Value callee;           /* pending application: procedure ... */
    Value arg;              /* ... and its (single, tuple) argument */
    const ContSeg *seq;     /* suspended frames (vm/core/contseg.h); NULL:
                               none */
    uint64_t nframes;       /* how many (logical: as if stored flat) */
    size_t bytes;           /* logical size (header comment) */
    int64_t steps_at;       /* steps of the interrupted computation
                               taken when captured (informative) */
    int64_t position;       /* checkpoint-*j: step position of the state
                               made by an advance segment; else 0 */
    int held;               /* checkpoint-*j: counted as a held slot */
    int64_t data_bytes;     /* checkpoint-*j: a state the first run kept:
                               the bytes of its data (vm/cpj/cpjfirst.c), */
    int data_measured;      /* measured, or else those of one before it */
    /* checkpoint-*j under spill=DIR (vm/persist/spill.h): */
    struct SpillRec *spill; /* its copy in a spill file, or NULL */
    int away;               /* callee, arg and seq are in that copy only
                               (vl_contseg_present brings them back) */
    int64_t cache_bytes;    /* held in memory, may be sent away: its
                               bytes there; 0: not so */
    int pinned;             /* cannot be sent away (vm/persist/spill.c) */
    uint64_t used_at;       /* when it was last used (a clock) */
} Checkpoint;

struct ContRun {
    ContSeg whole;          /* storage for one segment over this run
                               (the capture that made it uses it; saves
                               an allocation) */
    uint32_t nframes;       /* frames, bottom first */
    uint32_t nvalues;       /* live values of all of them */
    Value *values;          /* in frame and register order (in the same
                               allocation, after 'frames'); delimiter step
                               counts are relative (VT_RAW) */
    CapFrame frames[];
};


/* A frame that reinstalling must write onto the stack at once (it keeps
   state outside the stack: limits, AD and checkpoint-*j entries, step
   counts relative to the capture): checkpoint, primops, j*, *j,
   checkpoint-*j segments, and the entry frame of a host's call. */
static inline int vl_contseg_delimiter(const VladState *S, const Proto *p)
{
    switch (p->kind) {
    case PK_CHECKPOINT: case PK_PRIMOPS: case PK_JSTAR: case PK_STARJ:
    case PK_SEGMENT: case PK_HIDE:
        return 1;
    default:
        return p == S->control[CTL_ENTRY];
    }
}

/* A new run with room for 'nframes' frames and 'nvalues' values. */
VL_INTERNAL ContRun *vl_contseg_run(uint32_t nframes, size_t nvalues);

/* Live values of run frames [a, b). */
VL_INTERNAL uint64_t vl_contseg_range_values(const ContRun *r, uint32_t a,
                                             uint32_t b);

/* The sequence below ++ run[first, first+count) ++ ref; NULL when empty.
   'scan': look for delimiter frames in the range (else it has none). */
VL_INTERNAL const ContSeg *vl_contseg_make(const VladState *S,
                                           const ContSeg *below,
                                           const ContRun *run, uint32_t first,
                                           uint32_t count, const ContSeg *ref,
                                           int scan);

/* The same in 'storage' (count > 0). */
VL_INTERNAL const ContSeg *vl_contseg_init(const VladState *S, ContSeg *storage,
                                           const ContSeg *below,
                                           const ContRun *run, uint32_t first,
                                           uint32_t count, const ContSeg *ref,
                                           int scan);

/* The sequence b ++ x (either may be NULL); O(1). */
VL_INTERNAL const ContSeg *vl_contseg_cat(const VladState *S, const ContSeg *b,
                                          const ContSeg *x);

static inline uint64_t vl_contseg_frames(const ContSeg *s)
{
    return s != NULL ? s->nframes : 0;
}

static inline uint64_t vl_contseg_values(const ContSeg *s)
{
    return s != NULL ? s->nvalues : 0;
}

/* Visit the frames of 'seq' top first (the order returns meet them):
   fn(ud, run, index) for each until it returns nonzero.  Iterative. */
VL_INTERNAL void vl_contseg_each_frame(const ContSeg *seq,
                                       int (*fn)(void *ud, const ContRun *run,
                                             uint32_t f),
                                   void *ud);

/* Whether 'p' is the prototype of underflow frames (vm/core/cont.h). */
static inline int vl_contseg_is_underflow(const VladState *S, const Proto *p)
{
    return p == S->control[CTL_UNDERFLOW];
}

/* The frame sequence the underflow frame at 'ubase' stands for. */
VL_INTERNAL const ContSeg *vl_contseg_lazy(VladState *S, const Value *ubase);

/* Register r of frame f of run (live there), in the run's values. */
VL_INTERNAL Value *vl_contseg_run_reg(const ContRun *run, uint32_t f, int r);

/* The bytes a checkpoint itself counts for in its logical size (what a
   Checkpoint was before the fields of spill=DIR: plans and measures do
   not depend on its layout) */
#define VL_SEG_CKPT_BYTES ((size_t)120)

/* The logical size of a checkpoint of 'nframes' frames holding 'nvalues'
   live values (saturating). */
VL_INTERNAL size_t vl_contseg_bytes(uint64_t nframes, uint64_t nvalues);

/* A checkpoint whose fields are away in a spill file (vm/persist/spill.h) comes
   back before any of callee, arg, seq is read: every reader calls this.
   The state's hook (SpillHooks, vm/core/state.h) is vm/persist/spill.c's,
   which stands on a floor above the readers (doc/internals.md, section 2). */
static inline void vl_contseg_present(VladState *S, const Checkpoint *k)
{
    if (k->away)
        S->spill_hooks.bring_back(S, (Checkpoint *)k);
}

/* The aux of the raw values that carry effect logs (VT_RAW; vm/cpj/cpjlog.c
   keeps them): a recording log (a list of entries, newest first; NULL:
   empty) and a finished one.  The driver passes them around as values; a saved
   checkpoint writes them by this kind (vm/persist/ckptsave.c). */
#define VL_RAW_LOG_LIST 1u
#define VL_RAW_LOG 2u
/* A message logged (an entry's value: a MsgLogged, vm/core/state.h) */
#define VL_RAW_MSG 3u

/* The effect log while the first run records: a list, newest first. */
typedef struct LogEntry {
    int64_t pos;
    Value value;
    struct LogEntry *next;
} LogEntry;

/* Finished: sorted by position (messages: several at one position, in
   the order received). */
typedef struct Log {
    size_t n;
    int64_t *pos;
    Value *values;
    size_t first_nad;       /* the AD invocations below the first run */
    int pilot;              /* a pilot's copy: its re-execution measures */
} Log;

/* A raw value of kind 'aux' with pointer p. */
static inline Value vl_raw_ptr(uint32_t aux, const void *p)
{
    Value v = vl_raw(0);
    v.aux = aux;
    v.as.ptr = p;
    return v;
}

#endif
