/*
 * vm/persist/ckptsave.c -- writing a value, a checkpoint above all, to the
 * checkpoint file format (vm/persist/ckptfile.h)
 *
 * A walk over everything the value reaches -- pairs, closures and the
 * units of their code, checkpoints and their frame sequences, duals,
 * tapes, effect logs, and the user globals the code reads -- numbering
 * each object once (sharing is kept) and writing each after the objects
 * it refers to (post-order), closures excepted: a closure is made when
 * first met and its captured values filled once they are written, which
 * is how cycles through letrec are written.  Iterative (an explicit
 * stack in the heap): any depth of nesting is fine.
 *
 * The local mode (vl_ckptsave_local) writes a checkpoint to be read back
 * by this very process (vm/persist/spill.c): only what its memory is made of --
 * pairs, closures' captured values, duals, frames -- is written; code,
 * primitives, strings, tapes, effect logs and the checkpoints it holds
 * stay in memory, written as an index into an array of values kept
 * beside the file ("externals"), and tags keep their numbers.
 */
#include "config.h"
#include "vm/persist/ckptsave.h"

#include <stddef.h>
#include <string.h>
#include "vm/core/contseg.h"
#include "vm/core/except.h"
#include "vm/core/unit.h"
#include "vm/ad/walk.h"

/* Kinds of objects (the memo's keys are (address, kind): a run and the
   segment stored in it share an address). */
enum {
    K_PAIR, K_CLOSURE, K_CKPT, K_SEG, K_RUN, K_DUAL, K_CHUNK, K_LOG,
    K_LOGENTRY, K_UNIT, K_GLOBAL, K_TEXT
};

#define IN_PROGRESS UINT64_MAX

typedef struct Slot {
    const void *key;
    uint64_t num;
    int kind;               /* -1: empty */
} Slot;

/* A pending visit: enter (push the children), emit (write the record),
   or fill (a closure's captured values). */
enum { T_ENTER, T_EMIT, T_FILL };

typedef struct Task {
    const void *obj;
    int kind;
    int stage;
} Task;

typedef struct Enc {
    VladState *S;
    CkptOut out;
    const Global **globals;         /* globals to write once the walk
                                       has written everything else */
    size_t nglobals, globals_cap;
    Slot *memo;
    size_t cap, count;
    uint64_t nobj;
    Task *tasks;
    size_t ntasks, tasks_cap;
    /* the local mode: the root (written, while every other checkpoint is
       an external), the externals */
    int local;
    const void *root;
    Value *ext;
    size_t next, ext_cap;
    int entered;        /* an external AD's walkers enter */
} Enc;

static VL_NORETURN void cannot(Enc *e, const char *what);

static void cannot(Enc *e, const char *what)
{
    vl_except_runtime(e->S, VLAD_ERR_RUNTIME, "cannot save the checkpoint: "
                      "%s", what);
}

/* ===== The memo: object -> number ===== */

static size_t slot_of(const Enc *e, const void *key, int kind)
{
    size_t h = vl_walk_hash((const char *)key + kind, e->cap);
    while (e->memo[h].kind >= 0
           && (e->memo[h].key != key || e->memo[h].kind != kind))
        h = (h + 1) & (e->cap - 1);
    return h;
}

static void memo_grow(Enc *e)
{
    Slot *old = e->memo;
    size_t oc = e->cap;
    e->cap = oc ? 2 * oc : 1024;
    e->memo = vl_gc_alloc_atomic(e->cap * sizeof *e->memo);
    for (size_t k = 0; k < e->cap; k++)
        e->memo[k].kind = -1;
    for (size_t k = 0; k < oc; k++)
        if (old[k].kind >= 0)
            e->memo[slot_of(e, old[k].key, old[k].kind)] = old[k];
    if (old != NULL)
        vl_gc_free(old);
}

/* The number of (obj, kind), IN_PROGRESS, or UINT64_MAX - 1: not met. */
#define NOT_MET (UINT64_MAX - 1)

