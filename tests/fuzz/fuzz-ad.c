/*
 * tests/fuzz/fuzz-ad.c -- libFuzzer harness: *j against checkpoint-*j
 *
 * The input bytes are not a program: they drive a small grammar (below)
 * that builds a well-formed VLAD procedure f of a real, or of a list of 1
 * to 3 reals, returning a real: arithmetic and math primitives, if, let,
 * lambda, named-let loops, non-tail recursion, lists with map/reduce,
 * closures, tuples, nested j* / *j / checkpoint-*j, primops, checkpoint
 * and resume, write-real and read-real.  The input also picks the point
 * x, the text read-real reads, and a checkpoint-*j strategy (bisection or
 * binomial, slots, base).  Then:
 *
 *   1. the strategy is set with vlad_set_checkpoint in both states (f
 *      may call checkpoint-*j itself), its base raised when slots = 1 or
 *      2 would make the run quadratic in the length of f;
 *   2. (*j f x 1) runs under a step limit (inputs over it are skipped);
 *   3. (checkpoint-*j f x 1) runs under a limit of 300 times the work of
 *      *j (plus 100,000): more re-execution than that is a finding.  The
 *      work is measured as steps under steps=all (a checkpoint-*j inside
 *      f counts everything it does), both for the base of step 1 and for
 *      this limit, which counts every step (--step-limit does);
 *
 * and the harness aborts -- a fuzzer finding -- unless both runs
 *   - succeed, or fail with the same status and the same message;
 *   - give the identical y (bit for bit; NaN = NaN);
 *   - give x` equal within 1e-9 of the larger of |x`| and a scale, the
 *     largest magnitude among y, the reals f printed, the reals read-real
 *     read and 1 (both NaN, or the same infinity, also agree): the two
 *     add the same terms in other orders, and where terms as large as
 *     the scale cancel, x` keeps only their rounding (doc/reference.md
 *     section 8 bounds the gap by the sum of the terms' magnitudes, not
 *     by x`; finding F11, tests/fuzz/crashers/README.md);
 *   - printed the same text (write-real inside f prints exactly once) and
 *     read the same input (re-executions replay read-real: the read
 *     callback hands out one byte at a time, so what a run consumed is
 *     known).
 * On a finding it prints the program, x and the strategy first, so the
 * crash file's meaning is in the log.  FUZZ_AD_FINITE_ONLY=1 compares
 * only results without infinities or NaNs, and y with 0 = -0 (to look
 * past finding F3, tests/fuzz/crashers/README.md).  Each run has its own
 * state (a state buffers what read-real reads).  FUZZ_AD_PRINT=1 in the environment
 * prints every generated program (to look at what a corpus covers).
 */
#include "include/vlad.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_AD_STEPS
#define FUZZ_AD_STEPS 50000     /* step limit of the *j run */
#endif
#define MAX_DEPTH 6
#define MAX_PROGRAM 16384

/* ===== The input as a stream of choices ===== */

typedef struct In {
    const uint8_t *p;
    size_t n, pos;
} In;

/* A choice in [0, k): the next byte mod k, 0 once the input is used up
   (so every input gives a finite program: leaves at depth 0). */
static unsigned pick(In *in, unsigned k)
{
    if (in->pos >= in->n)
        return 0;
    return in->p[in->pos++] % k;
}

/* ===== Building the program text ===== */

typedef struct Buf {
    char s[MAX_PROGRAM];
    size_t len;
    int overflow;
} Buf;

static void put(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = sizeof b->s - b->len;
    int n = vsnprintf(b->s + b->len, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room) {
        b->overflow = 1;
        b->len = sizeof b->s - 1;
    } else {
        b->len += (size_t)n;
    }
}

/* Real variables in scope (names like x0, v3, acc2, i1). */
typedef struct Scope {
    char names[32][12];
    int n;
} Scope;

static void scope_add(Scope *sc, char *out, const char *prefix, int *fresh)
{
    snprintf(out, 12, "%s%d", prefix, (*fresh)++);
    if (sc->n < 32)
        strcpy(sc->names[sc->n++], out);
}

typedef struct Gen {
    In *in;
    Buf *b;
    int fresh;
    int nodes;
} Gen;

