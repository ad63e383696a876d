/*
 * tests/api/test-api-savefile.c -- what saves may replace, and autosave
 * as a host relies on it (issue 31: L1, L2, R2, U3, U4, W2)
 *
 *   targets    vlad_checkpoint_save and vlad_set_autosave refuse a
 *              directory, a device, a FIFO, a file that is not a save,
 *              a loop of symbolic links -- and leave them as they were --
 *              and write through a symbolic link to its target (L1)
 *   locks      two states cannot save to one path at once; a stale lock
 *              file is taken; a foreign one is refused and kept (U4)
 *   sweep      temporaries a killed writer left are removed (R2)
 *   failures   a save that fails later does not stop the evaluation: one
 *              warning per run of failures, the save tried again (U3);
 *              a file put in the place of the saved one is neither
 *              replaced nor removed
 *   cpj_loop   a loop of short checkpoint-*j calls is autosaved (L2)
 *   input      the input read-real consumed is in the file
 *              (vlad_saved_autosave) and a resumed run given the rest of
 *              the input finishes as the uninterrupted one (W2)
 */
#define _DEFAULT_SOURCE             /* mkdtemp, mkfifo, symlink, mknod */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/sysmacros.h>          /* makedev */
#endif
#include <sys/types.h>
#include <unistd.h>
#include <dirent.h>
#include "apitest.h"

static char dir[] = "/tmp/vlad-savefile-XXXXXX";

/* The path of 'name' in the test directory (each call its own buffer,
   never reused). */
static const char *at(const char *name)
{
    static char bufs[160][128];
    static int k;
    if (k == 160) {
        printf("FAIL: at(): more paths than buffers\n");
        exit(1);
    }
    char *b = bufs[k++];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* The first bytes of the file at 'path' ("" when absent). */
static const char *head(const char *path)
{
    static char buf[64];
    struct stat st;
    buf[0] = '\0';
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return buf;                     /* (a FIFO would wait) */
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    return buf;
}

/* How many names in the test directory begin with 'prefix'. */
static int count(const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d != NULL)
        closedir(d);
    return n;
}

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

static char warnings[4096];
static int nwarnings;

static void warned(void *ud, const char *text)
{
    (void)ud;
    nwarnings++;
    size_t n = strlen(warnings);
    snprintf(warnings + n, sizeof warnings - n, "%s\n", text);
}

static VladState *fresh(void)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = out;
    VladState *S = vlad_open(&c);
    vlad_set_warning(S, warned, NULL);
    return S;
}

/* A checkpoint of S to save. */
static VladValue some_checkpoint(VladState *S)
{
    VladValue u;
    CHECK_STATUS(S, vlad_eval_string(S, "(define (f n) (if (= n 0) 0 "
                                        "(+ 1 (f (- n 1))))) (checkpoint f "
                                        "50 30)", "t", &u), VLAD_OK);
    return u;
}

/* Both ways of saving refuse 'path' with a message holding 'why', and
   leave it as it was (its head 'before'). */
static void refused(VladState *S, VladValue u, const char *path,
                    const char *why)
{
    char before[64];
    snprintf(before, sizeof before, "%s", head(path));
    CHECK_STATUS(S, vlad_checkpoint_save(S, u, path), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(S)->message, why);
    CHECK_STATUS(S, vlad_set_autosave(S, path, 1, NULL), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(S)->message, "cannot autosave to");
    CHECK_CONTAINS(vlad_last_error(S)->message, why);
    CHECK_STR(head(path), before);
}

