/*
 * vm/walk.c -- the generic walker over values (see vm/walk.h)
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
#include "vm/walk.h"

#include <string.h>
#include "vm/cont.h"
#include "vm/except.h"
#include "vm/print.h"

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
    Memo memo;
} Walk;

static size_t hash_ptr(const void *p, size_t cap)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0x9E3779B97F4A7C15ull;
    return (size_t)(x >> 7) & (cap - 1);
}

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
    for (size_t h = hash_ptr(key, t->cap);; h = (h + 1) & (t->cap - 1)) {
        MemoSlot *e = &t->slots[h];
        if (e->gen != t->gen)
            return NULL;
        if (e->key == key && e->key2 == key2)
            return &e->val;
    }
}

static void memo_put(Memo *m, const void *key, const void *key2, Value v)
{
    MemoTable *t = m->t;
    if (2 * (t->count + 1) > t->cap) {
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
    size_t h = hash_ptr(key, t->cap);
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
                      w->who, w->what, vl_value_kind(a), w->what,
                      vl_print_to_string(S, b, 60),
                      w->what, vl_print_to_string(S, w->whole_b, 120),
                      vl_print_to_string(S, w->whole_a, 120));
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
   references to parts of the new value until they are stored). */
typedef struct Todo {
    Item *items;
    size_t n, cap;
} Todo;

static void push(Todo *t, Value a, Value b, void *dest, int closure)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->items = vl_gc_realloc(t->items, t->cap * sizeof *t->items);
    }
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
    if (w->zip && (!IS_CLOSURE(b) || AS_CLOSURE(b)->proto != ca->proto))
        mismatch(w, a, b);
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

static int same_frames(const Checkpoint *x, const Checkpoint *y)
{
    if (x->finished != y->finished || x->nframes != y->nframes)
        return 0;
    for (uint32_t f = 0; f < x->nframes; f++)
        if (x->frames[f].closure->proto != y->frames[f].closure->proto
            || x->frames[f].ret_pc != y->frames[f].ret_pc)
            return 0;
    return 1;
}

/* The children of a checkpoint: the result of a finished one; else the
   callee, the argument, the closure of every frame and the live values
   (raw bookkeeping kept as it is), visited in that order. */
static Value open_checkpoint(Walk *w, Todo *t, Value a, Value b)
{
    Checkpoint *ka = AS_CKPT(a);
    if (w->zip && (!IS_CKPT(b) || !same_frames(ka, AS_CKPT(b))))
        mismatch(w, a, b);
    Checkpoint *kb = w->zip ? AS_CKPT(b) : ka;
    Checkpoint *nk = vl_gc_alloc(sizeof *nk);
    *nk = *ka;
    Value r = vl_obj(VT_CKPT, nk);
    memo_put(&w->memo, ka, kb, r);
    if (ka->finished) {
        push(t, ka->result, kb->result, &nk->result, 0);
        return r;
    }
    nk->frames = vl_gc_alloc((ka->nframes ? ka->nframes : 1)
                             * sizeof(CapFrame));
    size_t nvalues = 0;
    for (uint32_t f = 0; f < ka->nframes; f++) {
        nk->frames[f] = ka->frames[f];
        nvalues += ka->frames[f].nlive;
    }
    nk->values = vl_gc_alloc((nvalues ? nvalues : 1) * sizeof(Value));
    for (size_t j = nvalues; j-- > 0;) {
        Value x = ka->values[j];
        if (x.tag == VT_RAW || x.tag == VT_UNDEF)
            nk->values[j] = x;
        else
            push(t, x, kb->values[j], &nk->values[j], 0);
    }
    for (uint32_t f = ka->nframes; f-- > 0;)
        push(t, vl_obj(VT_CLOSURE, ka->frames[f].closure),
             vl_obj(VT_CLOSURE, kb->frames[f].closure),
             &nk->frames[f].closure, 1);
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
    Todo t = {NULL, 0, 0};
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
            if (w->zip && !vl_value_equal(a, b))
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
                r = open_checkpoint(w, &t, a, b);
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
    return root;
}

Value vl_walk_map(VladState *S, Value v, WalkLeaf leaf, void *ud)
{
    Walk w;
    memset(&w, 0, sizeof w);
    w.S = S;
    w.leaf = leaf;
    w.ud = ud;
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
