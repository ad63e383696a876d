/*
 * tests/api/test-api-io.c -- output handed to the host while a program
 * runs, vlad_flush, and read-real's tokens (doc/hardening.md W2, W6)
 *
 * Covers: output written inside a long form reaches VladConfig.write
 * before the form ends (at the latest one poll, 4096 steps, later);
 * before read-real asks VladConfig.read for input; vlad_flush from a host
 * primitive, from the write callback itself (no output twice), on an idle
 * state and on NULL; every call of the write callback gets whole lines,
 * also when the buffer fills; all output before an interrupt is handed
 * over.  read-real: tokens of 200, 800 and 4096 bytes read exactly (as
 * strtod reads the whole token), handed over one byte per read call, and
 * 700 digits of a number equal to 1; a token of 4097 bytes, endless NUL
 * bytes (/dev/zero) and a token holding a NUL are clean errors after
 * which reading goes on; endless spaces are stopped by vlad_interrupt,
 * and the state stays usable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

/* ---- the host's side ---- */

static char out[1 << 16];       /* everything written, in order */
static size_t nout;
static int writes;              /* calls of the write callback */
static int cut_lines;           /* calls whose text did not end a line */
static int flush_in_write;      /* the write callback calls vlad_flush */
static VladState *current;

static void wr(void *ud, const char *t, size_t n)
{
    (void)ud;
    writes++;
    if (n == 0 || t[n - 1] != '\n')
        cut_lines++;
    if (nout + n < sizeof out) {
        memcpy(out + nout, t, n);
        nout += n;
        out[nout] = '\0';
    }
    if (flush_in_write)
        vlad_flush(current);
}

/* read: the text in 'input', 'chunk' bytes per call (0: all it can);
   after 'spaces' is set, endless spaces, and vlad_interrupt after
   'interrupt_after' calls */
static const char *input;
static size_t chunk;
static int spaces, interrupt_after, reads;
static char out_at_read[256];   /* what had been written at the 1st read */
static void copy_out(char *dst);

/* The output so far, cut to 255 bytes, into dst[256]. */
static void copy_out(char *dst)
{
    size_t n = nout < 255 ? nout : 255;
    memcpy(dst, out, n);
    dst[n] = '\0';
}

static size_t rd(void *ud, char *buf, size_t cap)
{
    (void)ud;
    if (reads++ == 0)
        copy_out(out_at_read);
    if (spaces) {
        if (reads == interrupt_after)
            vlad_interrupt(current);
        if (reads > 100000)
            return 0;           /* the interrupt did not stop it */
        memset(buf, ' ', cap);
        return cap;
    }
    size_t n = strlen(input);
    if (chunk && n > chunk)
        n = chunk;
    if (n > cap)
        n = cap;
    memcpy(buf, input, n);
    input += n;
    return n;
}

static char seen[256];          /* the output when 'mark' was called */

static VladStatus h_mark(VladState *S, void *ud, const VladValue *a,
                         VladValue *r)
{
    (void)S;
    (void)ud;
    copy_out(seen);
    *r = a[0];
    return VLAD_OK;
}

static VladStatus h_flush(VladState *S, void *ud, const VladValue *a,
                          VladValue *r)
{
    (void)ud;
    vlad_flush(S);
    copy_out(seen);
    *r = a[0];
    return VLAD_OK;
}

static VladState *open_state(void)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = wr;
    c.read = rd;
    VladState *S = vlad_open(&c);
    VladHostPrim m = {"mark", 1, h_mark, NULL, {NULL, NULL}, 0};
    VladHostPrim f = {"host-flush", 1, h_flush, NULL, {NULL, NULL}, 0};
    vlad_register(S, &m);
    vlad_register(S, &f);
    vlad_eval_string(S, "(define (spin n) (if (= n 0) 0 (spin (- n 1))))",
                     "io", NULL);
    current = S;
    return S;
}

static void reset(const char *in)
{
    nout = 0;
    out[0] = '\0';
    seen[0] = '\0';
    out_at_read[0] = '\0';
    writes = cut_lines = reads = spaces = interrupt_after = 0;
    flush_in_write = 0;
    input = in;
    chunk = 0;
}

/* ---- output ---- */