static const char *const constants[] = {
    "0", "1", "-1", "2", "0.5", "3", "-2.5", "0.001", "10", "0.1", "-0.75",
    "1.5",
};
#define NCONST (sizeof constants / sizeof *constants)

static void gen_real(Gen *g, int depth, Scope sc);

static void leaf(Gen *g, Scope *sc)
{
    if (sc->n > 0 && pick(g->in, 4) != 0)
        put(g->b, "%s", sc->names[pick(g->in, (unsigned)sc->n)]);
    else
        put(g->b, "%s", constants[pick(g->in, NCONST)]);
}

/* A procedure of one real: (lambda (vN) BODY). */
static void gen_lambda1(Gen *g, int depth, Scope sc)
{
    char v[12];
    scope_add(&sc, v, "v", &g->fresh);
    put(g->b, "(lambda (%s) ", v);
    gen_real(g, depth, sc);
    put(g->b, ")");
}

static void gen_list(Gen *g, int depth, Scope sc)
{
    switch (pick(g->in, 4)) {
    case 0: {
        int n = 1 + (int)pick(g->in, 4);
        put(g->b, "(list");
        for (int k = 0; k < n; k++) {
            put(g->b, " ");
            gen_real(g, depth - 1, sc);
        }
        put(g->b, ")");
        break;
    }
    case 1:
        put(g->b, "(map ");
        gen_lambda1(g, depth - 1, sc);
        put(g->b, " ");
        gen_list(g, depth - 1, sc);
        put(g->b, ")");
        break;
    case 2:
        put(g->b, "(cons ");
        gen_real(g, depth - 1, sc);
        put(g->b, " ");
        gen_list(g, depth - 1, sc);
        put(g->b, ")");
        break;
    default:
        put(g->b, "(reverse ");
        gen_list(g, depth - 1, sc);
        put(g->b, ")");
        break;
    }
}

