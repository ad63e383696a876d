/*
 * tests/api/test-api-forged.c -- files forged to pass the loader's checks
 * and those a review of the saved-checkpoint code found mishandled
 * (issue 23): each forged payload, framed with this build's header and a
 * recomputed CRC-32, is refused or resumes without a crash, a hang or a
 * write out of bounds (run under ASan/UBSan by make sanitize-check); and
 * the legitimate programs the review found saved wrong come back right.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "apitest.h"

typedef struct Buf { unsigned char *d; size_t n, cap; } Buf;

static void b_put(Buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->d = realloc(b->d, b->cap);
    }
    memcpy(b->d + b->n, p, n);
    b->n += n;
}
static void b_byte(Buf *b, unsigned x) { unsigned char c = (unsigned char)x; b_put(b, &c, 1); }
static void b_u(Buf *b, uint64_t x)
{
    do { unsigned char c = x & 0x7f; x >>= 7; b_byte(b, c | (x ? 0x80 : 0)); } while (x);
}
static void b_i(Buf *b, int64_t x) { b_u(b, ((uint64_t)x << 1) ^ (uint64_t)(x >> 63)); }
static void b_real(Buf *b, double x) { b_put(b, &x, 8); }
static void b_str(Buf *b, const char *s) { b_u(b, strlen(s)); b_put(b, s, strlen(s)); }

/* record kinds / value tags (vm/ckptfile.h, vm/value.h) */
enum { R_END, R_UNIT, R_PAIR, R_CLOSURE, R_FILL, R_DUAL, R_CHUNK, R_LOG,
       R_LOGENTRY, R_RUN, R_SEG, R_CKPT, R_GLOBAL, R_INFO, R_PROGRAM };
enum { VT_UNDEF, VT_NIL, VT_BOOL, VT_NUM, VT_PAIR, VT_CLOSURE, VT_PRIM,
       VT_CKPT, VT_DUAL, VT_TAPE, VT_RAW, VT_SYM, VT_STR, VT_VOID };
enum { X_RAW_INT = 0x40, X_RAW_LOG, X_RAW_LOGLIST, X_RAW_TAPE_END, X_PLAIN_DUAL };
enum { CTL_ENTRY, CTL_CHECKPOINT, CTL_PRIMOPS, CTL_RESUME, CTL_JSTAR,
       CTL_STARJ, CTL_SEG_FIRST, CTL_SEG_RUN, CTL_SEG_ADV, CTL_SEG_REC,
       CTL_ADVANCE, CTL_STARJ_ACTIVE, CTL_UNDERFLOW };
#define TAPE_NONE 0xFFFFFFFFu
#define TAPE_GENERAL 0xFFFFFFFEu
#define TAPE_CONT 0xFFFFFFFDu

static uint32_t crc32_ieee(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & -(c & 1));
    }
    return ~c;
}

/* Recompute the payload length and the CRC of a whole file in place. */
static void refresh(unsigned char *f, size_t len)
{
    uint64_t p = len - 36;
    for (int k = 0; k < 8; k++) f[24 + k] = (unsigned char)(p >> (8 * k));
    uint32_t crc = crc32_ieee(f, len - 4);
    for (int k = 0; k < 4; k++) f[len - 4 + k] = (unsigned char)(crc >> (8 * k));
}


static unsigned char header[32];

static VladState *fresh(void)
{
    return vlad_open(NULL);
}

/* A legitimate save, for the header (build id). */
static void get_header(void)
{
    VladState *S = fresh();
    VladValue u;
    void *data;
    size_t len;
    if (vlad_eval_string(S, "(checkpoint (lambda (x) x) 1 0)", "h", &u)
            != VLAD_OK
        || vlad_checkpoint_save_buffer(S, u, &data, &len) != VLAD_OK)
        exit(2);
    memcpy(header, data, 32);
    free(data);
    vlad_close(S);
}

static unsigned char *frame(const Buf *pl, size_t *len)
{
    *len = 32 + pl->n + 4;
    unsigned char *f = malloc(*len);
    memcpy(f, header, 32);
    memcpy(f + 32, pl->d, pl->n);
    refresh(f, *len);
    return f;
}

/* Load the forged payload and, if accepted, resume it: a status either
   way, and the state still evaluates.  Returns the load's status. */
