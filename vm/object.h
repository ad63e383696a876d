/*
 * vm/object.h -- heap objects and compiled code
 *
 * Objects have no header: the tag of the Value that points at them says
 * what they are (vm/value.h).  All of them live in the Boehm heap.
 *
 *   Pair        two Values; immutable once built.
 *   Proto       a compiled lambda: bytecode, constants, source positions,
 *               liveness of registers at every call site (so a captured
 *               frame keeps only live values) and the description of what
 *               its closures capture.
 *   Closure     a flat closure: its Proto and the values of its free
 *               variables, nothing else.  Letrec fills captured slots after
 *               allocation; a closure is never changed after that.
 *   PrimInfo    a primitive procedure (static, read-only table).
 *   Global      a global variable cell; code refers to cells directly, so
 *               globals are late-bound at the cost of one load.
 *   Checkpoint  a suspended computation: captured frames and the pending
 *               application, or the result of a finished one (vm/cont.h).
 */
#ifndef VL_OBJECT_H
#define VL_OBJECT_H

#include <stddef.h>
#include "vm/value.h"
#include "vm/opcodes.h"
#include "parser/ast.h"

typedef struct VladState VladState;

typedef struct Pair {
    Value car;
    Value cdr;
} Pair;

/* One instruction (8 bytes); operands as described in vm/opcodes.h. */
typedef struct Instr {
    uint8_t op;     /* an Opcode */
    uint8_t x;      /* sub-operand: primitive / comparison id, flags */
    uint16_t a;
    uint16_t b;
    uint16_t c;     /* or a signed jump offset (int16_t) */
} Instr;

/* Flag in Instr.x of inline operations compiled in prelude code: they never
   defer to a user rebinding of the primitive's name. */
#define VL_X_PRELUDE 0x80
/* Flag in Instr.x of an arithmetic operation (ADD .. DIVKR, PRIM1 of a
   unary math primitive) whose result is read once, as an operand of an
   inline operation, with only loads and other inline operations run in
   between (no call): a plain dual it makes goes into the state's ring of
   temporary duals, not the heap (vm/adfast.h, vm/compile.c's
   mark_temps). */
#define VL_X_TEMP 0x40
/* Flag in Instr.x of an arithmetic operation whose result, and every
   value computed from it, only comparisons and predicates read, with no
   step while it is live (vm/compile.c, compute_liveness): unless the
   user has rebound an inline primitive, it computes the primal alone, a
   plain real, with no dual or tape node (vm/vm.c, PRIMAL_ONLY). */
#define VL_X_PRIMAL 0x20
/* Flag in Instr.x of CMPK, of the J..K comparisons and of ADDK, MULK:
   the source had the constant first, (< 1 x) compiled as (> x 1), (+ 1 x)
   as (+ x 1); a call to the user's rebinding of the operator, and the
   error messages of a comparison, take the source's operator and
   order. */
#define VL_X_SWAPPED 0x10
/* The inline id in Instr.x of PRIM2 and JPRIM1, below 32 (PRIM1 keeps its
   id in c: vl_instr_inline_id below); the comparison of CMP,
   CMPK (id - IN_EQ, below VL_X_SWAPPED). */
#define VL_X_ID 0x1f
#define VL_X_CMP 0x0f

/* The inline id of PRIM1 (in c: the unary ids go past 32), PRIM2 and
   JPRIM1 (in x). */
static inline int vl_instr_inline_id(const Instr *i)
{
    return i->op == OP_PRIM1 ? i->c : i->x & VL_X_ID;
}

/* Source line and column of one instruction. */
typedef struct Loc {
    int32_t line;
    int32_t col;
} Loc;

/* Where a closure's captured value i comes from when OP_CLOSURE runs in
   the enclosing function. */
typedef enum CaptureKind {
    CAP_REG,        /* register 'index' of the enclosing frame */
    CAP_FREE,       /* captured value 'index' of the enclosing closure */
    CAP_SELF        /* the enclosing closure itself */
} CaptureKind;

typedef struct Capture {
    uint16_t kind;  /* a CaptureKind */
    uint16_t index;
} Capture;

/* What a pattern-match instruction reports when it fails. */
typedef struct MatchInfo {
    Pattern *pattern;   /* the whole pattern being matched */
    uint16_t root;      /* register holding the whole value matched */
} MatchInfo;

/* A run of consecutive registers live after a call-capable instruction
   returns (Proto.liveruns). */
typedef struct LiveRun {
    uint16_t first;     /* the first register of the run */
    uint16_t count;     /* registers in the run (at least 1) */
} LiveRun;

/* Special prototypes implemented with control instructions; frames of
   these are the delimiters of the checkpointing interface. */
typedef enum ProtoKind {
    PK_LAMBDA = 0,  /* ordinary compiled code */
    PK_TOPLEVEL,    /* the thunk of one top-level form */
    PK_CHECKPOINT,  /* the checkpoint primitive: a limit delimiter */
    PK_PRIMOPS,     /* the primops primitive: a counting delimiter */
    PK_RESUME,      /* the resume primitive */
    PK_JSTAR,       /* j*: an AD delimiter (forward) */
    PK_STARJ,       /* *j: an AD delimiter (reverse) */
    PK_SEGMENT      /* a checkpoint-*j segment (vm/cpj.h) */
} ProtoKind;

typedef struct Proto {
    Instr *code;            /* bytecode (atomic GC memory) */
    Loc *locs;              /* source position per instruction */
    uint32_t *liveat;       /* ncode + 1 offsets into 'liveruns': the
                               registers live after instruction k returns
                               are liveruns[liveat[k] .. liveat[k + 1]),
                               in order (none unless k is call-capable) */
    LiveRun *liveruns;      /* the runs of every instruction, in order */
    Value *consts;          /* constants (scanned) */
    struct Proto **children;/* prototypes of the lambdas created here */
    Capture *captures;      /* 'nfree' entries */
    MatchInfo *matches;     /* pattern descriptions for MATCH* */
    const char *name;       /* procedure name or NULL */
    const char *file;       /* source file of every instruction */
    Pattern *param;         /* the parameter pattern (messages) */
    SrcPos pos;             /* where the lambda was written */
    uint32_t ncode;
    uint32_t nconsts;
    uint32_t nchildren;
    uint32_t nmatches;
    uint16_t nregs;         /* registers used by a frame (incl. temps) */
    uint16_t nparams;       /* 1, or n > 1 when the pattern is a tuple of
                               n variables received unboxed in R[0..n-1] */
    uint16_t nfree;         /* captured values */
    uint16_t ctlreg;        /* control prototypes: the register holding
                               the raw step count of the delimiter */
    uint8_t kind;           /* a ProtoKind */
    uint8_t prelude;        /* compiled in the prelude's environment */
} Proto;

typedef struct Closure {
    Proto *proto;
    Value free[];           /* proto->nfree captured values */
} Closure;

/* A C primitive: 'arity' values are passed (a binary primitive called with
   one pair argument receives its car and cdr). */
typedef Value (*PrimFn)(VladState *S, Value *args);

typedef struct PrimInfo {
    const char *name;
    PrimFn fn;              /* NULL for control primitives */
    uint8_t arity;          /* 1, 2 or 3 */
    int8_t inline_id;       /* id for inline operations, or -1 */
} PrimInfo;

typedef struct Global {
    Value value;            /* VT_UNDEF while unbound */
    Symbol *name;
    int inline_id;          /* >= 0: the builtin this name may be inlined as */
    int user;               /* cell of the user environment */
    int defined;            /* user cell: bound by a definition */
} Global;

#endif
