/*
 * tests/api/test-api-spill.c -- checkpoint-*j with spill=DIR through the
 * API (vlad_set_checkpoint; doc/embedding.md)
 *
 * Covers: states of several threads spilling at the same time into the
 * same directory (each state its own file: results right in every
 * thread, nothing left in the directory); the statistics of spilling
 * (VladCpjStats: bytes written and read, in all and in the last run); a
 * checkpoint captured in the middle of a spilling run (checkpoint) saved
 * to a buffer -- the states it holds in
 * the spill file come back to be saved -- and resumed in a fresh state,
 * and resumed in its own state twice; a state closed while states of it
 * are in its file; the directory changed between runs again and again
 * (the files of the old ones closed); a directory that cannot be used.
 *
 * Issue 31: runs that fail (the step limit, an error, an interrupt)
 * switching directories again and again under a low RLIMIT_NOFILE: no
 * run fails for want of a descriptor, at most VL_SPILL_FILES (4) spill
 * files open (R3); evaluations interrupted in eight directories, kept
 * suspended, resumed afterwards with the right results (the records of
 * four moved out of files that had to close), one of them twice; a
 * spill file damaged in the middle of a run -- cut to nothing, cut in half, zeroed,
 * a byte of each record changed, records of equal length swapped -- is
 * an error at the checkpoint-*j call (VLAD_ERR_IO, FILE:LINE:COL, a
 * backtrace, DIR, the record's offset and what is wrong), never a
 * result, and the state goes on (U2, W6); a damaged record of a
 * suspended evaluation moved out of its file is that error when the
 * evaluation is resumed, the others resume.  The damage is done by a
 * host primitive the run calls at a fixed step, on the file it finds
 * open in /proc/self/fd: deterministic.
 */
#define _DEFAULT_SOURCE 1
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vlad.h>
#include "apitest.h"

/* A run long enough, with states big enough, that a small budget sends
   states to the file: a list of 40 reals scaled 300 times. */
static const char prog[] =
    "(define (build n x acc) (if (= n 0) acc "
    "(build (- n 1) x (cons (* x n) acc))))"
    "(define (scale xs c) (if (null? xs) '() "
    "(cons (* c (car xs)) (scale (cdr xs) c))))"
    "(define (f x) (let loop ((i 0) (xs (build 40 (car x) '()))) "
    "(if (= i 300) (fold-left + 0 xs) "
    "(loop (+ i 1) (scale xs (+ 1 (* 0.001 (sin (car xs)))))))))";

/* f with a host primitive (hook! i) called at each of its 300 steps. */
static const char hooked[] =
    "(define (g x) (let loop ((i 0) (xs (build 40 (car x) '()))) "
    "(if (= i 300) (fold-left + 0 xs) "
    "(begin (hook! i) "
    "(loop (+ i 1) (scale xs (+ 1 (* 0.001 (sin (car xs))))))))))";

static char dir[] = "/tmp/vlad-spill-test-XXXXXX";
static char spec[256];

static int dir_empty(void)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n == 0;
}

/* (y x`) of checkpoint-*j (or *j) of f at (x0 1) in S, as text. */
static int result(VladState *S, const char *op, double x0, char *out,
                  size_t len)
{
    char src[128];
    VladValue v;
    snprintf(src, sizeof src, "(%s f '(%.17g 1) 1)", op, x0);
    if (vlad_eval_string(S, src, "spill", &v) != VLAD_OK)
        return 0;
    snprintf(out, len, "%s", vlad_to_string(S, v));
    return 1;
}

static VladState *fresh(void)
{
    VladState *S = vlad_open(NULL);
    if (S == NULL || vlad_eval_string(S, prog, "prog", NULL) != VLAD_OK
        || vlad_set_checkpoint(S, spec) != VLAD_OK)
        return NULL;
    return S;
}

/* ===== several threads ===== */

typedef struct Job {
    int id, ok;
    long long written, read;
} Job;

