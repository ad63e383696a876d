/*
 * vm/persist/ckptsave.h -- writing a checkpoint in the file format of
 * vm/persist/ckptfile.h (doc/internals.md, section 20)
 */
#ifndef VL_CKPTSAVE_H
#define VL_CKPTSAVE_H

#include "vm/persist/ckptfile.h"
#include "vm/core/contseg.h"

/* The whole file (header, records, checksum) of checkpoint 'root' into
   'file', with the program 'prog' being run when it is not NULL (an
   autosave); raises when it holds what cannot be saved (a host call in
   progress, an internal value). */
VL_INTERNAL void vl_ckptsave_file(VladState *S, Value root,
                                  const CkptProgram *prog, CkptOut *file);

/* The same in the local mode (vm/persist/ckptsave.c, vm/persist/spill.h): the file of
   checkpoint 'root', to be read back by vl_ckptload_local in this
   process, into sc->file, with the externals it names (returned, *next
   of them).  NULL when the checkpoint holds another checkpoint or a
   suspended tape: the walks of AD enter those (their frames, their
   nodes), and a copy of the root would no longer share with them what
   the root does -- such a checkpoint cannot be copied. */
VL_INTERNAL Value *vl_ckptsave_local(VladState *S, Checkpoint *root,
                                     CkptScratch *sc, size_t *next);

#endif
