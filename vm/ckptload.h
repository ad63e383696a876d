/*
 * vm/ckptload.h -- reading a checkpoint back from the file format of
 * vm/ckptfile.h, checked (doc/internals.md, section 20)
 */
#ifndef VL_CKPTLOAD_H
#define VL_CKPTLOAD_H

#include "vm/ckptfile.h"

/* The value in the 'len' bytes at 'data', 'name' naming them in
   messages; raises (the state unchanged) when they are not a valid
   checkpoint file of this build, or need a host primitive that is not
   registered.  On success the user globals the file holds are
   defined, and '*prog' (if not NULL) receives the program an autosave
   holds (prog->present: 0 for a plain checkpoint). */
VL_INTERNAL Value vl_ckpt_load(VladState *S, const unsigned char *data,
                               size_t len, const char *name,
                               CkptProgram *prog);

/* What vl_ckpt_save_local wrote (vm/ckptsave.h), with its 'next'
   externals and the caller's scratch: the checkpoint, a new object
   (vm/spill.c moves its fields into the one saved).  Checked as any
   file. */
VL_INTERNAL Value vl_ckpt_load_local(VladState *S, const unsigned char *data,
                                     size_t len, const char *name,
                                     const Value *ext, size_t next,
                                     CkptScratch *sc);

/* The file's header checked (and its checksum) and, for an autosave, its
   output count and note in '*prog' (prog->present); nothing built. */
VL_INTERNAL void vl_ckpt_info(VladState *S, const unsigned char *data,
                              size_t len, const char *name,
                              CkptProgram *prog);

#endif
