/*
 * vm/core/value.h -- the representation of VLAD values
 *
 * A Value is a 16-byte tagged struct (Lua's TValue shape):
 *
 *     0        4        8                16
 *     +--------+--------+----------------+
 *     |  tag   |  aux   |  payload       |
 *     +--------+--------+----------------+
 *
 * 'tag' says what the value is; 'payload' is an unboxed double (VT_NUM), a
 * boolean, or a RAW pointer to a GC object.  Pointers are stored as plain
 * addresses, never with tag bits, because Boehm only recognises raw
 * addresses (see doc/spec/architecture.md, Values).  Because the tag
 * lives in the value, heap objects need no header: a pair is exactly two
 * Values.  'aux' is free for internal uses (frame headers keep a distance
 * there) and is ignored by every user-visible operation.
 *
 * Activity.  The top bit of a real's aux, VL_ACTIVE (below it, a dual
 * number keeps its tag and a tape node its slot; a plain real has no other
 * bit set), says "this real may depend
 * on the input of a running checkpoint-*j".  checkpoint-*j marks the reals
 * of its input, every arithmetic operation marks its result when an
 * operand is marked, and the results of j*, *j and of host primitives
 * given marked reals are marked; so a real of a checkpointed state that
 * is not marked is a constant of the computation (a loop counter, a
 * parameter), and checkpoint-*j's base cases differentiate only the
 * marked ones (vm/ad/ad.c, vl_ad_tapify).  Marking more than needed is
 * always safe (the real is then differentiated, as by *j, for nothing);
 * missing one would not be.  Nothing else looks at the mark.  Duals and
 * tape nodes carry it too: under an
 * enclosing j* or *j, the reals of checkpoint-*j's computation are duals
 * or nodes of that invocation, and those that do not depend on the input
 * must stay constants there as when they are plain, or a tape recorded
 * inside checkpoint-*j would be laid out differently with and without the
 * enclosing perturbation (doc/hardening.md, L2).
 *
 * Reals are unboxed: arithmetic on plain reals allocates nothing.  Under
 * differentiation a real may also be a dual number (forward mode) or a tape
 * node (reverse mode); IS_REAL accepts all three.
 *
 * Labels.  VT_SYM (a quoted symbol, 'loss) and VT_STR (a string literal,
 * "loss = ") are constant data for output: they print, compare in
 * constant patterns, and are constants under differentiation (their
 * (co)tangent is the value itself, like #t and ()).  VT_VOID is the value
 * of display and newline, which the top level does not echo.
 *
 * Internal tags (never seen by VLAD code): VT_UNDEF marks an unbound global
 * or a dead register; VT_RAW carries a raw machine word (frame headers,
 * step counts kept in delimiter frames, pointers to compiler data).
 */
#ifndef VL_VALUE_H
#define VL_VALUE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "vm/core/features.h"
#include "vm/core/gc.h"

typedef enum ValueTag {
    VT_UNDEF = 0,   /* internal: unbound / dead slot */
    VT_NIL,         /* the empty list */
    VT_BOOL,        /* #t / #f in as.boolean */
    VT_NUM,         /* plain real in as.num */
    VT_PAIR,        /* as.obj -> Pair */
    VT_CLOSURE,     /* as.obj -> Closure */
    VT_PRIM,        /* as.ptr -> const PrimInfo (static table) */
    VT_CKPT,        /* as.obj -> Checkpoint */
    VT_DUAL,        /* as.obj -> Dual (forward-mode real) */
    VT_TAPE,        /* as.obj -> TapeNode (reverse-mode real) */
    VT_RAW,         /* internal: as.i / as.ptr raw word */
    VT_SYM,         /* as.ptr -> Symbol (interned: equal iff same pointer) */
    VT_STR,         /* as.ptr -> NUL-terminated GC string (immutable) */
    VT_VOID         /* the value of display and newline: never echoed */
} ValueTag;

typedef struct Value {
    uint32_t tag;   /* a ValueTag */
    uint32_t aux;   /* internal annotation; 0 in user values */
    union {
        double num;
        int boolean;
        void *obj;
        const void *ptr;
        int64_t i;
    } as;
} Value;

