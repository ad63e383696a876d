/*
 * vm/core/state.h -- VladState: everything one interpreter owns
 *
 * There is no global mutable state in libvlad: the symbol table, both
 * global environments, the continuation stack, the step counter and its
 * limits, the error record and the output buffer all live here, so a host
 * may run several independent states (Boehm's heap is the one shared thing).
 *
 * Environments.  Builtins and the prelude live in the prelude environment;
 * user code (scripts, REPL, host) in the user environment.  A user cell is
 * created on first mention and starts with the prelude's value of the same
 * name, so user definitions shadow the prelude without changing what the
 * prelude's own code calls.  Names starting with '%' are private to the
 * prelude: a user cell of such a name starts unbound.
 *
 * C stack.  The expander and the compiler recurse on the C stack over the
 * nesting of the program's code; 'cstack' is entered by every protected
 * call of the API (vm/exec/toplevel.c run_protected) and bounds that recursion
 * with a clean error (doc/hardening.md, section 3).  Everything else that
 * follows the nesting of data (the walker, equality, printing, quoted
 * constants) uses loops and explicit stacks in the heap.
 *
 * Steps.  'steps' is the number of steps taken since the state was opened.
 * While the VM runs it keeps a down-counter 'fuel' in a register; the true
 * count is then 'fuel_anchor - fuel'.  'fuel_anchor' is the next step count
 * at which something must happen: the earliest limit deadline, or the next
 * poll of the interrupt flag.  Limits (the 'checkpoint' primitive, the
 * top-level step limit) form a stack that follows the continuation stack.
 */
#ifndef VL_STATE_H
#define VL_STATE_H

#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include "vm/core/inline.h"
#include "vm/core/object.h"
#include "parser/cstack.h"
#include "include/vlad.h"

/* One active step limit. */
typedef struct Limit {
    int64_t deadline;       /* absolute step count at which it fires */
    int64_t min_deadline;   /* min of deadlines of this and all below */
    size_t frame;           /* stack index of the delimiter frame's base;
                               SIZE_MAX for the top-level limit */
    int deferred;           /* an advance of checkpoint-*j postponed while
                               a *j runs (vl_delim_defer): its deadline is
                               "never" until that *j ends */
    int barrier;            /* the entry of a hiding delimiter (%cpj-hide):
                               while set, no limit below it fires (their
                               steps are not being counted) */
    int hides;              /* that entry's run counts its first run only
                               (not steps=all): the barrier goes up */
} Limit;

/* One active invocation of j* or *j (an entry of S->ad). */
typedef struct AdFrame {
    int64_t tag;
    int reverse;            /* *j */
    size_t frame;           /* stack index of its delimiter frame */
    TapeChunk *chunk;       /* *j: its tape is (chunk, n) */
    uint32_t n;
    uint64_t escapes;       /* S->escapes when it began; UINT64_MAX when
                               it was reinstalled from a checkpoint */
} AdFrame;

/* One running segment (an entry of S->seg). */
typedef struct CpjSeg {
    size_t frame;           /* stack index of the segment frame */
    int64_t anchor;         /* position of a step = steps now - anchor */
    int replay;             /* 0: the first run, recording */
    Value log;              /* replay: the finished log (VT_RAW) */
    int64_t cursor_pos;     /* replay: the position of the last entry */
    size_t cursor;          /* read, and its index (-1: none yet) */
} CpjSeg;

/* A protected call in progress (vm/core/except.c). */
typedef struct Protect {
    jmp_buf jb;
    struct Protect *prev;
} Protect;

/* Indices of S->control[]. */
enum {
    CTL_ENTRY,          /* bottom frame of vl_vm_apply: CALL then HALT */
    CTL_CHECKPOINT,     /* (checkpoint f x k) */
    CTL_PRIMOPS,        /* (primops f x) */
    CTL_RESUME,         /* (resume u) */
    CTL_JSTAR,          /* (j* f x x') */
    CTL_STARJ,          /* (*j f x y`) */
    CTL_SEG_FIRST,      /* checkpoint-*j: the first, measuring run */
    CTL_SEG_RUN,        /* checkpoint-*j: resume a state to the end */
    CTL_SEG_ADV,        /* checkpoint-*j: advance a state by m steps */
    CTL_SEG_REC,        /* checkpoint-*j: the first run, in chunks */
    CTL_ADVANCE,        /* the delimiter of an advance */
    CTL_STARJ_ACTIVE,   /* (%cpj-*j f s y`): *j differentiating only the
                           reals of s marked active (vm/core/value.h) */
    CTL_UNDERFLOW,      /* stands for frames of a resumed checkpoint not
                           copied back yet (vm/core/contseg.h) */
    CTL_HIDE,           /* (%cpj-hide f x): checkpoint-*j's driver, the
                           steps beyond its first run not counted */
    CTL__COUNT          /* how many: the indices are numbers of checkpoint
                           files (vm/persist/ckptsave.c), a new one goes
                           here */
};

