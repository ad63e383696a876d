/*
 * vlad.h -- the public interface of libvlad, the VLAD interpreter
 *
 * This is the only installed header.  It includes nothing but standard
 * headers and compiles as C99 and C++.
 *
 * Model.  A VladState is one independent interpreter: its own global
 * environment, prelude, step counter and error record.  Several states may
 * exist in one process; each must be used by one thread at a time.
 * libvlad never prints (all output goes through the callbacks of
 * VladConfig), never calls exit() or abort(), and reports every failure
 * through a VladStatus return value plus vlad_last_error().
 *
 * Values.  A VladValue is a 16-byte value passed by copy.  Values held in
 * C local variables are safe from the garbage collector (Boehm scans the C
 * stack); values stored in malloc'ed memory must be protected with a
 * reference (issue: embedding API).
 *
 * Error indicators in the comments: [never fails] or [returns status].
 */
#ifndef VLAD_H
#define VLAD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && !defined(_WIN32)
#define VLAD_API __attribute__((visibility("default")))
#else
#define VLAD_API
#endif

#define VLAD_VERSION "0.1.0"

/* One interpreter; opaque. */
typedef struct VladState VladState;

/* A VLAD value; copy freely, inspect with the functions below. */
typedef struct VladValue {
    uint64_t opaque_[2];
} VladValue;

/* Result of every call that evaluates VLAD code. */
typedef enum VladStatus {
    VLAD_OK = 0,            /* success */
    VLAD_ERR_SYNTAX,        /* malformed program text */
    VLAD_ERR_INCOMPLETE,    /* text ended inside an open form */
    VLAD_ERR_RUNTIME,       /* an error raised while running */
    VLAD_ERR_MEMORY,        /* heap or stack exhausted */
    VLAD_ERR_IO,            /* a file could not be read */
    VLAD_ERR_LIMIT,         /* the step limit was exceeded */
    VLAD_ERR_INTERRUPTED,   /* vlad_interrupt stopped the evaluation */
    VLAD_ERR_ARGUMENT       /* a bad argument to an API function */
} VladStatus;

/* Details of the last failure of a state.  Valid until the next call that
   evaluates code on the same state. */
typedef struct VladError {
    VladStatus status;
    const char *message;    /* the message alone, no location */
    const char *file;       /* source file, or "" when unknown */
    int line, column;       /* 1-based; 0 when unknown */
    const char *backtrace;  /* lines "  in NAME at FILE:LINE:COL\n" */
    const char *text;       /* "FILE:LINE:COL: error: MESSAGE\n" + backtrace */
} VladError;

/* Configuration of a new state; initialise with vlad_config_init. */
typedef struct VladConfig {
    /* Receives everything VLAD code prints.  NULL: standard output. */
    void (*write)(void *userdata, const char *text, size_t len);
    /* Supplies text for read-real: fill 'buf' (at most 'cap' bytes) and
       return the number of bytes, 0 at end of input.  NULL: standard
       input. */
    size_t (*read)(void *userdata, char *buf, size_t cap);
    /* Extra directories searched by include, in order (NULL-terminated
       array, or NULL). */
    const char *const *include_path;
    /* Largest number of steps one top-level evaluation may take; 0 for no
       limit. */
    int64_t step_limit;
    /* Nonzero: the value of every top-level expression evaluated by
       vlad_eval_* is printed (as a script does). */
    int echo_results;
    /* Nonzero: do not load the standard prelude. */
    int no_prelude;
    /* The strategy of checkpoint-*j, a SPEC as for vlad_set_checkpoint;
       NULL for the default.  vlad_open fails (NULL) when it is
       malformed. */
    const char *checkpoint;
    /* Largest size in bytes of the garbage-collected heap while this
       state evaluates (the heap is shared by the states of a process;
       the limit applies while this one runs); beyond it an evaluation
       stops with VLAD_ERR_MEMORY and the state stays usable.  0: none. */
    size_t heap_limit;
    /* Called while a checkpoint-*j at the top of an evaluation runs its
       reverse sweep: 'done' of its 'total' primal steps have been
       reversed (total is known after its first run).  NULL: none. */
    void (*progress)(void *userdata, int64_t done, int64_t total);
    /* Passed back to the callbacks. */
    void *userdata;
} VladConfig;

/* Fill 'config' with the defaults.  [never fails] */
VLAD_API void vlad_config_init(VladConfig *config);

/* Create a state.  Returns NULL only when memory is exhausted or the
   prelude fails to load.  [never fails otherwise] */
VLAD_API VladState *vlad_open(const VladConfig *config);

/* Destroy a state.  Values obtained from it must not be used afterwards. */
VLAD_API void vlad_close(VladState *S);

/* Evaluate every top-level form of 'src' in order, as a script does
   ('chunkname' names it in error messages).  '*out' (if not NULL) receives
   the value of the last top-level expression, or the empty list.
   [returns status] */
VLAD_API VladStatus vlad_eval_string(VladState *S, const char *src,
                                     const char *chunkname, VladValue *out);

