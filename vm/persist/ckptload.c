/*
 * vm/persist/ckptload.c -- reading a value back from the checkpoint file format
 * (vm/persist/ckptfile.h)
 *
 * One pass over the records, each object built as its record is read:
 * references are to objects already made (closures excepted, which are
 * made first and filled later), so what is built is always well formed.
 * Everything is checked before it is used -- every count against what is
 * left of the input, every reference against the kind of object it must
 * be, every frame against the code it runs (the instruction it waits at
 * can call, its distance to the frame above is the one that instruction
 * makes, its live registers are the ones the compiler says, and the
 * registers of delimiter frames hold the bookkeeping they must), every
 * tape node's parents against its own index -- so a damaged or forged
 * file is refused with an error, never run.  Code is compiled again from
 * the saved text of its top-level form and must hash as when it was
 * saved.  Tags of j* and *j get fresh numbers (two executions never
 * share one, vm/ad/ad.h).  vlad's internal values (the driver's private
 * primitives and procedures, effect logs) are accepted only where a save
 * puts them (check_outside).  The state changes only at the end, when
 * every record has been read and the caller has accepted the root: the
 * saved user globals are then defined.
 *
 * A load takes time and memory O(size of the file): every count is
 * checked against the bytes left, each form is compiled once whatever
 * the number of units naming it, the delimiter frames of a run are
 * indexed once (a segment of it finds its own in O(1)), the checks that
 * walk structure a file may share without bound (the tags suspended in a
 * checkpoint) are charged to a budget proportional to the file, tables
 * keyed by the file's numbers have a secret seed (vm/core/keymap.h), and the
 * interrupt flag is polled at every record and in every loop.
 *
 * The local mode (vl_ckptload_local) reads what vl_ckptsave_local
 * wrote in this process: externals by index, code by pointer, tags
 * as they were (the checkpoint is the same one, back from a file).
 */
#include "config.h"
#include "vm/persist/ckptload.h"

#include <math.h>
#include <string.h>
#include "parser/read.h"
#include "vm/core/compile.h"
#include "vm/core/contseg.h"
#include "vm/core/delimregs.h"
#include "vm/core/except.h"
#include "vm/core/keymap.h"
#include "vm/core/limits.h"
#include "vm/ad/tape.h"
#include "vm/core/unit.h"

/* The kinds of objects, by record kind. */
typedef struct Obj {
    int kind;               /* R_UNIT ... R_GLOBAL */
    int filled;             /* a closure: its R_FILL was read */
    void *p;
    void *ix;               /* what the loader keeps beside it: a run's
                               RunIx, a sequence's SegIx, a chunk's
                               counts of partials' slots */
} Obj;

typedef struct Dec {
    VladState *S;
    CkptIn in;
    Obj *objs;
    size_t n, cap;
    uint64_t seed;                  /* of the tables keyed by the file */
    VlKeyMap tags;                  /* saved tag -> its fresh tag */
    Global **gcells;                /* globals to define at the end */
    Value *gvalues;
    size_t nglobals, gcap, gvcap;
    size_t unfilled;                /* closures not filled yet */
    uint64_t owed;                  /* ... the values they wait for */
    uint64_t stored_frames;         /* frames of the runs read */
    uint64_t work, work_max;        /* the budget of the checks' walks */
    VlKeyMap tainted;               /* pairs reaching an internal value
                                       or a closure: TAINT_* bits */
    Value *outside;                 /* values that must not reach an */
    size_t noutside, outside_cap;   /* internal one (check_outside) */
    CkptLoadStats *stats;
    int local;                      /* the local mode: its externals */
    const Value *ext;
    size_t next;
} Dec;

#define bad(d, ...) vl_ckptfile_bad(&(d)->in, __VA_ARGS__)

/* An interrupt (vlad_interrupt, Ctrl-C, SIGTERM) stops the load. */
static void poll(Dec *d)
{
    VladState *S = d->S;
    if (VL_UNLIKELY(S->interrupt)) {
        S->interrupt = 0;
        vl_except_at(S, VLAD_ERR_INTERRUPTED, (SrcPos){d->in.name, 0, 0},
                     "interrupted while loading it");
    }
}

/* 'n' more steps of the checks that look at what a file's records share
   (a run's frames, indexed once; the tags down a sequence many
   checkpoints may end on): at most 16 a byte of payload, plus 2^20, in
   all -- beyond, the file is refused. */
static void charge(Dec *d, uint64_t n)
{
    if (n > d->work_max - d->work)
        bad(d, "checking it takes more than %llu steps, beyond what its "
            "size warrants", (unsigned long long)d->work_max);
    d->work += n;
    if (d->stats != NULL)
        d->stats->work = d->work;
}

static size_t left(const Dec *d)
{
    return (size_t)(d->in.end - d->in.p);
}

static const char *kind_name(int k)
{
    static const char *const names[R__COUNT] = {
        "end", "unit", "pair", "closure", "fill", "dual", "tape chunk",
        "log", "log entry", "frame run", "frame sequence", "checkpoint",
        "global", "information", "program", "text", "closure"};
    return k >= 0 && k < R__COUNT ? names[k] : "?";
}

static Obj *add_obj(Dec *d, int kind, void *p)
{
    d->objs = vl_gc_grow(d->objs, d->n, &d->cap, sizeof *d->objs);
    d->objs[d->n] = (Obj){kind, 0, p, NULL};
    return &d->objs[d->n++];
}

/* Object number i, which must be of 'kind'. */
static void *obj_at(Dec *d, uint64_t i, int kind)
{
    if (i >= d->n)
        bad(d, "a reference to object %llu, of %zu", (unsigned long long)i,
            d->n);
    if (d->objs[i].kind != kind)
        bad(d, "object %llu is a %s where a %s is expected",
            (unsigned long long)i, kind_name(d->objs[i].kind),
            kind_name(kind));
    return d->objs[i].p;
}

static void *obj_ref(Dec *d, int kind)
{
    return obj_at(d, vl_ckptfile_get_u(&d->in), kind);
}

/* An optional reference: number + 1, 0 for none; '*at' its object. */
static void *opt_ref_at(Dec *d, int kind, Obj **at)
{
    uint64_t i = vl_ckptfile_get_u(&d->in);
    if (i == 0) {
        *at = NULL;
        return NULL;
    }
    void *p = obj_at(d, i - 1, kind);
    *at = &d->objs[i - 1];
    return p;
}

static void *opt_ref(Dec *d, int kind)
{
    Obj *at;
    return opt_ref_at(d, kind, &at);
}

/* The fresh tag of saved tag t. */
static int64_t fresh_tag(Dec *d, int64_t t)
{
    if (t < 1)
        bad(d, "a differentiation tag is %lld", (long long)t);
    if (d->local)
        return t;
    int added;
    uint64_t *to = vl_keymap_put(&d->tags, (uint64_t)t, &added);
    if (added)
        *to = (uint64_t)++d->S->next_tag;
    return (int64_t)*to;
}