static uint64_t lookup(const Enc *e, const void *obj, int kind)
{
    size_t h = slot_of(e, obj, kind);
    return e->memo[h].kind >= 0 ? e->memo[h].num : NOT_MET;
}

static void set_num(Enc *e, const void *obj, int kind, uint64_t num)
{
    if (2 * (e->count + 1) > e->cap)
        memo_grow(e);
    size_t h = slot_of(e, obj, kind);
    if (e->memo[h].kind < 0)
        e->count++;
    e->memo[h] = (Slot){obj, num, kind};
}

/* The number of an object written already (a reference is only ever to
   one: anything else is a bug of this walk, refused rather than written
   as a wrong reference). */
static uint64_t number(Enc *e, const void *obj, int kind)
{
    uint64_t n = lookup(e, obj, kind);
    if (n >= NOT_MET)
        cannot(e, "internal error: a reference to an object not written");
    return n;
}

/* A new object number for (obj, kind). */
static uint64_t made(Enc *e, const void *obj, int kind)
{
    uint64_t n = e->nobj++;
    set_num(e, obj, kind, n);
    return n;
}

/* ===== Visits ===== */

static void push(Enc *e, const void *obj, int kind, int stage)
{
    e->tasks = vl_gc_grow(e->tasks, e->ntasks, &e->tasks_cap,
                          sizeof *e->tasks);
    e->tasks[e->ntasks++] = (Task){obj, kind, stage};
}

/* Visit what v refers to (unless numbered already). */
static void push_obj(Enc *e, const void *obj, int kind)
{
    if (obj != NULL && lookup(e, obj, kind) == NOT_MET)
        push(e, obj, kind, T_ENTER);
}

/* Whether v is written as an external (the local mode). */
static int external(const Enc *e, Value v, int role)
{
    if (!e->local)
        return 0;
    switch ((ValueTag)v.tag) {
    case VT_CKPT:
        return v.as.obj != e->root;
    case VT_TAPE: case VT_PRIM: case VT_SYM: case VT_STR:
        return 1;
    case VT_RAW:
        return role != ROLE_INT && role != ROLE_TAG;
    default:
        return 0;
    }
}

/* Index of a new external: v itself, or a pointer the file names. */
static uint64_t add_external(Enc *e, Value v)
{
    e->ext = vl_gc_grow(e->ext, e->next, &e->ext_cap, sizeof *e->ext);
    e->ext[e->next] = v;
    return e->next++;
}

static void push_value(Enc *e, Value v, int role)
{
    if (external(e, v, role))
        return;
    switch ((ValueTag)v.tag) {
    case VT_PAIR: push_obj(e, v.as.obj, K_PAIR); break;
    case VT_CLOSURE: push_obj(e, v.as.obj, K_CLOSURE); break;
    case VT_CKPT: push_obj(e, v.as.obj, K_CKPT); break;
    case VT_DUAL:
        if ((v.aux & VL_AUX_BITS) == 0)
            push_obj(e, v.as.obj, K_DUAL);
        break;
    case VT_TAPE: push_obj(e, v.as.obj, K_CHUNK); break;
    case VT_RAW:
        if (role == ROLE_TAPE_END)
            push_obj(e, v.as.ptr, K_CHUNK);
        else if (role == ROLE_INT || role == ROLE_TAG)
            break;
        else if (v.aux == VL_RAW_LOG)
            push_obj(e, v.as.ptr, K_LOG);
        else if (v.aux == VL_RAW_LOG_LIST)
            push_obj(e, v.as.ptr, K_LOGENTRY);
        break;
    default:
        break;
    }
}

static void put_ref(Enc *e, const void *obj, int kind)
{
    vl_ckptfile_put_u(&e->out, obj != NULL ? number(e, obj, kind) + 1 : 0);
}

