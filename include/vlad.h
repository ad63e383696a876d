/*
 * vlad.h -- the public interface of libvlad, the VLAD interpreter
 *
 * This is the only installed header.  It includes nothing but standard
 * headers and compiles as C99 and C++.
 *
 * Model.  A VladState is one independent interpreter: its own global
 * environment, prelude, step counter and error record.  Several states may
 * exist in one process; each must be used by one thread at a time, but
 * different states may run in different threads at once, and a state may
 * pass from thread to thread.  libvlad registers the threads that call it
 * with its garbage collector (and unregisters them when they exit): the
 * host makes no collector calls.  libvlad never prints (all output goes
 * through the callbacks of VladConfig), never calls exit() or abort(), and
 * reports every failure through a VladStatus return value plus
 * vlad_last_error().
 *
 * NULL pointers are never fatal: a function returning a status returns
 * VLAD_ERR_ARGUMENT for a NULL state, string or array it needs; NULL
 * output pointers are skipped; the other functions do nothing or give an
 * empty result (0, "", the empty list).
 *
 * Values.  A VladValue is a 16-byte value passed by copy.  Values held in
 * C local variables are safe from the garbage collector (Boehm scans the C
 * stack); values stored in malloc'ed memory must be held by a reference
 * (VladRef, below).  Only values libvlad made are values: the zero
 * VladValue and forged ones are refused (VLAD_ERR_ARGUMENT, or the neutral
 * result of the functions without a status; doc/embedding.md, section 3).
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

/* The outcome of the last call on a state that returned a VladStatus
   (other than vlad_host_error): status VLAD_OK and every string "" after
   a success and before the first call; never NULL strings.  Valid until
   the next such call on the same state. */
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
    /* Receives everything VLAD code prints, in whole lines (a line over
       4 KB, a huge value printed as it is made, may come in pieces, in
       order), at the latest 4096 steps after it was written (see
       vlad_flush).  NULL: standard
       output (write errors ignored). */
    void (*write)(void *userdata, const char *text, size_t len);
    /* Supplies text for read-real: fill 'buf' (at most 'cap' bytes) and
       return the number of bytes, 0 at end of input (for good).  Called
       after the output so far was handed to 'write'.  A count over 'cap'
       (say (size_t)-1) is an input error of read-real (VLAD_ERR_IO);
       nothing past 'cap' is read.  NULL: standard input. */
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
    /* Called while a checkpoint-*j at the top of an evaluation runs:
       during its first run, which counts the primal steps, with 'total'
       0 and 'done' the steps counted so far (every few thousand steps);
       then during its reverse sweep, with 'done' of its 'total' primal
       steps reversed.  NULL: none. */
    void (*progress)(void *userdata, int64_t done, int64_t total);
    /* Parallel programs: called when a wait for a message or for the
       other ranks of a collective has lasted a second, with what it
       waits for ("a message from rank 3", "the other ranks in
       mpi-allreduce"), and again with NULL and the seconds it lasted
       when it ends.  NULL: none. */
    void (*waiting)(void *userdata, const char *what, double seconds);
    /* Passed back to the callbacks. */
    void *userdata;
} VladConfig;

/* Fill 'config' with the defaults.  [never fails] */
VLAD_API void vlad_config_init(VladConfig *config);

/* Create a state.  Returns NULL only when memory is exhausted or the
   prelude fails to load.  [never fails otherwise] */
VLAD_API VladState *vlad_open(const VladConfig *config);

/* Destroy a state.  Values obtained from it must not be used afterwards,
   nor the state (it is freed).  Called while the state runs (from a host
   primitive or a callback), it stops the evaluation and frees the state
   when the running call returns (that call returns VLAD_ERR_ARGUMENT);
   until then calls on it are refused or harmless.  [never fails] */
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