static VladStatus try_forged(Buf *b, const char *what)
{
    size_t len;
    unsigned char *f = frame(b, &len);
    VladState *S = fresh();
    vlad_set_step_limit(S, 100000);
    VladValue u, r;
    VladStatus st = vlad_checkpoint_load_buffer(S, f, len, &u);
    if (st == VLAD_OK)
        (void)vlad_resume(S, u, &r);
    printf("  %s: load status %d%s%s\n", what, (int)st,
           st != VLAD_OK ? ": " : "",
           st != VLAD_OK ? vlad_last_error(S)->message : "");
    CHECK_STR(apitest_eval(S, "(+ 1 2)"), "3");
    vlad_close(S);
    free(f);
    free(b->d);
    return st;
}

/* A *j frame (tag 7, input node 1 of chunk 'chunk', its tape ending at
   (chunk, end)) as object 'run'. */
static void starj_run(Buf *b, uint64_t chunk, uint64_t end)
{
    b_byte(b, R_RUN); b_u(b, 1);
    b_u(b, 0); b_u(b, 4); b_u(b, 8);
    b_byte(b, VT_NUM); b_u(b, 0); b_real(b, 1.0);               /* R2 */
    b_byte(b, X_RAW_INT); b_i(b, 7);                            /* R3 */
    b_byte(b, VT_TAPE); b_u(b, 0); b_u(b, chunk);               /* R4 */
    b_byte(b, X_RAW_TAPE_END); b_u(b, chunk + 1); b_u(b, end);  /* R5 */
}

/* A partial's slot named as a tape node, and as a parent: the sweep
   skips it (it used to index the sensitivities with 2^32 - 1). */
static void cont_slots(void)
{
    for (int parent = 0; parent < 2; parent++) {
        Buf b = {0};
        b_byte(&b, R_CLOSURE); b_u(&b, 0); b_u(&b, CTL_STARJ);  /* obj 0 */
        b_byte(&b, R_FILL); b_u(&b, 0);
        b_byte(&b, R_CHUNK); b_u(&b, 0); b_u(&b, 0); b_i(&b, 7);    /* 1 */
        b_byte(&b, 1); b_byte(&b, 0); b_u(&b, 16); b_u(&b, 4);
        b_real(&b, 2.0); b_u(&b, TAPE_NONE); b_u(&b, TAPE_NONE);
        b_real(&b, 6.0); b_u(&b, 0u | (2u << 30)); b_u(&b, TAPE_NONE);
        b_real(&b, 3.0); b_u(&b, TAPE_CONT); b_u(&b, 0);
        b_real(&b, 7.0); b_u(&b, 2); b_u(&b, 1);    /* parent: the CONT */
        b_u(&b, 0);
        starj_run(&b, 1, 4);                                        /* 2 */
        b_byte(&b, R_SEG); b_u(&b, 0); b_u(&b, 0); b_u(&b, 3); b_u(&b, 0);
        b_u(&b, 1);                                                 /* 3 */
        b_byte(&b, R_CKPT); b_byte(&b, 0);
        b_byte(&b, VT_PRIM); b_byte(&b, 0); b_str(&b, "real");
        b_byte(&b, VT_TAPE); b_u(&b, parent ? 3 : 2); b_u(&b, 1);
        b_u(&b, 4); b_i(&b, 0); b_i(&b, 0); b_i(&b, 0); b_byte(&b, 0);
        b_byte(&b, R_END); b_byte(&b, VT_CKPT); b_u(&b, 4);
        try_forged(&b, parent ? "a CONT slot as a parent"
                              : "a CONT slot as a node");
    }
}

/* A node past the end of its *j's tape prefix used as an operand: the
   new node's parent comes after it, which the sweep skips (it used to
   write 65 KB past a segment). */
