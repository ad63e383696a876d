/*
 * vm/core/opcodes.h -- the bytecode instruction set, listed once
 *
 * An instruction is 8 bytes: an opcode, an 8-bit sub-operand x and three
 * 16-bit operands a, b, c (see Instr in vm/core/object.h).  'R[x]' is register x of the current frame,
 * 'K[x]' constant x of the current prototype, 'off' the signed jump
 * offset stored in 'c' (relative to the next instruction; forward only
 * except where noted).  Every instruction that can transfer control to
 * VLAD code (calls, and the inline operations whose slow path calls a user
 * procedure that shadows a primitive) writes its result to R[a]: a return
 * finds its destination by reading operand 'a' of the instruction before
 * the return address.
 *
 * Inline operations (ADD ... PRIM2) implement primitives the compiler saw
 * by name; they check, with one register test, that the user has not
 * rebound that name since, and otherwise call the new binding.  They are
 * not steps.  The step counter ticks in CALL and TAILCALL only (see
 * vm/exec/vm.c, "Steps").
 *
 * The delimiters' instructions (CKPT_BEGIN ... HIDE_END) keep their state
 * in the frame's registers from C, operand a of a *_BEGIN and b of an
 * *_END: C + VL_AD_TAG and the other slots of vm/core/delimregs.h.
 *
 * OP(name, comment)
 */
