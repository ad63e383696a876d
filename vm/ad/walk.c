/*
 * vm/ad/walk.c -- the generic walker over values (see vm/ad/walk.h)
 *
 * Iterative: an explicit stack of pending visits in GC memory stands for
 * the recursion into cars, cdrs, captured values and frame registers, so
 * values nested to any depth (in their cars as well as their cdrs) need no
 * C recursion.  The order of visits is exactly that of the recursive
 * definition (depth first, car before cdr, memo entry before children).
 * The memo table is an open-addressing hash table in pointer-free GC
 * memory, keyed by object address, kept by the state from one walk to the
 * next (entries of older walks are told apart by a generation number, so
 * nothing is cleared).
 */
#include "config.h"
#include "vm/ad/walk.h"

#include <string.h>
#include "vm/core/contseg.h"
#include "vm/core/except.h"
#include "vm/core/print.h"

/* One entry of the memo: valid when its generation is the table's.  The
   table is pointer-free memory (not scanned): while a walk runs, every
   object it made is reachable from its partial result on the C stack, and
   the objects walked over from its arguments. */
typedef struct MemoSlot {
    const void *key;
    const void *key2;       /* zip: the object of the second value */
    Value val;
    uint32_t gen;
} MemoSlot;

typedef struct MemoTable {
    MemoSlot *slots;
    size_t cap, count;
    uint32_t gen;
} MemoTable;

typedef struct Memo {
    MemoTable *t;
} Memo;

/* A table kept after a walk at most this big (slots). */
#define MEMO_KEEP (1u << 16)

typedef struct Walk {
    VladState *S;
    WalkLeaf leaf;
    void *ud;
    int zip;
    const char *who, *what;
    Value whole_a, whole_b;
    WalkCkpt hook;          /* map: replaces a checkpoint before its
                               visit, or NULL */
    Memo memo;
} Walk;

static MemoSlot *memo_slots(size_t cap)
{
    MemoSlot *slots = vl_gc_alloc_atomic(cap * sizeof *slots);
    for (size_t k = 0; k < cap; k++)
        slots[k].gen = 0;
    return slots;
}

/* The state's table, for one walk (a walk that fails leaves it to the
   collector, and the next one makes a new one). */
static void memo_open(VladState *S, Memo *m)
{
    MemoTable *t = S->walk_memo;
    S->walk_memo = NULL;
    if (t == NULL) {
        t = vl_gc_alloc(sizeof *t);
        t->cap = 64;
        t->slots = memo_slots(t->cap);
    }
    t->count = 0;
    if (++t->gen == 0) {        /* wrapped: forget every old entry */
        for (size_t k = 0; k < t->cap; k++)
            t->slots[k].gen = 0;
        t->gen = 1;
    }
    m->t = t;
}

static void memo_close(VladState *S, Memo *m)
{
    if (m->t->cap <= MEMO_KEEP)
        S->walk_memo = m->t;
    else
        vl_gc_free(m->t->slots);
}

static Value *memo_find(Memo *m, const void *key, const void *key2)
{
    MemoTable *t = m->t;
    for (size_t h = vl_walk_hash(key, t->cap);; h = (h + 1) & (t->cap - 1)) {
        MemoSlot *e = &t->slots[h];
        if (e->gen != t->gen)
            return NULL;
        if (e->key == key && e->key2 == key2)
            return &e->val;
    }
}

static void memo_put(Memo *m, const void *key, const void *key2, Value v);

/* The table with twice the room, its entries of this walk put again. */
static void memo_grow(Memo *m)
{
    MemoTable *t = m->t;
    MemoSlot *old = t->slots;
    size_t oc = t->cap;
    t->cap = oc * 2;
    t->slots = memo_slots(t->cap);
    t->count = 0;
    for (size_t k = 0; k < oc; k++)
        if (old[k].gen == t->gen)
            memo_put(m, old[k].key, old[k].key2, old[k].val);
    vl_gc_free(old);
}

