/*
 * vm/object.c -- operations on any value that look inside objects:
 *                equality, primal, kind names, building tuples and short
 *                lists
 */
#include "config.h"
#include "vm/object.h"

#include <string.h>

double vl_value_primal(Value v)
{
    /* a dual number keeps its primal first; a tape slot its plain primal
       (vm/object.h) */
    while (v.tag == VT_DUAL) {
        if (v.aux & VL_AUX_BITS)        /* a PlainDual (vm/object.h) */
            return ((const PlainDual *)v.as.obj)->primal;
        v = *(const Value *)v.as.obj;
    }
    return v.tag == VT_TAPE ? vl_tape_primal(v) : v.as.num;
}

/* Depth first, car before cdr, with the cdrs still to compare on an
   explicit stack (a few on the C stack, then in GC memory): any depth. */
int vl_value_equal(Value a, Value b)
{
    Value local[2 * 16];
    Value *todo = local;
    size_t n = 0, cap = 16;
    for (;;) {
        int same;
        if (IS_REAL(a) && IS_REAL(b)) {
            same = vl_value_primal(a) == vl_value_primal(b);
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

const char *vl_value_kind(Value v)
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

Value vl_value_tuple(const Value *args, int n)
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

Value vl_value_list2(Value a, Value b)
{
    Value items[3] = {a, b, NIL_VAL};
    return vl_value_tuple(items, 3);
}