/* Write a bytecode listing through VladConfig.write, as `luac -l` does
   (how to read it: doc/internals.md, "Reading a bytecode listing"):
   give one of 'path' and 'name', the other NULL.  'path': the program in
   that file (includes too) is compiled form by form, in order, and no
   form is run; the listing shows each form's code and that of every
   lambda in it.  A definition of the name of an inline primitive (+,
   car, ...) counts as rebinding it for the forms after it, as running
   it would.  'name': the procedure bound to that global, and every
   lambda in it; VLAD_ERR_ARGUMENT when the name is unbound, bound to a
   primitive or to something other than a procedure.  A file that does
   not read or compile is an error as for vlad_eval_file.  The listing's
   format is for people and may change between versions.
   [returns status] */
VLAD_API VladStatus vlad_disassemble(VladState *S, const char *path,
                                     const char *name);

/* The record of the last call of 'S' (status VLAD_OK if it succeeded);
   for a NULL state a constant record of VLAD_ERR_ARGUMENT.  [never
   fails] */
VLAD_API const VladError *vlad_last_error(VladState *S);

/* Request that the running evaluation stop soon (the request is checked
   every few thousand steps); callable from a signal handler or another
   thread.  A request made while the state is idle stops the next
   evaluation at its first check; one that the evaluation it was made
   during never checked (it returned first) is dropped when it returns.
   [never fails] */
VLAD_API void vlad_interrupt(VladState *S);

/* Hand the output VLAD code has written and libvlad still holds to
   VladConfig.write now.  libvlad buffers output (8 KB) and flushes it by
   itself when the buffer is full, every 4096 steps while code runs,
   before read-real waits for input, and when each top-level form and
   each call of the API ends (also on an error or an interrupt); a host
   needs this call only to order VLAD's output before its own, e.g. in a
   host primitive that prints.  Allowed while the state runs (from a host
   primitive or the write callback) but, like every call, only from the
   thread using the state.  [never fails] */
VLAD_API void vlad_flush(VladState *S);

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

/* ===== Saved checkpoints (doc/embedding.md) =====
   A checkpoint -- the whole suspended computation -- can be written to a
   file or a buffer and resumed by another state, in this process or
   another one running the same vlad on the same architecture: it then
   gives the same result, the same remaining steps and the same
   derivatives.  The file holds the frames, closures, the source text of
   the top-level forms whose code they run, reals bit for bit, suspended
   j* / *j / checkpoint-*j state, and the user globals that code reads;
   loading compiles that text again and defines those globals in the
   loading state (as the definitions did).  Host primitives are saved by
   name: loading needs them registered (vlad_register) first.  A file of
   another vlad version or architecture, or damaged, is refused with
   VLAD_ERR_IO and the reason.  A file is written atomically (a temporary
   file, flushed to disk, renamed): after a crash it is the old file or
   the new one, whole.  A save replaces only nothing, an empty regular
   file or a file vlad saved (symbolic links are followed: their target
   is written); a directory, a device or any other file is refused with
   VLAD_ERR_IO and the reason, and so is a file another process (or
   state) is saving to: writers hold a lock on PATH.vlad-lock while they
   write (doc/embedding.md section 8). */

/* Save checkpoint 'u' to the file at 'path'.  [returns status] */
VLAD_API VladStatus vlad_checkpoint_save(VladState *S, VladValue u,
                                         const char *path);

/* The same into memory: '*data' (to be released with free()) holds
   '*len' bytes.  [returns status] */
VLAD_API VladStatus vlad_checkpoint_save_buffer(VladState *S, VladValue u,
                                                void **data, size_t *len);

/* Load the checkpoint saved in the file at 'path' into '*out'.
   [returns status] */
VLAD_API VladStatus vlad_checkpoint_load(VladState *S, const char *path,
                                         VladValue *out);

/* The same from 'len' bytes at 'data'.  [returns status] */
VLAD_API VladStatus vlad_checkpoint_load_buffer(VladState *S,
                                                const void *data, size_t len,
                                                VladValue *out);

