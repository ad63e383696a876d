/*
 * vm/api/apiconv.c -- the refusals shared by the files that implement the
 * public interface (vm/api/apiconv.h)
 */
#include "config.h"
#include "vm/api/apiconv.h"

#include "vm/core/state.h"
#include "vm/exec/toplevel.h"

VladStatus vl_api_refuse_value(VladState *S, const char *who,
                               const char *which)
{
    return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT, "%s: %s is not a value "
                            "(the zero VladValue, or one libvlad never "
                            "made)", who, which);
}

VladStatus vl_api_refuse_busy(VladState *S, const char *who)
{
    if (S->closing)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "%s: the state is closed (vlad_close)", who);
    if (S->busy > 0)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "%s: the state is running (a host primitive "
                                "or callback may not change it)", who);
    return VLAD_OK;
}