static void put_value(Enc *e, Value v, int role)
{
    CkptOut *o = &e->out;
    if (external(e, v, role)) {
        /* what the walkers of AD enter (vm/ad/ad.c: checkpoints' frames,
           suspended tapes' nodes) and a copy of this one could share
           objects with: not to be copied (vl_ckptsave_local) */
        if (v.tag == VT_CKPT || v.tag == VT_TAPE
            || (role == ROLE_TAPE_END && v.as.ptr != NULL))
            e->entered = 1;
        vl_ckptfile_put_byte(o, X_EXTERN);
        vl_ckptfile_put_u(o, add_external(e, v));
        return;
    }
    switch ((ValueTag)v.tag) {
    case VT_UNDEF: case VT_NIL: case VT_VOID:
        vl_ckptfile_put_byte(o, v.tag);
        return;
    case VT_BOOL:
        vl_ckptfile_put_byte(o, v.tag);
        vl_ckptfile_put_byte(o, v.as.boolean != 0);
        return;
    case VT_NUM:
        vl_ckptfile_put_byte(o, v.tag);
        vl_ckptfile_put_u(o, v.aux);
        vl_ckptfile_put_real(o, v.as.num);
        return;
    case VT_PAIR:
        vl_ckptfile_put_byte(o, v.tag);
        vl_ckptfile_put_u(o, number(e, v.as.obj, K_PAIR));
        return;
    case VT_CLOSURE:
        vl_ckptfile_put_byte(o, v.tag);
        vl_ckptfile_put_u(o, number(e, v.as.obj, K_CLOSURE));
        return;
    case VT_CKPT:
        vl_ckptfile_put_byte(o, v.tag);
        vl_ckptfile_put_u(o, number(e, v.as.obj, K_CKPT));
        return;
    case VT_DUAL:
        if ((v.aux & VL_AUX_BITS) != 0) {
            const PlainDual *d = v.as.obj;
            vl_ckptfile_put_byte(o, X_PLAIN_DUAL);
            vl_ckptfile_put_u(o, v.aux >> 31);
            vl_ckptfile_put_i(o, v.aux & VL_AUX_BITS);
            vl_ckptfile_put_real(o, d->primal);
            vl_ckptfile_put_real(o, d->tangent);
            return;
        }
        vl_ckptfile_put_byte(o, v.tag);
        vl_ckptfile_put_u(o, v.aux);
        vl_ckptfile_put_u(o, number(e, v.as.obj, K_DUAL));
        return;
    case VT_TAPE:
        vl_ckptfile_put_byte(o, v.tag);
        vl_ckptfile_put_u(o, v.aux);
        vl_ckptfile_put_u(o, number(e, v.as.obj, K_CHUNK));
        return;
    case VT_PRIM: {
        /* a builtin is the value of its name in the prelude; anything
           else is a host primitive (vlad_register), found in the user
           environment when loading (it may bear a builtin's name) */
        const char *name = AS_PRIM(v)->name;
        const Symbol *sym = vl_symbol_lookup_c(e->S->syms, name);
        const Global *g = sym != NULL && sym->id < e->S->ncells
                          ? e->S->prelude_cells[sym->id] : NULL;
        int builtin = g != NULL && IS_PRIM(g->value)
                      && g->value.as.ptr == v.as.ptr;
        vl_ckptfile_put_byte(o, v.tag);
        vl_ckptfile_put_byte(o, builtin ? 0 : 1);
        vl_ckptfile_put_str(o, name, strlen(name));
        return;
    }
    case VT_SYM: {
        const char *name = ((const Symbol *)v.as.ptr)->name;
        vl_ckptfile_put_byte(o, v.tag);
        vl_ckptfile_put_str(o, name, strlen(name));
        return;
    }
    case VT_STR:
        vl_ckptfile_put_byte(o, v.tag);
        vl_ckptfile_put_str(o, v.as.ptr, strlen(v.as.ptr));
        return;
    case VT_RAW:
        if (role == ROLE_INT || role == ROLE_TAG) {
            vl_ckptfile_put_byte(o, X_RAW_INT);
            vl_ckptfile_put_i(o, v.as.i);
        } else if (role == ROLE_TAPE_END) {
            vl_ckptfile_put_byte(o, X_RAW_TAPE_END);
            put_ref(e, v.as.ptr, K_CHUNK);
            vl_ckptfile_put_u(o, v.aux);
        } else if (v.aux == VL_RAW_LOG) {
            vl_ckptfile_put_byte(o, X_RAW_LOG);
            vl_ckptfile_put_u(o, number(e, v.as.ptr, K_LOG));
        } else if (v.aux == VL_RAW_LOG_LIST) {
            vl_ckptfile_put_byte(o, X_RAW_LOGLIST);
            put_ref(e, v.as.ptr, K_LOGENTRY);
        } else {
            cannot(e, "it holds an internal value of the interpreter");
        }
        return;
    }
    cannot(e, "it holds a value of an unknown kind");
}