/* Autosave: while 'path' is set, every evaluation of program text
   (vlad_eval_string, vlad_eval_file) is saved to 'path' each time it has
   run 'seconds' more seconds (0: at every check, each few thousand
   steps), at a step boundary and atomically, without stopping it: the
   file holds the running evaluation and the rest of the program text,
   and vlad_run_saved finishes the program from there (after a crash,
   say).  'note' is kept in each file for the host (vlad_saved_info),
   e.g. where its output goes.  Output the program wrote before a save
   has gone to 'write' before the file is written.  'path' is checked
   here, as a save's (above): VLAD_ERR_IO and the reason when it may not
   be written, its directory does not exist or is not writable, or
   another process or state autosaves to it; the state then holds the
   lock of 'path' until autosave stops or the state is closed.  A save
   that fails later (a full disk, a directory removed, another file put
   in its place) does not stop the evaluation: it is tried again every
   'seconds', and vlad_set_warning's callback is told once, when a run of
   failures begins, and when a save succeeds again.  NULL 'path' stops
   autosaving (the file stays).  [returns status] */
VLAD_API VladStatus vlad_set_autosave(VladState *S, const char *path,
                                      double seconds, const char *note);

/* Stop autosaving, as vlad_set_autosave with a NULL path, and when
   'remove' is nonzero remove the file it saved to: only if it is still
   the file this state wrote last, or the one that was there when
   autosave started -- never a file another process put in its place.
   For a program that ended without error: its saved state is no longer
   needed.  [returns status: VLAD_ERR_IO when the removal failed] */
VLAD_API VladStatus vlad_stop_autosave(VladState *S, int remove);

/* Have 'warn' called with a line of text (no newline) when libvlad has
   something to tell the host that is not an error of the call running:
   an autosave that failed (the evaluation goes on), and the first that
   succeeds after failures.  It is called while the state runs: it must
   not call into the state (vlad_interrupt excepted).  NULL: nothing is
   told (the default: libvlad never prints).  [never fails] */
VLAD_API void vlad_set_warning(VladState *S,
                               void (*warn)(void *userdata, const char *text),
                               void *userdata);

/* What a saved file holds, read without running it. */
typedef struct VladSavedInfo {
    int program;            /* 1: a program saved by autosave; 0: a
                               checkpoint (vlad_checkpoint_save) */
    uint64_t output_bytes;  /* program: the bytes of output it had
                               handed to 'write' when saved */
    const char *note;       /* program: vlad_set_autosave's note ("") */
} VladSavedInfo;

/* Read the header of the file at 'path' (checked, as loading would, but
   nothing is built) into '*info' (strings owned by S, valid until the
   next call).  [returns status] */
VLAD_API VladStatus vlad_saved_info(VladState *S, const char *path,
                                    VladSavedInfo *info);

/* What vlad_saved_info does not tell of a program saved by autosave (0
   and 0 for a checkpoint): '*every', the seconds between its saves, and
   '*input_bytes', the bytes of input read-real had consumed when it was
   saved (what it had read ahead and not used is not counted).  The
   resumed run's input must start there: vlad_run_saved does not skip
   input; it counts on from that number.  NULL output pointers are
   skipped.  [returns status] */
VLAD_API VladStatus vlad_saved_autosave(VladState *S, const char *path,
                                        double *every,
                                        uint64_t *input_bytes);

/* Finish what the file at 'path' holds as one evaluation: a program
   saved by autosave is finished as its uninterrupted evaluation would
   have gone on -- the running form's value echoed (when echo_results is
   set) unless it was a definition, then the rest of the program -- and
   '*out' gets the last expression's value; a saved checkpoint is
   resumed and '*out' gets its value.  [returns status] */
VLAD_API VladStatus vlad_run_saved(VladState *S, const char *path,
                                   VladValue *out);

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
   a top-level definition does.  Refused (VLAD_ERR_ARGUMENT) while the
   state runs (from a host primitive or a callback).  [returns status] */
VLAD_API VladStatus vlad_set_global(VladState *S, const char *name,
                                    VladValue value);

/* Set the heap limit of later evaluations (see VladConfig.heap_limit;
   0: none).  [never fails] */
VLAD_API void vlad_set_heap_limit(VladState *S, size_t bytes);

/* Set the step limit of later top-level evaluations (0: none). */
VLAD_API void vlad_set_step_limit(VladState *S, int64_t limit);

