/*
 * cli/doctable.h -- the texts of ,describe and ,apropos
 *
 * vl_docs is generated at build time (cli/doctable.awk) from the two
 * places that document VLAD's names, so no text is kept twice: the table
 * of primitives in doc/reference.md section 6, and the comment block
 * before each definition of stdlib/prelude.vlad.
 */
#ifndef VL_CLI_DOCTABLE_H
#define VL_CLI_DOCTABLE_H

typedef struct VlDoc {
    const char *name;       /* the name described; NULL ends the table */
    const char *where;      /* "primitive, ..." or "prelude, ...": whence */
    const char *text;       /* the description; lines end in '\n' except
                               the last */
} VlDoc;

/* Every documented name, in the order of the sources; a name may have
   several entries (checkpoint-*j is a primitive of the table and a
   prelude definition). */
extern const VlDoc vl_docs[];

#endif
