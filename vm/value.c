/*
 * vm/value.c -- operations on any value: equality, primal, kind names,
 *                building tuples and short lists
 */
#include "config.h"
#include "vm/value.h"

#include "vm/ad.h"
#include "vm/object.h"

double vl_value_primal(Value v)
{
    /* a dual number keeps its primal first; a tape slot its plain primal
       (vm/ad.h) */
    while (v.tag == VT_DUAL) {
        if (v.aux)
            return ((const PlainDual *)v.as.obj)->primal;
        v = *(const Value *)v.as.obj;
    }
    return v.tag == VT_TAPE ? vl_tape_primal(v) : v.as.num;
}

int vl_value_equal(Value a, Value b)
{
    for (;;) {
        if (IS_REAL(a) && IS_REAL(b))
            return vl_value_primal(a) == vl_value_primal(b);
        if (a.tag != b.tag)
            return 0;
        switch ((ValueTag)a.tag) {
        case VT_NIL:
            return 1;
        case VT_BOOL:
            return a.as.boolean == b.as.boolean;
        case VT_PAIR:
            if (!vl_value_equal(AS_PAIR(a)->car, AS_PAIR(b)->car))
                return 0;
            a = AS_PAIR(a)->cdr;
            b = AS_PAIR(b)->cdr;
            continue;
        default:
            return a.as.ptr == b.as.ptr;
        }
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
