/*
 * vm/apickpt.c -- checkpoints that outlive the process: saving and
 * loading through the public interface (include/vlad.h, "Saved
 * checkpoints"); the format is vm/ckptfile.h's
 *
 * A file is written atomically: to a temporary file beside it, flushed
 * to the disk (fsync), then renamed over the old one and the directory
 * flushed, so a crash at any moment leaves the old file or the whole new
 * one, never a mix.
 */
#include "config.h"
#include "include/vlad.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "vm/apiconv.h"
#include "vm/ckptload.h"
#include "vm/ckptsave.h"
#include "vm/except.h"
#include "vm/toplevel.h"

typedef struct SaveJob {
    Value u;
    CkptOut file;
} SaveJob;

static void save_job(VladState *S, void *ud)
{
    SaveJob *job = ud;
    if (!IS_CKPT(job->u))
        vl_except_at(S, VLAD_ERR_ARGUMENT, (SrcPos){NULL, 0, 0},
                     "vlad_checkpoint_save: expected a checkpoint, got a %s",
                     vl_value_kind(job->u));
    vl_ckpt_save(S, job->u, &job->file);
}

/* Check the arguments shared by the save functions; VLAD_OK to go on. */
static VladStatus save_enter(VladState *S, VladValue u, SaveJob *job)
{
    if (S == NULL)
        return VLAD_ERR_ARGUMENT;
    if (!vl_gc_thread_attach())
        return vl_toplevel_attach_error(S);
    if (!vl_api_valid_public(u))
        return vl_api_refuse_value(S, "vlad_checkpoint_save",
                                   "the checkpoint");
    memset(job, 0, sizeof *job);
    job->u = to_internal(u);
    return vl_toplevel_job(S, save_job, job);
}

VladStatus vlad_checkpoint_save_buffer(VladState *S, VladValue u,
                                       void **data, size_t *len)
{
    if (data != NULL)
        *data = NULL;
    if (len != NULL)
        *len = 0;
    if (S != NULL && (data == NULL || len == NULL))
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "vlad_checkpoint_save_buffer: NULL "
                                "destination");
    SaveJob job;
    VladStatus st = save_enter(S, u, &job);
    if (st != VLAD_OK)
        return st;
    void *copy = malloc(job.file.len ? job.file.len : 1);
    if (copy == NULL)
        return vl_toplevel_fail(S, VLAD_ERR_MEMORY, "vlad_checkpoint_save_"
                                "buffer: no memory for %zu bytes",
                                job.file.len);
    memcpy(copy, job.file.data, job.file.len);
    *data = copy;
    *len = job.file.len;
    return VLAD_OK;
}

/* Write all of p[0, n) to fd. */
static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The directory part of path, for fsync after the rename. */
static void sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash == NULL ? strdup(".")
                : slash == path ? strdup("/")
                : strndup(path, (size_t)(slash - path));
    if (dir == NULL)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

static int write_atomic(const char *path, const void *data, size_t len)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 8);
    if (tmp == NULL) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".XXXXXX", 8);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    if (write_all(fd, data, len) != 0 || fsync(fd) != 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        errno = e;
        return -1;
    }
    (void)fchmod(fd, 0644);
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        errno = e;
        return -1;
    }
    free(tmp);
    sync_dir(path);
    return 0;
}

VladStatus vlad_checkpoint_save(VladState *S, VladValue u, const char *path)
{
    if (S != NULL && path == NULL)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "vlad_checkpoint_save: the path is NULL");
    SaveJob job;
    VladStatus st = save_enter(S, u, &job);
    if (st != VLAD_OK)
        return st;
    if (write_atomic(path, job.file.data, job.file.len) != 0)
        return vl_toplevel_fail(S, VLAD_ERR_IO, "cannot write '%s': %s",
                                path, strerror(errno));
    return VLAD_OK;
}

typedef struct LoadJob {
    const char *path;           /* a file to read, or NULL */
    const unsigned char *data;
    size_t len;
    const char *name;
    Value out;
} LoadJob;

static void load_job(VladState *S, void *ud)
{
    LoadJob *job = ud;
    if (job->path != NULL) {
        char *src = vl_toplevel_read_file(job->path, &job->len);
        if (src == NULL)
            vl_except_at(S, VLAD_ERR_IO, (SrcPos){NULL, 0, 0},
                         "cannot read '%s': %s", job->path,
                         errno == EFBIG ? "the file is too large"
                                        : strerror(errno));
        job->data = (const unsigned char *)src;
    }
    job->out = vl_ckpt_load(S, job->data, job->len, job->name);
    if (!IS_CKPT(job->out))
        vl_except_at(S, VLAD_ERR_IO, (SrcPos){job->name, 0, 0},
                     "%s does not hold a checkpoint", job->name);
}

static VladStatus load(VladState *S, LoadJob *job, VladValue *out)
{
    if (out != NULL)
        *out = to_public(NIL_VAL);
    if (S == NULL)
        return VLAD_ERR_ARGUMENT;
    if (!vl_gc_thread_attach())
        return vl_toplevel_attach_error(S);
    if (job->path == NULL && job->data == NULL)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT, "vlad_checkpoint_load:"
                                " NULL %s", job->name ? "data" : "path");
    job->out = NIL_VAL;
    VladStatus st = vl_toplevel_job(S, load_job, job);
    if (st == VLAD_OK && out != NULL)
        *out = to_public(job->out);
    return st;
}

VladStatus vlad_checkpoint_load(VladState *S, const char *path,
                                VladValue *out)
{
    LoadJob job = {path, NULL, 0, path, NIL_VAL};
    return load(S, &job, out);
}

VladStatus vlad_checkpoint_load_buffer(VladState *S, const void *data,
                                       size_t len, VladValue *out)
{
    LoadJob job = {NULL, data, len, "<buffer>", NIL_VAL};
    return load(S, &job, out);
}