static void gen_real(Gen *g, int depth, Scope sc)
{
    static const char *const unary[] = {"sin", "cos", "exp", "sqrt", "log",
                                        "floor", "abs", "sqr", "real"};
    static const char *const binary[] = {"+", "-", "*", "/", "atan", "expt",
                                         "max", "min", "modulo"};
    static const char *const cmp[] = {"<", ">", "<=", ">=", "="};
    if (++g->nodes > 400 || depth <= 0 || g->in->pos >= g->in->n) {
        leaf(g, &sc);
        return;
    }
    char v[12], w[12];
    switch (pick(g->in, 24)) {
    case 0:
    case 1:
        leaf(g, &sc);
        break;
    case 2:
    case 3:
    case 4:
        put(g->b, "(%s ", binary[pick(g->in, 4)]);
        gen_real(g, depth - 1, sc);
        put(g->b, " ");
        gen_real(g, depth - 1, sc);
        put(g->b, ")");
        break;
    case 5:
        put(g->b, "(%s ", binary[pick(g->in, 9)]);
        gen_real(g, depth - 1, sc);
        put(g->b, " ");
        gen_real(g, depth - 1, sc);
        put(g->b, ")");
        break;
    case 6:
    case 7:
        put(g->b, "(%s ", unary[pick(g->in, 9)]);
        gen_real(g, depth - 1, sc);
        put(g->b, ")");
        break;
    case 8:
        put(g->b, "(if (%s ", cmp[pick(g->in, 5)]);
        gen_real(g, depth - 1, sc);
        put(g->b, " ");
        gen_real(g, depth - 1, sc);
        put(g->b, ") ");
        gen_real(g, depth - 1, sc);
        put(g->b, " ");
        gen_real(g, depth - 1, sc);
        put(g->b, ")");
        break;
    case 9: {
        Scope in = sc;
        scope_add(&in, v, "v", &g->fresh);
        put(g->b, "(let ((%s ", v);
        gen_real(g, depth - 1, sc);
        put(g->b, ")) ");
        gen_real(g, depth - 1, in);
        put(g->b, ")");
        break;
    }
    case 10:
        put(g->b, "(");
        gen_lambda1(g, depth - 1, sc);
        put(g->b, " ");
        gen_real(g, depth - 1, sc);
        put(g->b, ")");
        break;
    case 11: {
        /* a tail loop: (let loop ((i 0) (acc E)) (if (< i N) (loop ...) acc)) */
        int n = 1 + (int)pick(g->in, 40);
        Scope in = sc;
        char lp[12];
        snprintf(lp, sizeof lp, "loop%d", g->fresh++);
        scope_add(&in, v, "i", &g->fresh);
        scope_add(&in, w, "acc", &g->fresh);
        put(g->b, "(let %s ((%s 0) (%s ", lp, v, w);
        gen_real(g, depth - 1, sc);
        put(g->b, ")) (if (< %s %d) (%s (+ %s 1) ", v, n, lp, v);
        gen_real(g, depth - 1, in);
        put(g->b, ") %s))", w);
        break;
    }
    case 12: {
        /* non-tail recursion n levels deep */
        int n = 1 + (int)pick(g->in, 30);
        Scope in = sc;
        char fn[12], cnt[12];
        snprintf(fn, sizeof fn, "rec%d", g->fresh++);
        snprintf(cnt, sizeof cnt, "n%d", g->fresh++);
        scope_add(&in, v, "a", &g->fresh);
        put(g->b, "(letrec ((%s (lambda (%s %s) (if (<= %s 0) %s (%s ",
            fn, cnt, v, cnt, v, binary[pick(g->in, 3)]);
        gen_real(g, depth - 1, in);
        put(g->b, " (%s (- %s 1) %s)))))) (%s %d ", fn, cnt, v, fn, n);
        gen_real(g, depth - 1, sc);
        put(g->b, "))");
        break;
    }
    case 13:
        put(g->b, "(reduce + 0 ");
        gen_list(g, depth - 1, sc);
        put(g->b, ")");
        break;
    case 14:
        put(g->b, "(%s ", pick(g->in, 2) ? "car" : "magnitude");
        gen_list(g, depth - 1, sc);
        put(g->b, ")");
        break;
    case 15: {
        /* nested derivatives */
        static const char *const ops[] = {
            "(cadr (j* ", "(cadr (*j ", "(cadr (checkpoint-*j ",
            "(car (*j ", "(car (checkpoint-*j ",
        };
        put(g->b, "%s", ops[pick(g->in, 5)]);
        gen_lambda1(g, depth - 1, sc);
        put(g->b, " ");
        gen_real(g, depth - 1, sc);
        put(g->b, " 1))");
        break;
    }
    case 16:
        put(g->b, "(resume (checkpoint ");
        gen_lambda1(g, depth - 1, sc);
        put(g->b, " ");
        gen_real(g, depth - 1, sc);
        put(g->b, " %u))", pick(g->in, 60));
        break;
    case 17:
        put(g->b, "(car (primops ");
        gen_lambda1(g, depth - 1, sc);
        put(g->b, " ");
        gen_real(g, depth - 1, sc);
        put(g->b, "))");
        break;
    case 18:
        put(g->b, "(write-real ");
        gen_real(g, depth - 1, sc);
        put(g->b, ")");
        break;
    case 19:
        put(g->b, "(* (read-real) ");
        gen_real(g, depth - 1, sc);
        put(g->b, ")");
        break;
    case 20: {
        /* a closure applied twice */
        char h[12];
        snprintf(h, sizeof h, "h%d", g->fresh++);
        put(g->b, "(let ((%s ", h);
        gen_lambda1(g, depth - 1, sc);
        put(g->b, ")) (%s (%s ", h, h);
        gen_real(g, depth - 1, sc);
        put(g->b, ")))");
        break;
    }
    case 21: {
        /* a two-argument procedure (a tuple) */
        Scope in = sc;
        scope_add(&in, v, "p", &g->fresh);
        scope_add(&in, w, "q", &g->fresh);
        put(g->b, "((lambda (%s %s) ", v, w);
        gen_real(g, depth - 1, in);
        put(g->b, ") ");
        gen_real(g, depth - 1, sc);
        put(g->b, " ");
        gen_real(g, depth - 1, sc);
        put(g->b, ")");
        break;
    }
    case 22: {
        /* a local procedure definition in a body */
        char d[12];
        Scope in = sc;
        snprintf(d, sizeof d, "d%d", g->fresh++);
        scope_add(&in, v, "v", &g->fresh);
        put(g->b, "((lambda () (define (%s %s) ", d, v);
        gen_real(g, depth - 1, in);
        put(g->b, ") (%s ", d);
        gen_real(g, depth - 1, sc);
        put(g->b, ")))");
        break;
    }
    default:
        put(g->b, "(cond ((%s ", cmp[pick(g->in, 5)]);
        gen_real(g, depth - 1, sc);
        put(g->b, " 0) ");
        gen_real(g, depth - 1, sc);
        put(g->b, ") (else ");
        gen_real(g, depth - 1, sc);
        put(g->b, "))");
        break;
    }
}