/* Set the strategy of checkpoint-*j for later evaluations.  'spec' is a
   strategy name with comma-separated options: "bisection",
   "bisection,base=N", "binomial", "binomial,slots=S,base=N" (see
   doc/reference.md); NULL or "" restores the default.  A malformed spec,
   or a call while the state runs, changes nothing and returns
   VLAD_ERR_ARGUMENT with the reason in vlad_last_error.  [returns
   status] */
VLAD_API VladStatus vlad_set_checkpoint(VladState *S, const char *spec);

/* The name of checkpoint-*j's strategy i (from 0: "bisection",
   "binomial"), NULL past the last: what SPEC may start with, for a
   host's completion or help.  [never fails] */
VLAD_API const char *vlad_checkpoint_strategy(int i);

/* Statistics of checkpoint-*j (totals since vlad_open; peaks are the
   largest values seen). */
typedef struct VladCpjStats {
    int64_t calls;              /* top-level and nested checkpoint-*j runs */
    int64_t primal_steps;       /* steps of their first (measuring) runs */
    int64_t advanced_steps;     /* steps re-executed to make checkpoints */
    int64_t base_cases;         /* intervals handed to *j */
    int64_t base_steps;         /* steps of those intervals */
    int64_t peak_live_checkpoints; /* checkpoints held at once */
    int64_t peak_checkpoint_bytes; /* their bytes at the peak (each
                                      checkpoint's logical size: frames
                                      it shares with others count in
                                      each) */
    int64_t pilot_steps;        /* steps taped by budget plans' pilots */
    int64_t peak_bytes;         /* outermost runs: the most bytes of live
                                   snapshots (frames, and the data each
                                   reaches as the pilot measured it) plus
                                   the tape of the base case being swept */
    /* The plan of the last outermost run (plan_slots 0: none yet; for
       bisection, plan_slots is 0 and plan_base its base): */
    int64_t plan_slots, plan_base;
    int64_t plan_budget;        /* its budget, 0 for slots=S or bisection */
    int64_t plan_reexec_steps;  /* predicted re-executed steps (binomial) */
    int64_t plan_peak_bytes;    /* predicted peak bytes (budget plans) */
    int64_t plan_snapshot_bytes;/* measured: what one snapshot holds */
    int64_t plan_step_bytes;    /* measured: tape bytes per step */
    int64_t last_reexec_steps;  /* what happened: that run's re-executed
                                   steps (its pilot not included) */
    int64_t last_peak_bytes;    /* and its peak bytes, as peak_bytes */
    int64_t plan_kind;          /* its strategy: vlad_checkpoint_strategy
                                   (plan_kind) names it (0 bisection,
                                   1 binomial) */
    int64_t plan_kept;          /* states its first run kept that its
                                   reversal started segments from */
    /* spill=DIR: bytes of held states written to and read back from
       files, since the state was opened and in the last outermost run */
    int64_t spill_bytes_written, spill_bytes_read;
    int64_t last_spill_bytes_written, last_spill_bytes_read;
    int64_t plan_spill;         /* the last outermost run could spill */
    /* receive logging (parallel programs): messages and collectives'
       results the first runs logged for their re-executions, and their
       bytes (the messages and the reals kept with them) */
    int64_t messages_logged, message_log_bytes;
} VladCpjStats;

/* Statistics of the state. */
typedef struct VladStats {
    int64_t steps_total;    /* steps taken since vlad_open */
    int64_t steps_last;     /* steps of the last evaluating call, also
                               when it failed */
    size_t heap_bytes;      /* current size of the GC heap */
    size_t heap_used_bytes; /* the part of it in use: live data, and the
                               garbage made since the last collection */
    size_t peak_heap_bytes; /* largest size of the GC heap so far */
    size_t peak_stack_bytes;/* deepest continuation stack so far */
    uint64_t tape_nodes;    /* reverse-mode tape nodes recorded so far */
    uint64_t tape_bytes;    /* bytes allocated for those tapes so far */
    uint64_t peak_tape_nodes; /* the longest single tape so far */
    VladCpjStats checkpoint;  /* checkpoint-*j */
    /* Parallel programs: the messages this rank sent (mpi-send, and the
       adjoint messages of reverse sweeps) and their bytes, and the
       collective operations it took part in (each agreement counts) */
    int64_t messages_sent, message_bytes_sent;
    int64_t adjoint_messages_sent, adjoint_message_bytes_sent;
    int64_t collectives;
} VladStats;