#define IS_UNDEF(v) ((v).tag == VT_UNDEF)
#define IS_NIL(v) ((v).tag == VT_NIL)
#define IS_BOOL(v) ((v).tag == VT_BOOL)
#define IS_NUM(v) ((v).tag == VT_NUM)
#define IS_PAIR(v) ((v).tag == VT_PAIR)
#define IS_CLOSURE(v) ((v).tag == VT_CLOSURE)
#define IS_PRIM(v) ((v).tag == VT_PRIM)
#define IS_CKPT(v) ((v).tag == VT_CKPT)
#define IS_REAL(v) ((v).tag == VT_NUM || (v).tag == VT_DUAL \
                    || (v).tag == VT_TAPE)
#define IS_SYM(v) ((v).tag == VT_SYM)
#define IS_STR(v) ((v).tag == VT_STR)
#define IS_VOID(v) ((v).tag == VT_VOID)
#define IS_PROC(v) ((v).tag == VT_CLOSURE || (v).tag == VT_PRIM)
#define IS_FALSE(v) ((v).tag == VT_BOOL && !(v).as.boolean)
#define IS_TRUE(v) (!IS_FALSE(v))

#define AS_NUM(v) ((v).as.num)
#define AS_PAIR(v) ((Pair *)(v).as.obj)
#define AS_CLOSURE(v) ((Closure *)(v).as.obj)
#define AS_PRIM(v) ((const PrimInfo *)(v).as.ptr)
#define AS_CKPT(v) ((Checkpoint *)(v).as.obj)

static inline Value vl_num(double x)
{
    Value v;
    v.tag = VT_NUM;
    v.aux = 0;
    v.as.num = x;
    return v;
}

#define VL_ACTIVE 0x80000000u      /* the activity mark */
#define VL_AUX_BITS 0x7FFFFFFFu    /* a dual's tag, a tape node's slot */

/* A plain real with the activity mark 'active' (0 or VL_ACTIVE). */
static inline Value vl_num_marked(double x, uint32_t active)
{
    Value v;
    v.tag = VT_NUM;
    v.aux = active;
    v.as.num = x;
    return v;
}

/* Whether real v is marked active. */
static inline int vl_real_marked(Value v)
{
    return (v.aux & VL_ACTIVE) != 0;
}

/* Real v, marked active when 'active' is nonzero. */
static inline Value vl_real_mark(Value v, int active)
{
    if (active)
        v.aux |= VL_ACTIVE;
    return v;
}

static inline Value vl_bool(bool b)
{
    Value v;
    v.tag = VT_BOOL;
    v.aux = 0;
    v.as.i = 0;
    v.as.boolean = b;
    return v;
}

/* *out = a value of the given tag, aux and pointer payload, its tag and
   aux written by one 8-byte store: a load of them that follows (the next
   instruction's operand) is then forwarded from the store, where two
   4-byte stores make it wait for both to be written (perf: 10% of j*'s
   samples on that load). */
static inline void vl_store_obj(Value *out, uint32_t tag, uint32_t aux,
                                void *p)
{
    union {
        struct {
            uint32_t tag, aux;
        } s;
        uint64_t w;
    } head;
    head.s.tag = tag;
    head.s.aux = aux;
    memcpy(out, &head.w, sizeof head.w);
    out->as.obj = p;
}

static inline Value vl_obj(ValueTag tag, const void *p)
{
    Value v;
    v.tag = tag;
    v.aux = 0;
    v.as.ptr = p;
    return v;
}

static inline Value vl_raw(int64_t i)
{
    Value v;
    v.tag = VT_RAW;
    v.aux = 0;
    v.as.i = i;
    return v;
}

#define NIL_VAL ((Value){VT_NIL, 0, {.i = 0}})
#define UNDEF_VAL ((Value){VT_UNDEF, 0, {.i = 0}})
#define TRUE_VAL ((Value){VT_BOOL, 0, {.boolean = 1}})
#define FALSE_VAL ((Value){VT_BOOL, 0, {.boolean = 0}})
#define VOID_VAL ((Value){VT_VOID, 0, {.i = 0}})

#endif
