/*
 * vm/ckptsave.h -- writing a checkpoint in the file format of
 * vm/ckptfile.h (doc/internals.md, section 20)
 */
#ifndef VL_CKPTSAVE_H
#define VL_CKPTSAVE_H

#include "vm/ckptfile.h"

/* The whole file (header, records, checksum) of checkpoint 'root' into
   'file', with the program 'prog' being run when it is not NULL (an
   autosave); raises when it holds what cannot be saved (a host call in
   progress, an internal value). */
VL_INTERNAL void vl_ckpt_save(VladState *S, Value root,
                              const CkptProgram *prog, CkptOut *file);

#endif
