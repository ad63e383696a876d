/*
 * vm/apiio.c -- the public interface to output: vlad_flush (include/vlad.h)
 *
 * The buffer and its flush policy are vm/state.c's (vm/state.h).
 */
#include "config.h"
#include "include/vlad.h"

#include "vm/state.h"

void vlad_flush(VladState *S)
{
    if (S != NULL)
        vl_state_flush(S);
}
