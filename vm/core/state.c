/*
 * vm/core/state.c -- global cells and output of a VladState
 *
 * Cells are found by symbol id in two arrays (prelude and user
 * environments) that grow with the symbol table.  A user cell starts as a
 * copy of the prelude cell of the same name (see vm/core/state.h), except for
 * names starting with '%': the prelude's private helpers and the
 * checkpoint-*j driver's primitives, which user code (programs, the REPL,
 * vlad_get_global, vlad_call by name) must not reach.  Output is
 * buffered here and handed to the host's write callback (the flush policy
 * is in vm/core/state.h).
 */
#include "config.h"
#include "vm/core/state.h"

#include <stdio.h>
#include <string.h>

static void ensure_cells(VladState *S, uint32_t id)
{
    if (id < S->ncells)
        return;
    size_t n = S->ncells, m = S->ncells;
    size_t need = id < 256 ? 256 : (size_t)id + 1;  /* 256 at first */
    S->prelude_cells = vl_gc_reserve(S->prelude_cells, S->ncells, need, &n,
                                     sizeof(Global *), 0);
    S->user_cells = vl_gc_reserve(S->user_cells, S->ncells, need, &m,
                                  sizeof(Global *), 0);
    S->ncells = (uint32_t)n;
}

Global *vl_state_prelude_cell(VladState *S, Symbol *name)
{
    ensure_cells(S, name->id);
    Global *g = S->prelude_cells[name->id];
    if (g == NULL) {
        g = vl_gc_alloc(sizeof *g);
        g->value = UNDEF_VAL;
        g->name = name;
        g->inline_id = -1;
        S->prelude_cells[name->id] = g;
    }
    return g;
}

void vl_state_define(VladState *S, Global *g, Value v)
{
    g->value = v;
    g->defined = g->user;
    if (g->user && g->inline_id >= 0) {
        /* inline operations call a user binding that shadows them */
        Value b = S->inline_values[g->inline_id];
        uint64_t bit = (uint64_t)1 << g->inline_id;
        if (v.tag == b.tag && v.as.ptr == b.as.ptr)
            S->shadowed &= ~bit;
        else
            S->shadowed |= bit;
    }
}

/* The prelude's private names (H2): those starting with '%' are not
   copied into the user environment, nor found by lookups from it. */
static int private_name(const Symbol *name)
{
    return name->name[0] == '%';
}

Global *vl_state_user_cell(VladState *S, Symbol *name)
{
    ensure_cells(S, name->id);
    Global *g = S->user_cells[name->id];
    if (g == NULL) {
        g = vl_gc_alloc(sizeof *g);
        g->name = name;
        g->user = 1;
        Global *p = private_name(name) ? NULL
                                                : S->prelude_cells[name->id];
        g->value = p ? p->value : UNDEF_VAL;
        g->inline_id = p ? p->inline_id : -1;
        S->user_cells[name->id] = g;
    }
    return g;
}

int vl_state_lookup(VladState *S, const char *name, Value *out)
{
    const Symbol *sym = vl_symbol_lookup_c(S->syms, name);
    if (sym == NULL || sym->id >= S->ncells)
        return 0;
    const Global *g = S->user_cells[sym->id];
    if (g == NULL && !private_name(sym))
        g = S->prelude_cells[sym->id];     /* what a user cell would copy */
    if (g == NULL || IS_UNDEF(g->value))
        return 0;
    *out = g->value;
    return 1;
}

void vl_state_flush(VladState *S)
{
    size_t n = S->nout;
    if (n == 0)
        return;
    S->nout = 0;        /* first: the callback may call vlad_flush */
    S->out_total += n;
    if (S->config.write != NULL) {
        S->config.write(S->config.userdata, S->out, n);
    } else {
        fwrite(S->out, 1, n, stdout);
        fflush(stdout);
    }
}

void vl_state_flush_lines(VladState *S)
{
    size_t whole = S->nout;
    while (whole > 0 && S->out[whole - 1] != '\n')
        whole--;
    if (whole == 0)
        return;
    size_t rest = S->nout - whole;
    S->nout = whole;
    vl_state_flush(S);
    memmove(S->out, S->out + whole, rest);
    S->nout = rest;
}

void vl_state_write(VladState *S, const char *text, size_t len)
{
    if (S->out == NULL) {
        S->out_cap = 8192;
        S->out = vl_gc_alloc_atomic(S->out_cap);
    }
    if (S->nout + len > S->out_cap) {
        /* hand over the whole lines, keep the line being written: a line
           is cut only when it does not fit beside what arrives (a streamed
           print of a huge value comes in 4 KB pieces) */
        size_t whole = S->nout;
        while (whole > 0 && S->out[whole - 1] != '\n')
            whole--;
        size_t rest = S->nout - whole;
        if (whole == 0 || rest + len > S->out_cap) {
            vl_state_flush(S);
        } else {
            S->nout = whole;
            vl_state_flush(S);
            memmove(S->out, S->out + whole, rest);
            S->nout = rest;
        }
    }
    if (S->nout + len > S->out_cap) {
        S->out_total += len;
        if (S->config.write != NULL) {
            S->config.write(S->config.userdata, text, len);
        } else {
            fwrite(text, 1, len, stdout);
            fflush(stdout);
        }
        return;
    }
    memcpy(S->out + S->nout, text, len);
    S->nout += len;
}

void vl_state_install_prims(VladState *S, const PrimInfo *table, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const PrimInfo *pi = &table[k];
        Global *g = vl_state_prelude_cell(S,
                                          vl_symbol_intern_c(S->syms, pi->name));
        g->value = vl_obj(VT_PRIM, pi);
        g->inline_id = pi->inline_id;
        if (pi->inline_id >= 0)
            S->inline_values[pi->inline_id] = g->value;
    }
}