static void offtape_node(void)
{
    Buf b = {0};
    b_byte(&b, R_CLOSURE); b_u(&b, 0); b_u(&b, CTL_STARJ);      /* obj 0 */
    b_byte(&b, R_FILL); b_u(&b, 0);
    b_byte(&b, R_CHUNK); b_u(&b, 0); b_u(&b, 0);                /* obj 1 */
    b_i(&b, 7); b_byte(&b, 1); b_byte(&b, 0); b_u(&b, 8192); b_u(&b, 8192);
    for (int j = 0; j < 8192; j++) {
        b_real(&b, 1.0);
        if (j == 0) {
            b_u(&b, TAPE_NONE);
            b_u(&b, TAPE_NONE);
        } else {
            b_u(&b, 0);
            b_u(&b, 1);
        }
    }
    b_u(&b, 0);
    starj_run(&b, 1, 1);                                        /* obj 2 */
    b_byte(&b, R_SEG); b_u(&b, 0); b_u(&b, 0); b_u(&b, 3); b_u(&b, 0);
    b_u(&b, 1);                                                 /* obj 3 */
    b_byte(&b, R_PAIR); b_byte(&b, VT_TAPE); b_u(&b, 8191); b_u(&b, 1);
    b_byte(&b, VT_NUM); b_u(&b, 0); b_real(&b, 2.0);            /* obj 4 */
    b_byte(&b, R_CKPT); b_byte(&b, 0);
    b_byte(&b, VT_PRIM); b_byte(&b, 0); b_str(&b, "*");
    b_byte(&b, VT_PAIR); b_u(&b, 4);
    b_u(&b, 4); b_i(&b, 0); b_i(&b, 0); b_i(&b, 0); b_byte(&b, 0);
    b_byte(&b, R_END); b_byte(&b, VT_CKPT); b_u(&b, 5);
    try_forged(&b, "a node off its tape's prefix");
}

/* A frame sequence doubling at each level (2^62 frames from 444 bytes):
   refused, where resuming returned through them for ever. */
static void doubling_frames(void)
{
    Buf b = {0};
    b_byte(&b, R_CLOSURE); b_u(&b, 0); b_u(&b, CTL_RESUME);     /* obj 0 */
    b_byte(&b, R_FILL); b_u(&b, 0);
    b_byte(&b, R_RUN); b_u(&b, 1); b_u(&b, 0); b_u(&b, 1); b_u(&b, 3);
    uint64_t obj = 2;
    b_byte(&b, R_SEG); b_u(&b, 0); b_u(&b, 0); b_u(&b, 2); b_u(&b, 0);
    b_u(&b, 1);
    uint64_t seg = obj++;
    for (int k = 1; k < 62; k++) {
        b_byte(&b, R_SEG); b_u(&b, seg + 1); b_u(&b, seg + 1); b_u(&b, 2);
        b_u(&b, 0); b_u(&b, 1);
        seg = obj++;
    }
    b_byte(&b, R_CKPT); b_byte(&b, 0);
    b_byte(&b, VT_PRIM); b_byte(&b, 0); b_str(&b, "real");
    b_byte(&b, VT_NUM); b_u(&b, 0); b_real(&b, 42.0);
    b_u(&b, seg + 1); b_i(&b, 0); b_i(&b, 0); b_i(&b, 0); b_byte(&b, 0);
    b_byte(&b, R_END); b_byte(&b, VT_CKPT); b_u(&b, obj);
    CHECK_INT(try_forged(&b, "frames shared 2^61-fold"), VLAD_ERR_IO);
}

/* States at positions past any run's, given to %cpj-keep: refused (its
   thinning loop never ended). */
static void keep_positions(void)
{
    Buf b = {0};
    b_byte(&b, R_CKPT); b_byte(&b, 0);
    b_byte(&b, VT_PRIM); b_byte(&b, 0); b_str(&b, "real");
    b_byte(&b, VT_NUM); b_u(&b, 0); b_real(&b, 1.0);
    b_u(&b, 0); b_i(&b, 0); b_i(&b, (int64_t)1 << 60); b_i(&b, 0);
    b_byte(&b, 0);
    b_byte(&b, R_END); b_byte(&b, VT_CKPT); b_u(&b, 0);
    CHECK_INT(try_forged(&b, "a position of 2^60 steps"), VLAD_ERR_IO);
}

/* Save u (the global 'u' of S) and resume it in a fresh state where
   'setup' ran first: its value there. */
static const char *moved(VladState *S, const char *setup, char *buf,
                         size_t n)
{
    VladValue u, v, r;
    void *data;
    size_t len;
    snprintf(buf, n, "?");
    if (!vlad_get_global(S, "u", &u)
        || vlad_checkpoint_save_buffer(S, u, &data, &len) != VLAD_OK)
        return buf;
    VladState *T = fresh();
    if (setup != NULL)
        (void)apitest_eval(T, setup);
    if (vlad_checkpoint_load_buffer(T, data, len, &v) == VLAD_OK
        && vlad_resume(T, v, &r) == VLAD_OK)
        snprintf(buf, n, "%s", vlad_to_string(T, r));
    else
        snprintf(buf, n, "ERROR %s", vlad_last_error(T)->message);
    vlad_close(T);
    free(data);
    return buf;
}

