/*
 * vm/core/strbuf.c -- growable byte strings in the collected heap (see
 * vm/core/strbuf.h)
 */
#include "config.h"
#include "vm/core/strbuf.h"

#include <string.h>
#include "vm/core/gc.h"

void vl_strbuf_init(StrBuf *b)
{
    b->cap = 64;
    b->len = 0;
    b->data = vl_gc_alloc_atomic(b->cap);
    b->data[0] = '\0';
}

void vl_strbuf_add(StrBuf *b, const char *s, size_t n)
{
    b->data = vl_gc_reserve(b->data, b->len, b->len + n + 1, &b->cap, 1, 1);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void vl_strbuf_adds(StrBuf *b, const char *s)
{
    vl_strbuf_add(b, s, strlen(s));
}
