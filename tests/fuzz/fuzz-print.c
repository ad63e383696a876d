/*
 * tests/fuzz/fuzz-print.c -- libFuzzer harness: printing shared, deep and
 * long structures through every printer entry point
 *
 * The first byte holds flags (1: interrupt, 2: echo instead of write);
 * the rest is a program for a small stack machine that builds a value
 * through the public API (vlad_cons, vlad_number, ...): numbers (any bit
 * pattern: NaN, infinities, -0, subnormals), booleans, (), procedures,
 * checkpoints, pairs, improper tails, and the shapes that hurt a printer:
 * (cons x x) repeated (a DAG whose text doubles per level, 2^k leaves
 * from k pairs), long lists and deep nesting (tens of thousands).  The
 * harness builds a shadow of the value and computes, level by level, the
 * exact length of its text and the number of pairs it prints (saturating),
 * as vm/core/print.c defines the printed form.  Then it prints the value:
 *
 *   - vlad_to_string: exactly the text when it fits VL_PRINT_STRING_MAX
 *     (64 KiB in the fuzz build, -D in build.sh; 64 MiB normally), else
 *     that many bytes and "...";
 *   - write, and the echo of a top-level expression (VladConfig
 *     .echo_results), under a step limit of FUZZ_PRINT_STEPS: a value of
 *     fewer pairs than the limit prints in full, byte for byte the text of
 *     vlad_to_string and a newline; a value of more pairs than the limit
 *     plus one poll stops with VLAD_ERR_LIMIT "... while printing" after
 *     writing a prefix of the text, never more than the text;
 *   - an error message that shows the value ((+ 1 v) for a pair): a
 *     bounded message holding the text's first bytes;
 *   - for inputs whose first byte is odd, an interrupt asked for from the
 *     write callback's first call: the print finishes or stops with
 *     VLAD_ERR_INTERRUPTED "interrupted while printing", nothing to
 *     resume;
 * and checks that the output came in bounded pieces and that the state
 * still evaluates (+ 1 2) afterwards.
 */
#include "config.h"
#include "include/vlad.h"
#include "vm/core/print.h"           /* VL_PRINT_STRING_MAX */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_PRINT_STEPS
#define FUZZ_PRINT_STEPS 20000
#endif
#define MAX_PAIRS 300000        /* pairs the machine may make */
#define STACK 64
#define SAT ((int64_t)1 << 60)  /* lengths and counts saturate here */
#define POLL 1024               /* vm/core/print.c PRINT_POLL */
#define KEEP ((size_t)4 << 20)  /* output bytes kept for comparison */

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz-print: property violated: %s%s%s\n", what,
            detail ? ": " : "", detail ? detail : "");
    abort();
}

/* ===== The shadow: text length and pairs of each value ===== */

typedef struct Shadow {
    VladValue v;
    int64_t len;            /* length of its printed text */
    int64_t tail;           /* of its text as the rest of a list */
    int64_t pairs;          /* pairs printed */
} Shadow;

static int64_t add(int64_t a, int64_t b)
{
    return a > SAT - b ? SAT : a + b;
}

static Shadow atom(VladState *S, VladValue v)
{
    Shadow s;
    s.v = v;
    s.len = (int64_t)strlen(vlad_to_string(S, v));
    /* " . x)" or, for (), ")" */
    s.tail = vlad_is_nil(v) ? 1 : add(s.len, 4);
    s.pairs = 0;
    return s;
}

static Shadow pair(VladState *S, const Shadow *a, const Shadow *d)
{
    Shadow s;
    s.v = vlad_cons(S, a->v, d->v);
    s.len = add(1, add(a->len, d->tail));       /* "(" a tail(d) */
    s.tail = add(1, add(a->len, d->tail));      /* " " a tail(d) */
    s.pairs = add(1, add(a->pairs, d->pairs));
    return s;
}

/* ===== Output ===== */

typedef struct Out {
    VladState *S;
    char *keep;             /* the first KEEP bytes */
    size_t bytes, calls, biggest;
    int interrupt_first;    /* ask for an interrupt at the first call */
} Out;

static void out_write(void *ud, const char *text, size_t len)
{
    Out *o = ud;
    if (o->bytes < KEEP) {
        size_t n = len < KEEP - o->bytes ? len : KEEP - o->bytes;
        memcpy(o->keep + o->bytes, text, n);
    }
    o->bytes += len;
    o->calls++;
    if (len > o->biggest)
        o->biggest = len;
    if (o->interrupt_first && o->calls == 1)
        vlad_interrupt(o->S);
}

/* ===== The machine ===== */

typedef struct In {
    const uint8_t *p;
    size_t n;
} In;