/* ===== Objects: their children, their records ===== */

/* The registers live in frame f of run, in order, and their roles. */
typedef struct FrameRegs {
    const LiveRun *l;
    uint32_t nruns;
} FrameRegs;

static void frame_regs(const CapFrame *cf, FrameRegs *fr)
{
    const Proto *p = cf->closure->proto;
    fr->l = vl_proto_live_set(p, p->code + cf->ret_pc, &fr->nruns);
}

/* Apply fn to each live value of frame f with its role. */
static void each_frame_value(Enc *e, const ContRun *run, uint32_t f,
                             void (*fn)(Enc *, Value, int))
{
    const CapFrame *cf = &run->frames[f];
    const Proto *p = cf->closure->proto;
    FrameRegs fr;
    frame_regs(cf, &fr);
    const Value *v = run->values + cf->first;
    for (uint32_t q = 0; q < fr.nruns; q++)
        for (uint32_t r = fr.l[q].first; r < fr.l[q].first + fr.l[q].count;
             r++)
            fn(e, *v++, vl_ckptfile_role(e->S, p, (int)r));
}

/* Queue user global g (defined) for writing, once. */
static void queue_global(Enc *e, const Global *g)
{
    if (g == NULL || !g->user || !g->defined || IS_UNDEF(g->value)
        || lookup(e, g, K_GLOBAL) != NOT_MET)
        return;
    set_num(e, g, K_GLOBAL, IN_PROGRESS);       /* queued */
    e->globals = vl_gc_grow(e->globals, e->nglobals, &e->globals_cap,
                            sizeof *e->globals);
    e->globals[e->nglobals++] = g;
}

/* The user globals the unit's code reads or defines. */
static void push_globals(Enc *e, const VlUnit *u)
{
    uint32_t n;
    Proto *const *all = vl_unit_protos((VlUnit *)u, &n);
    for (uint32_t k = 0; k < n; k++) {
        const Proto *p = all[k];
        for (uint32_t i = 0; i < p->ncode; i++) {
            const Instr *in = &p->code[i];
            if (in->op == OP_GETGLOBAL || in->op == OP_DEFGLOBAL)
                queue_global(e, p->consts[in->b].as.ptr);
        }
    }
}

static void put_unit(Enc *e, VlUnit *u)
{
    CkptOut *o = &e->out;
    if (!u->prelude && lookup(e, u->text, K_TEXT) == NOT_MET) {
        /* the text, once for all the units of its forms */
        vl_ckptfile_put_byte(o, R_TEXT);
        vl_ckptfile_put_str(o, u->name, strlen(u->name));
        vl_ckptfile_put_str(o, u->text, u->len);
        made(e, u->text, K_TEXT);
    }
    vl_ckptfile_put_byte(o, R_UNIT);
    vl_ckptfile_put_byte(o, u->prelude != 0);
    if (!u->prelude) {
        vl_ckptfile_put_u(o, number(e, u->text, K_TEXT));
        vl_ckptfile_put_u(o, u->rebound);
    }
    vl_ckptfile_put_u(o, u->form);
    vl_ckptfile_put_u(o, vl_unit_hash(u));
}