/* ===== Internal values =====

   The driver of checkpoint-*j is prelude code: its frames, the
   procedures it makes and the pending applications of the states it
   holds legitimately hold vlad's internal values -- its private
   primitives ('%cpj-split'), the procedures of the prelude's private
   definitions, the segment prototypes' closures, effect logs.  A file
   may hold them there and nowhere else: 'outside' values (a global's,
   the root, the captured values of a program's procedures, the
   registers of its frames and of delimiter frames, a finished
   checkpoint's result, logged values, a pending argument) must not reach
   one through pairs and procedures (a checkpoint is opaque: what it
   holds is reached only by resuming it).  check_outside walks them once
   every record is read (a closure is filled after it is referenced). */

/* The segment prototypes and %cpj-*j: never a program's value. */
static int internal_control(const VladState *S, const Proto *p)
{
    static const int ctl[] = {CTL_SEG_FIRST, CTL_SEG_RUN, CTL_SEG_ADV,
                              CTL_SEG_REC, CTL_ADVANCE, CTL_STARJ_ACTIVE};
    for (size_t k = 0; k < sizeof ctl / sizeof ctl[0]; k++)
        if (p == S->control[ctl[k]])
            return 1;
    return 0;
}

/* Whether v is an internal value: a private primitive, a procedure of a
   private definition of the prelude or an internal control prototype,
   a raw word (an effect log: no other is a value). */
static int internal(const VladState *S, Value v)
{
    if (IS_PRIM(v))
        return AS_PRIM(v)->name[0] == '%';
    if (IS_CLOSURE(v)) {
        const Proto *p = AS_CLOSURE(v)->proto;
        return p->unit != NULL ? ((const VlUnit *)p->unit)->internal
                               : internal_control(S, p);
    }
    return v.tag == VT_RAW;
}

/* What internal value v is, for messages. */
static const char *internal_name(const VladState *S, Value v)
{
    if (IS_PRIM(v))
        return AS_PRIM(v)->name;
    if (!IS_CLOSURE(v))
        return "an effect log";
    const Proto *p = AS_CLOSURE(v)->proto;
    if (p == S->control[CTL_STARJ_ACTIVE])
        return "%cpj-*j";
    if (p->unit == NULL)
        return "a segment of checkpoint-*j";
    return p->name != NULL ? p->name : "a procedure of the prelude";
}

/* What a value reaches through pairs (without entering closures): an
   internal value, a closure (whose captured values check_outside looks
   at).  A pair's bits are found when it is read (its parts are made
   before it) and kept in d->tainted when not zero: a data structure of
   a program's values costs a lookup a pair, no walk. */
enum { TAINT_INTERNAL = 1, TAINT_CLOSURE = 2, TAINT_SEEN = 4 };

static unsigned taint(Dec *d, Value v)
{
    if (internal(d->S, v))
        return TAINT_INTERNAL;
    if (IS_CLOSURE(v))
        return TAINT_CLOSURE;
    if (!IS_PAIR(v))
        return 0;
    const uint64_t *t = vl_keymap_get(&d->tainted,
                                      (uint64_t)(uintptr_t)v.as.ptr);
    return t != NULL ? (unsigned)*t & (TAINT_INTERNAL | TAINT_CLOSURE) : 0;
}

/* v is in an outside place (local mode: a file of this process, never
   checked so): looked at by check_outside unless it reaches neither an
   internal value nor a closure. */
static void outside(Dec *d, Value v)
{
    if (d->local || taint(d, v) == 0)
        return;
    d->outside = vl_gc_grow(d->outside, d->noutside, &d->outside_cap,
                            sizeof *d->outside);
    d->outside[d->noutside++] = v;
}

static void check_outside(Dec *d)
{
    VladState *S = d->S;
    VlKeyMap seen;                  /* closures looked into */
    vl_keymap_init(&seen, d->seed);
    Value *st = d->outside;         /* the pending values: a stack */
    size_t n = d->noutside, cap = d->outside_cap;
    while (n > 0) {
        Value v = st[--n];
        poll(d);
        if (internal(S, v))
            bad(d, "it gives a program an internal value of vlad (%s)",
                internal_name(S, v));
        if (IS_PAIR(v)) {
            uint64_t *t = vl_keymap_get(&d->tainted,
                                        (uint64_t)(uintptr_t)v.as.ptr);
            if (t == NULL || (*t & TAINT_SEEN))
                continue;           /* nothing there, or looked at */
            *t |= TAINT_SEEN;
            st = vl_gc_reserve(st, n, n + 2, &cap, sizeof *st, 0);
            st[n++] = AS_PAIR(v)->car;
            st[n++] = AS_PAIR(v)->cdr;
        } else if (IS_CLOSURE(v) && AS_CLOSURE(v)->proto->unit != NULL) {
            const Closure *c = AS_CLOSURE(v);
            int added;
            vl_keymap_put(&seen, (uint64_t)(uintptr_t)c, &added);
            if (!added)
                continue;
            st = vl_gc_reserve(st, n, n + c->proto->nfree, &cap, sizeof *st,
                               0);
            for (uint16_t k = 0; k < c->proto->nfree; k++)
                if (taint(d, c->free[k]) != 0)
                    st[n++] = c->free[k];
        }
    }
}

/* The primitive named 'name': a builtin (the value of its name in the
   prelude's environment), or a host primitive registered on this state
   (the value of its name in the user environment, and not the
   builtin). */
static Value find_prim(Dec *d, int host, const char *name)
{
    VladState *S = d->S;
    Symbol *sym = vl_symbol_lookup_c(S->syms, name);
    const Global *p = NULL, *u = NULL;
    if (sym != NULL && sym->id < S->ncells) {
        p = S->prelude_cells[sym->id];
        u = S->user_cells[sym->id];
    }
    if (!host) {
        if (p != NULL && IS_PRIM(p->value)
            && strcmp(AS_PRIM(p->value)->name, name) == 0)
            return p->value;
        bad(d, "it names a builtin primitive '%s' this vlad lacks", name);
    }
    if (u != NULL && IS_PRIM(u->value)
        && strcmp(AS_PRIM(u->value)->name, name) == 0
        && (p == NULL || p->value.as.ptr != u->value.as.ptr))
        return u->value;
    vl_except_at(S, VLAD_ERR_RUNTIME, (SrcPos){d->in.name, 0, 0},
                 "%s needs the host primitive '%s', which is not "
                 "registered (vlad_register it before loading)", d->in.name,
                 name);
}

/* The external an index names (the local mode). */
static Value ext_at(Dec *d)
{
    uint64_t i = vl_ckptfile_get_u(&d->in);
    if (!d->local || i >= d->next)
        bad(d, "a reference to external %llu, of %zu",
            (unsigned long long)i, d->next);
    return d->ext[i];
}

/* One value, in a place of role 'role' (vm/persist/ckptfile.h); 'frame': a
   register of a captured frame (where a dead value may be). */