/* Index of the CALL instruction in the checkpoint prototype (its result
   register receives the checkpoint when the limit fires; the instruction
   after CKPT_END returns it). */
#define CTL_CKPT_CALL 3

struct Checkpoint;                  /* vm/core/contseg.h */
struct Spill;                       /* vm/persist/spill.c */

/* The spill hook: the one call that goes up a floor (doc/internals.md
   section 2).  Under spill=DIR, checkpoint-*j (vm/cpj/) sends held states
   it will not need soon to files (vm/persist/spill.c): their Checkpoint
   stays, with 'away' set and callee, arg and seq cleared.  Whatever reads
   those fields first -- the walker, reinstalling, saving, fresh tags,
   %checkpoint-input, all on floors below vm/persist/ -- calls
   vl_contseg_present (vm/core/contseg.h), which calls 'bring_back' here.
   vm/persist/spill.c's vl_spill_init fills it when the state opens
   (vm/exec/toplevel.c), before any program runs; it is never changed
   after, and no checkpoint is away before it is set.  Part of
   checkpoint-*j's interface (vm/cpj/cpj.h). */
typedef struct SpillHooks {
    /* k's callee, arg and seq back from its record (k->away is then 0);
       a record that is lost or damaged raises VLAD_ERR_IO */
    void (*bring_back)(VladState *S, struct Checkpoint *k);
} SpillHooks;

/* checkpoint-*j's log of messages (receive logging: doc/parallel.md).
   vm/cpj/cpjlog.c fills S->msglog_hooks when the state opens; the
   communication of vm/ad/admsg.c, below it, asks through them whether a
   re-execution runs (then it does not communicate: receives return what
   the first run logged, sends are not repeated) and records what the
   first runs receive.  Part of checkpoint-*j's interface (vm/cpj/cpj.h). */
struct TapeSlot;                    /* vm/core/object.h */
struct VlAdjointIO;                 /* vm/ad/ad.h */

typedef struct MsgLogged {
    const unsigned char *data;      /* the message received (a collective:
                                       its result), */
    size_t len;
    Value *floor;                   /* and its reals as they were at the
                                       floor of the segment that logged it
                                       (the AD invocations below it) */
    size_t nfloor;
} MsgLogged;

typedef struct MsgReplay {
    size_t first;                   /* the AD invocations below the
                                       replaying segment in its first run */
    size_t floor;                   /* and now: [first, floor) are the
                                       re-execution's own (a base case's
                                       *j) */
    int pilot;                      /* the re-execution only measures:
                                       those record nothing */
} MsgReplay;

typedef struct MsgLogHooks {
    /* 1 and the innermost replaying segment's view when a re-execution
       runs; 0 when messages are real */
    int (*replaying)(VladState *S, MsgReplay *r);
    /* the message the first run logged at this point of the re-execution
       (an error naming 'who' when there is none) */
    const MsgLogged *(*replay)(VladState *S, const char *who);
    /* the segments that record (first runs, above the replaying one):
       their number, and the first 'cap' of their floors, innermost last */
    size_t (*recorders)(VladState *S, size_t *floors, size_t cap);
    /* log m in recorder k (0: the outermost that records) */
    void (*record)(VladState *S, size_t k, const MsgLogged *m);
} MsgLogHooks;

struct VladState {
    VlSymtab *syms;                 /* interned names */

    Global **prelude_cells;         /* by symbol id; NULL if absent */
    Global **user_cells;            /* by symbol id; NULL if absent */
    uint32_t ncells;                /* capacity of both arrays */
    uint64_t shadowed;              /* bit i: user rebound inline prim i */
    Value inline_values[IN__COUNT]; /* the builtin value of each inline id */
    Global *inline_cells[IN__COUNT];/* the user cell of each inline name */

    Value *stack;                   /* continuation stack (GC, scanned) */
    size_t stack_top;               /* first slot free for a new entry */
    size_t peak_stack_size;         /* largest stack_size so far */
    size_t stack_size;              /* slots allocated */
    size_t max_stack;               /* largest size allowed */