static void *job(void *p)
{
    Job *j = p;
    VladState *S = fresh();
    j->ok = S != NULL;
    for (int r = 0; S != NULL && r < 3; r++) {
        char a[4096], b[4096];
        double x0 = 0.25 + 0.1 * j->id + 0.01 * r;
        if (!result(S, "checkpoint-*j", x0, a, sizeof a)
            || !result(S, "*j", x0, b, sizeof b))
            j->ok = 0;
        /* the text of x` may differ in the last digits: compare y and
           the reals one by one */
        const char *pa = a, *pb = b;
        char *ea, *eb;
        for (;;) {
            while (*pa == '(' || *pa == ')' || *pa == ' ')
                pa++;
            while (*pb == '(' || *pb == ')' || *pb == ' ')
                pb++;
            if (*pa == '\0' || *pb == '\0') {
                if (*pa != *pb)
                    j->ok = 0;
                break;
            }
            double u = strtod(pa, &ea), w = strtod(pb, &eb);
            if (ea == pa || eb == pb
                || fabs(u - w) > 1e-12 * (1 + fabs(u) + fabs(w))) {
                j->ok = 0;
                break;
            }
            pa = ea;
            pb = eb;
        }
    }
    if (S != NULL) {
        VladStats st;
        vlad_get_stats(S, &st);
        j->written = st.checkpoint.spill_bytes_written;
        j->read = st.checkpoint.spill_bytes_read;
        vlad_close(S);
    }
    return NULL;
}

static void threads(void)
{
    enum { N = 4 };
    pthread_t t[N];
    Job jobs[N];
    for (int i = 0; i < N; i++) {
        jobs[i] = (Job){i, 0, 0, 0};
        CHECK(pthread_create(&t[i], NULL, job, &jobs[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].ok);
        CHECK(jobs[i].written > 0);
        CHECK(jobs[i].read > 0);
    }
    CHECK(dir_empty());
}

/* ===== stats, and a checkpoint in the middle of a spilling run ===== */

static void midway(void)
{
    VladState *S = fresh();
    CHECK(S != NULL);
    if (S == NULL)
        return;
    char want[4096], got[4096];
    CHECK(result(S, "*j", 0.5, want, sizeof want));
    VladStats before, after;
    vlad_get_stats(S, &before);
    CHECK(result(S, "checkpoint-*j", 0.5, got, sizeof got));
    vlad_get_stats(S, &after);
    CHECK(after.checkpoint.spill_bytes_written
          > before.checkpoint.spill_bytes_written);
    CHECK(after.checkpoint.last_spill_bytes_written > 0);
    CHECK(after.checkpoint.last_spill_bytes_read > 0);
    CHECK_INT(after.checkpoint.plan_spill, 1);
    /* captured about two thirds in (checkpoint), states in the file */
    int64_t steps = after.steps_last;
    char src[256];
    snprintf(src, sizeof src, "(checkpoint (lambda (x) (checkpoint-*j f x "
             "1)) '(0.5 1) %lld)", (long long)(steps * 2 / 3));
    VladValue v, u;
    CHECK_STATUS(S, vlad_eval_string(S, src, "midway", &u), VLAD_OK);
    /* saved (the states in the file come back for it), loaded in a fresh
       state, resumed there */
    void *data = NULL;
    size_t len = 0;
    CHECK_STATUS(S, vlad_checkpoint_save_buffer(S, u, &data, &len), VLAD_OK);
    VladState *T = fresh();
    CHECK(T != NULL);
    if (T != NULL && data != NULL) {
        VladValue w, r;
        CHECK_STATUS(T, vlad_checkpoint_load_buffer(T, data, len, &w),
                     VLAD_OK);
        CHECK_STATUS(T, vlad_resume(T, w, &r), VLAD_OK);
        CHECK_STR(vlad_to_string(T, r), got);
        vlad_close(T);
    }
    free(data);
    /* resumed twice in its own state: the same result each time */
    VladValue r1, r2;
    CHECK_STATUS(S, vlad_resume(S, u, &r1), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r1), got);
    vlad_collect(S);
    CHECK_STATUS(S, vlad_resume(S, u, &r2), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r2), got);
    /* closed with states of a stopped run still in its file */
    vlad_set_step_limit(S, steps / 2);
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j f '(0.5 1) 1)",
                                     "again", &v), VLAD_ERR_LIMIT);
    vlad_close(S);
    CHECK(dir_empty());
}

/* ===== spilling to one directory, then another, again and again ===== */

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -1;
    int n = 0;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