static Value get_value(Dec *d, int role, int frame)
{
    unsigned t = vl_ckptfile_get_byte(&d->in);
    if (t == X_EXTERN && d->local)  /* as it was written (vm/persist/ckptsave.c) */
        return ext_at(d);
    int raw = t == X_RAW_INT || t == X_RAW_LOG || t == X_RAW_LOGLIST
              || t == X_RAW_TAPE_END;
    if ((role == ROLE_INT || role == ROLE_TAG) && t != X_RAW_INT)
        bad(d, "a delimiter frame lacks its step count or tag");
    if (role == ROLE_TAPE_END && t != X_RAW_TAPE_END && t != VT_TAPE)
        bad(d, "a *j frame lacks its tape");
    if (role == ROLE_LOG && t != X_RAW_LOG)
        bad(d, "a checkpoint-*j frame lacks its effect log");
    if (role == ROLE_LOGLIST && t != X_RAW_LOGLIST)
        bad(d, "a checkpoint-*j frame lacks its effect log");
    if (role == ROLE_DATA && raw && t != X_RAW_LOG && t != X_RAW_LOGLIST)
        bad(d, "an internal value where a value is expected");
    Value v;
    switch (t) {
    case VT_UNDEF:
        if (!frame)
            bad(d, "an unset value where a value is expected");
        return UNDEF_VAL;
    case VT_NIL:
        return NIL_VAL;
    case VT_VOID:
        return VOID_VAL;
    case VT_BOOL: {
        unsigned b = vl_ckptfile_get_byte(&d->in);
        if (b > 1)
            bad(d, "a boolean is %u", b);
        return vl_bool(b);
    }
    case VT_NUM: {
        uint64_t aux = vl_ckptfile_get_u(&d->in);
        if (aux != 0 && aux != VL_ACTIVE)
            bad(d, "a real has annotation %llx", (unsigned long long)aux);
        return vl_num_marked(vl_ckptfile_get_real(&d->in), (uint32_t)aux);
    }
    case VT_PAIR:
        return vl_obj(VT_PAIR, obj_ref(d, R_PAIR));
    case VT_CLOSURE:
        return vl_obj(VT_CLOSURE, obj_ref(d, R_CLOSURE));
    case VT_CKPT:
        return vl_obj(VT_CKPT, obj_ref(d, R_CKPT));
    case VT_DUAL: {
        uint64_t aux = vl_ckptfile_get_u(&d->in);
        if (aux != 0 && aux != VL_ACTIVE)
            bad(d, "a dual number has annotation %llx",
                (unsigned long long)aux);
        v = vl_obj(VT_DUAL, obj_ref(d, R_DUAL));
        v.aux = (uint32_t)aux;
        return v;
    }
    case X_PLAIN_DUAL: {
        uint64_t active = vl_ckptfile_get_max(&d->in, 1, "an annotation");
        int64_t tag = fresh_tag(d, vl_ckptfile_get_i(&d->in));
        double x = vl_ckptfile_get_real(&d->in);
        double dx = vl_ckptfile_get_real(&d->in);
        if (tag <= VL_PLAIN_DUAL_MAX_TAG) {
            PlainDual *p = vl_gc_alloc_atomic(sizeof *p);
            p->primal = x;
            p->tangent = dx;
            v = vl_obj(VT_DUAL, p);
            v.aux = (uint32_t)tag;
        } else {            /* the tag no longer fits: a general dual */
            Dual *g = vl_gc_alloc(sizeof *g);
            g->primal = vl_num(x);
            g->tangent = vl_num(dx);
            g->tag = tag;
            v = vl_obj(VT_DUAL, g);
        }
        if (active)
            v.aux |= VL_ACTIVE;
        return v;
    }
    case VT_TAPE: {
        uint64_t aux = vl_ckptfile_get_max(&d->in, UINT32_MAX, "a node's slot");
        TapeChunk *c = obj_ref(d, R_CHUNK);
        if ((aux & VL_AUX_BITS) >= c->used)
            bad(d, "a tape node is past the end of its chunk");
        v = vl_obj(VT_TAPE, c);
        v.aux = (uint32_t)aux;
        return v;
    }
    case VT_PRIM: {
        unsigned host = vl_ckptfile_get_byte(&d->in);
        if (host > 1)
            bad(d, "a primitive's kind is %u", host);
        return find_prim(d, (int)host,
                         vl_ckptfile_get_str(&d->in, VL_READ_MAX_TOKEN, NULL));
    }
    case VT_SYM: {
        size_t n;
        char *s = vl_ckptfile_get_str(&d->in, VL_READ_MAX_TOKEN, &n);
        return vl_obj(VT_SYM, vl_symbol_intern(d->S->syms, s, n));
    }
    case VT_STR:
        return vl_obj(VT_STR, vl_ckptfile_get_str(&d->in, VL_READ_MAX_TOKEN,
                                                  NULL));
    case X_RAW_INT: {
        int64_t x = vl_ckptfile_get_i(&d->in);
        if (role == ROLE_TAG)
            return vl_raw(fresh_tag(d, x));
        if (x < -VL_STEPS_MAX || x > VL_STEPS_MAX)
            bad(d, "a step count is %lld", (long long)x);
        return vl_raw(x);
    }
    case X_RAW_LOG:
        return vl_raw_ptr(VL_RAW_LOG, obj_ref(d, R_LOG));
    case X_RAW_LOGLIST:
        return vl_raw_ptr(VL_RAW_LOG_LIST, opt_ref(d, R_LOGENTRY));
    case X_RAW_TAPE_END: {
        if (role != ROLE_TAPE_END)
            bad(d, "a tape end out of place");
        TapeChunk *c = opt_ref(d, R_CHUNK);
        uint64_t n = vl_ckptfile_get_max(&d->in, c != NULL ? c->used : 0,
                                         "a tape end");
        v = vl_raw(0);
        v.as.ptr = c;
        v.aux = (uint32_t)n;
        return v;
    }
    default:
        bad(d, "a value of unknown kind %u", t);
    }
}

static Value get_real(Dec *d)
{
    Value v = get_value(d, ROLE_DATA, 0);
    if (!IS_REAL(v))
        bad(d, "a %s where a real is expected", vl_object_kind(v));
    return v;
}

/* ===== Records ===== */

/* A text units are compiled from; once a unit names it, its forms (read
   once) and the unit compiled from each: a form is compiled once however
   many units name it. */
typedef struct Text {
    const char *name, *text;
    size_t len;
    int read;
    uint32_t nforms;
    Datum **forms;
    VlUnit **units;
} Text;

static void read_text(Dec *d)
{
    Text *t = vl_gc_alloc(sizeof *t);
    t->name = vl_ckptfile_get_str(&d->in, VL_READ_MAX_INPUT, NULL);
    t->text = vl_ckptfile_get_str(&d->in, VL_READ_MAX_INPUT, &t->len);
    add_obj(d, R_TEXT, t);
}

