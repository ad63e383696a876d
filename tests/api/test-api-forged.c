/*
 * tests/api/test-api-forged.c -- files forged to pass the loader's checks
 * and those a review of the saved-checkpoint code found mishandled
 * (issue 23): each forged payload, framed with this build's header and a
 * recomputed CRC-32, is refused or resumes without a crash, a hang or a
 * write out of bounds (run under ASan/UBSan by make sanitize-check); and
 * the legitimate programs the review found saved wrong come back right.
 *
 * Issue 31 (an outside attack's reproducers, at ten times their sizes):
 * files that made the loader work or allocate without bound (H1 a unit
 * named 10^5 times, each compiled again; H2 2*10^5 sequences over a run
 * of 10^6 frames, each scanning it; R1 10^5 closures of 5,000 captured
 * values never filled: 8 GB) load, or are refused, at once -- an alarm
 * of 600 s is the hang guard, not a measure (tests/unit/test-ckpt-load
 * counts the work); a refused file changes nothing (W1: no global
 * defined, nothing run, also when it is refused for its root, its
 * program or an interrupt); a file cannot hand a program vlad's internal
 * values (U1), while states saved inside the prelude's code that holds
 * them (checkpoint-*j, gradient, jacobian, ...) still load and resume at
 * every step.
 */
#define _POSIX_C_SOURCE 200809L     /* mkdtemp, alarm */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "apitest.h"
#include "forge.h"

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
    return forge_frame(header, pl, len);
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


/* ===== Issue 31 ===== */

/* The file of checkpoint 'u' (a global of S) into *data (malloc'ed). */
static size_t save_global(VladState *S, const char *u, void **data)
{
    VladValue v;
    size_t len = 0;
    *data = NULL;
    if (!vlad_get_global(S, u, &v)
        || vlad_checkpoint_save_buffer(S, v, data, &len) != VLAD_OK)
        printf("  cannot save %s\n", u);
    return len;
}

static uint64_t leb(const unsigned char **p)
{
    uint64_t x = 0;
    for (int sh = 0;; sh += 7) {
        unsigned c = *(*p)++;
        x |= (uint64_t)(c & 0x7f) << sh;
        if (!(c & 0x80))
            return x;
    }
}

/* The code hash of the first unit a file written by vlad holds (its
   records start R_TEXT name text, R_UNIT 0 text rebound form hash). */
static uint64_t first_unit_hash(const unsigned char *f)
{
    const unsigned char *p = f + 32;
    if (*p++ != R_TEXT)
        return 0;
    for (int k = 0; k < 2; k++) {
        uint64_t n = leb(&p);
        p += n;
    }
    if (*p++ != R_UNIT || *p++ != 0)
        return 0;
    leb(&p);
    leb(&p);
    leb(&p);
    return leb(&p);
}

/* The hash the code of (define NAME ...), the first form of 'text',
   compiles to here (saved as u = (checkpoint NAME 1 0)); 0 when it does
   not compile. */
static uint64_t code_hash(const char *text, const char *name)
{
    VladState *S = fresh();
    size_t n = strlen(text) + 100;
    char *src = malloc(n);
    snprintf(src, n, "%s\n(define u (checkpoint %s 1 0))", text, name);
    uint64_t h = 0;
    void *data;
    if (vlad_eval_string(S, src, "t.vlad", NULL) == VLAD_OK
        && save_global(S, "u", &data) > 36) {
        h = first_unit_hash(data);
        free(data);
    }
    free(src);
    vlad_close(S);
    return h;
}

static VladStatus load_forged(VladState *S, Buf *b, VladValue *u)
{
    size_t len;
    unsigned char *f = frame(b, &len);
    VladStatus st = vlad_checkpoint_load_buffer(S, f, len, u);
    free(f);
    free(b->d);
    memset(b, 0, sizeof *b);
    return st;
}

/* H1, H2, R1 at ten times the reproducers' sizes: each loads and
   resumes, or is refused, at once (hang-1-unit-recompile.py 100000
   10000: 100 s; hang-1b-unit-memory.py 20000 1000: 765 MB; 
   hang-2-seg-rescan.py 20000: 23.5 s; leak-1-closure-amplification.py
   5000 10000: 812 MB). */
