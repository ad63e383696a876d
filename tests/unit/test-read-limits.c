/*
 * tests/unit/test-read-limits.c -- the reader's limits on a whole text
 *
 * vl_read_string refuses a text longer than VL_READ_MAX_INPUT (1 GiB)
 * before it reads a byte of it (finding C4 of issue 19: flex's lengths
 * are ints), so the check is tested with the length alone: a short
 * buffer said to be one byte over the limit is an error at 1:1 naming
 * both sizes, and never read (the rest of the "text" does not exist).
 * The token limit (16 MiB) is tested with real tokens by
 * tests/bad-input/limits-input.sh.
 */
#include "config.h"
#include "parser/read.h"

#include <string.h>
#include "parser/symbol.h"
#include "vm/core/gc.h"
#include "check.h"

int main(void)
{
    vl_gc_init();
    VlSymtab *syms = vl_symbol_table_new();
    const char text[] = "(+ 1 2)";
    Datum *forms = NULL;
    VlDiag *diags = NULL;

    /* one byte over: refused, located at 1:1, nothing read */
    VlReadStatus st = vl_read_string(syms, text, VL_READ_MAX_INPUT + 1,
                                     "big", &forms, &diags);
    CHECK(st == VL_READ_ERROR);
    CHECK(forms == NULL);
    CHECK(diags != NULL);
    if (diags != NULL) {
        CHECK(diags->pos.line == 1 && diags->pos.col == 1);
        CHECK(strcmp(diags->pos.file, "big") == 0);
        CHECK(strcmp(diags->message, "input too large (1073741825 bytes; "
                     "at most 1073741824)") == 0);
        CHECK(diags->next == NULL);
    }
    /* a length that would overflow flex's int */
    st = vl_read_string(syms, text, (size_t)1 << 32, "huge", &forms, &diags);
    CHECK(st == VL_READ_ERROR && diags != NULL);

    /* the same text with its real length reads */
    st = vl_read_string(syms, text, strlen(text), "small", &forms, &diags);
    CHECK(st == VL_READ_OK);
    CHECK(forms != NULL && forms->kind == D_PAIR);
    return CHECK_DONE();
}
