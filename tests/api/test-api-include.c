/*
 * tests/api/test-api-include.c -- vlad_eval_file and include from a host
 * (doc/embedding.md; doc/hardening.md, section 3)
 *
 * Findings W9, C3, U1 and C4 of issue 19, through the API (the CLI's
 * `vlad FILE` and the REPL's `,load` are vlad_eval_file too): a file that
 * includes itself is a cycle before any of its forms runs twice; a chain
 * of 1,000 includes works from a host thread of 256 KiB of stack (includes
 * nest no C frames: the old code needed about 4.5 MB), 1,001 is "include
 * nested too deeply", and the state works afterwards; a file starting
 * with a byte-order mark runs; a file over 1 GiB (sparse) is refused
 * before it is read.  The files live in a fresh directory under
 * VLAD_TEST_OUTDIR (or /tmp), removed at the end.
 */
#define _DEFAULT_SOURCE 1
#define _XOPEN_SOURCE 700

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vlad.h>
#include "apitest.h"

static char out[4096];              /* what VLAD code wrote */
static size_t nout;

static void capture(void *ud, const char *text, size_t len)
{
    (void)ud;
    if (nout + len < sizeof out) {
        memcpy(out + nout, text, len);
        nout += len;
        out[nout] = '\0';
    }
}

static char dir[512];

static const char *path_of(const char *name)
{
    static char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "wb");
    if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
        perror(name);
        exit(99);
    }
}

/* files chainN-0 ... chainN-N, each including the next; the last writes
   42 */
static void chain(int n)
{
    char name[64], text[64];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "chain%d-%d.vlad", n, i);
        snprintf(text, sizeof text, "(include \"chain%d-%d\")\n", n, i + 1);
        write_file(name, text);
    }
    snprintf(name, sizeof name, "chain%d-%d.vlad", n, n);
    write_file(name, "(write-real 42)\n");
}

static void remove_chain(int n)
{
    char name[64];
    for (int i = 0; i <= n; i++) {
        snprintf(name, sizeof name, "chain%d-%d.vlad", n, i);
        unlink(path_of(name));
    }
}

typedef struct Job {
    VladState *S;
    const char *path;
    VladStatus status;
    char message[200];
} Job;

static void *eval_in_thread(void *arg)
{
    Job *job = arg;
    job->status = vlad_eval_file(job->S, job->path, NULL);
    snprintf(job->message, sizeof job->message, "%s",
             vlad_last_error(job->S)->message);
    return NULL;
}

/* vlad_eval_file of 'name' from a thread of 256 KiB of stack */
static VladStatus eval_small_thread(VladState *S, const char *name,
                                    Job *job)
{
    job->S = S;
    job->path = path_of(name);
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    int rc = pthread_create(&t, &attr, eval_in_thread, job);
    pthread_attr_destroy(&attr);
    CHECK_INT(rc, 0);
    if (rc != 0)
        return VLAD_ERR_ARGUMENT;
    pthread_join(t, NULL);
    return job->status;
}

int main(void)
{
    const char *base = getenv("VLAD_TEST_OUTDIR");
    snprintf(dir, sizeof dir, "%s/api-include-XXXXXX",
             base != NULL && base[0] != '\0' ? base : "/tmp");
    mkdir(base != NULL && base[0] != '\0' ? base : "/tmp", 0777);
    if (mkdtemp(dir) == NULL) {
        perror(dir);
        return 99;
    }
    VladConfig config;
    vlad_config_init(&config);
    config.write = capture;
    VladState *S = vlad_open(&config);
    CHECK(S != NULL);
    if (S == NULL)
        return CHECK_DONE();

    /* W9: the forms before the include run once, then the cycle */
    write_file("self.vlad", "(write-real 1)\n(include \"self\")\n"
                            "(write-real 2)\n");
    CHECK_STATUS(S, vlad_eval_file(S, path_of("self.vlad"), NULL),
                 VLAD_ERR_SYNTAX);
    CHECK_STR(out, "1\n");
    CHECK_PREFIX(vlad_last_error(S)->message, "include: cycle: '");
    CHECK_INT(vlad_last_error(S)->line, 2);
    /* through another file: self2 -> other -> self2 */
    nout = 0;
    out[0] = '\0';
    write_file("self2.vlad", "(write-real 3)\n(include \"other\")\n");
    write_file("other.vlad", "(write-real 4)\n(include \"self2\")\n");
    CHECK_STATUS(S, vlad_eval_file(S, path_of("self2.vlad"), NULL),
                 VLAD_ERR_SYNTAX);
    CHECK_STR(out, "3\n4\n");
    CHECK_PREFIX(vlad_last_error(S)->message, "include: cycle: '");
    /* the same file evaluated again is not a cycle (the stack is empty
       between calls) */
    write_file("plain.vlad", "(define plain 5)\n");
    CHECK_STATUS(S, vlad_eval_file(S, path_of("plain.vlad"), NULL), VLAD_OK);
    CHECK_STATUS(S, vlad_eval_file(S, path_of("plain.vlad"), NULL), VLAD_OK);

    /* C3: 1,000 includes deep from a 256 KiB thread; 1,001 is refused */
    Job job;
    chain(1000);
    nout = 0;
    out[0] = '\0';
    CHECK_INT(eval_small_thread(S, "chain1000-0.vlad", &job), VLAD_OK);
    CHECK_STR(out, "42\n");
    chain(1001);
    CHECK_INT(eval_small_thread(S, "chain1001-0.vlad", &job),
              VLAD_ERR_SYNTAX);
    CHECK_STR(job.message, "include nested too deeply (more than 1000 "
                           "files)");
    remove_chain(1000);
    remove_chain(1001);

    /* U1: a byte-order mark at the start of the file */
    write_file("bom.vlad", "\xef\xbb\xbf(define bom 6)\n");
    CHECK_STATUS(S, vlad_eval_file(S, path_of("bom.vlad"), NULL), VLAD_OK);
    VladValue v;
    CHECK_STATUS(S, vlad_eval_string(S, "(+ plain bom)", "check", &v),
                 VLAD_OK);
    CHECK_STR(vlad_to_string(S, v), "11");

    /* C4: a sparse file one byte over 1 GiB, refused from its size */
    if (truncate(path_of("bom.vlad"), 0) == 0
        && truncate(path_of("bom.vlad"), (off_t)1073741825) == 0) {
        CHECK_STATUS(S, vlad_eval_file(S, path_of("bom.vlad"), NULL),
                     VLAD_ERR_IO);
        CHECK_CONTAINS(vlad_last_error(S)->message,
                       "the file is larger than 1073741824 bytes");
    }

    static const char *const files[] = {
        "self.vlad", "self2.vlad", "other.vlad", "plain.vlad", "bom.vlad"
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        unlink(path_of(files[i]));
    rmdir(dir);
    vlad_close(S);
    return CHECK_DONE();
}
