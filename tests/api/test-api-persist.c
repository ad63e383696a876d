/*
 * tests/api/test-api-persist.c -- saved checkpoints (vlad_checkpoint_save,
 * _load and their buffer forms): round trips between states, files,
 * globals, host primitives, interrupted evaluations, AD state, and a
 * loader that refuses every damaged file: each truncation, 10,000 bit
 * flips, foreign headers -- an error, never a crash or a wrong result.
 * (tests/persist/roundtrip.py does random programs across processes.)
 */
#define _POSIX_C_SOURCE 200809L     /* mkdtemp, access */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include "apitest.h"

static char printed[1 << 16];
static size_t nprinted;

static void out(void *ud, const char *text, size_t len)
{
    (void)ud;
    if (nprinted + len < sizeof printed) {
        memcpy(printed + nprinted, text, len);
        nprinted += len;
        printed[nprinted] = '\0';
    }
}

static VladState *fresh(void)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = out;
    return vlad_open(&c);
}

/* (primops resume u) in S, printed ("(value steps)"). */
static const char *resume_counted(VladState *S, VladValue u, char *buf,
                                  size_t n)
{
    vlad_set_global(S, "u", u);
    snprintf(buf, n, "%s", apitest_eval(S, "(primops resume u)"));
    return buf;
}

/* Save u from A to a buffer, load it into a fresh state, and compare
   what resuming gives (value and steps) there and in A. */
static void round_trip(VladState *A, VladValue u, const char *what)
{
    void *data;
    size_t len;
    CHECK_STATUS(A, vlad_checkpoint_save_buffer(A, u, &data, &len), VLAD_OK);
    if (data == NULL)
        return;
    VladState *B = fresh();
    VladValue v;
    CHECK_STATUS(B, vlad_checkpoint_load_buffer(B, data, len, &v), VLAD_OK);
    char a[4096], b[4096], b2[4096];
    resume_counted(A, u, a, sizeof a);
    resume_counted(B, v, b, sizeof b);
    resume_counted(B, v, b2, sizeof b2);    /* multi-shot after loading */
    if (strcmp(a, b) != 0 || strcmp(a, b2) != 0)
        printf("  (%s)\n", what);
    CHECK_STR(b, a);
    CHECK_STR(b2, a);
    vlad_close(B);
    free(data);
}

/* Every split k of (f x) in 'program', round-tripped. */
static void every_split(const char *program, int limit)
{
    VladState *A = fresh();
    CHECK_STR(apitest_eval(A, program), "()");
    for (int k = 0; k <= limit; k++) {
        char src[128];
        snprintf(src, sizeof src, "(checkpoint f x %d)", k);
        VladValue u;
        CHECK_STATUS(A, vlad_eval_string(A, src, "t", &u), VLAD_OK);
        round_trip(A, u, src);
    }
    vlad_close(A);
}

static void splits(void)
{
    /* loops, non-tail recursion, closures, lists, letrec cycles */
    every_split("(define (loop i acc) (if (= i 0) acc (loop (- i 1) "
                "(+ acc (* i i)))))\n"
                "(define (depth n) (if (= n 0) '() (cons n (depth (- n 1)))))"
                "\n(define (f x) (let* ((a (loop 20 x)) (b (depth 8))"
                " (c (map (lambda (y) (* y a)) b))) (list a b c 'sym \"s\"))"
                ")\n(define x 3) '()", 60);
    every_split("(define (f x) (letrec ((ev (lambda (n) (if (= n 0) #t "
                "(od (- n 1))))) (od (lambda (n) (if (= n 0) #f "
                "(ev (- n 1)))))) (list (ev x) (od x))))\n(define x 9) '()",
                25);
    /* AD suspended mid-way: j*, *j, nested, checkpoint-*j */
    every_split("(define (g y) (let loop ((i 0) (a y)) (if (< i 12) "
                "(loop (+ i 1) (* (sin a) 1.5)) a)))\n"
                "(define (f x) (list (*j g x 1) (j* g x 1) "
                "(*j (lambda (z) (car (j* g z 1))) x 1)"
                " (checkpoint-*j g x 1)))\n(define x 0.7) '()", 140);
    /* a checkpoint inside the state, and primops */
    every_split("(define (h y) (+ y (* y y)))\n"
                "(define (f x) (let ((u (checkpoint h x 1))) "
                "(list (resume u) (primops h x) (resume u))))\n"
                "(define x 2) '()", 12);
}