static void attack_sizes(void)
{
    VladState *S = fresh();
    VladValue u, r;
    Buf b = {0};
    /* H1: a unit of the last of 100,000 forms, 100,000 times */
    char *text = forge_repeat("(define (g x) x)\n", 100000, "", "");
    uint64_t hg = code_hash("(define (g x) x)", "g");
    CHECK(hg != 0);
    forge_units(&b, text, 99999, 100000, 0, hg);
    free(text);
    CHECK_STATUS(S, load_forged(S, &b, &u), VLAD_OK);
    CHECK_STATUS(S, vlad_resume(S, u, &r), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r), "7");
    /* a form 20,000 deep, 10,000 times, under a heap limit of 64 MB
       (each compilation kept 0.8 MB); a quarter as deep where the C stack
       guard stops it (a sanitizer build's frames are larger) */
    char *open;
    uint64_t h;
    int depth = 20000;
    for (;; depth /= 4) {
        open = forge_repeat("(+ x ", (size_t)depth, "(define (g x) ", "1");
        text = forge_repeat(")", (size_t)depth + 1, open, "");
        if ((h = code_hash(text, "g")) != 0)
            break;
        free(open);
        free(text);
    }
    forge_units(&b, text, 0, 10000, 0, h);
    vlad_set_heap_limit(S, (size_t)64 << 20);
    CHECK_STATUS(S, load_forged(S, &b, &u), VLAD_OK);
    CHECK_STATUS(S, vlad_resume(S, u, &r), VLAD_OK);
    char want[32];
    snprintf(want, sizeof want, "%d", depth * 7 + 1);
    CHECK_STR(vlad_to_string(S, r), want);
    vlad_set_heap_limit(S, 0);
    free(open);
    free(text);
    /* H2: 200,000 sequences over a run of 10^6 frames */
    CHECK_STR(apitest_eval(S, "(define (r n) (if (= n 0) 0 (+ 1 (r (- n "
                              "1)))))\n(define deep (checkpoint r 1000000 "
                              "1000000)) 0"), "0");
    void *data;
    size_t len = save_global(S, "deep", &data);
    CHECK(forge_sequences(&b, (unsigned char *)data + 32, len - 36, 200000,
                          1000000));
    free(data);
    CHECK_STR(apitest_eval(S, "(define deep 0) 0"), "0");
    CHECK_STATUS(S, load_forged(S, &b, &u), VLAD_OK);
    CHECK_STATUS(S, vlad_resume(S, u, &r), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r), "1000000");
    /* R1: 100,000 closures of 5,000 captured values, never filled,
       under a heap limit of 64 MB: refused for what it is, not for the
       memory it took */
    text = forge_mk_text(5000);
    uint64_t hmk = code_hash(text, "mk");
    CHECK(hmk != 0);
    forge_closures(&b, text, hmk, 100000, 5000, 0);
    free(text);
    vlad_set_heap_limit(S, (size_t)64 << 20);
    CHECK_STATUS(S, load_forged(S, &b, &u), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "its closures wait for more captured values than it "
                   "holds");
    CHECK_STR(apitest_eval(S, "(+ 1 2)"), "3");
    vlad_close(S);
}

/* A file of three million pairs (about 4 bytes each) needs some 70
   bytes a pair: under a heap limit of 64 MB it fails cleanly, and
   changes nothing; without, it loads. */
