/*
 * vm/cpj/cpjstats.h -- checkpoint-*j's bookkeeping (vm/cpj/cpjstats.c):
 * held states and what they weigh, base cases, the outermost run, as
 * the statistics (VladCpjStats), progress and spill=DIR see them.
 * Internal to vm/cpj/ (the rest of the runtime goes through
 * vm/cpj/cpj.h).
 */
#ifndef VL_CPJSTATS_H
#define VL_CPJSTATS_H

#include "vm/cpj/cpjstrat.h"

/* Count checkpoint u as held by a driver (peaks in the stats), or no
   longer: the bookkeeping of %cpj-hold and %cpj-release. */
VL_INTERNAL void vl_cpj_count_held(VladState *S, Value u);
VL_INTERNAL void vl_cpj_count_released(VladState *S, Value u);

/* A base case of n steps (%cpj-count-leaf): the stats, the peak bytes of
   the outermost run's base case, progress. */
VL_INTERNAL void vl_cpj_count_leaf(VladState *S, int64_t n);

/* The outermost run: it starts (%cpj-start: spill=DIR's file, the
   collector run more often; its plan's stats are %cpj-plan's,
   vm/cpj/cpjplan.c), it ends (%checkpoint-input: what happened).  Each does nothing for a nested
   run. */
VL_INTERNAL void vl_cpj_outermost_start(VladState *S);
VL_INTERNAL void vl_cpj_outermost_end(VladState *S);

/* The bytes the data of state u takes beyond its frames (vm/cpj/cpjstats.c): the
   bytes a real of it takes on the heap (the pair or closure slot holding
   it, a Value of 16 bytes, and its share of the cell: a pair is two
   Values) for each real that depends on the input. */
#define VL_CPJ_DATA_BYTES_PER_REAL 32
VL_INTERNAL int64_t vl_cpj_snapshot_data_bytes(VladState *S, Value u);

/* The most states the first run in chunks (vm/cpj/cpjfirst.c) keeps at
   once. */
#define VL_CPJ_KEEP_MAX 64

#endif
