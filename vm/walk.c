/*
 * vm/walk.c -- the generic walker over values (see vm/walk.h)
 *
 * Recursive in cars, captured values and frame registers, iterative along
 * cdr chains, so long lists need no deep C recursion.  The memo table is an
 * open-addressing hash table in pointer-free GC memory, keyed by object
 * address, kept by the state from one walk to the next (entries of older
 * walks are told apart by a generation number, so nothing is cleared).
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

static Value walk(Walk *w, Value a, Value b);

static Value walk_closure(Walk *w, Value a, Value b)
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
    for (uint16_t k = 0; k < n; k++)
        nc->free[k] = walk(w, ca->free[k], cb->free[k]);
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

static Value walk_checkpoint(Walk *w, Value a, Value b)
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
        nk->result = walk(w, ka->result, kb->result);
        return r;
    }
    nk->callee = walk(w, ka->callee, kb->callee);
    nk->arg = walk(w, ka->arg, kb->arg);
    nk->frames = vl_gc_alloc((ka->nframes ? ka->nframes : 1)
                             * sizeof(CapFrame));
    size_t nvalues = 0;
    for (uint32_t f = 0; f < ka->nframes; f++) {
        nk->frames[f] = ka->frames[f];
        Value c = walk(w, vl_obj(VT_CLOSURE, ka->frames[f].closure),
                       vl_obj(VT_CLOSURE, kb->frames[f].closure));
        nk->frames[f].closure = AS_CLOSURE(c);
        nvalues += ka->frames[f].nlive;
    }
    nk->values = vl_gc_alloc((nvalues ? nvalues : 1) * sizeof(Value));
    for (size_t j = 0; j < nvalues; j++) {
        Value x = ka->values[j];
        nk->values[j] = x.tag == VT_RAW || x.tag == VT_UNDEF
                        ? x : walk(w, x, kb->values[j]);
    }
    return r;
}

static Value walk(Walk *w, Value a, Value b)
{
    switch ((ValueTag)a.tag) {
    case VT_NUM:
    case VT_DUAL:
    case VT_TAPE:
        if (w->zip && !IS_REAL(b))
            mismatch(w, a, b);
        return w->leaf(w->S, a, b, w->ud);
    case VT_RAW:
        /* bookkeeping of control frames (tags, step counts, tapes, logs):
           it differs between two runs of the same computation */
        if (w->zip && a.tag != b.tag)
            mismatch(w, a, b);
        return a;
    case VT_NIL:
    case VT_BOOL:
    case VT_PRIM:
    case VT_UNDEF:
        if (w->zip && (a.tag != b.tag || a.as.i != b.as.i))
            mismatch(w, a, b);
        return a;
    case VT_CLOSURE:
    case VT_CKPT: {
        Value *m = memo_find(&w->memo, a.as.obj,
                             w->zip && b.tag == a.tag ? b.as.obj : a.as.obj);
        if (m != NULL)
            return *m;
        return a.tag == VT_CLOSURE ? walk_closure(w, a, b)
                                   : walk_checkpoint(w, a, b);
    }
    case VT_PAIR:
        break;
    }
    /* a chain of pairs: iterate along the cdrs */
    Value head = NIL_VAL;
    Pair *last = NULL;
    while (IS_PAIR(a)) {
        Value *m = memo_find(&w->memo, a.as.obj,
                             w->zip && IS_PAIR(b) ? b.as.obj : a.as.obj);
        if (m != NULL) {
            if (last == NULL)
                return *m;
            last->cdr = *m;
            return head;
        }
        if (w->zip && !IS_PAIR(b))
            mismatch(w, a, b);
        Pair *pa = AS_PAIR(a);
        Pair *pb = w->zip ? AS_PAIR(b) : pa;
        Pair *np = vl_gc_alloc(sizeof *np);
        Value nv = vl_obj(VT_PAIR, np);
        memo_put(&w->memo, pa, pb, nv);
        np->car = walk(w, pa->car, pb->car);
        np->cdr = NIL_VAL;
        if (last == NULL)
            head = nv;
        else
            last->cdr = nv;
        last = np;
        a = pa->cdr;
        b = pb->cdr;
    }
    last->cdr = walk(w, a, b);
    return head;
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