static void targets(void)
{
    VladState *S = fresh();
    VladValue u = some_checkpoint(S);
    struct stat st;
    /* a directory, a FIFO, a device, a text, a loop of links */
    CHECK(mkdir(at("d"), 0755) == 0);
    refused(S, u, at("d"), "it is a directory");
    CHECK(stat(at("d"), &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(mkfifo(at("fifo"), 0644) == 0);
    refused(S, u, at("fifo"), "FIFO");
    CHECK(lstat(at("fifo"), &st) == 0 && S_ISFIFO(st.st_mode));
    /* a device: as root a clone of /dev/null (a regression must not
       replace the system's); else /dev/null, which only root may touch */
    const char *dev = "/dev/null";
    if (geteuid() == 0) {
        dev = at("null");
        CHECK(mknod(dev, S_IFCHR | 0644, makedev(1, 3)) == 0);
    }
    if (stat(dev, &st) == 0 && S_ISCHR(st.st_mode)) {
        refused(S, u, dev, "it is a device");
        CHECK(stat(dev, &st) == 0 && S_ISCHR(st.st_mode));
        CHECK_INT(count("null."), 0);
    }
    if (geteuid() == 0)
        unlink(dev);
    put(at("prog.vlad"), "(define x 1)\n");
    refused(S, u, at("prog.vlad"), "not a file vlad saved");
    CHECK_STR(head(at("prog.vlad")), "(define x 1)\n");
    CHECK(symlink("loop-b", at("loop-a")) == 0);
    CHECK(symlink("loop-a", at("loop-b")) == 0);
    refused(S, u, at("loop-a"), "too many symbolic links");
    /* a link through a link to a file not there yet: the target is
       written, the links stay links; then it is replaced through them */
    CHECK(mkdir(at("sub"), 0755) == 0);
    CHECK(symlink("sub/hop", at("link")) == 0);
    CHECK(symlink("target.ckpt", at("sub/hop")) == 0);
    CHECK_STATUS(S, vlad_checkpoint_save(S, u, at("link")), VLAD_OK);
    CHECK(lstat(at("link"), &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(lstat(at("sub/hop"), &st) == 0 && S_ISLNK(st.st_mode));
    CHECK_PREFIX(head(at("sub/target.ckpt")), "VLADCKPT");
    CHECK_STATUS(S, vlad_checkpoint_save(S, u, at("link")), VLAD_OK);
    CHECK(lstat(at("link"), &st) == 0 && S_ISLNK(st.st_mode));
    VladValue v;
    CHECK_STATUS(S, vlad_checkpoint_load(S, at("link"), &v), VLAD_OK);
    /* an empty file, and a file vlad saved, are replaced */
    put(at("empty"), "");
    CHECK_STATUS(S, vlad_checkpoint_save(S, u, at("empty")), VLAD_OK);
    CHECK_STATUS(S, vlad_checkpoint_save(S, u, at("empty")), VLAD_OK);
    CHECK_PREFIX(head(at("empty")), "VLADCKPT");
    /* nothing else was left beside them: no lock, no temporary */
    CHECK_INT(count("empty."), 0);
    CHECK_INT(count("link."), 0);
    CHECK_INT(count("prog.vlad."), 0);
    CHECK_INT(count("d."), 0);
    unlink(at("empty"));
    unlink(at("link"));
    unlink(at("sub/hop"));
    unlink(at("sub/target.ckpt"));
    rmdir(at("sub"));
    unlink(at("loop-a"));
    unlink(at("loop-b"));
    unlink(at("prog.vlad"));
    unlink(at("fifo"));
    rmdir(at("d"));
    vlad_close(S);
}

static void locks(void)
{
    VladState *A = fresh(), *B = fresh();
    VladValue u = some_checkpoint(B);
    const char *p = at("run.ckpt");
    CHECK_STATUS(A, vlad_set_autosave(A, p, 0, NULL), VLAD_OK);
    CHECK_PREFIX(head(at("run.ckpt.vlad-lock")), "vlad lock: pid ");
    CHECK_STATUS(B, vlad_set_autosave(B, p, 0, NULL), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(B)->message, "another vlad (process ");
    CHECK_STATUS(B, vlad_checkpoint_save(B, u, p), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(B)->message, "is saving to it");
    /* set again in the same state: its own lock is released first */
    CHECK_STATUS(A, vlad_set_autosave(A, p, 0, NULL), VLAD_OK);
    CHECK_STATUS(A, vlad_stop_autosave(A, 1), VLAD_OK);
    CHECK(access(at("run.ckpt.vlad-lock"), F_OK) != 0);
    CHECK_STATUS(B, vlad_checkpoint_save(B, u, p), VLAD_OK);
    /* a lock file a killed run left is no lock */
    put(at("run.ckpt.vlad-lock"), "vlad lock: pid 2147483646\n");
    CHECK_STATUS(B, vlad_set_autosave(B, p, 0, NULL), VLAD_OK);
    CHECK_STATUS(B, vlad_stop_autosave(B, 0), VLAD_OK);
    CHECK_PREFIX(head(p), "VLADCKPT");         /* kept: remove was 0 */
    /* a file of that name that is not vlad's is refused and kept */
    put(at("run.ckpt.vlad-lock"), "my notes\n");
    CHECK_STATUS(B, vlad_set_autosave(B, p, 0, NULL), VLAD_ERR_IO);
    CHECK_CONTAINS(vlad_last_error(B)->message, "is not a lock file");
    CHECK_STR(head(at("run.ckpt.vlad-lock")), "my notes\n");
    unlink(at("run.ckpt.vlad-lock"));
    /* closing a state releases its lock */
    CHECK_STATUS(A, vlad_set_autosave(A, p, 0, NULL), VLAD_OK);
    vlad_close(A);
    CHECK(access(at("run.ckpt.vlad-lock"), F_OK) != 0);
    CHECK_STATUS(B, vlad_set_autosave(B, p, 0, NULL), VLAD_OK);
    CHECK_STATUS(B, vlad_stop_autosave(B, 1), VLAD_OK);
    CHECK(access(p, F_OK) != 0);    /* there when it started: B's */
    vlad_close(B);
}

static void sweep(void)
{
    VladState *S = fresh();
    VladValue u = some_checkpoint(S);
    const char *p = at("s.ckpt");
    put(at("s.ckpt.vlad-tmp.AbC123"), "half a save");
    put(at("s.ckpt.vlad-tmp.x"), "not one of ours");
    put(at("s.ckpt.XyZ789"), "not one of ours either");
    CHECK_STATUS(S, vlad_set_autosave(S, p, 0, NULL), VLAD_OK);
    CHECK(access(at("s.ckpt.vlad-tmp.AbC123"), F_OK) != 0);
    CHECK_STR(head(at("s.ckpt.vlad-tmp.x")), "not one of ours");
    CHECK_STR(head(at("s.ckpt.XyZ789")), "not one of ours either");
    CHECK_STATUS(S, vlad_stop_autosave(S, 1), VLAD_OK);
    put(at("s.ckpt.vlad-tmp.q1w2e3"), "half a save");
    CHECK_STATUS(S, vlad_checkpoint_save(S, u, p), VLAD_OK);
    CHECK(access(at("s.ckpt.vlad-tmp.q1w2e3"), F_OK) != 0);
    CHECK_INT(count("s.ckpt.vlad-"), 1);
    unlink(at("s.ckpt.vlad-tmp.x"));
    unlink(at("s.ckpt.XyZ789"));
    unlink(p);
    vlad_close(S);
}

static const char *const loop_def =
    "(define (loop i n acc) (if (= i n) acc (loop (+ i 1) n (+ acc i))))";

static void failures(void)
{
    VladState *S = fresh();
    CHECK_STR(apitest_eval(S, loop_def), "()");
    const char *p = at("gone/run.ckpt");
    CHECK(mkdir(at("gone"), 0755) == 0);
    CHECK_STATUS(S, vlad_set_autosave(S, p, 0, NULL), VLAD_OK);
    /* the directory goes: every save fails, the evaluation goes on */
    unlink(at("gone/run.ckpt.vlad-lock"));
    CHECK(rmdir(at("gone")) == 0);
    nwarnings = 0;
    warnings[0] = '\0';
    CHECK_STR(apitest_eval(S, "(loop 0 100000 0)"), "4999950000");
    CHECK_INT(nwarnings, 1);
    CHECK_CONTAINS(warnings, "autosave: cannot save to '");
    CHECK_CONTAINS(warnings, "No such file or directory; the program goes "
                             "on, and the save is tried again every 0 s");
    CHECK_STR(apitest_eval(S, "(loop 0 100000 1)"), "4999950001");
    CHECK_INT(nwarnings, 1);            /* once per run of failures */
    /* it comes back: the next save is made, and said */
    CHECK(mkdir(at("gone"), 0755) == 0);
    CHECK_STR(apitest_eval(S, "(loop 0 100000 2)"), "4999950002");
    CHECK_INT(nwarnings, 2);
    CHECK_CONTAINS(warnings, "saved to '");
    CHECK_PREFIX(head(p), "VLADCKPT");
    /* another file put in its place is not replaced, nor removed */
    put(at("gone/other"), "someone's data\n");
    CHECK(rename(at("gone/other"), p) == 0);
    CHECK_STR(apitest_eval(S, "(loop 0 100000 3)"), "4999950003");
    CHECK_INT(nwarnings, 3);
    CHECK_CONTAINS(warnings, "another file was put in its place");
    CHECK_STR(head(p), "someone's data\n");
    CHECK_STATUS(S, vlad_stop_autosave(S, 1), VLAD_OK);
    CHECK_STR(head(p), "someone's data\n");
    unlink(p);
    CHECK(rmdir(at("gone")) == 0);
    vlad_close(S);
}

static void cpj_loop(void)
{
    VladState *S = fresh();
    const char *p = at("cpj.ckpt");
    CHECK_STR(apitest_eval(S, "(define (g x) (let loop ((i 0) (a x)) "
                              "(if (= i 50) a (loop (+ i 1) (* 0.99 a)))))"),
              "()");
    CHECK_STATUS(S, vlad_set_autosave(S, p, 0, NULL), VLAD_OK);
    VladValue v;
    CHECK_STATUS(S, vlad_eval_string(S, "(let iter ((k 0) (acc 0)) (if (= k "
                                        "2000) acc (iter (+ k 1) (+ acc (cadr"
                                        " (checkpoint-*j g 0.3 1))))))",
                                     "cpj", &v), VLAD_OK);
    CHECK_PREFIX(head(p), "VLADCKPT");     /* (no save at all before) */
    VladState *T = fresh();
    VladValue w;
    CHECK_STATUS(T, vlad_run_saved(T, p, &w), VLAD_OK);
    CHECK_STR(vlad_to_string(T, w), vlad_to_string(S, v));
    CHECK_STATUS(S, vlad_stop_autosave(S, 1), VLAD_OK);
    CHECK(access(p, F_OK) != 0);
    vlad_close(T);
    vlad_close(S);
}

/* read-real's input: the numbers 1 .. 400, from 'from' on. */
static char input[4096];
static size_t input_len, input_at;

static size_t feed(void *ud, char *buf, size_t cap)
{
    (void)ud;
    size_t n = input_len - input_at < cap ? input_len - input_at : cap;
    memcpy(buf, input + input_at, n);
    input_at += n;
    return n;
}

static VladState *reader(void)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = out;
    c.read = feed;
    return vlad_open(&c);
}

static void input_consumed(void)
{
    input_len = 0;
    for (int k = 1; k <= 400; k++)
        input_len += (size_t)snprintf(input + input_len,
                                      sizeof input - input_len, "%d\n", k);
    const char *prog =
        "(define (g x) (let loop ((i 0) (a x)) (if (= i 300) a "
        "(loop (+ i 1) (+ a 0.5)))))\n"
        "(define (run k acc) (if (= k 400) acc (let ((v (read-real 0))) "
        "(run (+ k 1) (+ acc (* v (cadr (*j g v 1))) (write-real v))))))\n"
        "(run 0 0)\n";
    const char *p = at("in.ckpt"), *p2 = at("in2.ckpt");
    /* the uninterrupted run */
    VladState *R = reader();
    input_at = 0;
    nprinted = 0;
    printed[0] = '\0';
    VladValue vr;
    CHECK_STATUS(R, vlad_eval_string(R, prog, "prog", &vr), VLAD_OK);
    char whole[sizeof printed];
    memcpy(whole, printed, nprinted + 1);
    size_t nwhole = nprinted;
    VladStats st;
    vlad_get_stats(R, &st);
    /* one stopped halfway (a crash), its state saved at every check: all
       the input was read at the first read-real (read ahead), less was
       consumed, up to a line's end */
    VladState *A = reader();
    vlad_set_step_limit(A, st.steps_last / 2);
    CHECK_STATUS(A, vlad_set_autosave(A, p, 0, NULL), VLAD_OK);
    input_at = 0;
    nprinted = 0;
    CHECK_STATUS(A, vlad_eval_string(A, prog, "prog", NULL), VLAD_ERR_LIMIT);
    CHECK_INT(input_at, input_len);
    double every = -1;
    uint64_t used = 0;
    CHECK_STATUS(A, vlad_saved_autosave(A, p, &every, &used), VLAD_OK);
    CHECK(every == 0);
    CHECK(used > input_len / 4 && used < input_len);
    CHECK(used > 0 && input[used - 1] == '\n');
    VladSavedInfo info;
    CHECK_STATUS(A, vlad_saved_info(A, p, &info), VLAD_OK);
    /* a fresh state given the input from there finishes it as the
       uninterrupted run; its own saves count from the input's start */
    VladState *B = reader();
    CHECK_STATUS(B, vlad_set_autosave(B, p2, 0, NULL), VLAD_OK);
    input_at = (size_t)used;
    nprinted = 0;
    printed[0] = '\0';
    VladValue vb;
    CHECK_STATUS(B, vlad_run_saved(B, p, &vb), VLAD_OK);
    CHECK_STR(vlad_to_string(B, vb), vlad_to_string(R, vr));
    CHECK(info.output_bytes <= nwhole);
    if (info.output_bytes <= nwhole)
        CHECK_STR(printed, whole + info.output_bytes);
    uint64_t used2 = 0;
    CHECK_STATUS(B, vlad_saved_autosave(B, p2, NULL, &used2), VLAD_OK);
    CHECK(used2 > used && used2 <= input_len);
    CHECK_STATUS(B, vlad_stop_autosave(B, 1), VLAD_OK);
    CHECK_STATUS(A, vlad_stop_autosave(A, 1), VLAD_OK);
    CHECK(access(p, F_OK) != 0 && access(p2, F_OK) != 0);
    /* a checkpoint file: 0 and 0 */
    VladValue u = some_checkpoint(A);
    CHECK_STATUS(A, vlad_checkpoint_save(A, u, p), VLAD_OK);
    every = 5;
    used = 5;
    CHECK_STATUS(A, vlad_saved_autosave(A, p, &every, &used), VLAD_OK);
    CHECK(every == 0 && used == 0);
    CHECK_STATUS(A, vlad_saved_autosave(A, at("none"), &every, &used),
                 VLAD_ERR_IO);
    CHECK_STATUS(A, vlad_saved_autosave(A, NULL, &every, &used),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(NULL, vlad_saved_autosave(NULL, p, &every, &used),
                 VLAD_ERR_ARGUMENT);
    CHECK_STATUS(NULL, vlad_stop_autosave(NULL, 1), VLAD_ERR_ARGUMENT);
    vlad_set_warning(NULL, warned, NULL);
    unlink(p);
    vlad_close(R);
    vlad_close(A);
    vlad_close(B);
}

int main(void)
{
    if (mkdtemp(dir) == NULL) {
        printf("SKIP: mkdtemp: %s\n", strerror(errno));
        return 77;
    }
    targets();
    locks();
    sweep();
    failures();
    cpj_loop();
    input_consumed();
    CHECK_INT(count(""), 2);            /* "." and "..": nothing left */
    rmdir(dir);
    return CHECK_DONE();
}