static unsigned next(In *in)
{
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

static const char *const procs[] = {
    "car", "map", "checkpoint-*j", "+", "write", "j*", "resume", "iota",
};

static int build(VladState *S, In *in, Shadow *root)
{
    Shadow st[STACK];
    int sp = 0;
    long made = 0;
    VladValue ckpt[2];
    int nckpt = 0;
    if (vlad_eval_string(S, "(checkpoint (lambda (x) (+ x 1)) 1 1)", "k",
                         &ckpt[nckpt]) == VLAD_OK)
        nckpt++;
    if (vlad_eval_string(S, "(checkpoint (lambda (x) x) 1 100)", "k",
                         &ckpt[nckpt]) == VLAD_OK)
        nckpt++;
    while (in->n > 0 && made < MAX_PAIRS) {
        unsigned op = next(in) % 13;
        if (sp == STACK && op != 4 && op != 6 && op != 7 && op != 8
            && op != 11)
            op = 4;
        switch (op) {
        case 0:                                 /* small integer */
            st[sp] = atom(S, vlad_number((double)((int)next(in) - 128)));
            sp++;
            break;
        case 1: {                               /* any double */
            uint64_t bits = 0;
            for (int k = 0; k < 8; k++)
                bits = bits << 8 | next(in);
            double x;
            memcpy(&x, &bits, sizeof x);
            st[sp++] = atom(S, vlad_number(x));
            break;
        }
        case 2:
            st[sp++] = atom(S, vlad_boolean((int)(next(in) & 1)));
            break;
        case 3:
            st[sp++] = atom(S, vlad_nil());
            break;
        case 4:                                 /* cons */
            if (sp >= 2) {
                st[sp - 2] = pair(S, &st[sp - 2], &st[sp - 1]);
                sp--;
                made++;
            } else if (sp == 1) {
                Shadow nil = atom(S, vlad_nil());
                st[0] = pair(S, &st[0], &nil);
                made++;
            }
            break;
        case 5:                                 /* share */
            if (sp > 0) {
                st[sp] = st[sp - 1];
                sp++;
            }
            break;
        case 6: {                               /* (cons x x), k times */
            if (sp == 0)
                break;
            unsigned k = next(in) % 48;
            for (unsigned j = 0; j < k; j++, made++)
                st[sp - 1] = pair(S, &st[sp - 1], &st[sp - 1]);
            break;
        }
        case 7: {                               /* a list of n x's */
            if (sp == 0)
                break;
            unsigned n = (next(in) << 8 | next(in)) % 5000;
            Shadow l = atom(S, vlad_nil());
            for (unsigned j = 0; j < n; j++, made++)
                l = pair(S, &st[sp - 1], &l);
            st[sp - 1] = l;
            break;
        }
        case 8: {                               /* (((x))), k deep */
            if (sp == 0)
                break;
            unsigned k = (next(in) << 8 | next(in)) % 40000;
            Shadow nil = atom(S, vlad_nil());
            for (unsigned j = 0; j < k; j++, made++)
                st[sp - 1] = pair(S, &st[sp - 1], &nil);
            break;
        }
        case 9: {                               /* a procedure */
            VladValue f;
            if (vlad_get_global(S, procs[next(in) % 8], &f))
                st[sp++] = atom(S, f);
            break;
        }
        case 10:                                /* swap */
            if (sp >= 2) {
                Shadow t = st[sp - 1];
                st[sp - 1] = st[sp - 2];
                st[sp - 2] = t;
            }
            break;
        case 11:                                /* an improper tail */
            if (sp > 0) {
                Shadow x = atom(S, vlad_number(0.5));
                st[sp - 1] = pair(S, &st[sp - 1], &x);
                made++;
            }
            break;
        default:                                /* a checkpoint */
            if (nckpt > 0)
                st[sp++] = atom(S, ckpt[next(in) % (unsigned)nckpt]);
            break;
        }
    }
    if (sp == 0)
        return 0;
    *root = st[sp - 1];
    return 1;
}

/* ===== Checks ===== */

static VladState *open_state(Out *o, int echo)
{
    VladConfig c;
    vlad_config_init(&c);
    c.step_limit = FUZZ_PRINT_STEPS;
    c.heap_limit = (size_t)256 << 20;
    c.write = out_write;
    c.userdata = o;
    c.echo_results = echo;
    VladState *S = vlad_open(&c);
    if (S == NULL)
        fail("vlad_open", NULL);
    o->S = S;
    return S;
}

static void check_alive(VladState *S)
{
    VladValue r;
    if (vlad_eval_string(S, "(+ 1 2)", "alive", &r) != VLAD_OK
        || !vlad_is_number(r) || vlad_to_number(r) != 3)
        fail("the state no longer evaluates (+ 1 2)", NULL);
}

/* The output of one printing (write or echo) of 'root'; 'text' is
   vlad_to_string's, 'tlen' its length; 'asked': an interrupt was asked
   for. */
static void check_printed(const Out *o, VladStatus st, VladState *S,
                          const Shadow *root, const char *text, size_t tlen,
                          int asked)
{
    const VladError *e = vlad_last_error(S);
    VladValue u;
    if (o->biggest > 65536)
        fail("output in a piece over 64 KiB", NULL);
    /* the bytes of the text vlad_to_string holds (all, or up to "...") */
    size_t known = (int64_t)tlen == root->len ? tlen : tlen - 3;
    size_t cmp = o->bytes < KEEP ? o->bytes : KEEP;
    if (cmp > known)
        cmp = known;
    if (memcmp(o->keep, text, cmp) != 0)
        fail("printed text differs from vlad_to_string's", NULL);
    if (st == VLAD_OK) {
        if ((int64_t)o->bytes != root->len + 1)
            fail("a finished print has the wrong length", NULL);
        if (o->bytes <= KEEP && o->keep[o->bytes - 1] != '\n')
            fail("a finished print does not end in a newline", NULL);
        if (root->pairs > FUZZ_PRINT_STEPS + POLL + 64)
            fail("a print of more pairs than the step limit finished", NULL);
        return;
    }
    if ((int64_t)o->bytes > root->len)
        fail("a stopped print wrote more than the text", NULL);
    if (st == VLAD_ERR_LIMIT) {
        if (strstr(e->message, "while printing") == NULL)
            fail("step limit stop without 'while printing'", e->message);
        if (root->pairs < FUZZ_PRINT_STEPS - 64)
            fail("a print of fewer pairs than the limit stopped",
                 e->message);
        return;
    }
    if (st == VLAD_ERR_INTERRUPTED && asked) {
        if (strcmp(e->message, "interrupted while printing") != 0)
            fail("interrupted print: wrong message", e->message);
        if (vlad_interrupted(S, &u))
            fail("an interrupted print left something to resume", NULL);
        return;
    }
    fail("unexpected status of a print", e->message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *keep;
    if (keep == NULL && (keep = malloc(KEEP)) == NULL)
        return 0;
    In in = {data + (size > 0), size - (size > 0)};
    int interrupt = size > 0 && (data[0] & 1);
    int echo = size > 0 && (data[0] & 2);
    Out o = {NULL, keep, 0, 0, 0, 0};
    VladState *S = open_state(&o, echo);
    Shadow root;
    if (!build(S, &in, &root)) {
        vlad_close(S);
        return 0;
    }

    /* vlad_to_string */
    const char *t = vlad_to_string(S, root.v);
    size_t tlen = strlen(t);
    if (root.len <= (int64_t)VL_PRINT_STRING_MAX) {
        if ((int64_t)tlen != root.len)
            fail("vlad_to_string has the wrong length", NULL);
    } else if (tlen != VL_PRINT_STRING_MAX + 3
               || strcmp(t + tlen - 3, "...") != 0) {
        fail("a long vlad_to_string is not cut at its maximum", NULL);
    }
    char *text = malloc(tlen + 1);
    if (text == NULL) {
        vlad_close(S);
        return 0;
    }
    memcpy(text, t, tlen + 1);

    /* write, or the echo */
    vlad_set_global(S, "v", root.v);
    o.bytes = o.calls = o.biggest = 0;
    o.interrupt_first = interrupt;
    VladValue r;
    VladStatus st = vlad_eval_string(S, echo ? "v" : "(define w (write v))",
                                     "p", &r);
    o.interrupt_first = 0;
    check_printed(&o, st, S, &root, text, tlen, interrupt);
    check_alive(S);

    /* an error message showing the value */
    if (vlad_is_pair(root.v)) {
        o.bytes = 0;
        st = vlad_eval_string(S, "(+ 1 v)", "e", &r);
        const VladError *e = vlad_last_error(S);
        if (st != VLAD_ERR_RUNTIME)
            fail("(+ 1 pair) did not fail", NULL);
        if (strlen(e->message) > 1000)
            fail("an error message holds an unbounded value", NULL);
        size_t show = tlen < 150 ? tlen : 150;
        char *part = malloc(show + 1);
        if (part != NULL) {
            memcpy(part, text, show);
            part[show] = '\0';
            if (strstr(e->message, part) == NULL)
                fail("an error message does not show the value's start",
                     e->message);
            free(part);
        }
    }
    check_alive(S);
    free(text);
    vlad_close(S);
    return 0;
}