static inline void memo_put(Memo *m, const void *key, const void *key2,
                            Value v)
{
    MemoTable *t = m->t;
    if (VL_UNLIKELY(2 * (t->count + 1) > t->cap))
        memo_grow(m);
    size_t h = vl_walk_hash(key, t->cap);
    MemoSlot *e = &t->slots[h];
    while (e->gen == t->gen && (e->key != key || e->key2 != key2)) {
        h = (h + 1) & (t->cap - 1);
        e = &t->slots[h];
    }
    if (e->gen != t->gen)
        t->count++;
    e->key = key;
    e->key2 = key2;
    e->val = v;
    e->gen = t->gen;
}

static VL_NORETURN void mismatch(Walk *w, Value a, Value b)
{
    VladState *S = w->S;
    vl_except_runtime(S, VLAD_ERR_RUNTIME,
                      "%s: the %s does not have the shape of the value: "
                      "expected %s where %s has %s (%s %s, value %s)",
                      w->who, w->what, vl_object_kind(a), w->what,
                      vl_print_to_string(S, b, 60),
                      w->what, vl_print_to_string(S, w->whole_b, 120),
                      vl_print_to_string(S, w->whole_a, 120));
}

/* A closure or frame of the value (a) and one of the cotangent (b) whose
   code differs.  When both are the procedure of one name, that is most
   often a procedure redefined while a computation that runs it was
   suspended (doc/repl.md, fix and continue): a computation that zips the
   old one's frames with the new one's cannot mix them, and says so. */
static VL_NORETURN void code_mismatch(Walk *w, Value a, Value b,
                                      const Proto *pa, const Proto *pb)
{
    if (pa->name == NULL || pb->name == NULL || strcmp(pa->name, pb->name))
        mismatch(w, a, b);
    vl_except_runtime(w->S, VLAD_ERR_RUNTIME,
                      "%s: the %s does not have the shape of the value: "
                      "the value holds %s where the %s holds a %s of other "
                      "code (was a definition changed while a computation "
                      "that runs it was suspended?)", w->who, w->what,
                      pa->name, w->what, pb->name);
}

/* One pending visit: walk a (and b in a zip) and store the result in
   'dest' (a Value slot, or with 'closure' set a Closure * slot of a
   captured frame). */
typedef struct Item {
    Value a, b;
    void *dest;
    int closure;
} Item;

/* The explicit stack of pending visits (GC memory: it holds the only
   references to parts of the new value until they are stored).  Like the
   memo, the state keeps it from one walk to the next (a checkpoint-*j
   walks its state twice per base case: growing a new stack each time
   was 6% of its instructions, bench/cpj rotation), cleared up to the
   deepest entry used so that it keeps nothing alive; a walk that fails
   leaves it to the collector. */
typedef struct Todo {
    Item *items;
    size_t n, cap, deepest;
} Todo;

/* A stack kept after a walk at most this big (items). */
#define TODO_KEEP (1u << 14)

static void todo_open(VladState *S, Todo *t)
{
    t->items = S->walk_todo;
    t->cap = S->walk_todo_cap;
    t->n = t->deepest = 0;
    S->walk_todo = NULL;
    S->walk_todo_cap = 0;
}

static void todo_close(VladState *S, Todo *t)
{
    if (t->cap > TODO_KEEP)
        return;
    memset(t->items, 0, t->deepest * sizeof *t->items);
    S->walk_todo = t->items;
    S->walk_todo_cap = t->cap;
}

static inline void push(Todo *t, Value a, Value b, void *dest, int closure)
{
    if (t->n == t->cap)         /* 64 items at first */
        t->items = vl_gc_reserve(t->items, t->n, t->n < 64 ? 64 : t->n + 1,
                                 &t->cap, sizeof *t->items, 0);
    if (t->n == t->deepest)
        t->deepest++;
    Item *it = &t->items[t->n++];
    it->a = a;
    it->b = b;
    it->dest = dest;
    it->closure = closure;
}

