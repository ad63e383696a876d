/*
 * vm/cpj/cpjlog.h -- the effect log's parts internal to vm/cpj/ (the rest
 * is in vm/cpj/cpj.h): messages and the pilot's log
 */
#ifndef VL_CPJLOG_H
#define VL_CPJLOG_H

#include "vm/core/state.h"

/* Fill S->msglog_hooks (receive logging, vm/ad/admsg.h). */
VL_INTERNAL void vl_cpj_msglog_init(VladState *S);

/* A copy of finished log 'log' for a pilot: its re-execution measures a
   tape, and communicates nothing, even in its sweep. */
VL_INTERNAL Value vl_cpj_pilot_log(VladState *S, Value log);

#endif
