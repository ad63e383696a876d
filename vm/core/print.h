/*
 * vm/core/print.h -- printing values as VLAD writes them
 *
 * Reals in the shortest form that reads back to the same double (integral
 * values without a decimal point), +inf.0 -inf.0 +nan.0, #t #f (), lists
 * with a dot before an improper tail, #<procedure NAME>, #<checkpoint>.
 * Reals under differentiation print as their primal value.  Symbols
 * print as their name, strings in double quotes with escapes (display:
 * as they are), the value of display and newline as #<void>.
 */
#ifndef VL_PRINT_H
#define VL_PRINT_H

#include <stddef.h>
#include "vm/core/state.h"
#include "vm/core/strbuf.h"

/* Append the shortest round-trip text of 'x'. */
VL_INTERNAL void vl_print_number(StrBuf *b, double x);

/* Append the printed form of 'v'; output past 'max' bytes (0: no limit)
   is cut and ends with "...". */
VL_INTERNAL void vl_print_value(VladState *S, StrBuf *b, Value v, size_t max);

/* Append 'v' as display shows it: like vl_print_value, but strings
   (also inside lists) without quotes or escapes. */
VL_INTERNAL void vl_print_display(VladState *S, StrBuf *b, Value v);

/* The printed form as a GC string (for messages). */
VL_INTERNAL char *vl_print_to_string(VladState *S, Value v, size_t max);

/* The most vlad_to_string returns (64 MiB, then "..."; the fuzz build
   sets less, tests/fuzz/build.sh). */
#ifndef VL_PRINT_STRING_MAX
#define VL_PRINT_STRING_MAX ((size_t)1 << 26)
#endif

/* Write the printed form of 'v' and a newline with vl_state_write, as it
   is made (the text is never held whole: memory O(nesting depth)).  Each
   pair printed counts as a step toward the step limit of the top-level
   evaluation (S->print_steps, not S->steps), checked with the interrupt
   flag every 1024 pairs: past the limit, or interrupted, the text printed
   so far is written and the print stops with VLAD_ERR_LIMIT or
   VLAD_ERR_INTERRUPTED (with nothing to resume), located at 'at' (the
   echo of a form's value) or, if NULL, at the running instruction. */
VL_INTERNAL void vl_print_write(VladState *S, Value v, const SrcPos *at);

#endif
