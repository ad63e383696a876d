/*
 * parser/symbol.c -- interned symbols (see parser/symbol.h)
 *
 * A chained hash table of Symbols in GC memory, doubled when the load
 * factor passes 1.  FNV-1a hashes the spelling.
 */
#include "config.h"
#include "parser/symbol.h"

#include <stdio.h>
#include <string.h>

static uint32_t hash_bytes(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

VlSymtab *vl_symbol_table_new(void)
{
    VlSymtab *t = vl_gc_alloc(sizeof *t);
    t->nbuckets = 256;
    t->buckets = vl_gc_alloc(t->nbuckets * sizeof(Symbol *));
    return t;
}

static void grow(VlSymtab *t)
{
    uint32_t n = t->nbuckets * 2;
    Symbol **b = vl_gc_alloc(n * sizeof(Symbol *));
    for (uint32_t i = 0; i < t->nbuckets; i++) {
        Symbol *s = t->buckets[i];
        while (s != NULL) {
            Symbol *next = s->next;
            s->next = b[s->hash & (n - 1)];
            b[s->hash & (n - 1)] = s;
            s = next;
        }
    }
    t->buckets = b;
    t->nbuckets = n;
}

static Symbol *find(const VlSymtab *t, const char *name, size_t len,
                    uint32_t h)
{
    for (Symbol *s = t->buckets[h & (t->nbuckets - 1)]; s; s = s->next)
        if (s->hash == h && strncmp(s->name, name, len) == 0
            && s->name[len] == '\0')
            return s;
    return NULL;
}

Symbol *vl_symbol_lookup_c(const VlSymtab *t, const char *name)
{
    size_t len = strlen(name);
    return find(t, name, len, hash_bytes(name, len));
}

Symbol *vl_symbol_intern(VlSymtab *t, const char *name, size_t len)
{
    uint32_t h = hash_bytes(name, len);
    Symbol *found = find(t, name, len, h);
    if (found != NULL)
        return found;
    if (t->count >= t->nbuckets)
        grow(t);
    Symbol *s = vl_gc_alloc(sizeof *s);
    s->name = vl_gc_strndup(name, len);
    s->hash = h;
    s->id = t->count++;
    s->next = t->buckets[h & (t->nbuckets - 1)];
    t->buckets[h & (t->nbuckets - 1)] = s;
    return s;
}

Symbol *vl_symbol_intern_c(VlSymtab *t, const char *name)
{
    return vl_symbol_intern(t, name, strlen(name));
}

Symbol *vl_symbol_gensym(VlSymtab *t, const char *prefix)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.40s%%%u", prefix, ++t->gensyms);
    Symbol *s = vl_gc_alloc(sizeof *s);
    s->name = vl_gc_strdup(buf);
    s->hash = hash_bytes(buf, strlen(buf));
    s->id = UINT32_MAX;
    return s;
}