/* The unit of form 'form' of t with the inline decisions 'rebound'. */
static VlUnit *text_unit(Dec *d, Text *t, uint32_t form, uint64_t rebound)
{
    VladState *S = d->S;
    if (!t->read) {
        t->forms = vl_unit_read(S, t->text, t->len, t->name, d->in.name,
                                &t->nforms);
        t->units = vl_gc_alloc((t->nforms ? t->nforms : 1)
                               * sizeof *t->units);
        t->read = 1;
    }
    if (form >= t->nforms)
        vl_except_runtime(S, VLAD_ERR_SYNTAX, "the code of the checkpoint "
                          "(%s) has no form %u", t->name, (unsigned)form + 1);
    VlUnit *u = t->units[form];
    if (u == NULL) {
        u = t->units[form] = vl_unit_recompile(S, t->forms[form], t->text,
                                               t->len, t->name, form,
                                               rebound);
        if (d->stats != NULL)
            d->stats->compiles++;
    } else if (u->rebound != rebound) {
        /* (a form is compiled once per run of its text: one unit) */
        bad(d, "form %u of %s is compiled twice", (unsigned)form + 1,
            t->name);
    }
    return u;
}

static void read_unit(Dec *d)
{
    VladState *S = d->S;
    unsigned prelude = vl_ckptfile_get_byte(&d->in);
    if (prelude > 1)
        bad(d, "a unit's environment is %u", prelude);
    VlUnit *u;
    if (prelude) {
        uint64_t form = vl_ckptfile_get_u(&d->in);
        if (form >= S->nprelude_units || S->prelude_units[form]->form != form)
            bad(d, "it names prelude form %llu, which this prelude lacks",
                (unsigned long long)form);
        u = S->prelude_units[form];
        if (vl_ckptfile_get_u(&d->in) != vl_unit_hash(u))
            bad(d, "its prelude code differs from this vlad's");
    } else {
        Text *t = obj_ref(d, R_TEXT);
        uint64_t rebound = vl_ckptfile_get_u(&d->in);
        uint64_t form = vl_ckptfile_get_max(&d->in, UINT32_MAX, "a form index");
        uint64_t hash = vl_ckptfile_get_u(&d->in);
        if (rebound >> IN__COUNT != 0)
            bad(d, "a unit's inline decisions are out of range");
        u = text_unit(d, t, (uint32_t)form, rebound);
        if (vl_unit_hash(u) != hash)
            bad(d, "the code of %s (form %llu) compiles differently here",
                t->name, (unsigned long long)form + 1);
    }
    uint32_t n;
    vl_unit_protos(u, &n);
    add_obj(d, R_UNIT, u);
}

static void read_closure(Dec *d, int local)
{
    VladState *S = d->S;
    Proto *p;
    uint64_t unit = local ? 0 : vl_ckptfile_get_u(&d->in);
    if (local) {
        if (!d->local)
            bad(d, "a record of unknown kind %u", R_LCLOSURE);
        p = (Proto *)ext_at(d).as.ptr;
    } else if (unit == 0) {
        uint64_t ctl = vl_ckptfile_get_max(&d->in, CTL__COUNT - 1,
                                           "a control procedure");
        if (ctl == CTL_ENTRY || ctl == CTL_UNDERFLOW)
            bad(d, "a closure of internal procedure %llu",
                (unsigned long long)ctl);
        p = S->control[ctl];
    } else {
        VlUnit *u = obj_at(d, unit - 1, R_UNIT);
        uint32_t n;
        Proto *const *all = vl_unit_protos(u, &n);
        p = all[vl_ckptfile_get_max(&d->in, n - 1, "a procedure's index")];
    }
    /* each value its R_FILL will give takes a byte at least: memory in
       proportion to the file, however many closures wait */
    if (p->nfree > left(d) || d->owed > left(d) - p->nfree)
        bad(d, "its closures wait for more captured values than it holds");
    d->owed += p->nfree;
    if (d->stats != NULL && d->owed > d->stats->owed_max)
        d->stats->owed_max = d->owed;
    Closure *c = vl_gc_alloc(sizeof *c + p->nfree * sizeof(Value));
    c->proto = p;
    for (uint16_t k = 0; k < p->nfree; k++)
        c->free[k] = UNDEF_VAL;
    add_obj(d, R_CLOSURE, c);
    d->unfilled++;
}

/* Whether v is a step count as the driver makes them (vm/cpj/cpjprims.c,
   vl_cpj_step_count). */
static int step_count(Value v)
{
    double x = IS_REAL(v) ? vl_object_primal(v) : -1;
    return x >= 0 && x == floor(x) && x <= VL_POSITION_MAX;
}

/* The captured values of a closure; those of checkpoint-*j's segment
   procedures must be what their code reads (vm/exec/vm.c, vm/cpj/cpjprims.c). */
static void read_fill(Dec *d)
{
    VladState *S = d->S;
    uint64_t i = vl_ckptfile_get_u(&d->in);
    Closure *c = obj_at(d, i, R_CLOSURE);
    if (d->objs[i].filled)
        bad(d, "a closure is filled twice");
    const Proto *p = c->proto;
    int program = p->unit != NULL && !((const VlUnit *)p->unit)->prelude;
    for (uint16_t k = 0; k < p->nfree; k++) {
        c->free[k] = get_value(d, ROLE_DATA, 0);
        if (program)
            outside(d, c->free[k]);
    }
    d->objs[i].filled = 1;
    d->unfilled--;
    d->owed -= p->nfree;
    if (p->unit != NULL || p->nfree == 0)
        return;
    /* SEG_RUN (pos log), SEG_ADV (pos log m advance), SEG_REC (pos
       loglist m advance) */
    int rec = p == S->control[CTL_SEG_REC];
    if (!step_count(c->free[0]) || c->free[1].tag != VT_RAW
        || c->free[1].aux != (rec ? VL_RAW_LOG_LIST : VL_RAW_LOG)
        || (p->nfree == 4
            && (!step_count(c->free[2]) || !IS_CLOSURE(c->free[3])
                || AS_CLOSURE(c->free[3])->proto
                       != S->control[CTL_ADVANCE])))
        bad(d, "a checkpoint-*j segment is malformed");
}

static void read_pair(Dec *d)
{
    Pair *p = vl_gc_alloc(sizeof *p);
    p->car = get_value(d, ROLE_DATA, 0);
    p->cdr = get_value(d, ROLE_DATA, 0);
    unsigned t = d->local ? 0 : taint(d, p->car) | taint(d, p->cdr);
    if (t != 0)
        *vl_keymap_put(&d->tainted, (uint64_t)(uintptr_t)p, NULL) = t;
    add_obj(d, R_PAIR, p);
}

static void read_dual(Dec *d)
{
    Dual *x = vl_gc_alloc(sizeof *x);
    x->tag = fresh_tag(d, vl_ckptfile_get_i(&d->in));
    x->primal = get_real(d);
    x->tangent = get_real(d);
    add_obj(d, R_DUAL, x);
}

/* The largest capacity of a tape chunk read (vm/ad/ad.c makes at most
   8192). */
#define CHUNK_CAP_MAX 8192u

/* Node j of chunk c (its slot and the ones after it) is well formed:
   parents before it, partials where its class says. */
