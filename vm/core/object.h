/*
 * vm/core/object.h -- heap objects and compiled code
 *
 * Objects have no header: the tag of the Value that points at them says
 * what they are (vm/core/value.h).  All of them live in the Boehm heap.
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
 *   Dual, PlainDual          a real of forward mode (vm/ad/ad.h).
 *   TapeChunk, TapeSlot, TapeExt  the nodes of reverse mode's tapes (their
 *               encoding: vm/ad/tape.h).
 * (A Checkpoint and the frames it holds: vm/core/contseg.h.)  vm/core/object.c has
 * the operations on any value that look inside these objects (equality,
 * the primal of a real, tuples, kind names).
 */
#ifndef VL_OBJECT_H
#define VL_OBJECT_H

#include <stddef.h>
#include <stdint.h>
#include "vm/core/value.h"
#include "vm/core/opcodes.h"
#include "parser/ast.h"

typedef struct VladState VladState;

typedef struct Pair {
    Value car;
    Value cdr;
} Pair;

/* One instruction (8 bytes); operands as described in vm/core/opcodes.h. */
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
   temporary duals, not the heap (vm/ad/adfast.h, vm/core/compile.c's
   mark_temps). */
#define VL_X_TEMP 0x40
/* Flag in Instr.x of an arithmetic operation whose result, and every
   value computed from it, only comparisons and predicates read, with no
   step while it is live (vm/core/compile.c, compute_liveness): unless the
   user has rebound an inline primitive, it computes the primal alone, a
   plain real, with no dual or tape node (vm/exec/vm.c, PRIMAL_ONLY). */
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
    PK_SEGMENT,     /* a checkpoint-*j segment (vm/cpj/cpj.h) */
    PK_HIDE         /* %cpj-hide: checkpoint-*j, its steps beyond its
                       first run not counted (vm/exec/vm.c) */
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
    uint16_t ctlreg;        /* delimiter prototypes: the first register
                               of the frame's own (vm/core/delimregs.h) */
    uint8_t kind;           /* a ProtoKind */
    uint8_t prelude;        /* compiled in the prelude's environment */
    const struct VlUnit *unit; /* the top-level form it was compiled from
                               (vm/core/unit.h); NULL: a control prototype */
    const struct Proto *top;/* the prototype of that form (vl_unit_end) */
    const struct Proto *twin;/* the last prototype vl_object_same_code
                               found to have the same code (a cache) */
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

/* The registers live in a frame of 'p' waiting at the call before
   'ret_ip': '*n' runs of consecutive registers, in order. */
static inline const LiveRun *vl_proto_live_set(const Proto *p,
                                               const Instr *ret_ip,
                                               uint32_t *n)
{
    size_t pc = (size_t)(ret_ip - p->code) - 1;
    *n = p->liveat[pc + 1] - p->liveat[pc];
    return &p->liveruns[p->liveat[pc]];
}

/* ===== Reals under differentiation (vm/ad/ad.h says how they are used) ===== */

typedef struct Dual {
    Value primal;           /* first field: vl_object_primal relies on it */
    Value tangent;          /* a real */
    int64_t tag;
} Dual;

/* The compact form of a dual whose primal and tangent are plain doubles
   and whose tag fits in 31 bits: a VT_DUAL value with the tag in aux's
   low bits (tags start at 1, so 0 there means a Dual; the top bit is the
   activity mark, vm/core/value.h), pointing at 16 bytes of pointer-free
   memory. */
typedef struct PlainDual {
    double primal;          /* first field */
    double tangent;
} PlainDual;
#define VL_PLAIN_DUAL_MAX_TAG ((int64_t)VL_AUX_BITS)

/* A tape is stored in chunks: arrays of fixed-size slots filled in
   creation order.  A node is named by its chunk and its ordinal in it
   (a VT_TAPE value has as.obj = chunk, aux = ordinal | the activity mark
   VL_ACTIVE, vm/core/value.h); its index on the
   tape, which the reverse sweep uses, is chunk->base + ordinal.  A chunk
   continues the tape prefix (prev, prev_n): its first node follows node
   prev_n - 1 of prev.  Appending at (chunk, n) writes in place only when n
   is the chunk's fill mark; otherwise (a checkpoint resumed a second time,
   extending an older prefix) a new chunk starts there.  So tapes stay
   persistent and recorded nodes never change. */
#define VL_TAPE_NONE 0xFFFFFFFFu        /* no parent */
#define VL_TAPE_GENERAL 0xFFFFFFFEu     /* parent of a general slot */
#define VL_TAPE_CONT 0xFFFFFFFDu        /* parent of a partial's slot */
#define VL_TAPE_COMM 0xFFFFFFFCu        /* parent of a communication
                                           record (vm/ad/admsg.h): a leaf
                                           to everything but the sweeps */
/* Tape indices are below 2^30: the top two bits of a compact node's
   'parent' say how its partials are found (its class). */
