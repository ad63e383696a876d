/*
 * vm/exec/autosave.c -- saving the running program now and then (see
 * vm/exec/autosave.h)
 */
#include "config.h"
#include "vm/exec/autosave.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "vm/persist/ckptsave.h"
#include "vm/core/cont.h"
#include "vm/core/except.h"
#include "vm/persist/savefile.h"
#include "vm/exec/toplevel.h"

/* The autosave of a state (S->autosave, in the heap; the strings and
   the lock of 'file' are released by vl_autosave_stop). */
typedef struct VlAutosave {
    VlSaveFile *file;       /* also S->autosave_file */
    const char *shown;      /* the path as the host gave it */
    const char *note;       /* the host's */
    double every, next;     /* the interval; when the next save is due */
    int failing;            /* the last save failed (the host was told) */
} VlAutosave;

double vl_autosave_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void vl_autosave_start(VladState *S, const char *path, double every,
                       const char *note)
{
    const char *why;
    (void)vl_autosave_stop(S, 0, &why);
    VlAutosave *a = vl_gc_alloc(sizeof *a);
    a->file = vl_gc_alloc_atomic(sizeof *a->file);
    if (vl_savefile_open(a->file, path) != 0)
        vl_except_at(S, VLAD_ERR_IO, (SrcPos){NULL, 0, 0},
                     "cannot autosave to '%s': %s", path, a->file->why);
    a->shown = vl_gc_strdup(path);
    a->note = vl_gc_strdup(note != NULL ? note : "");
    a->every = every;
    a->next = vl_autosave_clock() + every;
    S->autosave = a;
    S->autosave_file = a->file;
    S->autosave_hook = vl_autosave_hook;
}

int vl_autosave_stop(VladState *S, int remove, const char **why)
{
    VlAutosave *a = S->autosave;
    *why = "";
    S->autosave_hook = NULL;
    S->autosave = NULL;
    S->autosave_file = NULL;
    if (a == NULL)
        return 0;
    int status = vl_savefile_close(a->file, remove);
    if (status != 0)
        *why = vl_gc_strdup(a->file->why);
    return status;
}

/* Tell the host (vlad_set_warning). */
static void warn(VladState *S, const char *fmt, ...)
{
    if (S->warn == NULL)
        return;
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    S->warn(S->warn_userdata, text);
}

typedef struct SaveJob {
    Value *fb;
    int nargs;
    int64_t now;
    const CkptProgram *prog;
    int written;            /* vl_savefile_write succeeded */
} SaveJob;

static void save_job(VladState *S, void *ud)
{
    SaveJob *job = ud;
    Checkpoint *k = vl_cont_snapshot(S, S->entry_frame, job->fb, job->nargs,
                                     job->now);
    CkptOut file = {NULL, 0, 0};
    vl_ckptsave_file(S, vl_obj(VT_CKPT, k), job->prog, &file);
    job->written = vl_savefile_write(S->autosave->file, file.data,
                                     file.len) == 0;
    vl_gc_free(file.data);
}

void vl_autosave_hook(VladState *S, Value *fb, int nargs, int64_t now)
{
    VlAutosave *a = S->autosave;
    if (a == NULL || vl_autosave_clock() < a->next)
        return;
    CkptProgram prog;
    if (!vl_toplevel_program(S, &prog))
        return;
    /* what the program wrote before this point is out before the file
       says so (cli/main.c skips it when resuming into the same file) */
    vl_state_flush(S);
    prog.output_bytes = S->out_total;
    prog.input_bytes = S->in_read - (S->in_len - S->in_pos);
    prog.every = a->every;
    prog.note = a->note;
    /* a save that fails is no error of the program: caught here, and
       the program's error record kept */
    VladError err = S->err;
    SaveJob job = {fb, nargs, now, &prog, 0};
    VladStatus st = vl_except_protect(S, save_job, &job);
    const char *why = st != VLAD_OK ? S->err.message
                      : !job.written ? a->file->why : NULL;
    S->err = err;
    if (why != NULL && !a->failing)
        warn(S, "autosave: cannot save to '%s': %s; the program goes on, "
                "and the save is tried again every %g s", a->shown, why,
             a->every);
    else if (why == NULL && a->failing)
        warn(S, "autosave: saved to '%s' again", a->shown);
    a->failing = why != NULL;
    /* from the end of this save: a slow save does not eat the interval */
    a->next = vl_autosave_clock() + a->every;
}
