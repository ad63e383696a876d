/*
 * vm/core/unit.c -- compilation units (see vm/core/unit.h)
 */
#include "config.h"
#include "vm/core/unit.h"

#include "parser/expand.h"
#include "parser/read.h"
#include "vm/core/compile.h"
#include "vm/core/except.h"

VlUnit *vl_unit_begin(VladState *S, const char *text, size_t len,
                      const char *name, uint32_t form, int prelude)
{
    VlUnit *u = vl_gc_alloc(sizeof *u);
    u->text = text;
    u->len = len;
    u->name = name;
    u->form = form;
    u->prelude = prelude;
    S->compile_unit = u;
    S->compile_rebound = 0;
    return u;
}

void vl_unit_end(VladState *S, VlUnit *u, Proto *top)
{
    u->top = top;
    uint32_t n;
    Proto *const *all = vl_unit_protos(u, &n);
    for (uint32_t k = 0; k < n; k++)
        all[k]->top = top;
    u->rebound = S->compile_forced != NULL ? *S->compile_forced
                                           : S->compile_rebound;
    S->compile_unit = NULL;
    if (u->prelude) {
        S->prelude_units = vl_gc_grow(S->prelude_units, S->nprelude_units,
                                      &S->prelude_units_cap,
                                      sizeof *S->prelude_units);
        S->prelude_units[S->nprelude_units++] = u;
    }
}

Proto *const *vl_unit_protos(VlUnit *u, uint32_t *n)
{
    if (u->protos == NULL) {
        /* preorder with an explicit stack (nesting of lambdas may be
           deep), children pushed last first */
        size_t cnt = 0, cap = 0, sn = 0, scap = 0;
        Proto **out = NULL, **stack = NULL;
        stack = vl_gc_grow(stack, sn, &scap, sizeof *stack);
        stack[sn++] = u->top;
        while (sn > 0) {
            Proto *p = stack[--sn];
            out = vl_gc_grow(out, cnt, &cap, sizeof *out);
            out[cnt++] = p;
            for (uint32_t c = p->nchildren; c-- > 0;) {
                stack = vl_gc_grow(stack, sn, &scap, sizeof *stack);
                stack[sn++] = p->children[c];
            }
        }
        u->protos = out;
        u->nprotos = (uint32_t)cnt;
    }
    *n = u->nprotos;
    return u->protos;
}

uint32_t vl_unit_index(const Proto *p)
{
    VlUnit *u = (VlUnit *)p->unit;
    uint32_t n;
    Proto *const *all = vl_unit_protos(u, &n);
    for (uint32_t k = 0; k < n; k++)
        if (all[k] == p)
            return k;
    return UINT32_MAX;      /* (never: p is among its unit's) */
}

uint64_t vl_unit_hash(VlUnit *u)
{
    if (u->hash != 0)
        return u->hash;
    uint32_t n;
    Proto *const *all = vl_unit_protos(u, &n);
    uint64_t h = VL_FNV_INIT;
    for (uint32_t k = 0; k < n; k++) {
        const Proto *p = all[k];
        uint32_t shape[6] = {p->ncode, p->nconsts, p->nchildren, p->nregs,
                             p->nfree, p->kind};
        h = vl_fnv(h, shape, sizeof shape);
        h = vl_fnv(h, p->code, p->ncode * sizeof *p->code);
        h = vl_fnv(h, p->liveat, (p->ncode + 1) * sizeof *p->liveat);
        h = vl_fnv(h, p->liveruns,
                   p->liveat[p->ncode] * sizeof *p->liveruns);
    }
    u->hash = h != 0 ? h : 1;
    return u->hash;
}

Datum **vl_unit_read(VladState *S, const char *text, size_t len,
                     const char *name, const char *file, uint32_t *n)
{
    Datum *forms;
    VlDiag *diags = NULL;
    VlReadStatus st = vl_read_string_stop(S->syms, text, len, name,
                                          &S->interrupt, &forms, &diags);
    if (st == VL_READ_STOPPED) {
        S->interrupt = 0;
        vl_except_at(S, VLAD_ERR_INTERRUPTED, (SrcPos){file, 0, 0},
                     "interrupted while loading it");
    }
    if (st != VL_READ_OK)
        vl_except_runtime(S, VLAD_ERR_SYNTAX, "the code of the checkpoint "
                          "(%s) does not read: %s", name,
                          diags != NULL ? diags->message : "?");
    size_t cnt = 0, cap = 0;
    Datum **all = NULL;
    for (Datum *d = forms; d->kind == D_PAIR; d = d->u.pair.cdr) {
        if (cnt == UINT32_MAX)
            vl_except_runtime(S, VLAD_ERR_SYNTAX, "the code of the "
                              "checkpoint (%s) has too many forms", name);
        all = vl_gc_grow(all, cnt, &cap, sizeof *all);
        all[cnt++] = d->u.pair.car;
    }
    *n = (uint32_t)cnt;
    return all;
}

VlUnit *vl_unit_recompile(VladState *S, Datum *datum, const char *text,
                          size_t len, const char *name, uint32_t form,
                          uint64_t rebound)
{
    TopForm f;
    VlDiag *diag = NULL;
    VlExpandStatus es = vl_expand_toplevel(S->syms, datum, &f, &diag,
                                           &S->cstack);
    if (es != VL_EXPAND_OK || f.kind == TOP_INCLUDE)
        vl_except_runtime(S, VLAD_ERR_SYNTAX, "the code of the checkpoint "
                          "(%s, form %u) is not a definition or an "
                          "expression", name, (unsigned)form + 1);
    VlUnit *u = vl_unit_begin(S, text, len, name, form, 0);
    S->compile_forced = &rebound;
    Proto *p = vl_compile_toplevel(S, &f, 0);
    vl_unit_end(S, u, p);
    S->compile_forced = NULL;
    return u;
}