#define VL_OPCODES(OP) \
    OP(MOVE,      "R[a] = R[b]") \
    OP(LOADK,     "R[a] = K[b]") \
    OP(GETGLOBAL, "R[a] = value of global cell K[b]; error if unbound") \
    OP(DEFGLOBAL, "global cell K[b] = R[a]") \
    OP(GETFREE,   "R[a] = captured value b of the running closure") \
    OP(SELF,      "R[a] = the running closure") \
    OP(CLOSURE,   "R[a] = new closure of child prototype b") \
    OP(SETFREE,   "captured value b of closure R[a] = R[c] (letrec)") \
    OP(CONS,      "R[a] = (cons R[b] R[c])") \
    OP(JMP,       "jump by off") \
    OP(JMPF,      "if R[a] is #f jump by off") \
    OP(JMPT,      "if R[a] is not #f jump by off") \
    OP(MATCHK,    "unless R[a] equals K[b] raise a pattern error (info c)") \
    OP(MATCHPAIR, "R[b] = car, R[b+1] = cdr of R[a] or pattern error (c)") \
    OP(CALL,      "R[a] = R[a+1] applied to R[a+2 .. a+1+b]; b > 1: tuple") \
    OP(TAILCALL,  "return R[a+1] applied to R[a+2 .. a+1+b]") \
    OP(RETURN,    "return R[a] to the caller") \
    OP(ADD,       "R[a] = R[b] + R[c]") \
    OP(ADDK,      "R[a] = R[b] + K[c]") \
    OP(SUB,       "R[a] = R[b] - R[c]") \
    OP(SUBK,      "R[a] = R[b] - K[c]") \
    OP(SUBKR,     "R[a] = K[b] - R[c]") \
    OP(MUL,       "R[a] = R[b] * R[c]") \
    OP(MULK,      "R[a] = R[b] * K[c]") \
    OP(DIV,       "R[a] = R[b] / R[c]") \
    OP(DIVK,      "R[a] = R[b] / K[c]") \
    OP(DIVKR,     "R[a] = K[b] / R[c]") \
    OP(CMP,       "R[a] = (cmp_x R[b] R[c]); x is a VlCmp") \
    OP(CMPK,      "R[a] = (cmp_x R[b] K[c])") \
    OP(JLT,       "unless R[a] < R[b] jump by off") \
    OP(JLE,       "unless R[a] <= R[b] jump by off") \
    OP(JGT,       "unless R[a] > R[b] jump by off") \
    OP(JGE,       "unless R[a] >= R[b] jump by off") \
    OP(JEQ,       "unless R[a] = R[b] jump by off") \
    OP(JLTK,      "unless R[a] < K[b] jump by off") \
    OP(JLEK,      "unless R[a] <= K[b] jump by off") \
    OP(JGTK,      "unless R[a] > K[b] jump by off") \
    OP(JGEK,      "unless R[a] >= K[b] jump by off") \
    OP(JEQK,      "unless R[a] = K[b] jump by off") \
    OP(PRIM1,     "R[a] = inlinable unary primitive c applied to R[b]") \
    OP(PRIM2,     "R[a] = inlinable binary primitive x on R[b], R[c]") \
    OP(JPRIM1,    "unless (unary predicate x of R[a]) jump by off") \
    OP(CKPT_BEGIN,   "checkpoint: validate k in R[b], push the limit, "\
                     "its deadline in C = a; x = 1: the advance delimiter") \
    OP(CKPT_END,     "checkpoint: R[a] = finished checkpoint of R[a]; "\
                     "C = b") \
    OP(PRIMOPS_BEGIN,"primops: start (C = a) = current step count (raw)") \
    OP(PRIMOPS_END,  "primops: R[a] = (list R[a] (- now start)), C = b") \
    OP(RESUME,       "resume R[b]: reinstall its frames, result to R[a]") \
    OP(JSTAR_BEGIN,  "j*: tag (C = a) = new tag, input = x R[b] bundled "\
                     "with R[b+1]") \
    OP(JSTAR_END,    "j*: R[a] = (list y y') from result R[a], tag; C = b") \
    OP(STARJ_BEGIN,  "*j: tag (C = a) = new tag, input = x R[b] tapified "\
                     "(c = 1: its active reals only)") \
    OP(STARJ_END,    "*j: R[a] = (list y x`) from result R[a], y`, tag, "\
                     "input; C = b") \
    OP(SEG_BEGIN,    "segment of mode x (SegMode): anchor (C = a) = the "\
                     "step of position 0, from pos (+ c) and now; FIRST: "\
                     "pos = 0, log = a new recording log; FIRST, REC: "\
                     "its steps count; push the segment (log)") \
    OP(SEG_END,      "segment of mode x ends (C = b): FIRST: R[a] = (list "\
                     "R[a] n log); ADV, REC: the position where the "\
                     "checkpoint R[a] stopped; REC: R[a] = (list R[a] "\
                     "log); FIRST, REC: counting stops") \
    OP(HIDE_BEGIN,   "%cpj-hide: origin (C = a) = the origin of its counted "\
                     "steps, counted = 1 + those counted so far (0: "\
                     "counting), strategy = the run's, hides = 1: it "\
                     "hides steps (not steps=all)") \
    OP(HIDE_END,     "%cpj-hide: end (C = b): the clock back to origin "\
                     "plus the steps counted, counted - 1") \
    OP(UNDERFLOW,    "copy the next frames of the sequence in R[0] back "\
                     "and return R[a] to the topmost (vm/core/cont.h)") \
    OP(REVAPPEND,    "R[a] = the elements of the list R[b] in reverse "\
                     "order consed onto R[c] (long list forms)") \
    OP(HALT,         "leave the VM with R[a] (bottom of an entry)")

typedef enum Opcode {
#define VL_OP_ENUM(name, comment) OP_##name,
    VL_OPCODES(VL_OP_ENUM)
#undef VL_OP_ENUM
    OP__COUNT
} Opcode;

/* The mode of SEG_BEGIN and SEG_END (their x): which of checkpoint-*j's
   segment prototypes (vm/cpj/cpj.h; assembled in vm/exec/vm.c) runs. */
typedef enum SegMode {
    SEG_MODE_RUN,       /* CTL_SEG_RUN: resume a state to the end,
                           replaying the log */
    SEG_MODE_FIRST,     /* CTL_SEG_FIRST: the first run, (f x), whole:
                           returns (list y n log) */
    SEG_MODE_ADV,       /* CTL_SEG_ADV: advance a state by m steps,
                           replaying the log */
    SEG_MODE_REC        /* CTL_SEG_REC: a chunk of the first run, an ADV
                           that records: returns (list u log) */
} SegMode;

/* Whether a segment of mode x runs (part of) the first run: its steps
   count, it records the effects (the others replay them). */
static inline int vl_seg_mode_first(int x)
{
    return x == SEG_MODE_FIRST || x == SEG_MODE_REC;
}