static void test_output_while_running(VladState *S)
{
    reset("");
    /* 10,000 steps after the write, the line is with the host */
    CHECK_STATUS(S, vlad_eval_string(S, "(let ((a (write-real 1.5)))"
                                        " (mark (spin 10000)))", "io", NULL),
                 VLAD_OK);
    CHECK_STR(seen, "1.5\n");
}

static void test_flush_before_read(VladState *S)
{
    reset("42\n");
    VladValue v;
    CHECK_STATUS(S, vlad_eval_string(S, "(let ((p (write (list 1 2))))"
                                        " (read-real 0))", "io", &v),
                 VLAD_OK);
    CHECK_STR(out_at_read, "(1 2)\n");
    CHECK(vlad_to_number(v) == 42);
}

static void test_vlad_flush(VladState *S)
{
    reset("");
    CHECK_STATUS(S, vlad_eval_string(S, "(let ((a (write-real 3)))"
                                        " (host-flush 0))", "io", NULL),
                 VLAD_OK);
    CHECK_STR(seen, "3\n");
    CHECK_INT(writes, 1);
    /* idle, nothing held: no call */
    vlad_flush(S);
    CHECK_INT(writes, 1);
    vlad_flush(NULL);
    /* from the write callback: each line once */
    reset("");
    flush_in_write = 1;
    CHECK_STATUS(S, vlad_eval_string(S, "(write-real 4) (write-real 5)"
                                        " (let ((a (write-real 6)))"
                                        " (host-flush 7))", "io", NULL),
                 VLAD_OK);
    CHECK_STR(out, "4\n5\n6\n");
}

static void test_whole_lines(VladState *S)
{
    reset("");
    /* 3,000 lines of 11 bytes: the 8 KB buffer fills several times */
    CHECK_STATUS(S, vlad_eval_string(S,
        "(define (lines i) (if (= i 3000) 0"
        " (let ((a (write-real (+ 1000000000 i)))) (lines (+ i 1)))))"
        "(lines 0)", "io", NULL), VLAD_OK);
    CHECK_INT(nout, 3000 * 11);
    CHECK(writes > 3);
    CHECK_INT(cut_lines, 0);
    CHECK(strncmp(out + 2999 * 11, "1000002999\n", 11) == 0);
    /* lines of 2.6 KB and 5.9 KB in turn: a long one arrives in two
       pieces (the printer hands over 4 KB at a time) and is kept whole
       while the lines before it go out: none is cut */
    reset("");
    CHECK_STATUS(S, vlad_eval_string(S,
        "(define (big i) (if (= i 6) 0"
        " (let ((a (write (iota 700))) (b (write (iota 1400))))"
        " (big (+ i 1)))))"
        "(big 0)", "io", NULL), VLAD_OK);
    CHECK(nout > 6 * 8000);
    CHECK(writes > 5);
    CHECK_INT(cut_lines, 0);
    /* a line longer than the buffer (24 KB): printed as it is made, so in
       pieces, in order, the last one ending the line */
    reset("");
    CHECK_STATUS(S, vlad_eval_string(S, "(define x (write (iota 5000)))",
                                     "io", NULL), VLAD_OK);
    CHECK(writes >= 3);
    CHECK_INT(cut_lines, writes - 1);
    CHECK(nout > 8192 && out[0] == '(' && out[nout - 1] == '\n');
    CHECK(strstr(out, "4999)\n") == out + nout - 6);
}

static void test_interrupted_output(VladState *S)
{
    reset("");
    spaces = 0;
    vlad_interrupt(S);      /* idle: stops the next evaluation */
    CHECK_STATUS(S, vlad_eval_string(S, "(let ((a (write-real 8)))"
                                        " (spin 100000))", "io", NULL),
                 VLAD_ERR_INTERRUPTED);
    CHECK_STR(out, "8\n");
}

/* ---- read-real ---- */

static char *repeat(char c, size_t n, const char *tail)
{
    size_t t = strlen(tail);
    char *s = malloc(n + t + 1);
    memset(s, c, n);
    memcpy(s + n, tail, t + 1);
    return s;
}

