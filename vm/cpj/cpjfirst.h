/*
 * vm/cpj/cpjfirst.h -- checkpoint-*j's first run in chunks (vm/cpj/cpjfirst.c)
 *
 * Under a budget, the outermost checkpoint-*j runs (f x) the first time
 * in chunks that keep states; the driver (stdlib/prelude.vlad) calls
 * them through the private primitives installed here.
 */
#ifndef VL_CPJFIRST_H
#define VL_CPJFIRST_H

#include "vm/core/state.h"

/* Install the primitives of the first run in chunks (%cpj-recorder, ...). */
VL_INTERNAL void vl_cpj_install_first(VladState *S);

#endif