static void enter(Enc *e, const Task *t)
{
    const void *obj = t->obj;
    if (t->kind == K_CLOSURE) {
        const Closure *c = obj;
        const Proto *p = c->proto;
        VlUnit *u = (VlUnit *)p->unit;
        if (e->local) {
            vl_ckptfile_put_byte(&e->out, R_LCLOSURE);
            vl_ckptfile_put_u(&e->out, add_external(e, vl_raw_ptr(0, p)));
        } else if (u != NULL && lookup(e, u, K_UNIT) == NOT_MET) {
            push(e, obj, K_CLOSURE, T_ENTER);   /* again, after its unit */
            push(e, u, K_UNIT, T_ENTER);
            return;
        } else if (u == NULL) {
            int ctl = -1;
            for (int k = 0; k < CTL__COUNT; k++)
                if (e->S->control[k] == p)
                    ctl = k;
            if (ctl < 0 || ctl == CTL_ENTRY || ctl == CTL_UNDERFLOW)
                cannot(e, "it holds a call from the host (vlad_call) in "
                          "progress");
            vl_ckptfile_put_byte(&e->out, R_CLOSURE);
            vl_ckptfile_put_u(&e->out, 0);
            vl_ckptfile_put_u(&e->out, (uint64_t)ctl);
        } else {
            vl_ckptfile_put_byte(&e->out, R_CLOSURE);
            vl_ckptfile_put_u(&e->out, number(e, u, K_UNIT) + 1);
            vl_ckptfile_put_u(&e->out, vl_unit_index(p));
        }
        made(e, obj, K_CLOSURE);
        push(e, obj, K_CLOSURE, T_FILL);
        for (uint16_t k = p->nfree; k-- > 0;)
            push_value(e, c->free[k], ROLE_DATA);
        return;
    }
    if (t->kind == K_UNIT) {     /* no references: written at once */
        put_unit(e, (VlUnit *)obj);
        made(e, obj, K_UNIT);
        if (!((const VlUnit *)obj)->prelude)
            push_globals(e, obj);
        return;
    }
    set_num(e, obj, t->kind, IN_PROGRESS);
    push(e, obj, t->kind, T_EMIT);
    switch (t->kind) {
    case K_PAIR: {
        const Pair *p = obj;
        push_value(e, p->cdr, ROLE_DATA);
        push_value(e, p->car, ROLE_DATA);
        break;
    }
    case K_CKPT: {
        const Checkpoint *k = obj;
        vl_contseg_present(e->S, k);            /* (spill=DIR) */
        if (k->finished) {
            push_value(e, k->result, ROLE_DATA);
            break;
        }
        push_obj(e, k->seq, K_SEG);
        push_value(e, k->arg, ROLE_DATA);
        push_value(e, k->callee, ROLE_DATA);
        break;
    }
    case K_SEG: {
        const ContSeg *s = obj;
        push_obj(e, s->run, K_RUN);
        push_obj(e, s->ref, K_SEG);
        push_obj(e, s->below, K_SEG);
        break;
    }
    case K_RUN: {
        const ContRun *r = obj;
        for (uint32_t f = r->nframes; f-- > 0;) {
            each_frame_value(e, r, f, push_value);
            push_obj(e, r->frames[f].closure, K_CLOSURE);
        }
        break;
    }
    case K_DUAL: {
        const Dual *d = obj;
        push_value(e, d->tangent, ROLE_DATA);
        push_value(e, d->primal, ROLE_DATA);
        break;
    }
    case K_CHUNK: {
        const TapeChunk *c = obj;
        if (c->exts != NULL)
            for (uint32_t j = c->used; j-- > 0;) {
                const TapeExt *x = c->exts[j];
                if (x == NULL)
                    continue;
                for (uint32_t k = x->nparents; k-- > 0;)
                    push_value(e, x->partials[k], ROLE_DATA);
                push_value(e, x->primal, ROLE_DATA);
            }
        push_obj(e, c->prev, K_CHUNK);
        break;
    }
    case K_LOG: {
        const Log *l = obj;
        for (size_t k = l->n; k-- > 0;)
            push_value(e, l->values[k], ROLE_DATA);
        break;
    }
    case K_LOGENTRY: {
        const LogEntry *x = obj;
        push_obj(e, x->next, K_LOGENTRY);
        push_value(e, x->value, ROLE_DATA);
        break;
    }
    case K_GLOBAL:             /* queued: entered once the walk is empty */
        push_value(e, ((const Global *)obj)->value, ROLE_DATA);
        break;
    }
}