static void switching(void)
{
    char dir2[] = "/tmp/vlad-spill-test2-XXXXXX";
    if (mkdtemp(dir2) == NULL) {
        CHECK(0);
        return;
    }
    char spec2[256];
    snprintf(spec2, sizeof spec2, "binomial,budget=24k,spill=%s", dir2);
    VladState *S = fresh();
    CHECK(S != NULL);
    if (S != NULL) {
        char a[4096];
        CHECK(result(S, "checkpoint-*j", 0.5, a, sizeof a));
        int before = open_fds();
        for (int i = 0; i < 40; i++) {
            CHECK_STATUS(S, vlad_set_checkpoint(S, i % 2 ? spec : spec2),
                         VLAD_OK);
            char b[4096];
            CHECK(result(S, "checkpoint-*j", 0.5, b, sizeof b));
            CHECK_STR(b, a);
            vlad_collect(S);
        }
        /* the files of directories no longer used are closed once they
           hold nothing: a few at most stay open */
        CHECK(open_fds() <= before + 3);
        vlad_close(S);
    }
    CHECK(open_fds() >= 0);
    rmdir(dir2);
}

/* ===== a directory that will not do ===== */

static void bad_dir(void)
{
    VladState *S = vlad_open(NULL);
    CHECK(S != NULL);
    if (S == NULL)
        return;
    CHECK_STATUS(S, vlad_eval_string(S, prog, "prog", NULL), VLAD_OK);
    CHECK_STATUS(S, vlad_set_checkpoint(
                        S, "binomial,budget=24k,spill=/nonexistent/vlad"),
                 VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j f '(0.5 1) 1)",
                                     "bad", NULL), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(S)->message,
                   "spill=/nonexistent/vlad: cannot make a file there");
    /* the state goes on: the same run without spill */
    CHECK_STATUS(S, vlad_set_checkpoint(S, "binomial,budget=24k"), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j f '(0.5 1) 1)",
                                     "bad", NULL), VLAD_OK);
    vlad_close(S);
}

/* ===== issue 31: failed runs, suspended ones, damaged files ===== */

/* VL_SPILL_FILES (vm/persist/spill.h): the most spill files a state keeps open */
enum { MAX_FILES = 4 };

/* The spill files open in this process: in directory d (all when NULL);
   their descriptors in fds[0, max). */
static int spill_fds(const char *d, int *fds, int max)
{
    DIR *p = opendir("/proc/self/fd");
    if (p == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(p)) != NULL) {
        char path[300], link[4096];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(path, link, sizeof link - 1);
        if (k <= 0)
            continue;
        link[k] = '\0';
        const char *base = strrchr(link, '/');
        if (base == NULL || strncmp(base, "/vlad-spill-", 12) != 0
            || (d != NULL && (strncmp(link, d, strlen(d)) != 0
                              || link + strlen(d) != base)))
            continue;
        if (fds != NULL && n < max)
            fds[n] = atoi(e->d_name);
        n++;
    }
    closedir(p);
    return n;
}

/* RLIMIT_NOFILE: 'spare' descriptors free below it (new ones take the
   lowest free numbers; those open above it stay open).  restore_nofile
   puts it back. */
static struct rlimit nofile_saved;

static int fd_open(int fd)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return lstat(path, &st) == 0;
}

static void low_nofile(int spare)
{
    int limit = 0;
    for (int free_fds = 0; free_fds < spare; limit++)
        if (!fd_open(limit))
            free_fds++;
    CHECK(getrlimit(RLIMIT_NOFILE, &nofile_saved) == 0);
    struct rlimit r = nofile_saved;
    r.rlim_cur = (rlim_t)limit;
    CHECK(setrlimit(RLIMIT_NOFILE, &r) == 0);
}

static void restore_nofile(void)
{
    CHECK(setrlimit(RLIMIT_NOFILE, &nofile_saved) == 0);
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = x << 8 | p[i];
    return x;
}

/* The records of a spill file's bytes: offsets and lengths (a frame,
   "VLADSPIL", 40 bytes before each state's "VLADCKPT"; without frames,
   as vlad wrote them before issue 31, the states alone). */
static int find_records(const unsigned char *data, size_t n, size_t *off,
                        size_t *len, int max)
{
    int k = 0;
    for (size_t i = 0; i + 36 <= n && k < max; i++) {
        if (memcmp(data + i, "VLADCKPT", 8) != 0)
            continue;
        if (i >= 40 && memcmp(data + i - 40, "VLADSPIL", 8) == 0) {
            off[k] = i - 40;
            len[k] = 40 + (size_t)le64(data + i - 16);
        } else {
            off[k] = i;
            len[k] = (size_t)le64(data + i + 24) + 36;
        }
        if (off[k] + len[k] <= n)
            k++;
    }
    return k;
}

/* Damage the spill file open as fd: "trunc0", "trunchalf", "zero",
   "flip" (a byte of each record), "swap" (each record of a length some
   other has gets the next one's bytes).  The records it had. */
