/*
 * vm/api/apickpt.c -- checkpoints that outlive the process: saving and
 * loading through the public interface (include/vlad.h, "Saved
 * checkpoints"); the format is vm/persist/ckptfile.h's
 *
 * Files are written as vm/persist/savefile.h says: atomically (a crash at any
 * moment leaves the old file or the whole new one, never a mix), under a
 * lock, and only over nothing, an empty file or a file vlad saved.
 */
#include "config.h"
#include "include/vlad.h"

#include <stdlib.h>
#include <string.h>
#include "vm/api/apiconv.h"
#include "vm/exec/autosave.h"
#include "vm/persist/ckptload.h"
#include "vm/persist/ckptsave.h"
#include "vm/core/except.h"
#include "vm/core/limits.h"
#include "vm/persist/savefile.h"
#include "vm/exec/toplevel.h"

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
                     vl_object_kind(job->u));
    vl_ckptsave_file(S, job->u, NULL, &job->file);
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

VladStatus vlad_checkpoint_save(VladState *S, VladValue u, const char *path)
{
    if (S != NULL && path == NULL)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "vlad_checkpoint_save: the path is NULL");
    SaveJob job;
    VladStatus st = save_enter(S, u, &job);
    if (st != VLAD_OK)
        return st;
    VlSaveFile f;
    int bad = vl_savefile_open(&f, path) != 0;
    if (!bad) {
        bad = vl_savefile_write(&f, job.file.data, job.file.len) != 0;
        (void)vl_savefile_close(&f, 0);         /* (f.why is kept) */
    }
    if (bad)
        return vl_toplevel_fail(S, VLAD_ERR_IO, "cannot write '%s': %s",
                                path, f.why);
    return VLAD_OK;
}

typedef struct LoadJob {
    const char *path;           /* a file to read, or NULL */
    const unsigned char *data;
    size_t len;
    const char *name;
    Value out;
} LoadJob;

/* A file whose value is not a checkpoint is refused before anything of
   it is defined. */
static void need_checkpoint(VladState *S, Value root, CkptProgram *prog,
                            void *ud)
{
    const LoadJob *job = ud;
    (void)prog;
    if (!IS_CKPT(root))
        vl_except_at(S, VLAD_ERR_IO, (SrcPos){job->name, 0, 0},
                     "%s does not hold a checkpoint", job->name);
}

static void load_job(VladState *S, void *ud)
{
    LoadJob *job = ud;
    if (job->path != NULL)
        job->data = (const unsigned char *)vl_toplevel_read_saved(
            S, job->path, &job->len);
    CkptAccept accept = {need_checkpoint, job, NULL};
    job->out = vl_ckptload_value(S, job->data, job->len, job->name, NULL,
                                 &accept);
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

/* ===== Autosave (vm/exec/autosave.h) ===== */

typedef struct AutosaveJob {
    const char *path, *note;
    double seconds;
    int remove;
} AutosaveJob;

static void autosave_job(VladState *S, void *ud)
{
    AutosaveJob *job = ud;
    if (job->path != NULL) {
        vl_autosave_start(S, job->path, job->seconds, job->note);
        return;
    }
    const char *shown = S->autosave_file != NULL
                        ? vl_gc_strdup(S->autosave_file->path) : "";
    const char *why;
    if (vl_autosave_stop(S, job->remove, &why) != 0)
        vl_except_at(S, VLAD_ERR_IO, (SrcPos){NULL, 0, 0},
                     "autosave: '%s': %s", shown, why);
}

VladStatus vlad_set_autosave(VladState *S, const char *path, double seconds,
                             const char *note)
{
    if (S == NULL)
        return VLAD_ERR_ARGUMENT;
    if (!vl_gc_thread_attach())
        return vl_toplevel_attach_error(S);
    if (!(seconds >= 0) || seconds > VL_AUTOSAVE_MAX_SECONDS)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT, "vlad_set_autosave: "
                                "the interval must be between 0 and 1e9 "
                                "seconds, got %g", seconds);
    if (path != NULL && *path == '\0')
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "vlad_set_autosave: the path is empty");
    AutosaveJob job = {path, note, seconds, 0};
    return vl_toplevel_job(S, autosave_job, &job);
}

VladStatus vlad_stop_autosave(VladState *S, int remove)
{
    if (S == NULL)
        return VLAD_ERR_ARGUMENT;
    if (!vl_gc_thread_attach())
        return vl_toplevel_attach_error(S);
    AutosaveJob job = {NULL, NULL, 0, remove != 0};
    return vl_toplevel_job(S, autosave_job, &job);
}

typedef struct InfoJob {
    const char *path;
    CkptProgram prog;
} InfoJob;

static void info_job(VladState *S, void *ud)
{
    InfoJob *job = ud;
    size_t len;
    char *data = vl_toplevel_read_saved(S, job->path, &len);
    vl_ckptload_info(S, (const unsigned char *)data, len, job->path,
                     &job->prog);
}

/* Read the header of the file at 'path' into job->prog ('fn' and 'what'
   name the caller and its output in a message). */
static VladStatus saved_header(VladState *S, const char *path, InfoJob *job,
                               const char *fn, const void *what)
{
    memset(job, 0, sizeof *job);
    if (S == NULL)
        return VLAD_ERR_ARGUMENT;
    if (!vl_gc_thread_attach())
        return vl_toplevel_attach_error(S);
    if (path == NULL || what == NULL)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT, "%s: NULL %s", fn,
                                path == NULL ? "path" : "info");
    job->path = path;
    return vl_toplevel_job(S, info_job, job);
}

VladStatus vlad_saved_info(VladState *S, const char *path,
                           VladSavedInfo *info)
{
    if (info != NULL)
        memset(info, 0, sizeof *info);
    InfoJob job;
    VladStatus st = saved_header(S, path, &job, "vlad_saved_info", info);
    if (info != NULL && st == VLAD_OK) {
        info->program = job.prog.present;
        info->output_bytes = job.prog.output_bytes;
    }
    if (info != NULL)
        info->note = st == VLAD_OK && job.prog.note != NULL ? job.prog.note
                                                            : "";
    return st;
}

VladStatus vlad_saved_autosave(VladState *S, const char *path,
                               double *every, uint64_t *input_bytes)
{
    InfoJob job;
    VladStatus st = saved_header(S, path, &job, "vlad_saved_autosave", "");
    if (every != NULL)
        *every = st == VLAD_OK ? job.prog.every : 0;
    if (input_bytes != NULL)
        *input_bytes = st == VLAD_OK ? job.prog.input_bytes : 0;
    return st;
}

VladStatus vlad_run_saved(VladState *S, const char *path, VladValue *out)
{
    if (out != NULL)
        *out = to_public(NIL_VAL);
    if (S == NULL)
        return VLAD_ERR_ARGUMENT;
    if (!vl_gc_thread_attach())
        return vl_toplevel_attach_error(S);
    if (path == NULL)
        return vl_toplevel_fail(S, VLAD_ERR_ARGUMENT,
                                "vlad_run_saved: the path is NULL");
    Value v;
    VladStatus st = vl_toplevel_run_saved(S, path, &v);
    if (st == VLAD_OK && out != NULL)
        *out = to_public(v);
    return st;
}
