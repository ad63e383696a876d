/*
 * vm/cpj/cpjfirst.h -- checkpoint-*j's first run in chunks (vm/cpj/cpjfirst.c)
 *
 * Under a budget, the outermost checkpoint-*j runs (f x) the first time
 * in chunks that keep states; the driver (stdlib/prelude.vlad) calls
 * them through the private primitives installed here.  Internal to
 * vm/cpj/ (the rest of the runtime goes through vm/cpj/cpj.h).
 */
#ifndef VL_CPJFIRST_H
#define VL_CPJFIRST_H

#include "vm/core/state.h"

/* Install the primitives of the first run in chunks (%cpj-recorder, ...;
   called by vl_cpj_install). */
VL_INTERNAL void vl_cpj_install_first(VladState *S);

#endif