static void store(const Item *it, Value v)
{
    if (it->closure)
        *(Closure **)it->dest = AS_CLOSURE(v);
    else
        *(Value *)it->dest = v;
}

/* The children of a closure, pushed so that they are visited in order. */
static Value open_closure(Walk *w, Todo *t, Value a, Value b)
{
    Closure *ca = AS_CLOSURE(a);
    if (w->zip && !IS_CLOSURE(b))
        mismatch(w, a, b);
    if (w->zip && !vl_object_same_code(AS_CLOSURE(b)->proto, ca->proto))
        code_mismatch(w, a, b, ca->proto, AS_CLOSURE(b)->proto);
    Closure *cb = w->zip ? AS_CLOSURE(b) : ca;
    uint16_t n = ca->proto->nfree;
    Closure *nc = vl_gc_alloc(sizeof(Closure) + n * sizeof(Value));
    nc->proto = ca->proto;
    Value r = vl_obj(VT_CLOSURE, nc);
    memo_put(&w->memo, ca, cb, r);
    for (uint16_t k = n; k-- > 0;)
        push(t, ca->free[k], cb->free[k], &nc->free[k], 0);
    return r;
}

/* The frames of a checkpoint's sequence as one array, bottom first. */
typedef struct Flat {
    uint64_t n;
    const ContRun **runs;   /* the run of each frame ... */
    uint32_t *index;        /* ... and its index there */
} Flat;

/* The most frames a walked checkpoint may have (it is walked flat: a
   segment shared by several places of its sequence is visited at each,
   as if the checkpoint were stored flat). */
#define FLAT_MAX ((uint64_t)1 << 28)

static int flat_add(void *ud, const ContRun *run, uint32_t f)
{
    Flat *fl = ud;
    fl->n--;                        /* filled from the top down */
    fl->runs[fl->n] = run;
    fl->index[fl->n] = f;
    return 0;
}

/* Copying a checkpoint's frames into one new run, top-down. */
typedef struct CopyFrames {
    Walk *w;
    Todo *t;
    Value a, b;             /* the checkpoints (for errors) */
    const Flat *fb;         /* zip: the other's frames, else NULL */
    ContRun *run;           /* the copy */
    uint32_t f;             /* frames still to copy */
    uint32_t vend;          /* their values */
} CopyFrames;

static int copy_frame(void *ud, const ContRun *run, uint32_t f)
{
    CopyFrames *cp = ud;
    const CapFrame *fa = &run->frames[f];
    const CapFrame *fb = fa;
    const Value *vb = run->values + fa->first;
    uint32_t k = --cp->f;
    if (cp->fb != NULL) {
        fb = &cp->fb->runs[k]->frames[cp->fb->index[k]];
        vb = cp->fb->runs[k]->values + fb->first;
        if (!vl_object_same_code(fb->closure->proto, fa->closure->proto))
            code_mismatch(cp->w, cp->a, cp->b, fa->closure->proto,
                          fb->closure->proto);
        if (fb->ret_pc != fa->ret_pc)
            mismatch(cp->w, cp->a, cp->b);
    }
    cp->vend -= fa->nlive;
    CapFrame *nf = &cp->run->frames[k];
    *nf = *fa;
    nf->first = cp->vend;
    const Value *va = run->values + fa->first;
    for (uint32_t j = fa->nlive; j-- > 0;) {
        Value *dest = &cp->run->values[cp->vend + j];
        if (va[j].tag == VT_RAW || va[j].tag == VT_UNDEF)
            *dest = va[j];
        else
            push(cp->t, va[j], vb[j], dest, 0);
    }
    return 0;
}

/* The children of a checkpoint: the result of a finished one; else the
   callee, the argument, the closure of every frame and the live values
   (raw bookkeeping kept as it is), visited in that order, frames bottom
   first.  The new checkpoint holds its frames in one run. */