static void put_frame_value(Enc *e, Value v, int role)
{
    put_value(e, v, role);
}

static void emit(Enc *e, const Task *t)
{
    CkptOut *o = &e->out;
    const void *obj = t->obj;
    switch (t->kind) {
    case K_PAIR: {
        const Pair *p = obj;
        vl_ckptfile_put_byte(o, R_PAIR);
        put_value(e, p->car, ROLE_DATA);
        put_value(e, p->cdr, ROLE_DATA);
        break;
    }
    case K_CKPT: {
        const Checkpoint *k = obj;
        vl_ckptfile_put_byte(o, R_CKPT);
        vl_ckptfile_put_byte(o, k->finished != 0);
        if (k->finished) {
            put_value(e, k->result, ROLE_DATA);
        } else {
            put_value(e, k->callee, ROLE_DATA);
            put_value(e, k->arg, ROLE_DATA);
            put_ref(e, k->seq, K_SEG);
            vl_ckptfile_put_i(o, k->steps_at);
        }
        /* a finished state of checkpoint-*j keeps its position too: the
           length of the first run (vm/cpj/cpjfirst.c, %cpj-recorded) */
        vl_ckptfile_put_i(o, k->position);
        vl_ckptfile_put_i(o, k->data_bytes);
        vl_ckptfile_put_byte(o, k->data_measured != 0);
        break;
    }
    case K_SEG: {
        const ContSeg *s = obj;
        vl_ckptfile_put_byte(o, R_SEG);
        put_ref(e, s->below, K_SEG);
        put_ref(e, s->ref, K_SEG);
        put_ref(e, s->run, K_RUN);
        vl_ckptfile_put_u(o, s->first);
        vl_ckptfile_put_u(o, s->count);
        break;
    }
    case K_RUN: {
        const ContRun *r = obj;
        vl_ckptfile_put_byte(o, R_RUN);
        vl_ckptfile_put_u(o, r->nframes);
        for (uint32_t f = 0; f < r->nframes; f++) {
            const CapFrame *cf = &r->frames[f];
            vl_ckptfile_put_u(o, number(e, cf->closure, K_CLOSURE));
            vl_ckptfile_put_u(o, cf->ret_pc);
            vl_ckptfile_put_u(o, cf->delta);
            each_frame_value(e, r, f, put_frame_value);
        }
        break;
    }
    case K_DUAL: {
        const Dual *d = obj;
        vl_ckptfile_put_byte(o, R_DUAL);
        vl_ckptfile_put_i(o, d->tag);
        put_value(e, d->primal, ROLE_DATA);
        put_value(e, d->tangent, ROLE_DATA);
        break;
    }
    case K_CHUNK: {
        const TapeChunk *c = obj;
        if (c->comms)
            cannot(e, "a *j suspended in it has communicated (mpi-send, "
                   "mpi-recv, ...): the adjoint messages of its reverse "
                   "sweep cannot be saved");
        vl_ckptfile_put_byte(o, R_CHUNK);
        put_ref(e, c->prev, K_CHUNK);
        vl_ckptfile_put_u(o, c->prev_n);
        vl_ckptfile_put_i(o, c->tag);
        vl_ckptfile_put_byte(o, c->compact_tag == c->tag && c->tag != 0);
        vl_ckptfile_put_byte(o, c->general != 0);
        vl_ckptfile_put_u(o, c->cap);
        vl_ckptfile_put_u(o, c->used);
        for (uint32_t j = 0; j < c->used; j++) {
            vl_ckptfile_put_real(o, c->slots[j].primal);
            vl_ckptfile_put_u(o, c->slots[j].parent);
            vl_ckptfile_put_u(o, c->slots[j].parent1);
        }
        uint32_t next = 0;
        for (uint32_t j = 0; c->exts != NULL && j < c->used; j++) {
            const TapeExt *x = c->exts[j];
            if (x == NULL)
                continue;
            vl_ckptfile_put_u(o, j - next + 1);     /* distance, never 0 */
            next = j + 1;
            vl_ckptfile_put_u(o, x->nparents);
            put_value(e, x->primal, ROLE_DATA);
            for (uint32_t k = 0; k < x->nparents; k++) {
                vl_ckptfile_put_u(o, x->parents[k]);
                put_value(e, x->partials[k], ROLE_DATA);
            }
        }
        vl_ckptfile_put_u(o, 0);
        break;
    }
    case K_LOG: {
        const Log *l = obj;
        vl_ckptfile_put_byte(o, R_LOG);
        vl_ckptfile_put_u(o, l->n);
        for (size_t k = 0; k < l->n; k++) {
            vl_ckptfile_put_i(o, l->pos[k]);
            put_value(e, l->values[k], ROLE_DATA);
        }
        break;
    }
    case K_LOGENTRY: {
        const LogEntry *x = obj;
        vl_ckptfile_put_byte(o, R_LOGENTRY);
        vl_ckptfile_put_i(o, x->pos);
        put_value(e, x->value, ROLE_DATA);
        put_ref(e, x->next, K_LOGENTRY);
        break;
    }
    case K_GLOBAL: {
        const Global *g = obj;
        vl_ckptfile_put_byte(o, R_GLOBAL);
        vl_ckptfile_put_str(o, g->name->name, strlen(g->name->name));
        put_value(e, g->value, ROLE_DATA);
        break;
    }
    }
    made(e, obj, t->kind);
}

