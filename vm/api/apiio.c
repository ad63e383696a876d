/*
 * vm/api/apiio.c -- the public interface to output: vlad_flush, and the
 * host's warnings, vlad_set_warning (include/vlad.h)
 *
 * The buffer and its flush policy are vm/core/state.c's (vm/core/state.h).
 */
#include "config.h"
#include "include/vlad.h"

#include "vm/core/state.h"

void vlad_flush(VladState *S)
{
    if (S != NULL)
        vl_state_flush(S);
}

void vlad_set_warning(VladState *S,
                      void (*warn)(void *userdata, const char *text),
                      void *userdata)
{
    if (S == NULL)
        return;
    S->warn = warn;
    S->warn_userdata = userdata;
}
