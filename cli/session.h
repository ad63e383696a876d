/*
 * cli/session.h -- one REPL session: its settings, last run, suspension
 */
#ifndef VL_CLI_SESSION_H
#define VL_CLI_SESSION_H

#include <stdint.h>
#include "include/vlad.h"

typedef struct VlSession {
    VladState *S;
    int quiet;                  /* -q: no banner */
    int64_t step_limit;         /* the state's step limit (0: none) */
    int64_t heap_limit;         /* the state's heap limit in bytes
                                   (0: none) */
    char checkpoint[256];       /* the checkpoint-*j SPEC ("": default) */
    int quit;                   /* ,quit or (exit) was given */
    int exit_status;            /* the status (exit N) asked for */
    int incomplete_interrupted; /* Ctrl-C while finding an input
                                   unfinished (the REPL drops it) */
    /* the last evaluation (,stats) */
    int have_last;
    VladStats before, after;
    double seconds;
    /* the evaluation suspended by Ctrl-C (,resume, ,drop); this struct
       lives on the C stack, so Boehm sees the value */
    int suspended;
    VladValue checkpoint_value;
    int suspended_define;       /* it was a definition: no value to print */
    /* a ,load the suspension interrupted: the file's path and text, and
       where its forms after the suspended one start (,resume runs them);
       load_text NULL: none */
    char *load_path;
    char *load_text;
    size_t load_next;           /* an offset in load_text; SIZE_MAX: no
                                   form follows */
    /* the value printed last, bound to VL_LAST_VALUE_NAME while the
       global still holds what the REPL put there */
    int have_last_value;
    VladValue last_value;
    /* a procedure of the REPL's own (see session.c) */
    int have_spin;
    VladValue spin;
} VlSession;

/* Prepare 's' (S set, the rest zero) for vl_session_eval and friends. */
void vl_session_init(VlSession *s);

/* The VladConfig.write of the vlad program: standard output. */
void vl_session_write(void *userdata, const char *text, size_t len);

/* The global bound to the suspended evaluation (a checkpoint), so that
   VLAD code can use it too: (resume *interrupted*). */
#define VL_SUSPENDED_NAME "*interrupted*"

/* The global bound to the value the REPL printed last (as Python's _):
   rebound after each input whose last expression has a value, and left
   alone once the program defines it. */
#define VL_LAST_VALUE_NAME "_"

/* Whether the global 'name' holds what the REPL bound it to (_). */
int vl_session_owns_last_value(VlSession *s);

/* How vl_session_eval treats the text. */
enum {
    VL_EVAL_QUIET_INCOMPLETE = 1    /* VLAD_ERR_INCOMPLETE: say nothing */
};

/* Evaluate 'src' as one REPL input: Ctrl-C armed, timed, statistics
   snapshotted, values printed, errors reported on stderr; an interrupted
   evaluation becomes the session's suspended checkpoint. */
VladStatus vl_session_eval(VlSession *s, const char *src, const char *chunk,
                           int flags);

/* The same for the file at 'path' (,load). */
VladStatus vl_session_load(VlSession *s, const char *path);

/* Resume the suspended evaluation (,resume) and print its value; when it
   was a ,load, then run the rest of the file. */
VladStatus vl_session_resume(VlSession *s);

/* Forget the suspended evaluation (,drop), and the rest of the file when
   it was a ,load (saying which lines were not run). */
void vl_session_drop(VlSession *s);

/* Load the checkpoint saved in the file at 'path' (,restore) into '*u',
   Ctrl-C armed: it stops a long load (VLAD_ERR_INTERRUPTED).  A failure
   is reported on standard error. */
VladStatus vl_session_restore(VlSession *s, const char *path, VladValue *u);

/* Make checkpoint u the suspended evaluation (,restore): ,resume
   continues it and prints its value. */
void vl_session_adopt(VlSession *s, VladValue u);

/* Free what the session holds (the text of a suspended ,load). */
void vl_session_close(VlSession *s);

/* Wall-clock seconds (monotonic). */
double vl_session_now_seconds(void);

#endif