/* Fill '*stats'.  [never fails] */
VLAD_API void vlad_get_stats(VladState *S, VladStats *stats);

/* Run a full garbage collection now (of the heap all states of the
   process share); afterwards VladStats.heap_used_bytes is the live data
   (conservatively: what looks reachable).  The collector otherwise runs
   by itself as the heap fills.  [never fails] */
VLAD_API void vlad_collect(VladState *S);

/* Print 'v' as VLAD prints it into a string owned by the state, valid until
   the next call on 'S'.  [never fails] */
VLAD_API const char *vlad_to_string(VladState *S, VladValue v);

/* ===== Values =====
   Building and inspecting values.  None of these fails, runs VLAD code or
   needs the state to be idle; building pairs allocates on the garbage
   collected heap (an exhausted heap gives the empty list). */

/* Reals.  vlad_to_number gives the primal of a real that carries a
   tangent or tape (inside a host primitive), and 0 for a non-real. */
VLAD_API VladValue vlad_number(double x);
VLAD_API int vlad_is_number(VladValue v);
VLAD_API double vlad_to_number(VladValue v);

/* Booleans.  vlad_to_boolean is VLAD's truth: 0 only for #f. */
VLAD_API VladValue vlad_boolean(int b);
VLAD_API int vlad_is_boolean(VladValue v);
VLAD_API int vlad_to_boolean(VladValue v);

/* The empty list. */
VLAD_API VladValue vlad_nil(void);
VLAD_API int vlad_is_nil(VladValue v);

/* Pairs.  vlad_car and vlad_cdr of a non-pair give the empty list. */
VLAD_API VladValue vlad_cons(VladState *S, VladValue car, VladValue cdr);
VLAD_API int vlad_is_pair(VladValue v);
VLAD_API VladValue vlad_car(VladValue v);
VLAD_API VladValue vlad_cdr(VladValue v);

/* Procedures (closures and primitives) and checkpoints. */
VLAD_API int vlad_is_procedure(VladValue v);
VLAD_API int vlad_is_checkpoint(VladValue v);

/* The list of the n reals xs[0..n-1]. */
VLAD_API VladValue vlad_list_of_numbers(VladState *S, const double *xs,
                                        size_t n);

/* The length of 'list' if it is a proper list of reals, else -1; its
   first min(length, cap) elements (primals) are stored in out[]. */
VLAD_API long vlad_numbers_of_list(VladValue list, double *out, size_t cap);

/* ===== References =====
   A value stored where the collector cannot see it (malloc'ed memory, a
   static variable of another library) must be held by a reference, which
   keeps it alive until vlad_unref.  Values in C local variables and
   arguments need none.  NULL only when memory is exhausted; the functions
   accept NULL.  A reference may outlive its state but its value must not
   be used with another state. */
typedef struct VladRef VladRef;
VLAD_API VladRef *vlad_ref(VladState *S, VladValue v);
VLAD_API VladValue vlad_ref_get(const VladRef *ref);
VLAD_API void vlad_ref_set(VladRef *ref, VladValue v);
VLAD_API void vlad_unref(VladRef *ref);

/* ===== Derivatives =====
   Conveniences over j* and *j for procedures of reals (the built-in
   operators, whatever the program has rebound).  Each runs as one
   top-level evaluation (step limit, errors as for vlad_call).
   [returns status] */

/* f: real -> real.  value = f(x), derivative = f'(x) (forward mode).
   Either output pointer may be NULL. */
VLAD_API VladStatus vlad_derivative(VladState *S, VladValue f, double x,
                                    double *value, double *derivative);

/* f: list of n reals -> real.  value = f(x) and gradient[0..n-1] (reverse
   mode, one pass). */
VLAD_API VladStatus vlad_gradient(VladState *S, VladValue f,
                                  const double *x, size_t n, double *value,
                                  double *gradient);