static void check_slot(Dec *d, const TapeChunk *c, uint32_t j)
{
    const TapeSlot *t = &c->slots[j];
    uint32_t self = c->base + j, p0 = t->parent, q = t->parent1;
    if (p0 == VL_TAPE_NONE || p0 == VL_TAPE_CONT)
        return;
    if (p0 == VL_TAPE_GENERAL) {
        const TapeExt *x = c->exts != NULL ? c->exts[j] : NULL;
        if (x == NULL)
            bad(d, "a general tape node has no record");
        return;
    }
    uint32_t cls = p0 >> VL_TAPE_INDEX_BITS;
    if ((p0 & VL_TAPE_INDEX_MASK) >= self)
        bad(d, "a tape node's parent is not before it");
    switch (cls) {
    case VL_TAPE_UNARY:
        if (q == VL_RULE_EXPLICIT || q >= VL_RULE_BINARY_FIRST)
            bad(d, "a tape node has rule %u", q);
        break;
    case VL_TAPE_BINARY:
        if ((q & VL_TAPE_INDEX_MASK) >= self)
            bad(d, "a tape node's parent is not before it");
        break;
    case VL_TAPE_EXPLICIT: {
        uint32_t n = q == VL_TAPE_NONE ? 1 : 2;
        if (n == 2 && q >= self)
            bad(d, "a tape node's parent is not before it");
        if (j + n >= c->used || c->slots[j + 1].parent != VL_TAPE_CONT
            || (n == 2 && c->slots[j + 2].parent != VL_TAPE_CONT))
            bad(d, "a tape node lacks its partials");
        break;
    }
    default:                /* VL_TAPE_FLOAT */
        break;
    }
}

static void read_chunk(Dec *d)
{
    TapeChunk *c = vl_gc_alloc(sizeof *c);
    Obj *po;
    TapeChunk *prev = opt_ref_at(d, R_CHUNK, &po);
    c->prev = prev;
    c->prev_n = (uint32_t)vl_ckptfile_get_max(&d->in, prev ? prev->used : 0,
                                              "a chunk's start");
    c->tag = fresh_tag(d, vl_ckptfile_get_i(&d->in));
    unsigned compact = vl_ckptfile_get_byte(&d->in);
    unsigned general = vl_ckptfile_get_byte(&d->in);
    if (compact > 1 || general > 1)
        bad(d, "a chunk's flags are out of range");
    /* (a chunk loaded before is full: its capacity is its fill, up to
       two more than a made one's) */
    c->cap = (uint32_t)vl_ckptfile_get_max(&d->in, CHUNK_CAP_MAX + 2,
                                           "a chunk's capacity");
    c->used = (uint32_t)vl_ckptfile_get_max(&d->in, c->cap + 2u,
                                            "a chunk's fill");
    if (c->cap == 0 || c->used > left(d))
        bad(d, "a chunk's size is out of range");
    /* room for the slots read only (memory in proportion to the file):
       a node appended later starts a new chunk, at the same index */
    c->cap = c->used > 0 ? c->used : 1;
    c->base = prev != NULL ? prev->base + c->prev_n : 0;
    if (c->base > VL_TAPE_INDEX_MASK - 4 - c->cap)
        bad(d, "a tape is too long");
    c->slots = vl_gc_alloc_atomic(VL_TAPE_CHUNK_SLOTS(c->cap)
                                  * sizeof(TapeSlot));
    memset(c->slots, 0, VL_TAPE_CHUNK_SLOTS(c->cap) * sizeof(TapeSlot));
    for (uint32_t j = 0; j < c->used; j++) {
        poll(d);
        c->slots[j].primal = vl_ckptfile_get_real(&d->in);
        c->slots[j].parent = (uint32_t)vl_ckptfile_get_max(&d->in, UINT32_MAX,
                                                           "a parent");
        c->slots[j].parent1 = (uint32_t)vl_ckptfile_get_max(&d->in, UINT32_MAX,
                                                            "a parent");
    }
    for (uint32_t next = 0;;) {
        uint64_t dist = vl_ckptfile_get_u(&d->in);
        if (dist == 0)
            break;
        if (dist > c->used - next)
            bad(d, "a general tape node is past its chunk's end");
        uint32_t j = next + (uint32_t)dist - 1;
        next = j + 1;
        if (c->slots[j].parent != VL_TAPE_GENERAL)
            bad(d, "a general tape node's slot is not marked so");
        if (c->exts == NULL)
            c->exts = vl_gc_alloc(VL_TAPE_CHUNK_SLOTS(c->cap)
                                  * sizeof(TapeExt *));
        TapeExt *x = vl_gc_alloc(sizeof *x);
        x->nparents = (uint32_t)vl_ckptfile_get_max(&d->in, 2, "parents");
        x->primal = get_real(d);
        x->parents[0] = x->parents[1] = VL_TAPE_NONE;
        for (uint32_t k = 0; k < x->nparents; k++) {
            x->parents[k] = (uint32_t)vl_ckptfile_get_u(&d->in);
            if (x->parents[k] >= c->base + j)
                bad(d, "a tape node's parent is not before it");
            x->partials[k] = get_real(d);
        }
        c->exts[j] = x;
    }
    /* what follows from the slots: recomputed, not read; the partials'
       slots before each node counted once (a chunk may follow any
       prefix of this one, in as many chunks as the file holds) */
    uint32_t *upto = vl_gc_alloc_atomic(((size_t)c->used + 1)
                                        * sizeof *upto);
    int has_general = 0;
    upto[0] = 0;
    for (uint32_t j = 0; j < c->used; j++) {
        check_slot(d, c, j);
        upto[j + 1] = upto[j] + (c->slots[j].parent == VL_TAPE_CONT);
        has_general |= c->slots[j].parent == VL_TAPE_GENERAL;
    }
    c->conts = upto[c->used];
    const uint32_t *prev_upto = prev != NULL ? po->ix : NULL;
    c->conts_before = prev != NULL
                      ? prev->conts_before + prev_upto[c->prev_n] : 0;
    c->general = general || has_general || (prev != NULL && prev->general);
    c->compact_tag = compact && !c->general ? c->tag : 0;
    c->managed = 0;
    add_obj(d, R_CHUNK, c)->ix = upto;
}

static void read_log(Dec *d)
{
    Log *l = vl_gc_alloc(sizeof *l);
    l->n = (size_t)vl_ckptfile_get_max(&d->in, left(d) / 2, "a log's length");
    l->pos = vl_gc_alloc_atomic((l->n ? l->n : 1) * sizeof(int64_t));
    l->values = vl_gc_alloc((l->n ? l->n : 1) * sizeof(Value));
    for (size_t k = 0; k < l->n; k++) {
        poll(d);
        l->pos[k] = vl_ckptfile_get_i(&d->in);
        if (k > 0 && l->pos[k] <= l->pos[k - 1])
            bad(d, "an effect log is out of order");
        l->values[k] = get_value(d, ROLE_DATA, 0);
        outside(d, l->values[k]);
    }
    add_obj(d, R_LOG, l);
}

