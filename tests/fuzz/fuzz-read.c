/*
 * tests/fuzz/fuzz-read.c -- libFuzzer harness: the reader and the expander
 *
 * Feeds arbitrary bytes (NUL bytes included) to vl_read_string
 * (parser/read.h).  When the text reads, every top-level datum is printed
 * back (vl_datum_to_string) and expanded (vl_expand_toplevel), which
 * checks patterns, special forms and definitions without running
 * anything.  Properties checked besides the sanitizers:
 *   - a failed read has at least one diagnostic, each with a position
 *     inside the text (line >= 1, col >= 1) and a non-empty message;
 *   - an expansion error has a diagnostic with a position and a message;
 *   - reading the same text twice gives the same status (the reader keeps
 *     no state between calls).
 * Nothing is evaluated, so no input can loop.
 *
 * Build and run: make fuzz (see doc/hardening.md).
 */
#include "config.h"
#include "parser/expand.h"
#include "parser/read.h"
#include "vm/core/gc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what)
{
    fprintf(stderr, "fuzz-read: property violated: %s\n", what);
    abort();
}

static void check_diags(const VlDiag *d, const char *what)
{
    if (d == NULL)
        fail(what);
    for (; d != NULL; d = d->next) {
        if (d->pos.line < 1 || d->pos.col < 1)
            fail("diagnostic without a position");
        if (d->message == NULL || d->message[0] == '\0')
            fail("diagnostic without a message");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static VlSymtab *syms;
    if (syms == NULL) {
        vl_gc_init();
        syms = vl_symbol_table_new();
    }
    Datum *forms = NULL;
    VlDiag *diags = NULL;
    VlReadStatus st = vl_read_string(syms, (const char *)data, size,
                                     "fuzz.vlad", &forms, &diags);
    if (st != VL_READ_OK) {
        if (forms != NULL)
            fail("failed read with a result");
        check_diags(diags, "failed read without a diagnostic");
    } else {
        if (forms == NULL)
            fail("successful read without a result");
        if (vl_datum_list_length(forms) < 0)
            fail("top-level forms are not a proper list");
        for (Datum *d = forms; d->kind == D_PAIR; d = d->u.pair.cdr) {
            char *s = vl_datum_to_string(d->u.pair.car, 4096);
            if (s == NULL)
                fail("vl_datum_to_string returned NULL");
            TopForm f;
            VlDiag *diag = NULL;
            if (vl_expand_toplevel(syms, d->u.pair.car, &f, &diag, NULL)
                != VL_EXPAND_OK)
                check_diags(diag, "expansion error without a diagnostic");
        }
    }
    Datum *forms2 = NULL;
    VlDiag *diags2 = NULL;
    VlReadStatus st2 = vl_read_string(syms, (const char *)data, size,
                                      "fuzz.vlad", &forms2, &diags2);
    if (st2 != st)
        fail("reading the same text twice gave different statuses");
    return 0;
}