/* ===== Running and comparing ===== */

typedef struct Io {
    char out[4096];
    size_t out_len;
    int out_overflow;
    const char *in;
    size_t in_len, in_pos;
} Io;

static void io_write(void *ud, const char *text, size_t len)
{
    Io *io = ud;
    if (io->out_len + len >= sizeof io->out) {
        io->out_overflow = 1;
        return;
    }
    memcpy(io->out + io->out_len, text, len);
    io->out_len += len;
}

/* One byte at a time: read-real stops at the space after its token, so
   in_pos is then what the run consumed (compared between the two runs,
   and the reals in it give the scale of x`). */
static size_t io_read(void *ud, char *buf, size_t cap)
{
    Io *io = ud;
    if (cap == 0 || io->in_pos == io->in_len)
        return 0;
    buf[0] = io->in[io->in_pos++];
    return 1;
}

typedef struct Run {
    VladStatus st;
    char message[512];
    VladValue result;
    char out[4096];
    size_t out_len;
    int out_overflow;
} Run;

static const char *program_text, *spec_text;
static char x_text[64];

static void finding(const char *what, const Run *a, const Run *b)
{
    fprintf(stderr,
            "fuzz-ad: FINDING: %s\n"
            "--- program ---\n%s\n"
            "--- x: %s   strategy: %s\n",
            what, program_text, x_text, spec_text);
    const Run *r[2] = {a, b};
    for (int k = 0; k < 2; k++)
        fprintf(stderr, "--- %s: status %d %s\n    output [%.*s]\n",
                k ? "checkpoint-*j" : "*j", (int)r[k]->st, r[k]->message,
                (int)r[k]->out_len, r[k]->out);
    abort();
}

static int same_real(double a, double b, double rel, double scale)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (a == b)
        return 1;
    if (isinf(a) || isinf(b))
        return 0;
    /* relative above the scale, absolute below: a derivative whose terms
       cancel comes out as 1e-16 one way and 0 the other (scale 1), or as
       one rounding of 1e300 one way and three the other (scale 1e300) */
    return fabs(a - b) <= rel * fmax(fmax(fabs(a), fabs(b)), scale);
}

/* Compare two values of the same shape: reals within 'rel' of the larger
   of themselves and 'scale' (rel 0: exact, bit for bit apart from NaN
   payloads), other leaves equal. */
static int same_value(VladValue a, VladValue b, double rel, double scale,
                      int depth)
{
    if (depth > 10000)
        return 0;
    if (vlad_is_number(a) || vlad_is_number(b)) {
        if (!vlad_is_number(a) || !vlad_is_number(b))
            return 0;
        double x = vlad_to_number(a), y = vlad_to_number(b);
        if (rel == 0) {
            if (isnan(x) || isnan(y))
                return isnan(x) && isnan(y);
            return memcmp(&x, &y, sizeof x) == 0;
        }
        return same_real(x, y, rel, scale);
    }
    if (vlad_is_pair(a) || vlad_is_pair(b)) {
        if (!vlad_is_pair(a) || !vlad_is_pair(b))
            return 0;
        return same_value(vlad_car(a), vlad_car(b), rel, scale, depth + 1)
            && same_value(vlad_cdr(a), vlad_cdr(b), rel, scale, depth + 1);
    }
    if (vlad_is_nil(a) || vlad_is_nil(b))
        return vlad_is_nil(a) && vlad_is_nil(b);
    if (vlad_is_boolean(a) || vlad_is_boolean(b))
        return vlad_is_boolean(a) && vlad_is_boolean(b)
            && vlad_to_boolean(a) == vlad_to_boolean(b);
    return 0;
}