static void walk(Enc *e);

static void fill(Enc *e, const Closure *c)
{
    vl_ckptfile_put_byte(&e->out, R_FILL);
    vl_ckptfile_put_u(&e->out, number(e, c, K_CLOSURE));
    for (uint16_t k = 0; k < c->proto->nfree; k++)
        put_value(e, c->free[k], ROLE_DATA);
}

/* R_INFO: read alone by vl_ckptload_info (vm/persist/ckptload.c), so first. */
static void put_info(Enc *e, const CkptProgram *prog)
{
    const char *note = prog->note != NULL ? prog->note : "";
    vl_ckptfile_put_byte(&e->out, R_INFO);
    vl_ckptfile_put_u(&e->out, prog->output_bytes);
    vl_ckptfile_put_u(&e->out, prog->input_bytes);
    vl_ckptfile_put_real(&e->out, prog->every);
    vl_ckptfile_put_str(&e->out, note, strlen(note));
}

static void put_program(Enc *e, const CkptProgram *prog)
{
    CkptOut *o = &e->out;
    vl_ckptfile_put_byte(o, R_PROGRAM);
    vl_ckptfile_put_byte(o, prog->define != 0);
    vl_ckptfile_put_u(o, (uint64_t)(prog->line > 0 ? prog->line : 0));
    vl_ckptfile_put_u(o, (uint64_t)(prog->col > 0 ? prog->col : 0));
    vl_ckptfile_put_u(o, prog->nlevels);
    for (size_t k = 0; k < prog->nlevels; k++) {
        const CkptLevel *l = &prog->levels[k];
        vl_ckptfile_put_str(o, l->name, strlen(l->name));
        vl_ckptfile_put_str(o, l->text, l->len);
        vl_ckptfile_put_u(o, l->next);
    }
}

