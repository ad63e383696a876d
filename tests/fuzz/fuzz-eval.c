/*
 * tests/fuzz/fuzz-eval.c -- libFuzzer harness: whole programs, limited
 *
 * The input is a program, optionally followed by a NUL byte and the text
 * read-real reads (standard input).  Each input runs in a fresh state
 * (vlad_open) through the public API (include/vlad.h) with
 *   - a step limit of FUZZ_EVAL_STEPS per top-level form,
 *   - a heap limit of FUZZ_EVAL_HEAP bytes,
 *   - output discarded (counted), top-level values echoed as a script does,
 *   - a checkpoint-*j strategy picked from the input's length.
 * Inputs that mention "include" are skipped: include reads files, and
 * (include "/dev/zero") is not the interpreter's problem.
 * Properties checked besides the sanitizers:
 *   - every status is one of VladStatus; a failure has a message and a
 *     text, and a located error has a file name, line >= 1 and col >= 1;
 *   - the state survives: after any evaluation, a primitive fetched before
 *     it still computes (+ 1 2) = 3 through vlad_call, and a fresh string
 *     evaluates.
 */
#include "config.h"             /* _GNU_SOURCE: memmem */
#include "include/vlad.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_EVAL_STEPS
#define FUZZ_EVAL_STEPS 20000
#endif
#ifndef FUZZ_EVAL_HEAP
#define FUZZ_EVAL_HEAP ((size_t)64 << 20)
#endif

typedef struct Io {
    const char *in;
    size_t in_len, in_pos;
    size_t out_bytes;
} Io;

static void io_write(void *ud, const char *text, size_t len)
{
    (void)text;
    ((Io *)ud)->out_bytes += len;
}

static size_t io_read(void *ud, char *buf, size_t cap)
{
    Io *io = ud;
    size_t n = io->in_len - io->in_pos;
    if (n > cap)
        n = cap;
    if (n == 0)
        return 0;
    memcpy(buf, io->in + io->in_pos, n);
    io->in_pos += n;
    return n;
}

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz-eval: property violated: %s%s%s\n", what,
            detail ? ": " : "", detail ? detail : "");
    abort();
}

static void check_error(VladState *S, VladStatus st)
{
    if (st < VLAD_OK || st > VLAD_ERR_ARGUMENT)
        fail("status out of range", NULL);
    if (st == VLAD_OK)
        return;
    const VladError *e = vlad_last_error(S);
    if (e->status != st)
        fail("vlad_last_error has another status", NULL);
    if (e->message == NULL || e->message[0] == '\0')
        fail("error without a message", NULL);
    if (e->text == NULL || e->text[0] == '\0')
        fail("error without a text", e->message);
    if (e->file == NULL || e->backtrace == NULL)
        fail("error with a NULL file or backtrace", e->message);
    if (e->line != 0 && (e->line < 1 || e->column < 1 || e->file[0] == '\0'))
        fail("error with a bad location", e->text);
}

static const char *const strategies[] = {
    NULL, "bisection", "bisection,base=1", "binomial,slots=2",
    "binomial,slots=3,base=2", "bisection,base=5", "binomial,base=3",
    "binomial,slots=1,base=50",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memmem(data, size, "include", 7) != NULL)
        return 0;
    const char *nul = memchr(data, '\0', size);
    size_t plen = nul ? (size_t)(nul - (const char *)data) : size;
    char *prog = malloc(plen + 1);
    memcpy(prog, data, plen);
    prog[plen] = '\0';

    Io io = {0};
    if (nul != NULL) {
        io.in = nul + 1;
        io.in_len = size - plen - 1;
    }
    VladConfig c;
    vlad_config_init(&c);
    c.write = io_write;
    c.read = io_read;
    c.userdata = &io;
    c.step_limit = FUZZ_EVAL_STEPS;
    c.heap_limit = FUZZ_EVAL_HEAP;
    c.echo_results = 1;
    c.checkpoint = strategies[size % (sizeof strategies / sizeof *strategies)];
    VladState *S = vlad_open(&c);
    if (S == NULL)
        fail("vlad_open failed", NULL);
    VladValue plus;
    if (!vlad_get_global(S, "+", &plus))
        fail("+ is unbound in a fresh state", NULL);

    VladValue out;
    VladStatus st = vlad_eval_string(S, prog, "fuzz.vlad", &out);
    check_error(S, st);
    if (st == VLAD_OK)
        (void)vlad_to_string(S, out);

    /* the state survives whatever happened */
    VladValue r;
    st = vlad_call(S, plus, vlad_cons(S, vlad_number(1), vlad_number(2)), &r);
    if (st != VLAD_OK || !vlad_is_number(r) || vlad_to_number(r) != 3)
        fail("the state is unusable after an evaluation",
             st != VLAD_OK ? vlad_last_error(S)->text : NULL);
    st = vlad_eval_string(S, "(define fuzz-after 1) fuzz-after", "after", &r);
    if (st != VLAD_OK || !vlad_is_number(r) || vlad_to_number(r) != 1)
        fail("the state cannot evaluate after an evaluation",
             st != VLAD_OK ? vlad_last_error(S)->text : NULL);

    vlad_close(S);
    free(prog);
    return 0;
}
