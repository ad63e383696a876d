/*
 * vm/api/apiconv.h -- conversion between public (include/vlad.h) and internal
 * values, for the files that implement the public interface (vm/api*.c)
 *
 * A VladValue from the host is checked before it is used (vl_api_valid):
 * the zero value (VT_UNDEF, an unbound global's mark), VT_RAW (frame
 * headers, step counts) and tags libvlad never hands out are refused at
 * the boundary, so no internal value enters the VM through the API.  A
 * forged pointer under a valid tag cannot be detected (doc/embedding.md,
 * "Values").
 */
#ifndef VL_APICONV_H
#define VL_APICONV_H

#include <string.h>
#include "include/vlad.h"
#include "vm/core/value.h"

static inline Value to_internal(VladValue v)
{
    Value r;
    memcpy(&r, &v, sizeof r);
    return r;
}

static inline VladValue to_public(Value v)
{
    VladValue r;
    memcpy(&r, &v, sizeof r);
    return r;
}

/* Whether 'v' is a value libvlad may have handed out: a user-visible tag,
   the annotation bits only where values carry them (a real's activity
   mark, a dual's or tape node's own bits), a boolean of 0 or 1 and a
   pointer where the tag needs one. */
static inline int vl_api_valid(Value v)
{
    switch ((ValueTag)v.tag) {
    case VT_NIL:
        return 1;
    case VT_BOOL:
        return v.as.boolean == 0 || v.as.boolean == 1;
    case VT_NUM:
        return (v.aux & ~VL_ACTIVE) == 0;
    case VT_PAIR:
    case VT_CLOSURE:
    case VT_PRIM:
    case VT_CKPT:
    case VT_DUAL:
    case VT_TAPE:
    case VT_SYM:
    case VT_STR:
        return v.as.ptr != NULL;
    case VT_VOID:
        return 1;
    case VT_UNDEF:
    case VT_RAW:
    default:
        return 0;
    }
}

/* The same for a public value. */
static inline int vl_api_valid_public(VladValue v)
{
    return vl_api_valid(to_internal(v));
}

/* Record that 'who' was given an invalid value (which: "the value", "the
   procedure" ...) and return VLAD_ERR_ARGUMENT (vm/api/api.c). */
VL_INTERNAL VladStatus vl_api_refuse_value(VladState *S, const char *who,
                                           const char *which);

/* VLAD_ERR_ARGUMENT, recorded, if 'S' is running an evaluation (a host
   primitive or a callback calls 'who' on its own state) or closing; else
   VLAD_OK. */
VL_INTERNAL VladStatus vl_api_refuse_busy(VladState *S, const char *who);

#endif