static void test_long_tokens(VladState *S)
{
    VladValue v;
    size_t sizes[] = {200, 800, 4096};
    for (size_t i = 0; i < 3; i++) {
        char *text = repeat('1', sizes[i], " ");
        text[1] = '.';                          /* 1.111... */
        reset(text);
        chunk = 1;                              /* one byte per call */
        CHECK_STATUS(S, vlad_eval_string(S, "(read-real 0)", "io", &v),
                     VLAD_OK);
        CHECK(vlad_to_number(v) == strtod(text, NULL));
        free(text);
    }
    /* 200 digits: 1.1e199 (not the 127 first ones, 1.1e126) */
    char *text = repeat('1', 200, "\n");
    reset(text);
    CHECK_STATUS(S, vlad_eval_string(S, "(read-real 0)", "io", &v),
                 VLAD_OK);
    CHECK(vlad_to_number(v) == strtod(text, NULL));
    CHECK(vlad_to_number(v) > 1e199);
    free(text);
    /* 0.000...0001e699, 700 digits: 1 exactly */
    text = repeat('0', 700, "1e699 ");
    text[1] = '.';
    reset(text);
    CHECK_STATUS(S, vlad_eval_string(S, "(read-real 0)", "io", &v),
                 VLAD_OK);
    CHECK(vlad_to_number(v) == 1.0);
    free(text);
}

static void test_bad_tokens(VladState *S)
{
    char *text = repeat('7', 4097, " 5");
    reset(text);
    CHECK_STATUS(S, vlad_eval_string(S, "(read-real 0)", "io", NULL),
                 VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "a token longer than 4096 bytes in the input, starting "
                   "'7777777777777777777777777777777777777777...'");
    /* the rest of the line is still there */
    VladValue v;
    CHECK_STATUS(S, vlad_eval_string(S, "(read-real 0)", "io", &v),
                 VLAD_OK);
    CHECK(vlad_to_number(v) == 5);
    free(text);
}

/* NUL bytes in the input, which strlen cannot hand over: a reader of
   its own */
static const char *nul_text;
static size_t nul_left;

static size_t rd_nul(void *ud, char *buf, size_t cap)
{
    (void)ud;
    size_t n = nul_left < cap ? nul_left : cap;
    memcpy(buf, nul_text, n);
    nul_text += n;
    nul_left -= n;
    return n;
}

static void test_nul_bytes(void)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = wr;
    c.read = rd_nul;
    VladState *S = vlad_open(&c);
    static const char one_nul_two[] = "1\0002 3 ";
    nul_text = one_nul_two;
    nul_left = sizeof one_nul_two - 1;
    CHECK_STATUS(S, vlad_eval_string(S, "(read-real 0)", "io", NULL),
                 VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "expected a real in the input, got '1\\x002'");
    VladValue v;
    CHECK_STATUS(S, vlad_eval_string(S, "(read-real 0)", "io", &v),
                 VLAD_OK);
    CHECK(vlad_to_number(v) == 3);
    /* endless NULs (/dev/zero): an error after 4096 of them */
    char *zeros = calloc(1, 100000);
    nul_text = zeros;
    nul_left = 100000;
    CHECK_STATUS(S, vlad_eval_string(S, "(read-real 0)", "io", NULL),
                 VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "a token longer than 4096 bytes in the input, starting "
                   "'\\x00\\x00");
    CHECK(nul_left >= 100000 - 2 * 4096);   /* it stopped reading */
    free(zeros);
    vlad_close(S);
}

/* A fresh state: the others' input has ended, which read-real
   remembers. */
static void test_endless_spaces(void)
{
    VladState *S = open_state();
    reset("");
    spaces = 1;
    interrupt_after = 50;
    CHECK_STATUS(S, vlad_eval_string(S, "(read-real 0)", "io", NULL),
                 VLAD_ERR_INTERRUPTED);
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "read-real: interrupted while reading input");
    CHECK_INT(reads, 50);
    CHECK(!vlad_interrupted(S, NULL));      /* no checkpoint to resume */
    reset("");
    VladValue v;
    CHECK_STATUS(S, vlad_eval_string(S, "(+ 1 2)", "io", &v), VLAD_OK);
    CHECK(vlad_to_number(v) == 3);
    vlad_close(S);
}

int main(void)
{
    VladState *S = open_state();
    CHECK(S != NULL);
    test_output_while_running(S);
    test_flush_before_read(S);
    test_vlad_flush(S);
    test_whole_lines(S);
    test_interrupted_output(S);
    test_long_tokens(S);
    test_bad_tokens(S);
    vlad_close(S);
    test_nul_bytes();
    test_endless_spaces();
    return CHECK_DONE();
}
