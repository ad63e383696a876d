/*
 * vm/mpi/message.c -- a value as the bytes of a message, and back (see
 * vm/mpi/message.h)
 *
 * Encoding walks the value with a stack of pending values in the heap:
 * a pair emits 'P' and pushes its cdr, then its car, so the car comes
 * next (preorder).  Decoding keeps a stack of the places still to fill:
 * a 'P' makes a pair, stores it in the current place and pushes the
 * place of its cdr, its car being the next place; an atom fills the
 * current place and pops the next one.  Every pair is linked into its
 * parent before the next allocation, so all of them are reachable from
 * the result (a local on the C stack) while the collector may run.
 */
#include "config.h"
#include "vm/mpi/message.h"

#include <string.h>
#include "parser/symbol.h"
#include "vm/core/except.h"
#include "vm/core/strbuf.h"

static void put_len(StrBuf *b, char tag, size_t n, const char *bytes)
{
    uint64_t len = n;
    vl_strbuf_add(b, &tag, 1);
    vl_strbuf_add(b, (const char *)&len, sizeof len);
    vl_strbuf_add(b, bytes, n);
}

static VL_NORETURN void cannot_send(VladState *S, const char *who, Value v)
{
    vl_except_runtime(S, VLAD_ERR_RUNTIME,
                      "%s: a %s cannot be sent: a message holds data "
                      "(reals, booleans, (), pairs, symbols, strings)",
                      who, vl_object_kind(v));
}

VlMessage vl_message_encode(VladState *S, const char *who, Value v,
                            const VlMessageReals *reals)
{
    StrBuf b;
    vl_strbuf_init(&b);
    vl_message_encode_into(S, who, v, reals, &b);
    return (VlMessage){(unsigned char *)b.data, b.len};
}

void vl_message_encode_into(VladState *S, const char *who, Value v,
                            const VlMessageReals *reals, StrBuf *out)
{
    StrBuf b = *out;
    size_t n = 0, cap = 64;
    Value *todo = vl_gc_alloc(cap * sizeof *todo);
    todo[n++] = v;
    while (n > 0) {
        Value x = todo[--n];
        switch ((ValueTag)x.tag) {
        case VT_NIL:
            vl_strbuf_add(&b, "N", 1);
            break;
        case VT_BOOL:
            vl_strbuf_add(&b, x.as.boolean ? "T" : "F", 1);
            break;
        case VT_NUM:
            if (reals != NULL) {
                reals->put(S, reals->ctx, &b, x);
                break;
            }
            vl_strbuf_add(&b, "R", 1);
            vl_strbuf_add(&b, (const char *)&x.as.num, sizeof x.as.num);
            break;
        case VT_DUAL: case VT_TAPE:
            if (reals == NULL)
                cannot_send(S, who, x);
            reals->put(S, reals->ctx, &b, x);
            break;
        case VT_SYM: {
            const Symbol *s = x.as.ptr;
            put_len(&b, 'S', strlen(s->name), s->name);
            break;
        }
        case VT_STR: {
            const char *s = x.as.ptr;
            put_len(&b, 'Z', strlen(s), s);
            break;
        }
        case VT_PAIR:
            vl_strbuf_add(&b, "P", 1);
            todo = vl_gc_reserve(todo, n, n + 2, &cap, sizeof *todo, 0);
            todo[n++] = AS_PAIR(x)->cdr;
            todo[n++] = AS_PAIR(x)->car;
            break;
        default:
            cannot_send(S, who, x);
        }
    }
    *out = b;
}

size_t vl_message_token(const unsigned char *p, const unsigned char *end)
{
    size_t left = (size_t)(end - p);
    if (left == 0)
        return 0;
    switch (p[0]) {
    case 'N': case 'T': case 'F': case 'P': case 'D': case 'K':
        return 1;
    case 'R':
        return left >= 1 + sizeof(double) ? 1 + sizeof(double) : 0;
    case 'S': case 'Z': {
        uint64_t len;
        if (left < 1 + sizeof len)
            return 0;
        memcpy(&len, p + 1, sizeof len);
        return len <= left - 1 - sizeof len ? 1 + sizeof len + len : 0;
    }
    default:
        return 0;
    }
}

static VL_NORETURN void malformed(VladState *S, const char *who)
{
    vl_except_runtime(S, VLAD_ERR_RUNTIME,
                      "%s: a malformed message arrived (not one whole "
                      "encoded value)", who);
}

Value vl_message_decode(VladState *S, const char *who,
                        const unsigned char *data, size_t len,
                        const VlMessageReals *reals)
{
    const unsigned char *p = data, *end = data + len;
    Value result = NIL_VAL;
    Value *place = &result;
    size_t n = 0, cap = 64;
    Value **todo = vl_gc_alloc(cap * sizeof *todo);
    for (;;) {
        size_t t = vl_message_token(p, end);
        if (t == 0)
            malformed(S, who);
        Value x;
        switch (p[0]) {
        case 'N': x = NIL_VAL; break;
        case 'T': x = TRUE_VAL; break;
        case 'F': x = FALSE_VAL; break;
        case 'R': case 'D': case 'K':
            if (reals != NULL) {
                x = reals->get(S, reals->ctx, &p, end);
                goto placed;
            }
            if (p[0] != 'R')
                malformed(S, who);
            double d;
            memcpy(&d, p + 1, sizeof d);
            x = vl_num(d);
            break;
        case 'S':
            x = vl_obj(VT_SYM, vl_symbol_intern(S->syms,
                                                (const char *)p + 9, t - 9));
            break;
        case 'Z':
            x = vl_obj(VT_STR, vl_gc_strndup((const char *)p + 9, t - 9));
            break;
        default: {                                  /* 'P' */
            Pair *pair = vl_gc_alloc(sizeof *pair);
            *place = vl_obj(VT_PAIR, pair);
            todo = vl_gc_reserve(todo, n, n + 1, &cap, sizeof *todo, 0);
            todo[n++] = &pair->cdr;
            place = &pair->car;
            p += t;
            continue;
        }
        }
        p += t;
    placed:
        *place = x;
        if (n == 0)
            break;
        place = todo[--n];
    }
    if (p != end)
        malformed(S, who);
    return result;
}
