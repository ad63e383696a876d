/*
 * parser/cnum.h -- numbers as text with '.', whatever the host's locale
 *
 * The C library's conversions between doubles and text (printf's %g and
 * %f, strtod) follow the LC_NUMERIC locale of the calling thread.  A host
 * that calls setlocale(LC_ALL, "") in a German or French environment gets
 * a decimal comma: "%g" of 2.5 is "2,5" and strtod reads "2.5" as 2.
 * VLAD's syntax and output always use '.', and libvlad must not change the
 * host's locale, so every conversion of a number goes through these two
 * functions: each installs the C locale for the calling thread only
 * (uselocale) for the length of the one call and puts the thread's own
 * locale back.  newlocale of "C" returns a constant object in glibc and
 * musl, so a call costs two uselocale calls more than the plain
 * conversion (no measurable difference, doc/hardening.md W4).
 */
#ifndef VL_CNUM_H
#define VL_CNUM_H

#include <stddef.h>
#include "vm/core/gc.h"

/* snprintf in the C locale. */
VL_INTERNAL int vl_cnum_snprintf(char *buf, size_t size, const char *fmt,
                                 ...)
    __attribute__((format(printf, 3, 4)));

/* strtod in the C locale. */
VL_INTERNAL double vl_cnum_strtod(const char *s, char **end);

/* The shortest "%.Pg" of x, for P from 'minprec' to 17, that reads back
   as x (P = 17 always does), in the C locale, into buf (32 bytes are
   enough).  For finite x. */
VL_INTERNAL void vl_cnum_shortest(char *buf, size_t size, double x,
                                  int minprec);

#endif
