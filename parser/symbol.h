/*
 * parser/symbol.h -- interned symbols
 *
 * A Symbol is an interned name: two symbols with the same spelling in one
 * table are the same pointer, so comparison is pointer equality.  Each
 * interpreter state owns one VlSymtab (no global table).  Symbols live in the
 * GC heap and are kept alive by the table.  'vl_symbol_gensym' makes an
 * uninterned symbol (used by the expander for temporaries); it never equals
 * any symbol read from source.
 */
#ifndef VL_SYMBOL_H
#define VL_SYMBOL_H

#include <stddef.h>
#include <stdint.h>
#include "vm/core/gc.h"

typedef struct Symbol {
    const char *name;     /* NUL-terminated spelling, GC memory */
    uint32_t hash;        /* hash of 'name' */
    uint32_t id;          /* dense id in its table (gensyms: UINT32_MAX) */
    struct Symbol *next;  /* chain in the hash bucket */
} Symbol;

typedef struct VlSymtab {
    Symbol **buckets;     /* GC array of 'nbuckets' chains */
    uint32_t nbuckets;    /* power of two */
    uint32_t count;       /* interned symbols */
    uint32_t gensyms;     /* counter for gensym names */
} VlSymtab;

VL_INTERNAL VlSymtab *vl_symbol_table_new(void);
VL_INTERNAL Symbol *vl_symbol_intern(VlSymtab *t, const char *name, size_t len);
VL_INTERNAL Symbol *vl_symbol_intern_c(VlSymtab *t, const char *name);
/* The symbol spelled 'name' if it is interned, else NULL (nothing is
   added: a lookup never grows the table). */
VL_INTERNAL Symbol *vl_symbol_lookup_c(const VlSymtab *t, const char *name);
VL_INTERNAL Symbol *vl_symbol_gensym(VlSymtab *t, const char *prefix);

#endif