static int damage(int fd, const char *how)
{
    off_t size = lseek(fd, 0, SEEK_END);
    if (size <= 0)
        return 0;
    unsigned char *data = malloc((size_t)size);
    if (data == NULL || pread(fd, data, (size_t)size, 0) != size) {
        free(data);
        return 0;
    }
    enum { MAX = 4096 };
    static size_t off[MAX], len[MAX];
    int n = find_records(data, (size_t)size, off, len, MAX);
    int ok = 1;
    if (strcmp(how, "trunc0") == 0) {
        ok = ftruncate(fd, 0) == 0;
    } else if (strcmp(how, "trunchalf") == 0) {
        ok = ftruncate(fd, size / 2) == 0;
    } else if (strcmp(how, "zero") == 0) {
        unsigned char *z = calloc(1, (size_t)size);
        ok = z != NULL && pwrite(fd, z, (size_t)size, 0) == size;
        free(z);
    } else if (strcmp(how, "flip") == 0) {
        for (int i = 0; i < n; i++) {
            unsigned char b = data[off[i] + len[i] - 5] ^ 1;
            ok &= pwrite(fd, &b, 1, (off_t)(off[i] + len[i] - 5)) == 1;
        }
    } else {                                    /* swap */
        int moved = 0;
        for (int i = 0; i < n; i++) {
            int j = i + 1;
            while (j < n && len[j] != len[i])
                j++;
            if (j == n)                         /* the first of its kind */
                for (j = 0; j < i && len[j] != len[i]; j++)
                    ;
            if (j == i)
                continue;
            ok &= pwrite(fd, data + off[j], len[i], (off_t)off[i])
                  == (ssize_t)len[i];
            moved++;
        }
        ok &= moved >= 2;
    }
    free(data);
    return ok ? n : 0;
}

/* hook!: at step 'at' of g, interrupts the evaluation ("stop") or
   damages the spill files open in 'dir'. */
typedef struct Hook {
    int at;                     /* -1: does nothing */
    const char *how;
    const char *dir;
    int files, records;         /* damaged */
} Hook;

static VladStatus hook(VladState *S, void *ud, const VladValue *args,
                       VladValue *result)
{
    Hook *h = ud;
    *result = args[0];
    if (h->at < 0 || vlad_to_number(args[0]) != h->at)
        return VLAD_OK;
    h->at = -1;
    if (strcmp(h->how, "stop") == 0) {
        vlad_interrupt(S);
        return VLAD_OK;
    }
    int fds[8];
    int n = spill_fds(h->dir, fds, 8);
    for (int i = 0; i < n && i < 8; i++) {
        h->files++;
        h->records += damage(fds[i], h->how);
    }
    return VLAD_OK;
}

/* A fresh state with g and hook! (acting as h says). */
static VladState *hooked_state(Hook *h)
{
    VladState *S = fresh();
    if (S == NULL)
        return NULL;
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = "hook!";
    p.arity = 1;
    p.fn = hook;
    p.userdata = h;
    if (vlad_register(S, &p) != VLAD_OK
        || vlad_eval_string(S, hooked, "hooked", NULL) != VLAD_OK) {
        vlad_close(S);
        return NULL;
    }
    return S;
}

static int run_g(VladState *S, const char *name, char *out, size_t len)
{
    VladValue v;
    VladStatus st = vlad_eval_string(S, "(checkpoint-*j g '(0.5 1) 1)", name,
                                     &v);
    if (st == VLAD_OK && out != NULL)
        snprintf(out, len, "%s", vlad_to_string(S, v));
    return st;
}

static void spec_for(char *out, size_t len, const char *d)
{
    snprintf(out, len, "binomial,budget=24k,spill=%.200s", d);
}

/* R3: runs that stop on the step limit, on an error, on an interrupt,
   switching between two directories, under a low RLIMIT_NOFILE. */