    int64_t steps;                  /* steps taken (valid outside the VM) */
    int64_t fuel_anchor;            /* see header comment */
    int64_t poll_due;               /* the step of the next regular poll
                                       (vm/exec/vm.c): limits, which anchor
                                       the fuel sooner, do not put it
                                       off (vl_delim_anchor) */
    int64_t step_limit;             /* per top-level evaluation; 0: none */
    volatile sig_atomic_t interrupt;/* set asynchronously by vlad_interrupt */
    int wake_rd;                    /* the interrupt's wake-up pipe
                                       (vm/core/stdinwait.h): its read end */
    volatile sig_atomic_t wake_wr;  /* its write end + 1; 0: none yet */

    Proto *control[CTL__COUNT];     /* prototypes of control primitives,
                                       by CTL_ index (built by vm/exec/vm.c) */
    Value resume_value;             /* the resume primitive (a closure) */

    /* the delimiters' side stacks (vm/core/delim.h), innermost last */
    Limit *limits;                  /* active step limits */
    size_t nlimits, limits_cap;
    AdFrame *ad;                    /* active j* / *j invocations */
    size_t nad, ad_cap;
    CpjSeg *seg;                    /* running checkpoint-*j segments */
    size_t nseg, seg_cap;
    int64_t next_tag;               /* tags given to j* / *j so far */
    struct PlainDual *dual_next;    /* bump allocation of plain duals */
    size_t dual_left;
    /* the ring of temporary plain duals: results read once, as an
       operand of an inline operation (VL_X_TEMP, vm/ad/adfast.h), as
       primal and tangent pairs */
#define VL_TEMP_DUALS 64                /* a power of two */
    double temp_duals[2 * VL_TEMP_DUALS];
    uint32_t temp_next;
    uint64_t tape_nodes;            /* tape nodes recorded so far */
    uint64_t peak_tape_nodes;       /* the longest tape so far */
    uint64_t last_tape_slots;       /* the slots of the last *j's own tape
                                       (checkpoint-*j's pilot reads it) */
    struct Cpj *cpj;                /* checkpoint-*j (vm/cpj/cpj.h) */
    Value advance_value;            /* the internal advance delimiter */
    Value underflow_value;          /* the closure of underflow frames
                                       (vm/core/cont.h) */
    const struct PrimInfo *calling_prim; /* the primitive being applied */
    const char *host_message;       /* vlad_host_error's message */
    uint64_t tape_bytes;            /* bytes allocated for tapes so far */

    Protect *protect;               /* innermost protected call */
    VlCStack cstack;                /* the C stack guard of the current
                                       API call (parser/cstack.h): the
                                       expander and the compiler check it */
    VladError err;                  /* last error (strings in GC memory) */

    VladConfig config;              /* copy of the host's configuration */
    char **include_dirs;            /* -I directories (GC) */
    size_t ninclude_dirs;
    const char **include_stack;     /* files being included (cycles) */
    size_t ninclude_stack, include_stack_cap;

    char *in_buf;                   /* read-real's input buffer */
    size_t in_pos, in_len;          /* unread bytes: in_buf[in_pos..len) */
    int in_eof;                     /* the input has ended */
    uint64_t in_read;               /* bytes read into in_buf so far (and
                                       a resumed program's before): the
                                       input consumed is in_read - (in_len
                                       - in_pos) */

    char *out;                      /* output buffer */
    size_t nout, out_cap;

    /* statistics of the last top-level evaluation and of the state */
    int64_t last_steps;
    double last_seconds;