static void heap_limited(void)
{
    VladState *S = fresh();
    CHECK_STR(apitest_eval(S, "(define kept 1) kept"), "1");
    Buf b = {0};
    b_byte(&b, R_GLOBAL); b_str(&b, "kept"); b_byte(&b, VT_NUM); b_u(&b, 0);
    b_real(&b, 2);
    b_byte(&b, R_PAIR); b_byte(&b, VT_NIL); b_byte(&b, VT_NIL);
    uint64_t n = 3000000;
    for (uint64_t k = 2; k <= n; k++) {
        b_byte(&b, R_PAIR); b_byte(&b, VT_NIL);
        b_byte(&b, VT_PAIR); b_u(&b, k - 1);
    }
    b_byte(&b, R_CKPT); b_byte(&b, 0);
    b_byte(&b, VT_PRIM); b_byte(&b, 0); b_str(&b, "pair?");
    b_byte(&b, VT_PAIR); b_u(&b, n);
    b_u(&b, 0); b_i(&b, 0); b_i(&b, 0); b_i(&b, 0); b_byte(&b, 0);
    b_byte(&b, R_END); b_byte(&b, VT_CKPT); b_u(&b, n + 1);
    size_t len;
    unsigned char *f = frame(&b, &len);
    VladValue u, r;
    vlad_set_heap_limit(S, (size_t)64 << 20);
    CHECK_STATUS(S, vlad_checkpoint_load_buffer(S, f, len, &u),
                 VLAD_ERR_MEMORY);
    CHECK_STR(apitest_eval(S, "kept"), "1");
    vlad_set_heap_limit(S, 0);
    CHECK_STATUS(S, vlad_checkpoint_load_buffer(S, f, len, &u), VLAD_OK);
    CHECK_STATUS(S, vlad_resume(S, u, &r), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r), "#t");
    CHECK_STR(apitest_eval(S, "kept"), "2");
    free(f);
    free(b.d);
    vlad_close(S);
}

/* A chunk of 8,192 nodes, then 300,000 chunks that continue a prefix of
   it (each counted the prefix's partials: 2.4*10^9 steps). */
static void chunk_prefixes(void)
{
    Buf b = {0};
    b_byte(&b, R_CHUNK); b_u(&b, 0); b_u(&b, 0);                /* obj 0 */
    b_i(&b, 7); b_byte(&b, 1); b_byte(&b, 0); b_u(&b, 8192); b_u(&b, 8192);
    for (int j = 0; j < 8192; j++) {
        b_real(&b, 1.0);
        b_u(&b, TAPE_NONE);
        b_u(&b, TAPE_NONE);
    }
    b_u(&b, 0);
    for (int k = 0; k < 300000; k++) {
        b_byte(&b, R_CHUNK); b_u(&b, 1); b_u(&b, 8000); b_i(&b, 7);
        b_byte(&b, 1); b_byte(&b, 0); b_u(&b, 1); b_u(&b, 0); b_u(&b, 0);
    }
    b_byte(&b, R_CKPT); b_byte(&b, 1); b_byte(&b, VT_NUM); b_u(&b, 0);
    b_real(&b, 5); b_i(&b, 0); b_i(&b, 0); b_byte(&b, 0);
    b_byte(&b, R_END); b_byte(&b, VT_CKPT); b_u(&b, 300001);
    CHECK_INT(try_forged(&b, "300,000 chunks after a prefix of one"),
              VLAD_OK);
}

static char outbuf[4096];
static size_t nout;

static void out(void *ud, const char *text, size_t len)
{
    (void)ud;
    if (len > sizeof outbuf - 1 - nout)
        len = sizeof outbuf - 1 - nout;
    memcpy(outbuf + nout, text, len);
    nout += len;
    outbuf[nout] = '\0';
}

static VladState *fresh_out(void)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = out;
    nout = 0;
    outbuf[0] = '\0';
    VladState *S = vlad_open(&c);
    if (S != NULL)
        (void)apitest_eval(S, "(define secret 1) (define (id x) x)");
    return S;
}

/* secret is still 1, car still car, nothing printed. */
static void unchanged(VladState *S, const char *what)
{
    printf("  %s: %s", what, vlad_last_error(S)->text);
    CHECK_STR(apitest_eval(S, "secret"), "1");
    CHECK_STR(apitest_eval(S, "(car (list 5 6))"), "5");
    CHECK_STR(outbuf, "");
}

/* Globals that a refused file would define. */
static void plant(Buf *b)
{
    b_byte(b, R_GLOBAL); b_str(b, "car"); b_byte(b, VT_NUM); b_u(b, 0);
    b_real(b, 42);
    b_byte(b, R_GLOBAL); b_str(b, "secret"); b_byte(b, VT_STR);
    b_str(b, "planted by a refused file");
}