/* The same for the contents of the file at 'path'.  [returns status] */
VLAD_API VladStatus vlad_eval_file(VladState *S, const char *path,
                                   VladValue *out);

/* The last error of 'S' (status VLAD_OK if none).  [never fails] */
VLAD_API const VladError *vlad_last_error(VladState *S);

/* Request that the running evaluation stop at its next step; callable from
   a signal handler or another thread.  [never fails] */
VLAD_API void vlad_interrupt(VladState *S);

/* Apply the procedure 'fn' to 'arg' as one top-level evaluation (step
   limit, statistics and error reporting as for vlad_eval_string).
   '*out' (if not NULL) receives the result, or the empty list on error.
   [returns status] */
VLAD_API VladStatus vlad_call(VladState *S, VladValue fn, VladValue arg,
                              VladValue *out);

/* After an evaluation returned VLAD_ERR_INTERRUPTED: 1 and, in '*out',
   the interrupted evaluation as a checkpoint (resume it with vlad_resume,
   any number of times, or pass it to VLAD code); 0 otherwise.  The value
   is kept until the next evaluation starts.  [never fails] */
VLAD_API int vlad_interrupted(VladState *S, VladValue *out);

/* Continue the computation of the checkpoint 'u' (from vlad_interrupted,
   or any checkpoint value) to its end, as one top-level evaluation.
   A finished checkpoint gives its result at once.  [returns status] */
VLAD_API VladStatus vlad_resume(VladState *S, VladValue u, VladValue *out);

/* Call fn(ud, name, user) for every bound global name that is not
   reserved (names starting with '%' are the implementation's), in no
   particular order; 'user' is 1 for names the program defined (including
   redefinitions of prelude names), 0 for the prelude's and primitives'.
   [never fails] */
VLAD_API void vlad_globals(VladState *S,
                           void (*fn)(void *ud, const char *name, int user),
                           void *ud);

/* The value of the global 'name' in '*out': 1 if it is bound, else 0.
   [never fails] */
VLAD_API int vlad_get_global(VladState *S, const char *name, VladValue *out);

/* Bind the global 'name' (in the program's environment) to 'value', as
   a top-level definition does.  [never fails] */
VLAD_API void vlad_set_global(VladState *S, const char *name,
                              VladValue value);

/* Set the heap limit of later evaluations (see VladConfig.heap_limit;
   0: none).  [never fails] */
VLAD_API void vlad_set_heap_limit(VladState *S, size_t bytes);

/* Set the step limit of later top-level evaluations (0: none). */
VLAD_API void vlad_set_step_limit(VladState *S, int64_t limit);

/* Set the strategy of checkpoint-*j for later evaluations.  'spec' is a
   strategy name with comma-separated options: "bisection",
   "bisection,base=N", "binomial", "binomial,slots=S,base=N" (see
   doc/reference.md); NULL or "" restores the default.  A malformed spec
   changes nothing and returns VLAD_ERR_ARGUMENT with the reason in
   vlad_last_error.  [returns status] */
VLAD_API VladStatus vlad_set_checkpoint(VladState *S, const char *spec);

/* Statistics of checkpoint-*j (totals since vlad_open; peaks are the
   largest values seen). */
typedef struct VladCpjStats {
    int64_t calls;              /* top-level and nested checkpoint-*j runs */
    int64_t primal_steps;       /* steps of their first (measuring) runs */
    int64_t advanced_steps;     /* steps re-executed to make checkpoints */
    int64_t base_cases;         /* intervals handed to *j */
    int64_t base_steps;         /* steps of those intervals */
    int64_t peak_live_checkpoints; /* checkpoints held at once */
    int64_t peak_checkpoint_bytes; /* their bytes at the peak */
} VladCpjStats;

/* Statistics of the state. */
typedef struct VladStats {
    int64_t steps_total;    /* steps taken since vlad_open */
    int64_t steps_last;     /* steps of the last vlad_eval_* call */
    size_t heap_bytes;      /* current size of the GC heap */
    size_t peak_heap_bytes; /* largest size of the GC heap so far */
    size_t peak_stack_bytes;/* deepest continuation stack so far */
    uint64_t tape_nodes;    /* reverse-mode tape nodes recorded so far */
    uint64_t tape_bytes;    /* bytes allocated for those tapes so far */
    uint64_t peak_tape_nodes; /* the longest single tape so far */
    VladCpjStats checkpoint;  /* checkpoint-*j */
} VladStats;

/* Fill '*stats'.  [never fails] */
VLAD_API void vlad_get_stats(VladState *S, VladStats *stats);

/* Print 'v' as VLAD prints it into a string owned by the state, valid until
   the next call on 'S'.  [never fails] */
VLAD_API const char *vlad_to_string(VladState *S, VladValue v);

/* Values. */
VLAD_API VladValue vlad_number(double x);
VLAD_API int vlad_is_number(VladValue v);
VLAD_API double vlad_to_number(VladValue v);   /* the primal; 0 if not a real */

#ifdef __cplusplus
}
#endif

#endif