static void read_logentry(Dec *d)
{
    LogEntry *x = vl_gc_alloc(sizeof *x);
    x->pos = vl_ckptfile_get_i(&d->in);
    x->value = get_value(d, ROLE_DATA, 0);
    outside(d, x->value);
    x->next = opt_ref(d, R_LOGENTRY);
    if (x->next != NULL && x->next->pos > x->pos)
        bad(d, "an effect log is out of order");
    add_obj(d, R_LOGENTRY, x);
}

/* The value of register r of frame f of run, or NULL when r is not
   live there. */
static const Value *live_value(const ContRun *run, uint32_t f, int r)
{
    const CapFrame *cf = &run->frames[f];
    const Proto *p = cf->closure->proto;
    uint32_t nruns;
    const LiveRun *l = vl_proto_live_set(p, p->code + cf->ret_pc, &nruns);
    for (uint32_t q = 0; q < nruns; q++)
        if (r >= l[q].first && r < l[q].first + l[q].count)
            return vl_contseg_run_reg(run, f, r);
    return NULL;
}

/* The delimiter frames of a run, indexed once so that a sequence over any
   range of it finds its own in O(1) (NULL: the run has none). */
typedef struct RunIx {
    uint32_t *dl_before;    /* [nframes + 1]: delimiter frames before f */
    uint32_t *dl_at;        /* their indices, in order */
    uint32_t *ad_before;    /* [nframes + 1]: j* and *j frames before f */
    int64_t *ad_tag;        /* their tags, in order */
} RunIx;

/* The tag of frame f of run if it is a j* or *j frame holding one. */
static const Value *ad_tag(const ContRun *run, uint32_t f)
{
    const Proto *p = run->frames[f].closure->proto;
    if (p->kind != PK_JSTAR && p->kind != PK_STARJ)
        return NULL;
    return live_value(run, f, p->ctlreg + VL_AD_TAG);
}

static RunIx *index_run(Dec *d, const ContRun *run)
{
    VladState *S = d->S;
    uint32_t nf = run->nframes, nd = 0, nad = 0;
    charge(d, nf);
    for (uint32_t f = 0; f < nf; f++) {
        const Proto *p = run->frames[f].closure->proto;
        if (vl_contseg_delimiter(S, p)) {
            nd++;
            nad += ad_tag(run, f) != NULL;
        }
    }
    if (nd == 0)
        return NULL;
    RunIx *ix = vl_gc_alloc(sizeof *ix);
    ix->dl_before = vl_gc_alloc_atomic(((size_t)nf + 1) * sizeof(uint32_t));
    ix->ad_before = vl_gc_alloc_atomic(((size_t)nf + 1) * sizeof(uint32_t));
    ix->dl_at = vl_gc_alloc_atomic(nd * sizeof(uint32_t));
    ix->ad_tag = vl_gc_alloc_atomic((nad ? nad : 1) * sizeof(int64_t));
    nd = nad = 0;
    for (uint32_t f = 0; f < nf; f++) {
        ix->dl_before[f] = nd;
        ix->ad_before[f] = nad;
        if (vl_contseg_delimiter(S, run->frames[f].closure->proto)) {
            const Value *t = ad_tag(run, f);
            ix->dl_at[nd++] = f;
            if (t != NULL)
                ix->ad_tag[nad++] = t->as.i;
        }
    }
    ix->dl_before[nf] = nd;
    ix->ad_before[nf] = nad;
    return ix;
}

static void read_run(Dec *d)
{
    VladState *S = d->S;
    uint32_t nf = (uint32_t)vl_ckptfile_get_max(&d->in, left(d) / 3,
                                                "a frame count");
    if (nf == 0)
        bad(d, "a run of no frames");
    CapFrame *frames = vl_gc_alloc(nf * sizeof *frames);
    Value *values = NULL;
    size_t nv = 0, vcap = 0;
    for (uint32_t f = 0; f < nf; f++) {
        poll(d);
        CapFrame *cf = &frames[f];
        cf->closure = obj_ref(d, R_CLOSURE);
        const Proto *p = cf->closure->proto;
        cf->ret_pc = (uint32_t)vl_ckptfile_get_max(&d->in, p->ncode,
                                                   "a return address");
        const Instr *at = &p->code[cf->ret_pc > 0 ? cf->ret_pc - 1 : 0];
        if (cf->ret_pc == 0 || !vl_compile_is_call_capable(at->op))
            bad(d, "a frame waits where its code makes no call");
        uint32_t delta = at->op == OP_CALL || at->op == OP_RESUME
                         ? (uint32_t)at->a + 2 : (uint32_t)p->nregs + 2;
        if (vl_ckptfile_get_u(&d->in) != delta)
            bad(d, "a frame's size does not match its code");
        cf->delta = delta;
        cf->first = (uint32_t)nv;
        /* a program's frames and delimiters hold no internal value; the
           prelude's (checkpoint-*j's driver) may */
        int program = p->unit == NULL || !((const VlUnit *)p->unit)->prelude;
        uint32_t nruns;
        const LiveRun *l = vl_proto_live_set(p, p->code + cf->ret_pc,
                                             &nruns);
        for (uint32_t q = 0; q < nruns; q++)
            for (uint32_t r = l[q].first; r < l[q].first + l[q].count;
                 r++) {
                int role = vl_ckptfile_role(S, p, (int)r);
                values = vl_gc_grow(values, nv, &vcap, sizeof *values);
                values[nv] = get_value(d, role, 1);
                if (program && role == ROLE_DATA)
                    outside(d, values[nv]);
                nv++;
            }
        cf->nlive = (uint32_t)nv - cf->first;
    }
    d->stored_frames += nf;
    ContRun *run = vl_contseg_run(nf, nv);
    memcpy(run->frames, frames, nf * sizeof *frames);
    if (nv > 0)
        memcpy(run->values, values, nv * sizeof *values);
    /* a *j's tape is its own: the chunk its tape ends in has its tag */
    for (uint32_t f = 0; f < nf; f++) {
        const Proto *p = run->frames[f].closure->proto;
        const Value *tag, *end;
        if (p->kind != PK_STARJ
            || (tag = live_value(run, f, p->ctlreg + VL_AD_TAG)) == NULL
            || (end = live_value(run, f, p->ctlreg + VL_STARJ_TAPE_END))
               == NULL
            || end->as.ptr == NULL)
            continue;
        if (((const TapeChunk *)end->as.ptr)->tag != tag->as.i)
            bad(d, "a *j frame's tape is another's");
    }
    add_obj(d, R_RUN, run)->ix = index_run(d, run);
}

/* What the loader keeps of a sequence: for the tag check, its own j*
   and *j frames' tags, how many there are down its 'below' chain (where
   a checkpoint's delimiters are, vm/core/contseg.h) and the nearest piece down
   there with some of its own; and the code of its top frame, which made
   a checkpoint's pending application.  Made in O(1) from the run's
   index. */