/* An autosave's information and program of 'levels' texts 'text'. */
static void program(Buf *b, size_t levels, const char *text)
{
    b_byte(b, R_PROGRAM); b_byte(b, 0); b_u(b, 1); b_u(b, 1); b_u(b, levels);
    for (size_t k = 0; k < levels; k++) {
        char name[32];
        snprintf(name, sizeof name, "p%zu.vlad", k);
        b_str(b, name);
        b_str(b, text);
        b_u(b, 1);
    }
}

/* A checkpoint of the pending (write-real 5). */
static void write_five(Buf *b)
{
    b_byte(b, R_CKPT); b_byte(b, 0);
    b_byte(b, VT_PRIM); b_byte(b, 0); b_str(b, "write-real");
    b_byte(b, VT_NUM); b_u(b, 0); b_real(b, 5);
    b_u(b, 0); b_i(b, 0); b_i(b, 0); b_i(b, 0); b_byte(b, 0);
}

/* W1: a file refused for any reason defines nothing and runs nothing:
   through vlad_checkpoint_load (a root that is no checkpoint, an
   internal value, an interrupt) and vlad_run_saved (a program nested
   too deep, a program text that does not read). */
static void refused_change_nothing(void)
{
    char dir[] = "/tmp/vlad-forged-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/f.ckpt", dir);
    for (int c = 0; c < 5; c++) {
        VladState *S = fresh_out();
        Buf b = {0};
        if (c >= 3) {
            b_byte(&b, R_INFO); b_u(&b, 0); b_str(&b, "");
        }
        plant(&b);
        if (c == 1) {
            b_byte(&b, R_GLOBAL); b_str(&b, "p-split"); b_byte(&b, VT_PRIM);
            b_byte(&b, 0); b_str(&b, "%cpj-split");
        }
        write_five(&b);
        if (c == 3)
            program(&b, 1002, "1");
        if (c == 4)
            program(&b, 1, "(define (f x) x");
        b_byte(&b, R_END);
        if (c == 0) {
            b_byte(&b, VT_NUM); b_u(&b, 0); b_real(&b, 1);
        } else {
            b_byte(&b, VT_CKPT); b_u(&b, 2 + (c == 1));
        }
        size_t len;
        unsigned char *f = frame(&b, &len);
        FILE *fp = fopen(path, "wb");
        CHECK(fp != NULL && fwrite(f, 1, len, fp) == len);
        if (fp != NULL)
            fclose(fp);
        VladValue u;
        if (c == 2) {
            vlad_interrupt(S);
            CHECK_STATUS(S, vlad_checkpoint_load(S, path, &u),
                         VLAD_ERR_INTERRUPTED);
        } else if (c < 3) {
            CHECK_STATUS(S, vlad_checkpoint_load(S, path, &u),
                         VLAD_ERR_IO);
        } else {
            CHECK(vlad_run_saved(S, path, &u) != VLAD_OK);
        }
        static const char *const why[] = {
            "a root that is no checkpoint", "an internal value",
            "an interrupt", "a program 1002 files deep",
            "a program text that does not read"};
        unchanged(S, why[c]);
        if (c == 2) {           /* the same file, not interrupted */
            CHECK_STATUS(S, vlad_checkpoint_load(S, path, &u), VLAD_OK);
            CHECK_STR(apitest_eval(S, "secret"),
                      "\"planted by a refused file\"");
        }
        free(f);
        free(b.d);
        vlad_close(S);
    }
    unlink(path);
    rmdir(dir);
}

/* U1: vlad's internal values where a program's values are: in globals,
   in what a procedure of the program captured (filled after the global
   names it), in a list, as a finished checkpoint's result, as the
   argument of a program's pending application; the attack's file of 24
   private names.  Each refused, nothing defined.  Accepted: the pending
   application of an internal procedure, and j*, *j, checkpoint, primops
   given one to call (the prelude's gradient does that). */