#define VL_TAPE_INDEX_BITS 30
#define VL_TAPE_INDEX_MASK ((1u << VL_TAPE_INDEX_BITS) - 1)
enum {
    VL_TAPE_UNARY = 0,      /* one parent, partial by a unary rule */
    VL_TAPE_BINARY = 1,     /* two parents, partials by a binary rule */
    VL_TAPE_EXPLICIT = 2,   /* partials in the slots that follow */
    VL_TAPE_FLOAT = 3       /* one parent, its stored partial a float in
                               parent1 (tape indices stay below
                               VL_TAPE_INDEX_MASK - 4, so that this class
                               never reads as VL_TAPE_CONT or above) */
};

/* A node whose primal and partials carry other perturbations: the slot
   is marked VL_TAPE_GENERAL and its chunk's exts[ordinal] points at
   this record. */
typedef struct TapeExt {
    Value primal;
    Value partials[2];
    uint32_t parents[2];
    uint32_t nparents;
} TapeExt;

/* One slot: 16 bytes.  A compact node (plain primal and partials) takes
   one slot, and one more per stored partial (VL_RULE_EXPLICIT).  A
   general node (parent == VL_TAPE_GENERAL) takes as many slots as the
   compact node of the same operation would, so that a tape has the same
   layout whatever perturbations its reals carry (vm/ad/ad.c,
   through_tape).  'primal' is always the plain primal (all
   perturbations removed); in a VL_TAPE_CONT slot, a stored partial. */
typedef struct TapeSlot {
    double primal;
    uint32_t parent;        /* parent 0's tape index | class << 30,
                               VL_TAPE_NONE (a leaf), VL_TAPE_GENERAL or
                               VL_TAPE_CONT */
    uint32_t parent1;       /* VL_TAPE_UNARY: the rule; VL_TAPE_BINARY:
                               parent 1's index | (rule -
                               VL_RULE_BINARY_FIRST) << 30; VL_TAPE_EXPLICIT: parent 1's index or
                               VL_TAPE_NONE */
} TapeSlot;

/* The slots allocated for a chunk of capacity cap: two spare ones after
   them for the partials of a node that starts in the last. */
#define VL_TAPE_CHUNK_SLOTS(cap) ((cap) + 2)

typedef struct TapeChunk {
    struct TapeChunk *prev; /* the chunk holding the preceding nodes */
    TapeExt **exts;         /* general nodes by ordinal, NULL while none */
    TapeSlot *slots;        /* pointer-free memory */
    int64_t tag;            /* the *j invocation this tape belongs to */
    int64_t compact_tag;    /* tag while every slot of this chunk is a
                               compact node's, else 0 (no invocation's):
                               the fast paths' one test (vm/ad/adfast.h) */
    uint32_t base;          /* tape index of slots[0] */
    uint32_t prev_n;        /* nodes of prev that precede slots[0] */
    uint32_t used, cap;     /* fill mark, capacity */
    uint32_t conts;         /* VL_TAPE_CONT slots in slots[0 .. used) */
    uint32_t conts_before;  /* and on the tape before slots[0] */
    int general;            /* a general node is in this chunk or before */
    int comms;              /* a communication record (VL_TAPE_COMM) is
                               in this chunk, */
    int comms_any;          /* in this chunk or before */
    int managed;            /* slots from vl_gc_alloc_managed, not yet
                               handed to the collector (vl_ad_release_tape) */
} TapeChunk;

/* The plain primal of a VT_TAPE value. */
static inline double vl_tape_primal(Value v)
{
    const TapeSlot *t =
        &((const TapeChunk *)v.as.obj)->slots[v.aux & VL_AUX_BITS];
    /* a checkpoint may hold a value naming a partial's slot (the end of
       a suspended tape, vm/core/cont.c): its primal is 0 */
    return VL_LIKELY(t->parent != VL_TAPE_CONT) ? t->primal : 0;
}

/* ===== Operations on any value that look inside objects (vm/core/object.c) ===== */

/* equal? on constants in patterns: reals by primal value, booleans, the
   empty list, pairs structurally (iterative along cdrs). */
VL_INTERNAL int vl_object_equal(Value a, Value b);

/* Whether two prototypes have the same code: the same one, or the
   prototypes at the same place of two top-level forms compiled to the
   same code (a global redefined by the very text it had, a checkpoint
   file loaded twice: every prototype of the two forms executes the same
   instructions on the same constants and makes the same frames).  A
   value made by one and a cotangent made by the other then zip
   (vm/ad/walk.c).  Two lambda expressions written alike in one form are two
   codes. */
VL_INTERNAL int vl_object_same_code(const Proto *a, const Proto *b);

/* The primal double of a real (plain, dual or tape node). */
VL_INTERNAL double vl_object_primal(Value v);

/* The tuple (cons* args[0] ... args[n-1]) of n >= 1 values. */
VL_INTERNAL Value vl_object_tuple(const Value *args, int n);

/* The list (a b). */
VL_INTERNAL Value vl_object_list2(Value a, Value b);

/* A short name of the kind of 'v' for messages ("real", "pair", ...). */
VL_INTERNAL const char *vl_object_kind(Value v);

#endif
