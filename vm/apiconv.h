/*
 * vm/apiconv.h -- conversion between public (include/vlad.h) and internal
 * values, for the files that implement the public interface (vm/api*.c)
 */
#ifndef VL_APICONV_H
#define VL_APICONV_H

#include <string.h>
#include "include/vlad.h"
#include "vm/value.h"

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

#endif