static Value open_checkpoint(Walk *w, Todo *t, Value a, Value b)
{
    Checkpoint *ka = AS_CKPT(a);
    vl_contseg_present(w->S, ka);               /* (spill=DIR) */
    if (w->zip && IS_CKPT(b))
        vl_contseg_present(w->S, AS_CKPT(b));
    if (w->zip && (!IS_CKPT(b) || AS_CKPT(b)->finished != ka->finished
                   || AS_CKPT(b)->nframes != ka->nframes))
        mismatch(w, a, b);
    Checkpoint *kb = w->zip ? AS_CKPT(b) : ka;
    Checkpoint *nk = vl_gc_alloc(sizeof *nk);
    *nk = *ka;
    nk->spill = NULL;                       /* a new one: not in a file */
    nk->cache_bytes = 0;
    Value r = vl_obj(VT_CKPT, nk);
    memo_put(&w->memo, ka, kb, r);
    if (ka->finished) {
        push(t, ka->result, kb->result, &nk->result, 0);
        return r;
    }
    uint64_t n = ka->nframes;
    if (n > FLAT_MAX || vl_contseg_values(ka->seq) > UINT32_MAX)
        vl_except_runtime(w->S, VLAD_ERR_MEMORY,
                          "%s: a checkpoint of %llu frames is too large",
                          w->who ? w->who : "walk", (unsigned long long)n);
    Flat *fb = NULL;
    if (w->zip && kb->seq != ka->seq) {
        fb = vl_gc_alloc(sizeof *fb);
        fb->runs = vl_gc_alloc((n ? n : 1) * sizeof *fb->runs);
        fb->index = vl_gc_alloc_atomic((n ? n : 1) * sizeof *fb->index);
        fb->n = n;
        vl_contseg_each_frame(kb->seq, flat_add, fb);
    }
    uint32_t nv = (uint32_t)vl_contseg_values(ka->seq);
    CopyFrames cp = {w, t, a, b, fb, vl_contseg_run((uint32_t)n, nv),
                     (uint32_t)n, nv};
    vl_contseg_each_frame(ka->seq, copy_frame, &cp);
    ContRun *run = cp.run;
    for (uint32_t f = (uint32_t)n; f-- > 0;) {
        const CapFrame *cf = &run->frames[f];
        Closure *cbl = fb ? fb->runs[f]->frames[fb->index[f]].closure
                          : cf->closure;
        push(t, vl_obj(VT_CLOSURE, cf->closure), vl_obj(VT_CLOSURE, cbl),
             &run->frames[f].closure, 1);
    }
    nk->seq = n ? vl_contseg_init(w->S, &run->whole, NULL, run, 0, (uint32_t)n,
                                  NULL, 1)
              : NULL;
    push(t, ka->arg, kb->arg, &nk->arg, 0);
    push(t, ka->callee, kb->callee, &nk->callee, 0);
    return r;
}

/* Depth first, car before cdr, each object's memo entry made before its
   children are visited: leaves are visited in the order of the recursive
   definition (their callbacks number tape nodes and seed tangents, so the
   order matters), with an explicit stack instead of the C stack. */