/* Whether a value holds an infinity or a NaN. */
static int nonfinite(VladValue v, int depth)
{
    if (vlad_is_number(v))
        return !isfinite(vlad_to_number(v));
    if (vlad_is_pair(v) && depth < 10000)
        return nonfinite(vlad_car(v), depth + 1)
            || nonfinite(vlad_cdr(v), depth + 1);
    return 0;
}

/* The largest finite magnitude among the reals of v, at least 'm'. */
static double value_scale(VladValue v, double m, int depth)
{
    if (vlad_is_number(v)) {
        double x = fabs(vlad_to_number(v));
        return isfinite(x) && x > m ? x : m;
    }
    if (vlad_is_pair(v) && depth < 10000)
        return value_scale(vlad_cdr(v),
                           value_scale(vlad_car(v), m, depth + 1), depth + 1);
    return m;
}

/* The largest finite magnitude among the reals of the text s[0, n)
   (what f printed, what it read), at least 'm'; other words are skipped. */
static double text_scale(const char *s, size_t n, double m)
{
    char word[64];
    size_t i = 0;
    while (i < n) {
        size_t k = 0;
        while (i < n && (s[i] == ' ' || s[i] == '\n'))
            i++;
        while (i < n && s[i] != ' ' && s[i] != '\n') {
            if (k + 1 < sizeof word)
                word[k++] = s[i];
            i++;
        }
        word[k] = '\0';
        char *end;
        double x = fabs(strtod(word, &end));
        if (k > 0 && *end == '\0' && isfinite(x) && x > m)
            m = x;
    }
    return m;
}

static void run(VladState *S, Io *io, const char *expr, Run *r)
{
    io->out_len = 0;
    io->out_overflow = 0;
    io->in_pos = 0;
    r->st = vlad_eval_string(S, expr, "run", &r->result);
    r->message[0] = '\0';
    if (r->st != VLAD_OK)
        snprintf(r->message, sizeof r->message, "%s",
                 vlad_last_error(S)->message);
    memcpy(r->out, io->out, io->out_len);
    r->out_len = io->out_len;
    r->out_overflow = io->out_overflow;
}