static void internal_values(void)
{
    uint64_t h = code_hash("(define (k a) (lambda (z) a))", "k");
    CHECK(h != 0);
    for (int c = 0; c < 8; c++) {
        VladState *S = fresh_out();
        Buf b = {0};
        plant(&b);
        uint64_t root = 0;
        switch (c) {
        case 0:                                 /* a global */
            b_byte(&b, R_GLOBAL); b_str(&b, "p"); b_byte(&b, VT_PRIM);
            b_byte(&b, 0); b_str(&b, "%cpj-plan");
            break;
        case 1:                                 /* a segment closure */
            b_byte(&b, R_CLOSURE); b_u(&b, 0); b_u(&b, CTL_SEG_FIRST);
            b_byte(&b, R_FILL); b_u(&b, 2);
            b_byte(&b, R_GLOBAL); b_str(&b, "p"); b_byte(&b, VT_CLOSURE);
            b_u(&b, 2);
            break;
        case 2:                                 /* captured, filled late */
            b_byte(&b, R_TEXT); b_str(&b, "t.vlad");
            b_str(&b, "(define (k a) (lambda (z) a))");
            b_byte(&b, R_UNIT); b_byte(&b, 0); b_u(&b, 2); b_u(&b, 0);
            b_u(&b, 0); b_u(&b, h);
            b_byte(&b, R_CLOSURE); b_u(&b, 4); b_u(&b, 2);    /* obj 4 */
            b_byte(&b, R_GLOBAL); b_str(&b, "p"); b_byte(&b, VT_CLOSURE);
            b_u(&b, 4);
            b_byte(&b, R_FILL); b_u(&b, 4); b_byte(&b, VT_PRIM);
            b_byte(&b, 0); b_str(&b, "%cpj-split");
            break;
        case 3:                                 /* in a list */
            b_byte(&b, R_PAIR); b_byte(&b, VT_PRIM); b_byte(&b, 0);
            b_str(&b, "%cpj-runner"); b_byte(&b, VT_NIL);
            b_byte(&b, R_PAIR); b_byte(&b, VT_NUM); b_u(&b, 0);
            b_real(&b, 1); b_byte(&b, VT_PAIR); b_u(&b, 2);
            b_byte(&b, R_GLOBAL); b_str(&b, "p"); b_byte(&b, VT_PAIR);
            b_u(&b, 3);
            break;
        case 4:                                 /* a finished result */
            b_byte(&b, R_CKPT); b_byte(&b, 1); b_byte(&b, VT_PRIM);
            b_byte(&b, 0); b_str(&b, "%cpj-split"); b_i(&b, 0); b_i(&b, 0);
            b_byte(&b, 0);
            root = 2;
            break;
        case 5:                                 /* a pending argument */
            b_byte(&b, R_PAIR); b_byte(&b, VT_PRIM); b_byte(&b, 0);
            b_str(&b, "%cpj-split"); b_byte(&b, VT_NIL);
            b_byte(&b, R_CKPT); b_byte(&b, 0);
            b_byte(&b, VT_PRIM); b_byte(&b, 0); b_str(&b, "pair?");
            b_byte(&b, VT_PAIR); b_u(&b, 2);
            b_u(&b, 0); b_i(&b, 0); b_i(&b, 0); b_i(&b, 0); b_byte(&b, 0);
            root = 3;
            break;
        case 6:                                 /* an effect log */
            b_byte(&b, R_LOG); b_u(&b, 0);
            b_byte(&b, R_GLOBAL); b_str(&b, "p"); b_byte(&b, X_RAW_LOG);
            b_u(&b, 2);
            break;
        default: {                              /* the attack's file */
            static const char *const names[] = {
                "%cpj-runner", "%cpj-advancer", "%cpj-check-cotangent",
                "%cpj-pilot-steps", "%cpj-tape-bytes", "%cpj-plan",
                "%cpj-split", "%cpj-start", "%checkpoint-input",
                "%cpj-hold", "%cpj-position", "%cpj-release",
                "%cpj-count-leaf", "%cpj-activate", "%cpj-empty-log",
                "%cpj-recorder", "%cpj-recorded", "%cpj-keep",
                "%type-error", "%check-tuple-call", "%real"};
            for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
                b_byte(&b, R_GLOBAL);
                char g[64];
                snprintf(g, sizeof g, "p-%s", names[k] + 1);
                b_str(&b, g);
                b_byte(&b, VT_PRIM); b_byte(&b, 0); b_str(&b, names[k]);
            }
            static const int ctl[] = {CTL_SEG_FIRST, CTL_STARJ_ACTIVE,
                                      CTL_ADVANCE};
            for (int k = 0; k < 3; k++) {
                b_byte(&b, R_CLOSURE); b_u(&b, 0); b_u(&b, ctl[k]);
                b_byte(&b, R_FILL); b_u(&b, 23 + 2 * k);
                b_byte(&b, R_GLOBAL); b_str(&b, k == 0 ? "p-cpj-first"
                                                : k == 1 ? "p-cpj-*j"
                                                         : "p-advance");
                b_byte(&b, VT_CLOSURE); b_u(&b, 23 + 2 * k);
            }
            break;
        }
        }
        if (root == 0)
            write_five(&b);
        b_byte(&b, R_END);
        if (root != 0) {
            b_byte(&b, VT_CKPT); b_u(&b, root);
        } else {
            b_byte(&b, VT_NIL);
        }
        VladValue u;
        CHECK_STATUS(S, load_forged(S, &b, &u), VLAD_ERR_IO);
        CHECK_CONTAINS(vlad_last_error(S)->message,
                       "an internal value of vlad");
        unchanged(S, "an internal value");
        CHECK_STR(apitest_eval(S, "p"),
                  "ERROR 3: test:1:1: error: unbound variable p\n"
                  "  in top level at test:1:1\n");
        vlad_close(S);
    }
    /* the pending application of the driver's own (%cpj-split 10 2 1)
       (a tuple: 10 . (2 . 1)) is accepted; (*j %cpj-*j 1 1), made by no
       code of the prelude, is not */
    VladState *S = fresh_out();
    Buf b = {0};
    b_byte(&b, R_PAIR); b_byte(&b, VT_NUM); b_u(&b, 0); b_real(&b, 2);
    b_byte(&b, VT_NUM); b_u(&b, 0); b_real(&b, 1);              /* obj 0 */
    b_byte(&b, R_PAIR); b_byte(&b, VT_NUM); b_u(&b, 0); b_real(&b, 10);
    b_byte(&b, VT_PAIR); b_u(&b, 0);                            /* obj 1 */
    b_byte(&b, R_CKPT); b_byte(&b, 0);                          /* obj 2 */
    b_byte(&b, VT_PRIM); b_byte(&b, 0); b_str(&b, "%cpj-split");
    b_byte(&b, VT_PAIR); b_u(&b, 1);
    b_u(&b, 0); b_i(&b, 0); b_i(&b, 0); b_i(&b, 0); b_byte(&b, 0);
    b_byte(&b, R_END); b_byte(&b, VT_CKPT); b_u(&b, 2);
    VladValue u, r;
    CHECK_STATUS(S, load_forged(S, &b, &u), VLAD_OK);
    CHECK_STATUS(S, vlad_resume(S, u, &r), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r), "6");       /* binomial's split */
    b_byte(&b, R_CLOSURE); b_u(&b, 0); b_u(&b, CTL_STARJ);      /* obj 0 */
    b_byte(&b, R_FILL); b_u(&b, 0);
    b_byte(&b, R_CLOSURE); b_u(&b, 0); b_u(&b, CTL_STARJ_ACTIVE);
    b_byte(&b, R_FILL); b_u(&b, 1);                             /* obj 1 */
    b_byte(&b, R_PAIR); b_byte(&b, VT_NUM); b_u(&b, 0); b_real(&b, 1);
    b_byte(&b, VT_NUM); b_u(&b, 0); b_real(&b, 1);              /* obj 2 */
    b_byte(&b, R_PAIR); b_byte(&b, VT_CLOSURE); b_u(&b, 1);
    b_byte(&b, VT_PAIR); b_u(&b, 2);                            /* obj 3 */
    b_byte(&b, R_CKPT); b_byte(&b, 0);                          /* obj 4 */
    b_byte(&b, VT_CLOSURE); b_u(&b, 0); b_byte(&b, VT_PAIR); b_u(&b, 3);
    b_u(&b, 0); b_i(&b, 0); b_i(&b, 0); b_i(&b, 0); b_byte(&b, 0);
    b_byte(&b, R_END); b_byte(&b, VT_CKPT); b_u(&b, 4);
    CHECK_STATUS(S, load_forged(S, &b, &u), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "an internal value of vlad (%cpj-*j)");
    vlad_close(S);
}