static Value walk(Walk *w, Value a, Value b)
{
    Value root = NIL_VAL;
    Todo t;
    todo_open(w->S, &t);
    push(&t, a, b, &root, 0);
    while (t.n > 0) {
        Item it = t.items[--t.n];
        a = it.a;
        b = it.b;
        Value r;
        switch ((ValueTag)a.tag) {
        case VT_NUM:
        case VT_DUAL:
        case VT_TAPE:
            if (w->zip && !IS_REAL(b))
                mismatch(w, a, b);
            r = w->leaf(w->S, a, b, w->ud);
            break;
        case VT_RAW:
            /* bookkeeping of control frames (tags, step counts, tapes,
               logs): it differs between two runs of the same computation */
            if (w->zip && a.tag != b.tag)
                mismatch(w, a, b);
            r = a;
            break;
        case VT_NIL:
        case VT_BOOL:
        case VT_STR:        /* equal spelling: two literals match */
            if (w->zip && !vl_object_equal(a, b))
                mismatch(w, a, b);
            r = a;
            break;
        case VT_PRIM:
        case VT_SYM:
        case VT_VOID:
        case VT_UNDEF:
            if (w->zip && (a.tag != b.tag || a.as.i != b.as.i))
                mismatch(w, a, b);
            r = a;
            break;
        case VT_CLOSURE:
        case VT_CKPT:
        case VT_PAIR: {
            Value *m = memo_find(&w->memo, a.as.obj,
                                 w->zip && b.tag == a.tag ? b.as.obj
                                                          : a.as.obj);
            if (m != NULL) {
                r = *m;
                break;
            }
            if (a.tag == VT_CLOSURE) {
                r = open_closure(w, &t, a, b);
                break;
            }
            if (a.tag == VT_CKPT) {
                Value a2 = w->hook != NULL ? w->hook(w->S, a, w->ud) : a;
                r = open_checkpoint(w, &t, a2, w->zip ? b : a2);
                if (a2.as.obj != a.as.obj)      /* the original too */
                    memo_put(&w->memo, a.as.obj, a.as.obj, r);
                break;
            }
            if (w->zip && !IS_PAIR(b))
                mismatch(w, a, b);
            Pair *pa = AS_PAIR(a);
            Pair *pb = w->zip ? AS_PAIR(b) : pa;
            Pair *np = vl_gc_alloc(sizeof *np);
            np->car = NIL_VAL;
            np->cdr = NIL_VAL;
            r = vl_obj(VT_PAIR, np);
            memo_put(&w->memo, pa, pb, r);
            push(&t, pa->cdr, pb->cdr, &np->cdr, 0);
            push(&t, pa->car, pb->car, &np->car, 0);
            break;
        }
        default:
            r = a;
            break;
        }
        store(&it, r);
    }
    todo_close(w->S, &t);
    return root;
}

Value vl_walk_map(VladState *S, Value v, WalkLeaf leaf, void *ud)
{
    return vl_walk_map_hook(S, v, leaf, ud, NULL);
}

Value vl_walk_map_hook(VladState *S, Value v, WalkLeaf leaf, void *ud,
                       WalkCkpt hook)
{
    Walk w;
    memset(&w, 0, sizeof w);
    w.S = S;
    w.leaf = leaf;
    w.ud = ud;
    w.hook = hook;
    memo_open(S, &w.memo);
    Value r = walk(&w, v, v);
    memo_close(S, &w.memo);
    return r;
}

Value vl_walk_zip(VladState *S, Value a, Value b, WalkLeaf leaf, void *ud,
                  const char *who, const char *what)
{
    Walk w;
    memset(&w, 0, sizeof w);
    w.S = S;
    w.leaf = leaf;
    w.ud = ud;
    w.zip = 1;
    w.who = who;
    w.what = what;
    w.whole_a = a;
    w.whole_b = b;
    memo_open(S, &w.memo);
    Value r = walk(&w, a, b);
    memo_close(S, &w.memo);
    return r;
}

/* ===== Searching ===== */

int vl_walk_any(VladState *S, Value v, int (*pred)(Value leaf))
{
    Memo memo;
    memo_open(S, &memo);
    Value *stack = NULL;
    size_t n = 0, cap = 0;
    int found = 0;
    for (;;) {
        if (IS_REAL(v)) {
            if (pred(v)) {
                found = 1;
                break;
            }
        } else if (IS_PAIR(v) && memo_find(&memo, v.as.obj, v.as.obj) == NULL) {
            memo_put(&memo, v.as.obj, v.as.obj, NIL_VAL);
            stack = vl_gc_grow(stack, n, &cap, sizeof *stack);
            stack[n++] = AS_PAIR(v)->cdr;
            v = AS_PAIR(v)->car;
            continue;
        }
        if (n == 0)
            break;
        v = stack[--n];
    }
    memo_close(S, &memo);
    return found;
}