static void failed_runs(void)
{
    char dir2[] = "/tmp/vlad-spill-test3-XXXXXX";
    if (mkdtemp(dir2) == NULL) {
        CHECK(0);
        return;
    }
    Hook h = {-1, "stop", NULL, 0, 0};
    VladState *S = hooked_state(&h);
    CHECK(S != NULL);
    if (S == NULL)
        return;
    char want[4096], got[4096], spec2[256];
    spec_for(spec2, sizeof spec2, dir2);
    CHECK(result(S, "checkpoint-*j", 0.5, want, sizeof want));
    VladStats st;
    vlad_get_stats(S, &st);
    int64_t steps = st.steps_last;
    low_nofile(12);
    /* leak-3-spill-fd-per-dir.c: a short loop under budget=2k, each run
       stopped by the step limit */
    CHECK_STATUS(S, vlad_eval_string(S, "(define (h x) (let loop ((i 0) "
                                     "(a x)) (if (= i 3000) a (loop (+ i 1) "
                                     "(* a 1.0001)))))", "h", NULL),
                 VLAD_OK);
    vlad_set_step_limit(S, 5000);
    int worst = 0;
    for (int k = 0; k < 120; k++) {
        char sp[300];
        snprintf(sp, sizeof sp, "binomial,budget=2k,spill=%s",
                 k % 2 ? dir : dir2);
        CHECK_STATUS(S, vlad_set_checkpoint(S, sp), VLAD_OK);
        CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j h 1 1)", "h",
                                         NULL), VLAD_ERR_LIMIT);
        int n = spill_fds(NULL, NULL, 0);
        if (n > worst)
            worst = n;
    }
    vlad_set_step_limit(S, 0);
    CHECK(worst >= 1);
    CHECK(worst <= MAX_FILES);
    if (worst > MAX_FILES)
        printf("  step limit: %d spill files open\n", worst);
    /* the test's own f, ending each way */
    worst = 0;
    for (int k = 0; k < 120; k++) {
        CHECK_STATUS(S, vlad_set_checkpoint(S, k % 2 ? spec : spec2),
                     VLAD_OK);
        switch (k % 3) {
        case 0:                 /* the step limit, half-way */
            vlad_set_step_limit(S, steps / 2);
            CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j f '(0.5 1) "
                                             "1)", "limit", NULL),
                         VLAD_ERR_LIMIT);
            vlad_set_step_limit(S, 0);
            break;
        case 1:                 /* an error after the first run */
            CHECK_STATUS(S, vlad_eval_string(S, "(checkpoint-*j (lambda (x) "
                                             "(car (list (f x) (car '()))))"
                                             " '(0.5 1) 1)", "error", NULL),
                         VLAD_ERR_RUNTIME);
            break;
        default:                /* an interrupt half-way */
            h.at = 150;
            CHECK_STATUS(S, run_g(S, "stop", NULL, 0), VLAD_ERR_INTERRUPTED);
            break;
        }
        int n = spill_fds(NULL, NULL, 0);
        if (n > worst)
            worst = n;
    }
    CHECK(worst >= 1);
    CHECK(worst <= MAX_FILES);
    if (worst > MAX_FILES)
        printf("  failed runs: %d spill files open\n", worst);
    restore_nofile();
    CHECK(result(S, "checkpoint-*j", 0.5, got, sizeof got));
    CHECK_STR(got, want);
    vlad_close(S);
    CHECK(spill_fds(NULL, NULL, 0) == 0);
    rmdir(dir2);
}

/* Evaluations interrupted in eight directories, kept, resumed
   afterwards; the files of the first two damaged while they wait. */
