/*
 * vm/core/object.c -- operations on any value that look inside objects:
 *                equality, primal, kind names, building tuples and short
 *                lists
 */
#include "config.h"
#include "vm/core/object.h"

#include <string.h>

double vl_object_primal(Value v)
{
    /* a dual number keeps its primal first; a tape slot its plain primal
       (vm/core/object.h) */
    while (v.tag == VT_DUAL) {
        if (v.aux & VL_AUX_BITS)        /* a PlainDual (vm/core/object.h) */
            return ((const PlainDual *)v.as.obj)->primal;
        v = *(const Value *)v.as.obj;
    }
    return v.tag == VT_TAPE ? vl_tape_primal(v) : v.as.num;
}

/* Depth first, car before cdr, with the cdrs still to compare on an
   explicit stack (a few on the C stack, then in GC memory): any depth.
   Reals by value, or bit for bit when 'bits' (constants of code:
   0 and -0, two NaNs told apart). */
static int equal(Value a, Value b, int bits)
{
    Value local[2 * 16];
    Value *todo = local;
    size_t n = 0, cap = 16;
    for (;;) {
        int same;
        if (IS_REAL(a) && IS_REAL(b)) {
            double x = vl_object_primal(a), y = vl_object_primal(b);
            same = bits ? memcmp(&x, &y, sizeof x) == 0 : x == y;
        } else if (a.tag != b.tag) {
            same = 0;
        } else if (a.tag == VT_PAIR) {
            Value da = AS_PAIR(a)->cdr, db = AS_PAIR(b)->cdr;
            if (!IS_NIL(da) || !IS_NIL(db)) {
                todo = vl_gc_grow(todo, n, &cap, 2 * sizeof *todo);
                todo[2 * n] = da;
                todo[2 * n + 1] = db;
                n++;
            }
            a = AS_PAIR(a)->car;
            b = AS_PAIR(b)->car;
            continue;
        } else if (a.tag == VT_NIL) {
            same = 1;
        } else if (a.tag == VT_BOOL) {
            same = a.as.boolean == b.as.boolean;
        } else if (a.tag == VT_STR) {
            same = strcmp(a.as.ptr, b.as.ptr) == 0;
        } else if (a.tag == VT_VOID) {
            same = 1;
        } else {
            same = a.as.ptr == b.as.ptr;
        }
        if (!same)
            return 0;
        if (n == 0)
            return 1;
        n--;
        a = todo[2 * n];
        b = todo[2 * n + 1];
    }
}

int vl_object_equal(Value a, Value b)
{
    return equal(a, b, 0);
}

/* memcmp of n bytes, which may be none (and the pointers NULL). */
static int same_bytes(const void *a, const void *b, size_t n)
{
    return n == 0 || memcmp(a, b, n) == 0;
}

/* The code of one prototype, without its children: what it executes and
   the frames it makes (positions, names and the patterns of messages
   aside). */
static int same_own_code(const Proto *a, const Proto *b)
{
    if (a->kind != b->kind || a->prelude != b->prelude
        || a->ncode != b->ncode || a->nconsts != b->nconsts
        || a->nchildren != b->nchildren || a->nmatches != b->nmatches
        || a->nregs != b->nregs || a->nparams != b->nparams
        || a->nfree != b->nfree || a->ctlreg != b->ctlreg)
        return 0;
    if (!same_bytes(a->code, b->code, a->ncode * sizeof *a->code)
        || !same_bytes(a->liveat, b->liveat,
                       (a->ncode + 1) * sizeof *a->liveat)
        || !same_bytes(a->liveruns, b->liveruns,
                       a->liveat[a->ncode] * sizeof *a->liveruns)
        || !same_bytes(a->captures, b->captures,
                       a->nfree * sizeof *a->captures))
        return 0;
    for (uint32_t k = 0; k < a->nconsts; k++)
        if (!equal(a->consts[k], b->consts[k], 1))
            return 0;
    return 1;
}

int vl_object_same_code(const Proto *a, const Proto *b)
{
    if (a == b || a->twin == b || b->twin == a)
        return 1;
    if (a->top == NULL || b->top == NULL || a->top == b->top)
        return 0;
    /* the two forms' prototypes in the same order, pairwise, as an
       explicit list of pairs (lambdas nest as deep as the text does):
       all the same code, and a and b in the same place */
    const Proto *local[2 * 16];
    const Proto **todo = local;
    size_t n = 0, cap = 16;
    const Proto *x = a->top, *y = b->top;
    int placed = 0;
    for (;;) {
        if (!same_own_code(x, y))
            return 0;
        if (x == a || y == b) {
            if (x != a || y != b)
                return 0;
            placed = 1;
        }
        for (uint32_t k = x->nchildren; k-- > 0;) {
            todo = vl_gc_grow(todo, n, &cap, 2 * sizeof *todo);
            todo[2 * n] = x->children[k];
            todo[2 * n + 1] = y->children[k];
            n++;
        }
        if (n == 0)
            break;
        n--;
        x = todo[2 * n];
        y = todo[2 * n + 1];
    }
    if (placed) {               /* (a cache: the answer never changes) */
        ((Proto *)a)->twin = b;
        ((Proto *)b)->twin = a;
    }
    return placed;
}

const char *vl_object_kind(Value v)
{
    switch ((ValueTag)v.tag) {
    case VT_NUM: case VT_DUAL: case VT_TAPE: return "real";
    case VT_BOOL: return "boolean";
    case VT_NIL: return "empty list";
    case VT_PAIR: return "pair";
    case VT_CLOSURE: case VT_PRIM: return "procedure";
    case VT_CKPT: return "checkpoint";
    case VT_SYM: return "symbol";
    case VT_STR: return "string";
    case VT_VOID: return "void";
    default: return "internal value";
    }
}

Value vl_object_tuple(const Value *args, int n)
{
    Value t = args[n - 1];
    for (int i = n - 2; i >= 0; i--) {
        Pair *p = vl_gc_alloc(sizeof *p);
        p->car = args[i];
        p->cdr = t;
        t = vl_obj(VT_PAIR, p);
    }
    return t;
}

Value vl_object_list2(Value a, Value b)
{
    Value items[3] = {a, b, NIL_VAL};
    return vl_object_tuple(items, 3);
}