/* States saved inside the prelude's code, which holds internal values
   and passes them (gradient's wrapper of f, jacobian's (map %leaves
   cols), checkpoint-*j's driver, the list procedures' checks): at every
   step of each call (every third under the strategies of checkpoint-*j),
   saved, loaded into a fresh state and resumed: the uninterrupted
   value. */
static int every_step(const char *strategy, const char *call, int stride)
{
    static const char prog[] =
        "(define (f v) (let ((a (car v)) (b (cadr v))) (* (sin a) (exp b))))"
        "\n(define (g v) (list (* (car v) (cadr v)) (sin (car v))"
        " (exp (cadr v))))\n(define (h v) (car (g v)))\n"
        "(define v0 (list 0.3 0.7)) 0";
    VladState *A = fresh();
    CHECK_STATUS(A, vlad_set_checkpoint(A, strategy), VLAD_OK);
    CHECK_STR(apitest_eval(A, prog), "0");
    char src[512], want[4096];
    snprintf(want, sizeof want, "%s", apitest_eval(A, call));
    snprintf(src, sizeof src, "(cadr (primops (lambda (_) %s) 0))", call);
    int n = atoi(apitest_eval(A, src)), saved = 0;
    CHECK(n > 3);
    for (int k = 1; k < n; k += stride) {
        snprintf(src, sizeof src,
                 "(define u (checkpoint (lambda (_) %s) 0 %d)) 0", call, k);
        CHECK_STR(apitest_eval(A, src), "0");
        void *data;
        size_t len = save_global(A, "u", &data);
        VladState *B = fresh();
        VladValue u, r;
        CHECK_STATUS(B, vlad_set_checkpoint(B, strategy), VLAD_OK);
        if (vlad_checkpoint_load_buffer(B, data, len, &u) != VLAD_OK) {
            printf("  %s, step %d of %d: %s", call, k, n,
                   vlad_last_error(B)->text);
            CHECK(0);
        } else {
            CHECK_STATUS(B, vlad_resume(B, u, &r), VLAD_OK);
            CHECK_STR(vlad_to_string(B, r), want);
        }
        saved++;
        vlad_close(B);
        free(data);
    }
    vlad_close(A);
    return saved;
}

