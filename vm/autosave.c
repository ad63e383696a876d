/*
 * vm/autosave.c -- saving the running program now and then (see
 * vm/autosave.h)
 */
#include "config.h"
#include "vm/autosave.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include "vm/ckptsave.h"
#include "vm/cont.h"
#include "vm/except.h"
#include "vm/toplevel.h"

double vl_autosave_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void vl_autosave_hook(VladState *S, Value *fb, int nargs, int64_t now)
{
    if (S->autosave_path == NULL || vl_autosave_clock() < S->autosave_next)
        return;
    CkptProgram prog;
    if (!vl_toplevel_program(S, &prog))
        return;
    /* what the program wrote before this point is out before the file
       says so (cli/main.c skips it when resuming into the same file) */
    vl_state_flush(S);
    prog.output_bytes = S->out_total;
    prog.note = S->autosave_note;
    Checkpoint *k = vl_cont_snapshot(S, S->entry_frame, fb, nargs, now);
    CkptOut file = {NULL, 0, 0};
    vl_ckpt_save(S, vl_obj(VT_CKPT, k), &prog, &file);
    if (vl_ckpt_write_atomic(S->autosave_path, file.data, file.len) != 0)
        vl_except_runtime(S, VLAD_ERR_IO, "autosave: cannot write '%s': %s",
                          S->autosave_path, strerror(errno));
    vl_gc_free(file.data);
    /* from the end of this save: a slow save does not eat the interval */
    S->autosave_next = vl_autosave_clock() + S->autosave_every;
}