/* Run the visits pending until none is left. */
static void walk(Enc *e)
{
    while (e->ntasks > 0) {
        Task t = e->tasks[--e->ntasks];
        if (t.stage == T_EMIT) {
            emit(e, &t);
        } else if (t.stage == T_FILL) {
            fill(e, t.obj);
        } else {
            uint64_t n = lookup(e, t.obj, t.kind);
            if (n == IN_PROGRESS)
                cannot(e, "it holds a cyclic value");
            if (n == NOT_MET)
                enter(e, &t);
        }
    }
}

static void enc_init(Enc *e, VladState *S)
{
    memset(e, 0, sizeof *e);
    e->S = S;
    memo_grow(e);
}

void vl_ckptsave_file(VladState *S, Value root, const CkptProgram *prog,
                      CkptOut *file)
{
    Enc e;
    enc_init(&e, S);
    if (prog != NULL) {
        put_info(&e, prog);
        /* the rest of the program may read any definition made so far */
        for (uint32_t id = 0; id < S->ncells; id++)
            queue_global(&e, S->user_cells[id]);
    }
    /* inline operations call the user's rebinding of their primitive
       (vm/core/opcodes.h): those rebindings are read too */
    for (int i = 0; i < IN__COUNT; i++)
        if (S->shadowed >> i & 1)
            queue_global(&e, S->inline_cells[i]);
    push_value(&e, root, ROLE_DATA);
    walk(&e);
    /* the globals, each once everything else is written: a global's
       value may be the very checkpoint being saved (a procedure that
       returns it), which is then written already */
    for (size_t g = 0; g < e.nglobals; g++) {
        const Global *x = e.globals[g];
        set_num(&e, x, K_GLOBAL, NOT_MET);
        push(&e, x, K_GLOBAL, T_ENTER);
        walk(&e);
    }
    if (prog != NULL)
        put_program(&e, prog);
    vl_ckptfile_put_byte(&e.out, R_END);
    put_value(&e, root, ROLE_DATA);
    vl_ckptfile_frame(S, &e.out, file);
    vl_gc_free(e.memo);
}

Value *vl_ckptsave_local(VladState *S, Checkpoint *root, CkptScratch *sc,
                         size_t *next)
{
    Enc e;
    memset(&e, 0, sizeof e);
    e.S = S;
    /* the scratch's tables, taken (an error leaves the scratch empty) */
    if (sc->memo != NULL) {
        e.memo = sc->memo;
        e.cap = sc->memo_cap;
        for (size_t k = 0; k < e.cap; k++)
            e.memo[k].kind = -1;
    } else {
        memo_grow(&e);
    }
    e.tasks = sc->tasks;
    e.tasks_cap = sc->tasks_cap;
    e.out = sc->out;
    e.out.len = 0;
    CkptOut file = sc->file;
    file.len = 0;
    memset(sc, 0, offsetof(CkptScratch, objs));
    e.local = 1;
    e.root = root;
    Value r = vl_obj(VT_CKPT, root);
    push_value(&e, r, ROLE_DATA);
    walk(&e);
    vl_ckptfile_put_byte(&e.out, R_END);
    put_value(&e, r, ROLE_DATA);
    vl_ckptfile_frame(S, &e.out, &file);
    /* given back; the visits' slots cleared (scanned memory: they would
       keep what they pointed to alive) */
    if (e.tasks != NULL)
        memset(e.tasks, 0, e.tasks_cap * sizeof *e.tasks);
    sc->memo = e.memo;
    sc->memo_cap = e.cap;
    sc->tasks = e.tasks;
    sc->tasks_cap = e.tasks_cap;
    sc->out = e.out;
    sc->file = file;
    *next = e.next;
    return e.entered ? NULL : e.ext;
}