typedef struct SegIx {
    uint64_t spine;             /* j* and *j frames, its own and below */
    const struct SegIx *down;   /* the nearest piece below with its own */
    const int64_t *tags;        /* its own: tags[0 .. own) */
    uint32_t own;
    int checked;                /* the tags down from here are distinct */
    const Proto *top;           /* its top frame's code (NULL: none) */
} SegIx;

static const SegIx no_frames;

static void read_seg(Dec *d)
{
    Obj *bo, *ro, *no;
    const ContSeg *below = opt_ref_at(d, R_SEG, &bo);
    const ContSeg *ref = opt_ref_at(d, R_SEG, &ro);
    const ContRun *run = opt_ref_at(d, R_RUN, &no);
    uint64_t first = vl_ckptfile_get_u(&d->in);
    uint64_t count = vl_ckptfile_get_u(&d->in);
    if (run == NULL ? first != 0 || count != 0
                    : count == 0 || first > run->nframes
                          || count > run->nframes - first)
        bad(d, "a frame sequence's range is out of its run");
    if (ref != NULL && ref->hooks)
        bad(d, "a shared frame sequence holds a delimiter");
    const ContSeg *seg;
    const SegIx *x;
    if (count == 0 && (ref == NULL || below == NULL)) {
        /* (vl_contseg_make: one of the two, or nothing) */
        seg = ref == NULL ? below : ref;
        x = ref == NULL ? (bo != NULL ? bo->ix : NULL) : ro->ix;
    } else {
        /* the range's delimiters from the run's index, not a scan of it
           for each sequence over it */
        ContSeg *s = vl_gc_alloc(sizeof *s);
        vl_contseg_init(d->S, s, below, run, (uint32_t)first, (uint32_t)count,
                        ref, 0);
        const RunIx *ix = count > 0 ? no->ix : NULL;
        SegIx *y = vl_gc_alloc(sizeof *y);
        const SegIx *bx = bo != NULL ? bo->ix : NULL;
        if (ix != NULL) {
            uint32_t a = ix->dl_before[first];
            uint32_t b = ix->dl_before[first + count];
            if (b > a) {
                s->hook_lo = (int32_t)ix->dl_at[a];
                s->hook_hi = (int32_t)ix->dl_at[b - 1];
                s->hooks = 1;
            }
            y->tags = ix->ad_tag + ix->ad_before[first];
            y->own = ix->ad_before[first + count] - ix->ad_before[first];
        }
        y->spine = y->own;
        if (bx != NULL) {
            y->spine = bx->spine > UINT64_MAX - y->own ? UINT64_MAX
                                                       : bx->spine + y->own;
            y->down = bx->own > 0 ? bx : bx->down;
        }
        /* below ++ range ++ ref: the top frame is ref's, else the
           range's last, else below's */
        y->top = ref != NULL ? ((const SegIx *)ro->ix)->top
                 : count > 0 ? run->frames[first + count - 1].closure->proto
                 : bx != NULL ? bx->top : NULL;
        seg = s;
        x = y;
    }
    /* frames shared by the pieces of a sequence: a sequence far longer
       than the frames stored would be returned through (or walked) for
       ever -- a chain of resumes shares each level once */
    if (vl_contseg_frames(seg) > 16 * d->stored_frames + 65536)
        bad(d, "a frame sequence shares its frames too often (%llu frames "
            "from %llu stored)", (unsigned long long)vl_contseg_frames(seg),
            (unsigned long long)d->stored_frames);
    add_obj(d, R_SEG, (void *)seg)->ix = (void *)(x != NULL ? x : &no_frames);
}

/* The j* and *j suspended in one checkpoint have distinct tags (a
   resumed one gets a fresh tag, vm/ad/ad.h): their delimiter frames lie on
   the 'below' chain of its sequence (a shared 'ref' holds none).  Each
   sequence is checked once; the walk is charged to the budget (the chains
   of many checkpoints may share their lower pieces). */
static void check_tags(Dec *d, const SegIx *x)
{
    if (x == NULL || x->checked || x->spine < 2)
        return;
    charge(d, x->spine);
    VlKeyMap seen;
    vl_keymap_init(&seen, d->seed);
    for (const SegIx *s = x->own > 0 ? x : x->down; s != NULL; s = s->down)
        for (uint32_t k = 0; k < s->own; k++) {
            poll(d);
            int added;
            vl_keymap_put(&seen, (uint64_t)s->tags[k], &added);
            if (!added)
                bad(d, "two suspended j* or *j share a tag");
        }
    for (const SegIx *s = x; s != NULL; s = s->down)
        ((SegIx *)s)->checked = 1;
}

/* Whether p is code of checkpoint-*j's driver or of the prelude (which
   may hold internal values, and pass them). */
static int driver_code(const VladState *S, const Proto *p)
{
    return p->unit != NULL ? ((const VlUnit *)p->unit)->prelude
                           : internal_control(S, p);
}

/* The argument of a checkpoint's pending application, made by the code
   of its sequence's top frame ('top', NULL: none): that of an internal
   procedure, or a call the prelude's code makes, may hold internal
   values (the driver calling its own; (map %leaves cols) in jacobian);
   else none. */
static void pending_arg(Dec *d, Value callee, Value arg, const Proto *top)
{
    const VladState *S = d->S;
    if (!internal(S, callee) && (top == NULL || !driver_code(S, top)))
        outside(d, arg);
}

static void read_ckpt(Dec *d)
{
    Checkpoint *k = vl_gc_alloc(sizeof *k);
    unsigned finished = vl_ckptfile_get_byte(&d->in);
    if (finished > 1)
        bad(d, "a checkpoint's state is %u", finished);
    k->finished = (int)finished;
    if (finished) {
        k->result = get_value(d, ROLE_DATA, 0);
        outside(d, k->result);
    } else {
        k->callee = get_value(d, ROLE_DATA, 0);
        k->arg = get_value(d, ROLE_DATA, 0);
        Obj *so;
        k->seq = opt_ref_at(d, R_SEG, &so);
        pending_arg(d, k->callee, k->arg,
                    so != NULL ? ((const SegIx *)so->ix)->top : NULL);
        k->steps_at = vl_ckptfile_get_i(&d->in);
        k->nframes = vl_contseg_frames(k->seq);
        k->bytes = vl_contseg_bytes(k->nframes, vl_contseg_values(k->seq));
        check_tags(d, so != NULL ? so->ix : NULL);
    }
    /* positions are step counts (at most VL_POSITION_MAX); the bytes of a
       state's data are at most what a heap holds */
    k->position = vl_ckptfile_get_i(&d->in);
    k->data_bytes = vl_ckptfile_get_i(&d->in);
    unsigned m = vl_ckptfile_get_byte(&d->in);
    if (m > 1 || k->data_bytes < 0 || k->data_bytes > ((int64_t)1 << 50)
        || k->position < 0 || k->position > (int64_t)VL_POSITION_MAX)
        bad(d, "a checkpoint's figures are out of range");
    k->data_measured = (int)m;
    add_obj(d, R_CKPT, k);
}

