/*
 * vm/persist/ckptfile.h -- the checkpoint file format: framing and primitives
 *
 * A saved checkpoint (vm/persist/ckptsave.c writes one, vm/persist/ckptload.c reads it;
 * doc/internals.md, "The checkpoint file format", is the full
 * description) is
 *
 *     offset  size
 *     0       8     magic "VLADCKPT"
 *     8       4     format version (VL_CKPT_FORMAT), little-endian
 *     12      1     word size in bytes (8)
 *     13      1     byte order (1: little-endian)
 *     14      1     size of a real (8: IEEE 754 binary64)
 *     15      1     0
 *     16      8     build id: this vlad's version and prelude (a file of
 *                   another build is refused: its prelude's code, which
 *                   the file names rather than copies, may differ)
 *     24      8     payload length P
 *     32      P     payload: records (below)
 *     32+P    4     CRC-32 (IEEE) of bytes [0, 32+P)
 *
 * and nothing after.  The payload is a sequence of records, each a kind
 * byte and its fields; integers are LEB128 (signed ones zigzagged),
 * reals 8 bytes bit for bit.  A record that makes an object gives it the
 * next object number; references are object numbers of objects already
 * made, so a file describes a DAG, built in one pass -- except closures,
 * which may be in cycles (letrec): R_CLOSURE makes the closure with its
 * captured values unset and R_FILL sets them later.  Internal header.
 */
#ifndef VL_CKPTFILE_H
#define VL_CKPTFILE_H

#include <stddef.h>
#include <stdint.h>
#include "vm/core/delimregs.h"
#include "vm/core/state.h"

#define VL_CKPT_MAGIC "VLADCKPT"
#define VL_CKPT_FORMAT 4u     /* 4: R_INFO holds the interval and the
                                   input consumed (issue 31) */
#define VL_CKPT_HEADER 32
#define VL_CKPT_TRAILER 4

/* Record kinds. */
enum {
    R_END = 0,          /* the last record: the root value */
    R_UNIT,             /* a compilation unit (vm/core/unit.h) */
    R_PAIR,             /* car, cdr */
    R_CLOSURE,          /* a closure, its captured values not yet set */
    R_FILL,             /* the captured values of a closure */
    R_DUAL,             /* a general dual number */
    R_CHUNK,            /* a tape chunk */
    R_LOG,              /* a finished effect log (checkpoint-*j) */
    R_LOGENTRY,         /* an entry of a recording effect log */
    R_RUN,              /* captured frames (vm/core/contseg.h) */
    R_SEG,              /* a frame sequence */
    R_CKPT,             /* a checkpoint */
    R_GLOBAL,           /* a user global the code reads, and its value */
    R_INFO,             /* first, in an autosave: output and input so
                           far, the interval, the note */
    R_PROGRAM,          /* last before R_END, in an autosave: the texts
                           being run and where */
    R_TEXT,             /* a text units are compiled from (once for all
                           the units of its forms) */
    R_LCLOSURE,         /* the local mode only (vm/persist/spill.h): a closure
                           whose code is an external */
    R__COUNT
};

/* How a value is written: its tag byte is the ValueTag, except for
   these encodings of internal raw words (VT_RAW): */
enum {
    X_RAW_INT = 0x40,   /* an integer (a delimiter's step count or tag) */
    X_RAW_LOG,          /* a finished log: object number */
    X_RAW_LOGLIST,      /* a recording log: object number + 1, 0: empty */
    X_RAW_TAPE_END,     /* a *j's tape end: chunk number + 1, count */
    X_PLAIN_DUAL,       /* a compact dual: tag, primal, tangent */
    X_EXTERN            /* the local mode only: an external's index */
};

/* A program being run by the top level, saved with its running
   evaluation by an autosave (vm/exec/autosave.h): what a resumed run needs to
   finish the whole program. */
typedef struct CkptLevel {
    const char *name;       /* a text being run (a file's path) ... */
    const char *text;
    size_t len;
    uint32_t next;          /* ... and the index of its next form */
} CkptLevel;

typedef struct CkptProgram {
    int present;            /* the file holds one (R_INFO, R_PROGRAM) */
    uint64_t output_bytes;  /* output the program had written */
    uint64_t input_bytes;   /* input read-real had consumed (not what
                               it read ahead) */
    double every;           /* the seconds between autosaves */
    const char *note;       /* the host's (vlad_set_autosave) */
    int define;             /* the running form is a definition */
    int32_t line, col;      /* where it is */
    size_t nlevels;         /* the texts, the outermost (the program)
                               first, the one holding the running form
                               last */
    CkptLevel *levels;
} CkptProgram;

/* A growing byte buffer. */
typedef struct CkptOut {
    unsigned char *data;
    size_t len, cap;
} CkptOut;

/* What a caller that saves and loads in the local mode again and again
   (vm/persist/spill.c) keeps from one call to the next, so that each call does
   not allocate its tables and buffers anew (zeroed at first; a call
   that raises leaves it empty). */