static void internal_states(void)
{
    static const char *const calls[] = {
        "(gradient f v0)", "(gradient-forward f v0)",
        "(derivative (lambda (x) (* x (sin x))) 0.4)",
        "(directional-derivative f v0 (list 1 2))", "(hessian f v0)",
        "(hessian-vector-product f v0 (list 1 2))", "(jacobian g v0)",
        "(jacobian h v0)", "(list (v+ v0 v0) (k*v 2 v0) (dot v0 v0) "
        "(magnitude v0) (map2 + v0 v0) (fold-left + 0 v0))"};
    static const char *const strategies[] = {
        "binomial", "bisection", "binomial,slots=2,base=1",
        "binomial,budget=24k"};
    int saved = 0;
    for (size_t c = 0; c < sizeof calls / sizeof *calls; c++)
        saved += every_step("binomial", calls[c], 1);
    for (size_t s = 0; s < sizeof strategies / sizeof *strategies; s++)
        saved += every_step(strategies[s],
                            "(list (checkpoint-*j f v0 1.5) "
                            "(checkpoint-*j (lambda (v) (gradient f v)) v0 "
                            "(list 1 1)))", 3);
    printf("  %d states saved inside the prelude's code resumed\n", saved);
}

int main(void)
{
    alarm(600);             /* a hang guard: the whole test takes seconds */
    get_header();
    cont_slots();
    offtape_node();
    doubling_frames();
    keep_positions();
    legitimate();
    attack_sizes();
    heap_limited();
    chunk_prefixes();
    refused_change_nothing();
    internal_values();
    internal_states();
    return CHECK_DONE();
}