static VladStatus fake_sin(VladState *S, void *ud, const VladValue *args,
                           VladValue *result)
{
    (void)S, (void)ud, (void)args;
    *result = vlad_number(42);
    return VLAD_OK;
}

static void legitimate(void)
{
    char buf[256];
    /* a global whose value is the checkpoint itself */
    VladState *S = fresh();
    CHECK_STR(apitest_eval(S, "(define (f x) (if (> x 100) u (f (+ x 1))))"
                              "\n(define u (checkpoint f 0 10)) 0"), "0");
    CHECK_STR(apitest_eval(S, "(checkpoint? (resume u))"), "#t");
    CHECK_STR(moved(S, NULL, buf, sizeof buf), "#<checkpoint>");
    vlad_close(S);
    /* a user rebinding of an inline primitive the code calls */
    S = fresh();
    CHECK_STR(apitest_eval(S, "(define (f x) (if (> x 10) x (f (+ x 1))))"
                              "\n(define (+ a b) (* a 2))\n"
                              "(define u (checkpoint f 1 2)) 0"), "0");
    CHECK_STR(apitest_eval(S, "(resume u)"), "16");
    CHECK_STR(moved(S, NULL, buf, sizeof buf), "16");
    vlad_close(S);
    /* a host primitive named like a builtin */
    VladHostPrim p = {"sin", 1, fake_sin, NULL, {NULL, NULL}, 0};
    S = fresh();
    CHECK_STATUS(S, vlad_register(S, &p), VLAD_OK);
    CHECK_STR(apitest_eval(S, "(define u (checkpoint sin 0.5 0)) 0"), "0");
    CHECK_STR(apitest_eval(S, "(resume u)"), "42");
    VladValue u;
    void *data;
    size_t len;
    CHECK(vlad_get_global(S, "u", &u));
    CHECK_STATUS(S, vlad_checkpoint_save_buffer(S, u, &data, &len), VLAD_OK);
    VladState *T = fresh();
    VladValue v, r;
    CHECK_STATUS(T, vlad_checkpoint_load_buffer(T, data, len, &v),
                 VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(T)->message, "'sin'");
    CHECK_STATUS(T, vlad_register(T, &p), VLAD_OK);
    CHECK_STATUS(T, vlad_checkpoint_load_buffer(T, data, len, &v), VLAD_OK);
    CHECK_STATUS(T, vlad_resume(T, v, &r), VLAD_OK);
    CHECK_STR(vlad_to_string(T, r), "42");
    free(data);
    vlad_close(T);
    vlad_close(S);
    /* a loaded checkpoint saved again (full tape chunks), and loaded */
    S = fresh();
    CHECK_STR(apitest_eval(S, "(define (g y) (let loop ((i 0) (a y)) (if (< "
                              "i 20000) (loop (+ i 1) (atan (+ a 1.0) 1.5))"
                              " a)))\n(define u (checkpoint (lambda (x) "
                              "(*j g x 1)) 0.5 30000)) 0"), "0");
    char want[256];
    snprintf(want, sizeof want, "%s", apitest_eval(S, "(resume u)"));
    for (int round = 0; round < 2; round++) {
        CHECK(vlad_get_global(S, "u", &u));
        CHECK_STATUS(S, vlad_checkpoint_save_buffer(S, u, &data, &len),
                     VLAD_OK);
        T = fresh();
        CHECK_STATUS(T, vlad_checkpoint_load_buffer(T, data, len, &v),
                     VLAD_OK);
        vlad_set_global(T, "u", v);
        CHECK_STR(apitest_eval(T, "(resume u)"), want);
        free(data);
        vlad_close(S);
        S = T;
    }
    vlad_close(S);
    /* a long global name */
    S = fresh();
    size_t n = 70000;
    char *src = malloc(2 * n + 200);
    char *name = malloc(n + 1);
    memset(name, 'a', n);
    name[n] = '\0';
    snprintf(src, 2 * n + 200, "(define %s 5)\n(define (f x) (* x %s))\n"
             "(define u (checkpoint f 3 0)) 0", name, name);
    CHECK_STR(apitest_eval(S, src), "0");
    CHECK_STR(moved(S, NULL, buf, sizeof buf), "15");
    free(src);
    free(name);
    vlad_close(S);
}

int main(void)
{
    get_header();
    cont_slots();
    offtape_node();
    doubling_frames();
    keep_positions();
    legitimate();
    return CHECK_DONE();
}