static void suspended(void)
{
    enum { ND = 8 };
    char dirs[ND][64], specs[ND][256];
    for (int k = 0; k < ND; k++) {
        snprintf(dirs[k], sizeof dirs[k], "/tmp/vlad-spill-test4-XXXXXX");
        if (mkdtemp(dirs[k]) == NULL) {
            CHECK(0);
            return;
        }
        spec_for(specs[k], sizeof specs[k], dirs[k]);
    }
    Hook h = {-1, "stop", NULL, 0, 0};
    VladState *S = hooked_state(&h);
    CHECK(S != NULL);
    if (S == NULL)
        return;
    char want[4096], got[4096];
    CHECK_STATUS(S, run_g(S, "g", want, sizeof want), VLAD_OK);
    low_nofile(12);
    VladRef *refs[ND];
    for (int k = 0; k < ND; k++) {
        CHECK_STATUS(S, vlad_set_checkpoint(S, specs[k]), VLAD_OK);
        h.at = 150;
        CHECK_STATUS(S, run_g(S, "stop", NULL, 0), VLAD_ERR_INTERRUPTED);
        VladValue u;
        CHECK(vlad_interrupted(S, &u));
        refs[k] = vlad_ref(S, u);
        CHECK(spill_fds(NULL, NULL, 0) <= MAX_FILES);
        if (k <= 1) {           /* the first's records zeroed, the
                                   second's file cut to nothing */
            int fd;
            CHECK(spill_fds(dirs[k], &fd, 1) == 1);
            CHECK(damage(fd, k == 0 ? "zero" : "trunc0") >= 1);
        }
    }
    /* the first four files had to close: their records were moved, but
       for the damaged ones, which are an error when they are needed */
    for (int k = 0; k < ND - MAX_FILES; k++)
        CHECK(spill_fds(dirs[k], NULL, 0) == 0);
    VladValue r;
    for (int k = 0; k < 2; k++) {
        CHECK_STATUS(S, vlad_resume(S, vlad_ref_get(refs[k]), &r),
                     VLAD_ERR_IO);
        char prefix[512];
        snprintf(prefix, sizeof prefix, "checkpoint-*j: spill=%s: the spill "
                 "file there is damaged: the record at offset ", dirs[k]);
        CHECK_PREFIX(vlad_last_error(S)->message, prefix);
        CHECK_CONTAINS(vlad_last_error(S)->message,
                       k == 0 ? "is not a record: it reads as zeros"
                              : "is cut short: the file ends at byte 0");
        CHECK_CONTAINS(vlad_last_error(S)->backtrace, "in checkpoint-*j");
    }
    for (int k = 2; k < ND; k++) {
        CHECK_STATUS(S, vlad_resume(S, vlad_ref_get(refs[k]), &r), VLAD_OK);
        snprintf(got, sizeof got, "%s", vlad_to_string(S, r));
        CHECK_STR(got, want);
    }
    vlad_collect(S);
    CHECK_STATUS(S, vlad_resume(S, vlad_ref_get(refs[2]), &r), VLAD_OK);
    CHECK_STR(vlad_to_string(S, r), want);
    CHECK(spill_fds(NULL, NULL, 0) <= MAX_FILES);
    restore_nofile();
    for (int k = 0; k < ND; k++)
        vlad_unref(refs[k]);
    vlad_close(S);
    for (int k = 0; k < ND; k++) {
        CHECK(spill_fds(dirs[k], NULL, 0) == 0);
        rmdir(dirs[k]);
    }
}

/* U2, W6: the spill file damaged two thirds into the first run. */
static void damaged(void)
{
    static const char *const how[][3] = {
        {"trunc0", "is cut short", "reads as zeros"},
        {"trunchalf", "is cut short", "reads as zeros"},
        {"zero", "reads as zeros", NULL},
        {"flip", "was changed after it was written: its checksum does "
                 "not match", NULL},
        {"swap", "holds another record: the one written at offset ", NULL},
    };
    char want[4096], got[4096], prefix[512];
    snprintf(prefix, sizeof prefix, "checkpoint-*j: spill=%s: the spill "
             "file there is damaged: the record at offset ", dir);
    for (size_t i = 0; i < sizeof how / sizeof how[0]; i++) {
        Hook h = {-1, how[i][0], dir, 0, 0};
        VladState *S = hooked_state(&h);
        CHECK(S != NULL);
        if (S == NULL)
            return;
        CHECK_STATUS(S, run_g(S, "g", want, sizeof want), VLAD_OK);
        h.at = 200;
        CHECK_STATUS(S, run_g(S, "tamper", NULL, 0), VLAD_ERR_IO);
        CHECK_INT(h.files, 1);
        CHECK(h.records >= 2);
        const VladError *e = vlad_last_error(S);
        CHECK_STR(e->file, "tamper");
        CHECK_INT(e->line, 1);
        CHECK_INT(e->column, 1);
        CHECK_PREFIX(e->message, prefix);
        CHECK(strstr(e->message, how[i][1]) != NULL
              || (how[i][2] != NULL && strstr(e->message, how[i][2])));
        CHECK_CONTAINS(e->backtrace, "in checkpoint-*j");
        CHECK_CONTAINS(e->text, "tamper:1:1: error: checkpoint-*j: spill=");
        if (check_failed > 0)
            printf("  %s: %s", how[i][0], e->text);
        /* the state goes on */
        CHECK_STATUS(S, run_g(S, "g", got, sizeof got), VLAD_OK);
        CHECK_STR(got, want);
        vlad_close(S);
    }
    CHECK(dir_empty());
}

int main(void)
{
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(spec, sizeof spec, "binomial,budget=24k,spill=%s", dir);
    threads();
    midway();
    switching();
    bad_dir();
    failed_runs();
    suspended();
    damaged();
    rmdir(dir);
    return CHECK_DONE();
}
