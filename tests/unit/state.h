/*
 * tests/unit/state.h -- a state for the C unit tests that run VLAD text
 *
 * open_state() opens a state with the default configuration (NULL when
 * that fails); run(S, src) evaluates src at its top level and returns the
 * status, the value discarded.
 */
#ifndef VL_UNIT_STATE_H
#define VL_UNIT_STATE_H

#include <string.h>
#include "vm/core/state.h"
#include "vm/exec/toplevel.h"

static VladState *open_state(void)
{
    VladConfig c;
    memset(&c, 0, sizeof c);
    return vl_toplevel_open(&c);
}

static VladStatus run(VladState *S, const char *src)
{
    return vl_toplevel_eval(S, src, strlen(src), "<test>", 0, NULL);
}

#endif