static void read_global(Dec *d)
{
    size_t n;
    char *name = vl_ckptfile_get_str(&d->in, VL_READ_MAX_INPUT, &n);
    if (n == 0 || name[0] == '%')
        bad(d, "a global is named '%s'", name);
    Value v = get_value(d, ROLE_DATA, 0);
    outside(d, v);
    Global *g = vl_state_user_cell(d->S, vl_symbol_intern(d->S->syms, name,
                                                          n));
    size_t cap = d->gcap;
    d->gcells = vl_gc_grow(d->gcells, d->nglobals, &cap, sizeof *d->gcells);
    d->gvalues = vl_gc_grow(d->gvalues, d->nglobals, &d->gvcap,
                            sizeof *d->gvalues);
    d->gcap = cap;
    d->gcells[d->nglobals] = g;
    d->gvalues[d->nglobals++] = v;
    add_obj(d, R_GLOBAL, g);
}

/* R_INFO's fields. */
static void read_info(CkptIn *in, CkptProgram *prog)
{
    prog->present = 1;
    prog->output_bytes = vl_ckptfile_get_u(in);
    prog->input_bytes = vl_ckptfile_get_u(in);
    prog->every = vl_ckptfile_get_real(in);
    if (!(prog->every >= 0 && prog->every <= VL_AUTOSAVE_MAX_SECONDS))
        vl_ckptfile_bad(in, "an autosave interval of %g seconds", prog->every);
    prog->note = vl_ckptfile_get_str(in, VL_READ_MAX_INPUT, NULL);
}

static void read_program(Dec *d, CkptProgram *prog)
{
    if (!prog->present)
        bad(d, "a program without its information record");
    unsigned define = vl_ckptfile_get_byte(&d->in);
    if (define > 1)
        bad(d, "a form's kind is %u", define);
    prog->define = (int)define;
    prog->line = (int32_t)vl_ckptfile_get_max(&d->in, INT32_MAX, "a line");
    prog->col = (int32_t)vl_ckptfile_get_max(&d->in, INT32_MAX, "a column");
    prog->nlevels = (size_t)vl_ckptfile_get_max(&d->in, left(d) / 3,
                                                "a program's depth");
    if (prog->nlevels == 0)
        bad(d, "a program of no text");
    prog->levels = vl_gc_alloc(prog->nlevels * sizeof *prog->levels);
    for (size_t k = 0; k < prog->nlevels; k++) {
        poll(d);
        CkptLevel *l = &prog->levels[k];
        l->name = vl_ckptfile_get_str(&d->in, VL_READ_MAX_INPUT, NULL);
        l->text = vl_ckptfile_get_str(&d->in, VL_READ_MAX_INPUT, &l->len);
        l->next = (uint32_t)vl_ckptfile_get_max(&d->in, UINT32_MAX,
                                                "a form index");
    }
}

void vl_ckptload_info(VladState *S, const unsigned char *data, size_t len,
                      const char *name, CkptProgram *prog)
{
    CkptIn in = {S, NULL, NULL, name};
    size_t plen;
    memset(prog, 0, sizeof *prog);
    vl_ckptfile_open(&in, data, len, &plen);
    if (plen > 0 && *in.p == R_INFO) {
        in.p++;
        read_info(&in, prog);
    }
}

static Value load(Dec *d, const unsigned char *data, size_t len,
                  CkptProgram *prog, const CkptAccept *accept)
{
    CkptProgram local;
    if (prog == NULL)
        prog = &local;
    memset(prog, 0, sizeof *prog);
    size_t plen;
    vl_ckptfile_open(&d->in, data, len, &plen);
    d->seed = vl_keymap_seed(d);
    vl_keymap_init(&d->tags, d->seed);
    vl_keymap_init(&d->tainted, d->seed);
    d->work_max = 16 * (uint64_t)plen + ((uint64_t)1 << 20);
    if (plen > 0 && *d->in.p == R_INFO) {
        d->in.p++;
        read_info(&d->in, prog);
    }
    int programs = 0;
    for (;;) {
        poll(d);
        if (d->stats != NULL)
            d->stats->records++;
        unsigned kind = vl_ckptfile_get_byte(&d->in);
        if (programs && kind != R_END)
            bad(d, "records after the program");
        switch (kind) {
        case R_PROGRAM:
            read_program(d, prog);
            programs++;
            continue;
        case R_TEXT: read_text(d); continue;
        case R_UNIT: read_unit(d); continue;
        case R_PAIR: read_pair(d); continue;
        case R_CLOSURE: read_closure(d, 0); continue;
        case R_LCLOSURE: read_closure(d, 1); continue;
        case R_FILL: read_fill(d); continue;
        case R_DUAL: read_dual(d); continue;
        case R_CHUNK: read_chunk(d); continue;
        case R_LOG: read_log(d); continue;
        case R_LOGENTRY: read_logentry(d); continue;
        case R_RUN: read_run(d); continue;
        case R_SEG: read_seg(d); continue;
        case R_CKPT: read_ckpt(d); continue;
        case R_GLOBAL: read_global(d); continue;
        case R_END:
            break;
        default:
            bad(d, "a record of unknown kind %u", kind);
        }
        break;
    }
    if (prog->present && !programs)
        bad(d, "a program's information without the program");
    Value root = get_value(d, ROLE_DATA, 0);
    outside(d, root);
    if (d->in.p != d->in.end)
        bad(d, "it has bytes after its end");
    if (d->unfilled != 0)
        bad(d, "a closure is never filled");
    check_outside(d);
    /* the whole file is checked, and the caller's conditions: only now
       does anything change */
    if (accept != NULL && accept->check != NULL)
        accept->check(d->S, root, prog, accept->ud);
    for (size_t k = 0; k < d->nglobals; k++)
        vl_state_define(d->S, d->gcells[k], d->gvalues[k]);
    return root;
}

Value vl_ckptload_value(VladState *S, const unsigned char *data, size_t len,
                        const char *name, CkptProgram *prog,
                        const CkptAccept *accept)
{
    Dec d;
    memset(&d, 0, sizeof d);
    d.S = S;
    d.in.S = S;
    d.in.name = name;
    d.stats = accept != NULL ? accept->stats : NULL;
    if (d.stats != NULL)
        memset(d.stats, 0, sizeof *d.stats);
    return load(&d, data, len, prog, accept);
}

Value vl_ckptload_local(VladState *S, const unsigned char *data,
                        size_t len, const char *name, const Value *ext,
                        size_t next, CkptScratch *sc)
{
    Dec d;
    memset(&d, 0, sizeof d);
    d.S = S;
    d.in.S = S;
    d.in.name = name;
    d.local = 1;
    d.ext = ext;
    d.next = next;
    d.objs = sc->objs;          /* taken: an error leaves it empty */
    d.cap = sc->objs_cap;
    sc->objs = NULL;
    sc->objs_cap = 0;
    Value root = load(&d, data, len, NULL, NULL);
    /* given back cleared (scanned memory: it would keep the objects) */
    if (d.objs != NULL)
        memset(d.objs, 0, d.cap * sizeof *d.objs);
    sc->objs = d.objs;
    sc->objs_cap = d.cap;
    return root;
}