    /* position of the running VM, published before anything may raise */
    Value *vm_base;                 /* base of the running frame */
    Closure *vm_cl;                 /* its closure */
    const Instr *vm_ip;             /* next instruction of that frame */
    int vm_running;                 /* vm_base/vm_ip are meaningful */
    size_t entry_frame;             /* stack index of the running entry */
    int64_t form_start;             /* steps when the evaluation began */
    int64_t print_steps;            /* pairs printed by it (vm/core/print.c) */
    size_t heap_limit;              /* bytes of GC heap while running; 0 */
    VlHeapLimit heap_limit_rec;     /* it, counted while an evaluation runs
                                       (vm/core/gc.h) */
    Value interrupted;              /* the evaluation stopped by the last
                                       interrupt, as a checkpoint; or () */
    uint64_t escapes;               /* host calls and captures of a
                                       suspended *j so far: a *j with none
                                       in its extent frees its tape when
                                       it ends (vm/ad/ad.h, vm/core/cont.c) */
    void *walk_todo;                /* vm/ad/walk.c: its stack of pending
                                       visits, reused (cleared) */
    size_t walk_todo_cap;
    void *walk_memo;                /* vm/ad/walk.c: its memo table, reused
                                       by one walk after another */
    struct VlUnit *compile_unit;    /* the form being compiled (vm/core/unit.h) */
    uint64_t compile_rebound;       /* its inline names found rebound */
    const uint64_t *compile_forced; /* recompiling: those of the first
                                       compilation, or NULL */
    struct VlUnit **prelude_units;  /* the prelude's forms, in order */
    size_t nprelude_units, prelude_units_cap;
    uint64_t ckpt_build_id;         /* vm/persist/ckptfile.h; 0: not computed */
    /* autosave (vm/exec/autosave.h): the hook is called at every regular
       poll of the VM while set; the file, its lock, the interval */
    void (*autosave_hook)(VladState *S, Value *fb, int nargs, int64_t now);
    struct VlAutosave *autosave;
    struct VlSaveFile *autosave_file;   /* its file (vm/persist/savefile.h): the
                                       lock is released when the state
                                       is freed */
    /* vlad_set_warning: what the host is told that is no error of a
       call (an autosave that failed: the program goes on) */
    void (*warn)(void *userdata, const char *text);
    void *warn_userdata;
    SpillHooks spill_hooks;         /* filled by vm/persist/spill.c (above) */
    MsgLogHooks msglog_hooks;       /* filled by vm/cpj/cpjlog.c (above) */
    /* the adjoint communication of a record the reverse sweeps meet
       (vm/ad/admsg.c, above them, sets it: vl_admsg_install) */
    void (*adjoint_comm)(VladState *S, const struct TapeSlot *t, uint32_t r,
                         const struct VlAdjointIO *io);
    int64_t msg_sent[2], msg_bytes[2];  /* by channel (vm/mpi/comm.h) */
    int64_t collectives;
    struct Spill *spill;            /* vm/persist/spill.c; NULL: none yet */
    void *run_stack;                /* vm/exec/toplevel.c: the texts being run
                                       (RunFrame), innermost last; NULL
                                       outside a program's evaluation */
    size_t run_depth;
    int run_define;                 /* the form running is a definition */
    SrcPos run_pos;                 /* and where it is */
    uint64_t out_total;             /* bytes of output handed to 'write'
                                       (plus a resumed program's before) */
    int busy;                       /* API calls evaluating on the state
                                       (vm/exec/toplevel.c run_protected) */
    int closing;                    /* vlad_close was called: the state is
                                       freed once 'busy' drops to 0 */
    struct VlComm *comm;            /* its ranks and messages (vm/mpi/comm.h);
                                       NULL: rank 0 of 1, none sent yet */
};

/* Find or create the cell of 'name' in the user (or prelude) environment. */
/* Bind g to v by a definition (keeps the shadow mask of inline
   operations up to date). */
VL_INTERNAL void vl_state_define(VladState *S, Global *g, Value v);

VL_INTERNAL Global *vl_state_user_cell(VladState *S, Symbol *name);

/* The value of the global 'name' as user code sees it, without creating a
   symbol or a cell: 1 and '*out' if it is bound, else 0. */
VL_INTERNAL int vl_state_lookup(VladState *S, const char *name, Value *out);
VL_INTERNAL Global *vl_state_prelude_cell(VladState *S, Symbol *name);

/* Output through the host's write callback, buffered (8 KB) and flushed:
   when the buffer is full, at every poll of the VM (each VL_POLL_QUANTUM
   steps, vm/exec/vm.c: so output waits at most that many steps while a
   program runs), before read-real waits for input, at the end of each
   top-level form and of each API call (errors included: after an
   interrupt, all output before it has been written), and by vlad_flush
   (include/vlad.h, doc/embedding.md).  A write is never split between
   two calls of the callback, so each call gets whole lines (write and
   write-real end theirs with a newline); a text longer than the buffer
   is handed over on its own. */
VL_INTERNAL void vl_state_write(VladState *S, const char *text, size_t len);
VL_INTERNAL void vl_state_flush(VladState *S);
/* The flush of the whole lines only: the end of a line being written
   stays (in a job of several ranks, at the polls and before a wait for
   a message: their lines never mix, doc/parallel.md). */
VL_INTERNAL void vl_state_flush_lines(VladState *S);

/* Bind the n primitives of 'table' in the prelude environment. */
VL_INTERNAL void vl_state_install_prims(VladState *S,
                                        const PrimInfo *table,
                                        size_t n);

#endif