/* f: list of n reals -> real.  value = f(x) and the derivative along v,
   J_f(x) v (forward mode, one pass). */
VLAD_API VladStatus vlad_directional_derivative(VladState *S, VladValue f,
                                                const double *x,
                                                const double *v, size_t n,
                                                double *value,
                                                double *derivative);

/* ===== Host primitives =====
   A C function registered as a VLAD procedure of 1 to 3 arguments.  It
   receives the arguments (args[0..arity-1]) and stores its result in
   '*result'; it returns VLAD_OK, or the status of vlad_host_error to stop
   the evaluation with a VLAD error "NAME: message" located at the call.
   It must not call back into its state (vlad_eval_*, vlad_call ... fail
   with VLAD_ERR_ARGUMENT while the state runs) nor change it
   (vlad_set_global, vlad_set_checkpoint and vlad_register are refused
   the same way); it may close it (see vlad_close).  A result that is not
   a value (the zero VladValue, say) is a run-time error.

   Differentiable: a host primitive of 1 or 2 reals may name, in
   partial[], host primitives registered before (same arity) computing
   its partial derivative in each argument at the same point.  j*, *j and
   checkpoint-*j then differentiate through it: the host functions are
   always called on plain reals; nested derivatives need the partials to
   be differentiable themselves.  Without partials, applying it to a real
   being differentiated is an error.

   Effect: a primitive whose result or action must happen once (I/O,
   random numbers, counters).  checkpoint-*j re-executes parts of a
   program: there it calls the function once and replays the recorded
   result in re-executions, as it does for read-real. */
typedef VladStatus (*VladHostFn)(VladState *S, void *userdata,
                                 const VladValue *args, VladValue *result);

typedef struct VladHostPrim {
    const char *name;           /* the global it is bound to */
    int arity;                  /* 1, 2 or 3 */
    VladHostFn fn;
    void *userdata;             /* passed to fn */
    const char *partial[2];     /* names of its partials, or NULL */
    int effect;                 /* nonzero: an effect (see above) */
} VladHostPrim;

/* Register (or replace) a host primitive.  [returns status:
   VLAD_ERR_ARGUMENT for a bad description] */
VLAD_API VladStatus vlad_register(VladState *S, const VladHostPrim *prim);

/* For host functions: record 'message' and return VLAD_ERR_RUNTIME, to
   be returned by the host function.  [never fails] */
VLAD_API VladStatus vlad_host_error(VladState *S, const char *message);

/* ===== Parallel programs (doc/reference.md "Parallel programs",
   doc/parallel.md) =====
   A state is one rank of a job.  Until it joins one it is rank 0 of 1
   (the primitives mpi-* work, messages to itself included).  MPI is
   process-wide: the state that initialised it finalises it when closed
   (vlad_close, after the sends it made have completed); a host that
   initialised MPI finalises it itself.  A host with a communicator of its
   own hands it over with vlad_mpi_attach (include/vlad-mpi.h). */

/* Join the ranks of MPI_COMM_WORLD: when vlad was built with MPI and the
   process was started by an MPI launcher (mpiexec) or MPI is initialised
   already, initialising MPI if nobody has (MPI_Init_thread); otherwise
   nothing (rank 0 of 1).  On every rank but 0 the values of top-level
   expressions are then no longer echoed (echo_results).  [returns status:
   VLAD_ERR_IO when MPI fails, VLAD_ERR_ARGUMENT when the state has
   joined already] */
VLAD_API VladStatus vlad_mpi_init(VladState *S);

/* This state's rank, 0 ... size - 1, and the number of ranks. */
VLAD_API int vlad_mpi_rank(VladState *S);
VLAD_API int vlad_mpi_size(VladState *S);

/* When the state's job has more than one rank: stop every rank of it
   with exit status 'status' (MPI_Abort; does not return).  Otherwise
   return at once.  The library never calls it itself: a program that
   stops at an error calls it once it has reported the error, so that
   ranks waiting for this one do not wait forever. */
VLAD_API void vlad_mpi_abort(VladState *S, int status);

#ifdef __cplusplus
}
#endif

#endif