typedef struct CkptScratch {
    void *memo;                 /* vm/persist/ckptsave.c: its object numbers */
    size_t memo_cap;
    void *tasks;                /* ... its pending visits */
    size_t tasks_cap;
    CkptOut out, file;          /* ... the records, the whole file */
    void *objs;                 /* vm/persist/ckptload.c: the objects made */
    size_t objs_cap;
} CkptScratch;

VL_INTERNAL void vl_ckptfile_put(CkptOut *o, const void *p, size_t n);
VL_INTERNAL void vl_ckptfile_put_byte(CkptOut *o, unsigned b);
VL_INTERNAL void vl_ckptfile_put_u(CkptOut *o, uint64_t x);
VL_INTERNAL void vl_ckptfile_put_i(CkptOut *o, int64_t x);
VL_INTERNAL void vl_ckptfile_put_real(CkptOut *o, double x);
VL_INTERNAL void vl_ckptfile_put_str(CkptOut *o, const char *s, size_t n);

/* Reading: every read checks the bounds; a failure raises VLAD_ERR_IO
   naming the file ("... is damaged: ..."). */
typedef struct CkptIn {
    VladState *S;
    const unsigned char *p, *end;
    const char *name;       /* the file, for messages */
} CkptIn;

VL_INTERNAL VL_NORETURN void vl_ckptfile_bad(CkptIn *in, const char *fmt, ...);
VL_INTERNAL unsigned vl_ckptfile_get_byte(CkptIn *in);
VL_INTERNAL uint64_t vl_ckptfile_get_u(CkptIn *in);
/* An unsigned integer at most 'max'. */
VL_INTERNAL uint64_t vl_ckptfile_get_max(CkptIn *in, uint64_t max,
                                         const char *what);
VL_INTERNAL int64_t vl_ckptfile_get_i(CkptIn *in);
VL_INTERNAL double vl_ckptfile_get_real(CkptIn *in);
/* A string of at most 'max' bytes without NUL, copied to the heap. */
VL_INTERNAL char *vl_ckptfile_get_str(CkptIn *in, size_t max, size_t *len);
/* 'n' raw bytes (a pointer into the input). */
VL_INTERNAL const unsigned char *vl_ckptfile_get_bytes(CkptIn *in, size_t n);

/* CRC-32 (IEEE 802.3) of 'n' bytes. */
VL_INTERNAL uint32_t vl_ckptfile_crc32(const unsigned char *p, size_t n);

/* This build's id (header offset 16): a hash of the version and of the
   code of every prelude form. */
VL_INTERNAL uint64_t vl_ckptfile_build_id(VladState *S);

/* Frame and check the header and trailer of the 'len' bytes at 'data':
   returns the payload (and its length), or raises. */
VL_INTERNAL const unsigned char *vl_ckptfile_open(CkptIn *in,
                                                  const unsigned char *data,
                                                  size_t len, size_t *plen);

/* The whole file around 'payload': header, payload, CRC. */
VL_INTERNAL void vl_ckptfile_frame(VladState *S, const CkptOut *payload,
                                   CkptOut *file);

/* What a live register of a frame of p holds, for saving and loading:
   data (any value; a raw one only an effect log, told by its aux), or
   the raw bookkeeping of a delimiter frame (vm/core/delimregs.h). */
enum {
    ROLE_DATA,
    ROLE_INT,           /* a step count (relative while captured) */
    ROLE_TAG,           /* the tag of a j* or *j */
    ROLE_TAPE_END,      /* a *j's tape end (a tape value, or raw) */
    ROLE_LOG,           /* a finished effect log */
    ROLE_LOGLIST        /* a recording effect log */
};

static inline int vl_ckptfile_role(const VladState *S, const Proto *p, int r)
{
    switch (p->kind) {
    case PK_CHECKPOINT:
        return r == p->ctlreg + VL_CKPT_DEADLINE ? ROLE_INT : ROLE_DATA;
    case PK_PRIMOPS:
        return r == p->ctlreg + VL_PRIMOPS_START ? ROLE_INT : ROLE_DATA;
    case PK_HIDE:       /* the strategy, VL_HIDE_STRATEGY, is data */
        return r == p->ctlreg + VL_HIDE_ORIGIN
               || r == p->ctlreg + VL_HIDE_COUNTED
               || r == p->ctlreg + VL_HIDE_HIDES ? ROLE_INT : ROLE_DATA;
    case PK_SEGMENT:
        if (r == p->ctlreg + VL_SEG_ANCHOR)
            return ROLE_INT;
        if (r == p->ctlreg + VL_SEG_LOG)
            return p == S->control[CTL_SEG_FIRST]
                   || p == S->control[CTL_SEG_REC] ? ROLE_LOGLIST
                                                   : ROLE_LOG;
        return ROLE_DATA;
    case PK_JSTAR:
        return r == p->ctlreg + VL_AD_TAG ? ROLE_TAG : ROLE_DATA;
    case PK_STARJ:
        return r == p->ctlreg + VL_AD_TAG ? ROLE_TAG
               : r == p->ctlreg + VL_STARJ_TAPE_END ? ROLE_TAPE_END
                                                    : ROLE_DATA;
    default:
        return ROLE_DATA;
    }
}

#endif
