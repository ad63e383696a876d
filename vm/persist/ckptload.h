/*
 * vm/persist/ckptload.h -- reading a checkpoint back from the file format of
 * vm/persist/ckptfile.h, checked (doc/internals.md, section 20)
 */
#ifndef VL_CKPTLOAD_H
#define VL_CKPTLOAD_H

#include "vm/persist/ckptfile.h"

/* What a load did, for tests of its bounds (doc/hardening.md section
   3): each figure grows at most in proportion to the file. */
typedef struct CkptLoadStats {
    uint64_t records;       /* records read */
    uint64_t compiles;      /* forms compiled */
    uint64_t work;          /* steps of the checks that walk shared
                               structure (the budget's count) */
    uint64_t owed_max;      /* the most captured values closures made but
                               not filled waited for at once */
} CkptLoadStats;

/* The caller's part of a load. */
typedef struct CkptAccept {
    /* called once the whole file is checked, before anything changes:
       raises to refuse the file (the state unchanged); may be NULL */
    void (*check)(VladState *S, Value root, CkptProgram *prog, void *ud);
    void *ud;
    CkptLoadStats *stats;   /* filled in, or NULL */
} CkptAccept;

/* The value in the 'len' bytes at 'data', 'name' naming them in
   messages; raises (the state unchanged) when they are not a valid
   checkpoint file of this build, need a host primitive that is not
   registered, or are refused by accept->check; VLAD_ERR_INTERRUPTED when
   an interrupt is asked for meanwhile (the state unchanged).  Time and
   memory O(len).  On success the user globals the file holds are
   defined, and '*prog' (if not NULL) receives the program an autosave
   holds (prog->present: 0 for a plain checkpoint). */
VL_INTERNAL Value vl_ckptload_value(VladState *S, const unsigned char *data,
                                    size_t len, const char *name,
                                    CkptProgram *prog,
                                    const CkptAccept *accept);

/* What vl_ckptsave_local wrote (vm/persist/ckptsave.h), with its 'next'
   externals and the caller's scratch: the checkpoint, a new object
   (vm/persist/spill.c moves its fields into the one saved).  Checked as any
   file. */
VL_INTERNAL Value vl_ckptload_local(VladState *S, const unsigned char *data,
                                    size_t len, const char *name,
                                    const Value *ext, size_t next,
                                    CkptScratch *sc);

/* The file's header checked (and its checksum) and, for an autosave, its
   output count and note in '*prog' (prog->present); nothing built. */
VL_INTERNAL void vl_ckptload_info(VladState *S, const unsigned char *data,
                                  size_t len, const char *name,
                                  CkptProgram *prog);

#endif