static VladState *open_state(Io *io, const char *program, Run *r)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = io_write;
    c.read = io_read;
    c.userdata = io;
    c.heap_limit = (size_t)512 << 20;
    VladState *S = vlad_open(&c);
    if (S == NULL) {
        fprintf(stderr, "fuzz-ad: vlad_open failed\n");
        abort();
    }
    r->st = vlad_eval_string(S, program, "fuzz-ad.vlad", NULL);
    if (r->st != VLAD_OK) {
        snprintf(r->message, sizeof r->message, "%s",
                 vlad_last_error(S)->text);
        finding("the generated program does not compile", r, r);
    }
    return S;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const xs[] = {"0.5", "1", "-1.5", "2", "0.1", "3",
                                     "-0.3", "0", "1.25", "-2"};
    /* what read-real reads.  Huge values have one sign: 1e300 and
       -1e300 read by two runs of one expression made sums cancel to
       nothing, so that x` was the rounding of the order in which *j and
       checkpoint-*j add their terms (0 against 4, where the exact sum is
       8), which no tolerance relative to x` can compare */
    static const char *const inputs[] = {
        "1.5 -2 0.25 3 1 2 3 4 5 6 7 8 9 10 11 12",
        "2", "", "0.5 0.5 0.5 0.5", "1e300 1e300 0 0",
    };
    static const int64_t bases[] = {1, 2, 3, 5, 10, 50, 1000};
    In in = {data, size, 0};

    /* the strategy, x and the input text come first */
    char spec[96];
    unsigned kind = pick(&in, 3);
    int64_t slots = (int64_t)pick(&in, 7);      /* 0: automatic */
    int64_t base = bases[pick(&in, 7)];
    unsigned nx = pick(&in, 4);                 /* 0: a real; else a list */
    const char *input = inputs[pick(&in, 5)];
    char xtext[64] = "";
    if (nx == 0) {
        snprintf(xtext, sizeof xtext, "%s", xs[pick(&in, 10)]);
    } else {
        size_t len = 0;
        len += (size_t)snprintf(xtext, sizeof xtext, "'(");
        for (unsigned k = 0; k < nx; k++)
            len += (size_t)snprintf(xtext + len, sizeof xtext - len, "%s%s",
                                    k ? " " : "", xs[pick(&in, 10)]);
        snprintf(xtext + len, sizeof xtext - len, ")");
    }

    static Buf b;
    b.len = 0;
    b.overflow = 0;
    b.s[0] = '\0';
    Gen g = {&in, &b, 0, 0};
    Scope sc = {.n = 0};
    if (nx == 0) {
        put(&b, "(define (f x) ");
        strcpy(sc.names[sc.n++], "x");
    } else {
        put(&b, "(define (f xs) (let (((list");
        for (unsigned k = 0; k < nx; k++) {
            put(&b, " x%u", k);
            snprintf(sc.names[sc.n++], 12, "x%u", k);
        }
        put(&b, ") xs)) ");
    }
    gen_real(&g, MAX_DEPTH, sc);
    put(&b, nx == 0 ? ")\n" : "))\n");
    if (b.overflow)
        return 0;
    put(&b, "(define xin %s)\n", xtext);
    if (b.overflow)
        return 0;

    program_text = b.s;
    snprintf(x_text, sizeof x_text, "%s", xtext);
    spec_text = "(default)";
    if (getenv("FUZZ_AD_PRINT") != NULL)
        fprintf(stderr, "%s", b.s);

    /* each run in its own state: read-real buffers standard input */
    Io io0 = {.in = input, .in_len = strlen(input)};
    Io io1 = io0;
    Run r0 = {0}, r1 = {0};
    VladState *S0 = open_state(&io0, b.s, &r0);
    VladState *S1 = open_state(&io1, b.s, &r1);

    /* 1. the strategy, in both states (f may call checkpoint-*j itself);
       a quadratic one gets a base that bounds its work, from the length
       of f under the default strategy */
    VladStats stats;
    Io io2 = io0;
    Run r2 = {0};
    VladState *S2 = open_state(&io2, b.s, &r2);
    /* the work, not the steps a checkpoint-*j inside f counts (those *j
       would: doc/reference.md section 9) */
    vlad_set_checkpoint(S2, "binomial,steps=all");
    vlad_set_step_limit(S2, FUZZ_AD_STEPS);
    run(S2, &io2, "(primops f xin)", &r2);
    vlad_get_stats(S2, &stats);
    int64_t n0 = stats.steps_last;
    vlad_close(S2);
    if (slots == 1 && n0 / base > 200)
        base = n0 / 200 + 1;
    if (slots == 2 && n0 / base > 2000)
        base = n0 / 2000 + 1;
    if (kind == 0)
        snprintf(spec, sizeof spec, "bisection,base=%lld", (long long)base);
    else if (slots == 0)
        snprintf(spec, sizeof spec, "binomial,base=%lld", (long long)base);
    else
        snprintf(spec, sizeof spec, "binomial,slots=%lld,base=%lld",
                 (long long)slots, (long long)base);
    if (kind == 2 && slots == 0 && base == 1000)
        spec[0] = '\0';                     /* the default */
    spec_text = spec[0] ? spec : "(default)";
    if (vlad_set_checkpoint(S0, spec) != VLAD_OK
        || vlad_set_checkpoint(S1, spec) != VLAD_OK)
        finding("vlad_set_checkpoint refused a valid SPEC", &r0, &r0);

    /* 2. *j under a step limit (inputs over it are skipped) */
    vlad_set_step_limit(S0, FUZZ_AD_STEPS);
    run(S0, &io0, "(*j f xin 1)", &r0);
    vlad_get_stats(S0, &stats);
    int64_t n = stats.steps_last;
    if (r0.st == VLAD_ERR_LIMIT || r0.st == VLAD_ERR_MEMORY
        || r0.out_overflow) {
        vlad_close(S0);
        vlad_close(S1);
        return 0;
    }

    /* the work of that *j, with everything a checkpoint-*j inside f does
       (steps=all), in a state of its own (read-real reads on) */
    char spec_all[112];
    snprintf(spec_all, sizeof spec_all, "%s%ssteps=all",
             spec[0] ? spec : "binomial", ",");
    Io io3 = {.in = input, .in_len = strlen(input)};
    Run r3 = {0};
    VladState *S3 = open_state(&io3, b.s, &r3);
    vlad_set_checkpoint(S3, spec_all);
    vlad_set_step_limit(S3, FUZZ_AD_STEPS);
    run(S3, &io3, "(*j f xin 1)", &r3);
    vlad_get_stats(S3, &stats);
    vlad_close(S3);
    if (r3.st == VLAD_ERR_LIMIT || r3.st == VLAD_ERR_MEMORY) {
        vlad_close(S0);
        vlad_close(S1);
        return 0;
    }
    if (stats.steps_last > n)
        n = stats.steps_last;

    /* 3. checkpoint-*j, whose work must stay within a generous multiple
       of that of *j (bisection: about log2(n/base) times; binomial with
       1 or 2 slots: bounded by the base chosen above) */
    vlad_set_step_limit(S1, 300 * n + 100000);
    run(S1, &io1, "(checkpoint-*j f xin 1)", &r1);
    if (getenv("FUZZ_AD_PRINT") != NULL) {
        VladStats st1;
        vlad_get_stats(S1, &st1);
        fprintf(stderr, ";; strategy %s: *j %lld steps (status %d), "
                "checkpoint-*j %lld steps (status %d)\n", spec_text,
                (long long)n, (int)r0.st, (long long)st1.steps_last,
                (int)r1.st);
    }

    if (r0.st != r1.st)
        finding("different statuses", &r0, &r1);
    if (r0.st != VLAD_OK) {
        if (strcmp(r0.message, r1.message) != 0)
            finding("different error messages", &r0, &r1);
    } else if (getenv("FUZZ_AD_FINITE_ONLY") != NULL
               && (nonfinite(r0.result, 0) || nonfinite(r1.result, 0))) {
        /* compare only finite results (while a finding about infinities
           and NaNs is open, so the fuzzer can look further) */
    } else {
        VladValue a = r0.result, z = r1.result;
        if (!vlad_is_pair(a) || !vlad_is_pair(vlad_cdr(a)))
            finding("*j did not return (list y x`)", &r0, &r1);
        if (!vlad_is_pair(z) || !vlad_is_pair(vlad_cdr(z)))
            finding("checkpoint-*j did not return (list y x`)", &r0, &r1);
        /* exact; with FUZZ_AD_FINITE_ONLY, 0 = -0 (F3) */
        double exact = getenv("FUZZ_AD_FINITE_ONLY") != NULL ? 1e-300 : 0;
        if (!same_value(vlad_car(a), vlad_car(z), exact, 1.0, 0))
            finding("different y", &r0, &r1);
        /* the scale of x`'s terms, from what *j's run saw */
        double scale = value_scale(vlad_car(a), 1.0, 0);
        scale = text_scale(r0.out, r0.out_len, scale);
        scale = text_scale(io0.in, io0.in_pos, scale);
        if (!same_value(vlad_car(vlad_cdr(a)), vlad_car(vlad_cdr(z)), 1e-9,
                        scale, 0)) {
            char msg[1024];
            snprintf(msg, sizeof msg, "different x`: *j %s",
                     vlad_to_string(S0, vlad_car(vlad_cdr(a))));
            size_t len = strlen(msg);
            snprintf(msg + len, sizeof msg - len, ", checkpoint-*j %s",
                     vlad_to_string(S1, vlad_car(vlad_cdr(z))));
            finding(msg, &r0, &r1);
        }
    }
    if (r0.out_overflow != r1.out_overflow || r0.out_len != r1.out_len
        || memcmp(r0.out, r1.out, r0.out_len) != 0)
        finding("different output", &r0, &r1);
    if (io0.in_pos != io1.in_pos)
        finding("different input consumed", &r0, &r1);
    vlad_close(S0);
    vlad_close(S1);
    return 0;
}
