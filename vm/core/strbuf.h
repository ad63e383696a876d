/*
 * vm/core/strbuf.h -- growable byte strings in the collected heap
 *
 * The one growable text buffer of the runtime: printing (vm/core/print.c),
 * messages and backtraces (vm/core/except.c) append to it; its data is always
 * NUL-terminated and pointer-free (allocated atomic).
 */
#ifndef VL_STRBUF_H
#define VL_STRBUF_H

#include <stddef.h>
#include "vm/core/gc.h"

typedef struct StrBuf {
    char *data;
    size_t len, cap;
} StrBuf;

VL_INTERNAL void vl_strbuf_init(StrBuf *b);
VL_INTERNAL void vl_strbuf_add(StrBuf *b, const char *s, size_t n);
VL_INTERNAL void vl_strbuf_adds(StrBuf *b, const char *s);

#endif
