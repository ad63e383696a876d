/*
 * vm/core/unit.h -- compilation units: where a prototype's code came from
 *
 * Every top-level form compiled (vm/exec/toplevel.c) is a unit: the whole text
 * it was read from, that text's name, the form's index among the text's
 * top-level forms, the environment (user or prelude), and the inline
 * primitives whose names the compiler found rebound when it compiled the
 * form (so it called them instead of inlining them).  Each prototype
 * compiled from the form points at its unit (Proto.unit).
 *
 * This is what lets a checkpoint leave the process (vm/persist/ckptsave.c,
 * vm/persist/ckptload.c): a prototype is saved as (unit, its index in the unit's
 * prototypes in a fixed order), and loading compiles the unit's text
 * again with the same decisions, which gives the same code -- checked by
 * a hash of the code.  The prelude's units are not saved: they are
 * named by their index, and the file says which prelude it needs.
 * Internal header.
 */
#ifndef VL_UNIT_H
#define VL_UNIT_H

#include "parser/datum.h"
#include "vm/core/state.h"

typedef struct VlUnit {
    const char *text;       /* the whole text (GC or static memory) */
    size_t len;
    const char *name;       /* its name in positions (a file's path) */
    uint32_t form;          /* index of the form among the text's */
    int prelude;            /* compiled in the prelude's environment */
    int internal;           /* a prelude form defining a private name
                               ('%...'): its procedures are internal
                               (vm/persist/ckptload.c keeps them out of a
                               file's reach, doc/internals.md section 20) */
    uint64_t rebound;       /* bit i: inline id i was found rebound */
    Proto *top;             /* the form's prototype */
    Proto **protos;         /* every prototype of the form, in order
                               (vl_unit_protos); NULL until asked */
    uint32_t nprotos;
    uint64_t hash;          /* of their code (vl_unit_hash); 0: not yet */
} VlUnit;

/* Before compiling form 'form' of 'text': the unit its prototypes will
   point at (the text is kept as it is: it must outlive the unit).  After
   compiling, vl_unit_end records the decisions and the prototype. */
VL_INTERNAL VlUnit *vl_unit_begin(VladState *S, const char *text,
                                  size_t len, const char *name,
                                  uint32_t form, int prelude);
VL_INTERNAL void vl_unit_end(VladState *S, VlUnit *u, Proto *top);

/* The prototypes of u in order (the form's, then depth first through
   children, each before its own children): '*n' of them. */
VL_INTERNAL Proto *const *vl_unit_protos(VlUnit *u, uint32_t *n);

/* Index of p among its unit's prototypes (p->unit != NULL). */
VL_INTERNAL uint32_t vl_unit_index(const Proto *p);

/* A hash of the code of every prototype of u (never 0). */
VL_INTERNAL uint64_t vl_unit_hash(VlUnit *u);

/* The top-level forms of 'text', read for vl_unit_recompile: an array
   of '*n' datums (read once, indexed in O(1)); raises when the text does
   not read, VLAD_ERR_INTERRUPTED when an interrupt is asked for while it
   is read (the message located at 'file': the checkpoint file's). */
VL_INTERNAL Datum **vl_unit_read(VladState *S, const char *text, size_t len,
                                 const char *name, const char *file,
                                 uint32_t *n);

/* Compile 'datum', form 'form' of 'text' (vl_unit_read gave it), again,
   in the user environment, taking the inline decisions 'rebound': a new
   unit.  Raises an error (a form that is not a definition or an
   expression).  Costs what compiling the form costs: O(its size). */
VL_INTERNAL VlUnit *vl_unit_recompile(VladState *S, Datum *datum,
                                      const char *text, size_t len,
                                      const char *name, uint32_t form,
                                      uint64_t rebound);

/* FNV-1a over 'len' bytes, continuing from 'h' (start: VL_FNV_INIT). */
#define VL_FNV_INIT 0xcbf29ce484222325ull
static inline uint64_t vl_fnv(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#endif