static void files(void)
{
    char dir[] = "/tmp/vlad-persist-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], bad[256];
    snprintf(path, sizeof path, "%s/a.ckpt", dir);
    snprintf(bad, sizeof bad, "%s/no/such/dir/a.ckpt", dir);
    VladState *A = fresh();
    CHECK_STR(apitest_eval(A, "(define (f x) (let loop ((i 0) (a x)) "
                              "(if (< i 50) (loop (+ i 1) (+ a i)) a))) "
                              "'()"), "()");
    VladValue u, w, v;
    CHECK_STATUS(A, vlad_eval_string(A, "(checkpoint f 1 20)", "t", &u),
                 VLAD_OK);
    CHECK_STATUS(A, vlad_eval_string(A, "(checkpoint f 2 30)", "t", &w),
                 VLAD_OK);
    CHECK_STATUS(A, vlad_checkpoint_save(A, u, path), VLAD_OK);
    /* saving again replaces the file whole */
    CHECK_STATUS(A, vlad_checkpoint_save(A, w, path), VLAD_OK);
    VladState *B = fresh();
    CHECK_STATUS(B, vlad_checkpoint_load(B, path, &v), VLAD_OK);
    char a[256], b[256];
    CHECK_STR(resume_counted(B, v, b, sizeof b),
              resume_counted(A, w, a, sizeof a));
    /* no temporary file is left beside it */
    DIR *dp = opendir(dir);
    int entries = 0;
    for (struct dirent *e; dp != NULL && (e = readdir(dp)) != NULL;)
        entries += e->d_name[0] != '.';
    if (dp != NULL)
        closedir(dp);
    CHECK_INT(entries, 1);
    /* errors */
    CHECK_STATUS(A, vlad_checkpoint_save(A, u, bad), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(A)->message, "cannot write");
    CHECK_STATUS(B, vlad_checkpoint_load(B, bad, &v), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(B)->message, "cannot read");
    CHECK(vlad_is_nil(v));
    CHECK_STATUS(A, vlad_checkpoint_save(A, vlad_number(1), path),
                 VLAD_ERR_ARGUMENT);
    CHECK_CONTAINS(vlad_last_error(A)->message, "expected a checkpoint");
    CHECK_STATUS(A, vlad_checkpoint_save(A, u, NULL), VLAD_ERR_ARGUMENT);
    CHECK_STATUS(B, vlad_checkpoint_load(B, NULL, &v), VLAD_ERR_ARGUMENT);
    CHECK_STATUS(B, vlad_checkpoint_load_buffer(B, NULL, 5, &v),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(NULL, vlad_checkpoint_save(NULL, u, path),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(NULL, vlad_checkpoint_load(NULL, path, &v),
                 VLAD_ERR_ARGUMENT);
    void *data = (void *)1;
    size_t len = 1;
    CHECK_STATUS(A, vlad_checkpoint_save_buffer(A, u, NULL, &len),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(A, vlad_checkpoint_save_buffer(A, vlad_nil(), &data, &len),
                 VLAD_ERR_ARGUMENT);
    CHECK(data == NULL && len == 0);
    /* a program file is not a checkpoint */
    FILE *f = fopen(path, "w");
    fputs("(define x 1)\n", f);
    fclose(f);
    CHECK_STATUS(B, vlad_checkpoint_load(B, path, &v), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(B)->message, "VLADCKPT");
    CHECK_STR(vlad_last_error(B)->file, path);
    unlink(path);
    rmdir(dir);
    vlad_close(A);
    vlad_close(B);
}

/* The saved computation reads user globals: loading defines them. */
static void globals(void)
{
    VladState *A = fresh();
    CHECK_STR(apitest_eval(A, "(define scale 3)\n(define (sq y) (* y y))\n"
                              "(define (f x) (let loop ((i 0) (a x)) (if "
                              "(< i 10) (loop (+ i 1) (+ a (sq scale))) "
                              "a))) '()"), "()");
    VladValue u;
    CHECK_STATUS(A, vlad_eval_string(A, "(checkpoint f 1 5)", "t", &u),
                 VLAD_OK);
    round_trip(A, u, "globals");
    void *data;
    size_t len;
    CHECK_STATUS(A, vlad_checkpoint_save_buffer(A, u, &data, &len), VLAD_OK);
    VladState *B = fresh();
    CHECK(!vlad_get_global(B, "scale", NULL));
    VladValue v;
    CHECK_STATUS(B, vlad_checkpoint_load_buffer(B, data, len, &v), VLAD_OK);
    VladValue g;
    CHECK(vlad_get_global(B, "scale", &g) && vlad_to_number(g) == 3);
    CHECK_STR(apitest_eval(B, "(sq 5)"), "25");
    free(data);
    vlad_close(A);
    vlad_close(B);
}

static VladStatus twice(VladState *S, void *ud, const VladValue *args,
                        VladValue *result)
{
    (void)S, (void)ud;
    *result = vlad_number(2 * vlad_to_number(args[0]));
    return VLAD_OK;
}

static VladStatus halt_at(VladState *S, void *ud, const VladValue *args,
                          VladValue *result)
{
    int *calls = ud;
    if (++*calls == 3)
        vlad_interrupt(S);
    *result = args[0];
    return VLAD_OK;
}

static void host_prims(void)
{
    VladHostPrim p = {"host-twice", 1, twice, NULL, {NULL, NULL}, 0};
    VladState *A = fresh();
    CHECK_STATUS(A, vlad_register(A, &p), VLAD_OK);
    CHECK_STR(apitest_eval(A, "(define (f x) (let loop ((i 0) (a x)) (if "
                              "(< i 10) (loop (+ i 1) (host-twice a)) a))) "
                              "'()"), "()");
    VladValue u;
    CHECK_STATUS(A, vlad_eval_string(A, "(checkpoint f 1 6)", "t", &u),
                 VLAD_OK);
    void *data;
    size_t len;
    CHECK_STATUS(A, vlad_checkpoint_save_buffer(A, u, &data, &len), VLAD_OK);
    VladState *B = fresh();
    VladValue v;
    CHECK_STATUS(B, vlad_checkpoint_load_buffer(B, data, len, &v),
                 VLAD_ERR_RUNTIME);
    CHECK_CONTAINS(vlad_last_error(B)->message, "'host-twice'");
    CHECK_CONTAINS(vlad_last_error(B)->message, "not registered");
    CHECK(!vlad_get_global(B, "f", NULL));   /* nothing was defined */
    CHECK_STATUS(B, vlad_register(B, &p), VLAD_OK);
    CHECK_STATUS(B, vlad_checkpoint_load_buffer(B, data, len, &v), VLAD_OK);
    char a[256], b[256];
    CHECK_STR(resume_counted(B, v, b, sizeof b),
              resume_counted(A, u, a, sizeof a));
    CHECK_STR(b, "(1024 17)");
    free(data);
    vlad_close(A);
    vlad_close(B);
}

/* An evaluation stopped by vlad_interrupt, saved, finished elsewhere. */
static void interrupted(void)
{
    int calls = 0;
    VladHostPrim p = {"tick", 1, halt_at, &calls, {NULL, NULL}, 0};
    VladState *A = fresh();
    CHECK_STATUS(A, vlad_register(A, &p), VLAD_OK);
    const char *prog = "(define (work i n acc) (if (= i n) acc (work (+ i 1)"
                       " n (+ acc (sqrt (if (= (modulo i 5000) 0) (tick i) "
                       "i)))))) '()";
    CHECK_STR(apitest_eval(A, prog), "()");
    VladValue r, u, v;
    CHECK_STATUS(A, vlad_eval_string(A, "(work 0 40000 0)", "t", &r),
                 VLAD_ERR_INTERRUPTED);
    CHECK(vlad_interrupted(A, &u));
    void *data;
    size_t len;
    CHECK_STATUS(A, vlad_checkpoint_save_buffer(A, u, &data, &len), VLAD_OK);
    CHECK(vlad_interrupted(A, NULL));       /* saving is no evaluation */
    VladState *B = fresh();
    CHECK_STATUS(B, vlad_register(B, &p), VLAD_OK);
    CHECK_STATUS(B, vlad_checkpoint_load_buffer(B, data, len, &v), VLAD_OK);
    CHECK_STATUS(B, vlad_resume(B, v, &r), VLAD_OK);
    calls = 100;
    char want[64];
    snprintf(want, sizeof want, "%s",
             apitest_eval(A, "(work 0 40000 0)"));
    CHECK_STR(vlad_to_string(B, r), want);
    free(data);
    vlad_close(A);
    vlad_close(B);
}

/* A file whose header says another format, architecture or build. */
static void foreign(const unsigned char *data, size_t len)
{
    VladState *B = fresh();
    unsigned char *c = malloc(len + 1);
    VladValue v;
    struct {
        size_t at;
        unsigned char value;
        const char *says;
    } edits[] = {
        {8, 99, "format 99"}, {12, 4, "architecture"}, {13, 2, "architecture"},
        {14, 4, "architecture"}, {16, 0, "checksum"}, {0, 'W', "VLADCKPT"},
    };
    for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
        memcpy(c, data, len);
        c[edits[e].at] = edits[e].value;
        CHECK_STATUS(B, vlad_checkpoint_load_buffer(B, c, len, &v),
                     VLAD_ERR_IO);
        CHECK_CONTAINS(vlad_last_error(B)->message, edits[e].says);
    }
    memcpy(c, data, len);
    c[len] = 0;
    CHECK_STATUS(B, vlad_checkpoint_load_buffer(B, c, len + 1, &v),
                 VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(B)->message, "longer than");
    free(c);
    vlad_close(B);
}

/* Every truncation, and 10,000 bit flips: an error or the right result. */
static void damaged(void)
{
    VladState *A = fresh();
    CHECK_STR(apitest_eval(A, "(define (g y) (let loop ((i 0) (a y)) (if "
                              "(< i 8) (loop (+ i 1) (* (sin a) 2)) a)))\n"
                              "(define (f x) (list (*j g x 1) "
                              "(checkpoint-*j g x 1) (j* g x 1))) '()"),
              "()");
    VladValue u;
    CHECK_STATUS(A, vlad_eval_string(A, "(checkpoint f 0.5 30)", "t", &u),
                 VLAD_OK);
    char want[4096];
    resume_counted(A, u, want, sizeof want);
    void *data;
    size_t len;
    CHECK_STATUS(A, vlad_checkpoint_save_buffer(A, u, &data, &len), VLAD_OK);
    VladState *B = fresh();
    VladValue v;
    int refused = 0;
    for (size_t n = 0; n < len; n++)
        refused += vlad_checkpoint_load_buffer(B, data, n, &v) == VLAD_ERR_IO;
    CHECK_INT(refused, len);
    unsigned char *c = malloc(len);
    uint64_t seed = 12345;
    int errors = 0, right = 0, wrong = 0;
    for (int t = 0; t < 10000; t++) {
        memcpy(c, data, len);
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        size_t bit = (size_t)(seed >> 33) % (len * 8);
        c[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        if (vlad_checkpoint_load_buffer(B, c, len, &v) != VLAD_OK) {
            errors++;
            continue;
        }
        char got[4096];
        if (strcmp(resume_counted(B, v, got, sizeof got), want) == 0)
            right++;
        else
            wrong++;
    }
    CHECK_INT(errors + right, 10000);
    CHECK_INT(wrong, 0);
    foreign(data, len);
    free(c);
    free(data);
    vlad_close(A);
    vlad_close(B);
}

/* Autosave: a program saved as it runs, finished by vlad_run_saved in a
   fresh state with the rest of the output and the same values. */
static void autosave(void)
{
    char dir[] = "/tmp/vlad-autosave-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], inc[256], bad[256], prog[1024];
    snprintf(path, sizeof path, "%s/run.ckpt", dir);
    snprintf(inc, sizeof inc, "%s/part.vlad", dir);
    snprintf(bad, sizeof bad, "%s/no/such/run.ckpt", dir);
    FILE *f = fopen(inc, "w");
    fputs("(define (loop i n acc) (if (= i n) acc (loop (+ i 1) n "
          "(+ acc (if (= (modulo i 20000) 0) (write-real i) 0)))))\n"
          "(loop 0 100000 0)\n(define b (*j (lambda (x) (* x (loop 0 "
          "50000 x))) 2 1))\n", f);
    fclose(f);
    snprintf(prog, sizeof prog, "(define a 7)\n(include \"%s\")\n"
             "(write-real (+ a 1))\n(loop 0 60000 a)\nb\n", inc);
    VladConfig c;
    vlad_config_init(&c);
    c.write = out;
    c.echo_results = 1;
    VladState *A = vlad_open(&c);
    CHECK_STATUS(A, vlad_set_autosave(A, path, -1, NULL), VLAD_ERR_ARGUMENT);
    CHECK_STATUS(A, vlad_set_autosave(A, "", 1, NULL), VLAD_ERR_ARGUMENT);
    CHECK_STATUS(NULL, vlad_set_autosave(NULL, path, 1, NULL),
                 VLAD_ERR_ARGUMENT);
    /* every check saves: the file is the last save before the end */
    CHECK_STATUS(A, vlad_set_autosave(A, path, 0, "the note"), VLAD_OK);
    nprinted = 0;
    CHECK_STATUS(A, vlad_eval_string(A, prog, "prog", NULL), VLAD_OK);
    char whole[sizeof printed];
    memcpy(whole, printed, nprinted + 1);
    size_t nwhole = nprinted;
    VladSavedInfo info;
    CHECK_STATUS(A, vlad_saved_info(A, path, &info), VLAD_OK);
    CHECK_INT(info.program, 1);
    CHECK_STR(info.note, "the note");
    CHECK(info.output_bytes > 0 && info.output_bytes <= nwhole);
    VladState *B = vlad_open(&c);
    nprinted = 0;
    printed[0] = '\0';
    VladValue v;
    CHECK_STATUS(B, vlad_run_saved(B, path, &v), VLAD_OK);
    if (info.output_bytes <= nwhole)
        CHECK_STR(printed, whole + info.output_bytes);
    CHECK_STR(apitest_eval(B, "b"), apitest_eval(A, "b"));
    CHECK_STR(vlad_to_string(B, v), apitest_eval(A, "b"));
    /* a path that cannot be written is refused when autosave starts
       (then autosave is off); one that fails later does not stop the
       evaluation (tests/api/test-api-savefile.c) */
    CHECK_STATUS(A, vlad_set_autosave(A, bad, 0, NULL), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(A)->message, "cannot autosave to");
    CHECK_CONTAINS(vlad_last_error(A)->message, "No such file");
    CHECK_STATUS(A, vlad_eval_string(A, "(loop 0 10000 0)", "t", NULL),
                 VLAD_OK);
    /* only program text is saved: not a vlad_call */
    unlink(path);
    CHECK_STATUS(A, vlad_set_autosave(A, path, 0, NULL), VLAD_OK);
    VladValue loop, r;
    CHECK(vlad_get_global(A, "loop", &loop));
    VladValue args = vlad_cons(A, vlad_number(0), vlad_cons(A,
                               vlad_number(30000), vlad_number(0)));
    CHECK_STATUS(A, vlad_call(A, loop, args, &r), VLAD_OK);
    CHECK(access(path, F_OK) != 0);
    CHECK_STATUS(A, vlad_set_autosave(A, NULL, 0, NULL), VLAD_OK);
    CHECK_STATUS(A, vlad_eval_string(A, "(loop 0 30000 0)", "t", NULL),
                 VLAD_OK);
    CHECK(access(path, F_OK) != 0);
    /* a plain checkpoint: vlad_run_saved resumes it, nothing echoed */
    VladValue u;
    CHECK_STATUS(A, vlad_eval_string(A, "(checkpoint loop (cons 0 (cons 100 5)) 40)",
                                     "t", &u), VLAD_OK);
    CHECK_STATUS(A, vlad_checkpoint_save(A, u, path), VLAD_OK);
    CHECK_STATUS(B, vlad_saved_info(B, path, &info), VLAD_OK);
    CHECK_INT(info.program, 0);
    nprinted = 0;
    printed[0] = '\0';
    CHECK_STATUS(B, vlad_run_saved(B, path, &v), VLAD_OK);
    CHECK_STR(vlad_to_string(B, v), "5");
    CHECK_STR(printed, "");       /* (0 was printed before step 40) */
    CHECK_STATUS(B, vlad_run_saved(B, bad, &v), VLAD_ERR_IO);
    CHECK_STATUS(B, vlad_saved_info(B, bad, &info), VLAD_ERR_IO);
    CHECK_STR(info.note, "");
    unlink(path);
    unlink(inc);
    rmdir(dir);
    vlad_close(A);
    vlad_close(B);
}

/* The example programs and checkpoint-*j's corpus, each saved at every
   check (the file is then its last save) and finished from that file in
   a fresh state: the same output after the save point, the same last
   value. */
static void autosave_programs(void)
{
    static const char *const files[] = {
        "examples/demo.vlad", "examples/closures.vlad",
        "examples/checkpoints.vlad", "examples/gradient-descent.vlad",
        "examples/hessian.vlad", "examples/lists.vlad",
        "examples/nested.vlad", "examples/newton.vlad",
        "examples/pendulum.vlad", "tests/cpj/corpus-hand-hof.vlad",
        "tests/cpj/corpus-mlp.vlad", "tests/cpj/corpus-ode.vlad",
        "tests/cpj/corpus-matrix.vlad", "tests/cpj/corpus-deep-recursion.vlad",
        "tests/cpj/corpus-nested-three.vlad", "tests/cpj/corpus-newton.vlad",
        "tests/cpj/corpus-mutual.vlad", "tests/cpj/corpus-display.vlad",
        "tests/cpj/corpus-deep-list.vlad", "tests/cpj/corpus-activity.vlad",
    };
    const char *top = getenv("srcdir") != NULL ? getenv("srcdir") : ".";
    char dir[] = "/tmp/vlad-autosave-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char save[256];
    snprintf(save, sizeof save, "%s/run.ckpt", dir);
    VladConfig c;
    vlad_config_init(&c);
    c.write = out;
    c.echo_results = 1;
    int tried = 0;
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", top, files[k]);
        if (access(path, R_OK) != 0)
            continue;
        VladState *A = vlad_open(&c);
        CHECK_STATUS(A, vlad_set_autosave(A, save, 0, NULL), VLAD_OK);
        nprinted = 0;
        printed[0] = '\0';
        VladValue va, vb;
        VladStatus st = vlad_eval_file(A, path, &va);
        char whole[sizeof printed];
        memcpy(whole, printed, nprinted + 1);
        size_t nwhole = nprinted;
        if (st != VLAD_OK || access(save, F_OK) != 0) {
            vlad_close(A);          /* a program too short to be saved */
            continue;
        }
        tried++;
        VladSavedInfo info;
        VladState *B = vlad_open(&c);
        CHECK_STATUS(B, vlad_saved_info(B, save, &info), VLAD_OK);
        nprinted = 0;
        printed[0] = '\0';
        CHECK_STATUS(B, vlad_run_saved(B, save, &vb), VLAD_OK);
        if (info.output_bytes > nwhole ||
            strcmp(printed, whole + info.output_bytes) != 0)
            printf("  (%s)\n", files[k]);
        CHECK(info.output_bytes <= nwhole);
        if (info.output_bytes <= nwhole)
            CHECK_STR(printed, whole + info.output_bytes);
        char a[4096];
        snprintf(a, sizeof a, "%s", vlad_to_string(A, va));
        CHECK_STR(vlad_to_string(B, vb), a);
        unlink(save);
        vlad_close(A);
        vlad_close(B);
    }
    printf("autosave_programs: %d programs saved and finished\n", tried);
    CHECK(tried >= 5);
    rmdir(dir);
}

int main(void)
{
    splits();
    files();
    globals();
    host_prims();
    interrupted();
    damaged();
    autosave();
    autosave_programs();
    return CHECK_DONE();
}
