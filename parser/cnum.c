/*
 * parser/cnum.c -- numbers as text with '.', whatever the host's locale
 * (see parser/cnum.h)
 */
#include "config.h"
#include "parser/cnum.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* The C locale as the calling thread's locale; (locale_t)0 if it cannot
   be had (then the conversion runs in the thread's locale). */
static locale_t enter_c(locale_t *c)
{
    *c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    return *c != (locale_t)0 ? uselocale(*c) : (locale_t)0;
}

static void leave_c(locale_t c, locale_t old)
{
    if (c == (locale_t)0)
        return;
    uselocale(old);
    freelocale(c);
}

int vl_cnum_snprintf(char *buf, size_t size, const char *fmt, ...)
{
    locale_t c, old = enter_c(&c);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    leave_c(c, old);
    return n;
}

void vl_cnum_shortest(char *buf, size_t size, double x, int minprec)
{
    locale_t c, old = enter_c(&c);
    for (int prec = minprec; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, x);
        if (prec == 17 || strtod(buf, NULL) == x)
            break;
    }
    leave_c(c, old);
}

double vl_cnum_strtod(const char *s, char **end)
{
    locale_t c, old = enter_c(&c);
    double x = strtod(s, end);
    leave_c(c, old);
    return x;
}
