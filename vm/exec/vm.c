/*
 * vm/exec/vm.c -- the dispatch loop: calls, returns, steps, inline primitives
 *
 * The continuation is VM data, never the C stack: a VLAD call pushes a
 * frame on S->stack and jumps; a return pops it and jumps back.  No VLAD
 * call recurses in C, so any step can capture the whole continuation.
 *
 * Frame layout (stack slots are Values):
 *
 *     base[-2]  header: VT_RAW, as.ptr = return address (the instruction
 *               after the call in the caller), aux = distance from the
 *               caller's base to this base
 *     base[-1]  the running closure
 *     base[0..] registers (arguments first)
 *
 * A call block built by the caller at register a is [header, callee,
 * args...], so the callee's base is the caller's base + a + 2.  A return
 * delivers its value to register 'a' of the instruction before the return
 * address (or, for an inline comparison that called a user procedure,
 * turns it into that instruction's branch).  Tail calls move the callee
 * and its arguments down over the running frame and keep its header.
 *
 * Steps.  One step is one application performed by the generic call path
 * (CALL, TAILCALL, and the calls an inline operation makes when its
 * primitive has been rebound): the step is counted when the application
 * starts, before the callee runs.  The check is one decrement and one
 * predictable branch on a register ('fuel'); when it reaches zero the slow
 * path decides whether a limit fired, the host asked for an interrupt, or
 * only the poll quantum ran out.
 *
 * Arguments.  (f a b c) passes three values; a callee whose pattern is a
 * tuple of three variables receives them unboxed in R[0..2].  Otherwise
 * the values are consed into the tuple and/or destructured so that every
 * procedure sees exactly the one-argument semantics of the language.
 */
#include "config.h"
#include "vm/exec/vm.h"

#include <math.h>
#include <string.h>
#include "vm/ad/ad.h"
#include "vm/ad/adfast.h"
#include "vm/cpj/cpj.h"
#include "vm/core/cont.h"
#include "vm/core/delim.h"
#include "vm/core/delimregs.h"
#include "vm/core/except.h"
#include "vm/mpi/comm.h"
#include "vm/core/limits.h"
#include "vm/exec/prims.h"
#include "vm/core/compile.h"
#include "vm/core/print.h"

#define BIT(id) ((uint64_t)1 << (id))

/* ===== Argument adaptation ===== */

static const char *proc_name(Value fn)
{
    if (IS_PRIM(fn))
        return AS_PRIM(fn)->name;
    if (IS_CLOSURE(fn) && AS_CLOSURE(fn)->proto->name)
        return AS_CLOSURE(fn)->proto->name;
    return "#<procedure>";
}

/* Make the 'nargs' values at 'args' into the 'want' values the callee
   expects (see the header comment).  Raises if the argument does not
   have the shape of a 'want'-tuple. */
static void adapt_args(VladState *S, Value fn, Value *args, int nargs,
                       int want)
{
    if (nargs > 1)
        args[0] = vl_object_tuple(args, nargs);
    if (want == 1)
        return;
    Value whole = args[0];
    Value v = whole;
    for (int i = 0; i < want - 1; i++) {
        if (!IS_PAIR(v) && i == 0 && IS_PRIM(fn)
            && vl_prims_one_operand(AS_PRIM(fn))) {
            args[1] = UNDEF_VAL;        /* (- x), (/ x) */
            return;
        }
        if (!IS_PAIR(v) && IS_CLOSURE(fn)
            && AS_CLOSURE(fn)->proto->param != NULL
            && !vl_prims_param_list(AS_CLOSURE(fn)->proto)) {
            Proto *p = AS_CLOSURE(fn)->proto;
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "%s: argument %s does not match pattern %s",
                              proc_name(fn),
                              vl_print_to_string(S, whole, 200),
                              vl_datum_to_string(p->param->source, 200));
        }
        if (!IS_PAIR(v)) {
            /* a primitive, or a closure written with a parameter list
               (lambda (a b c) ...): the same message for *j and for the
               prelude's checkpoint-*j */
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "%s: expected %d arguments, got %s %s",
                              proc_name(fn), want,
                              IS_PAIR(whole) ? "the tuple"
                                             : "the single argument",
                              vl_print_to_string(S, whole, 200));
        }
        args[i] = AS_PAIR(v)->car;
        v = AS_PAIR(v)->cdr;
    }
    args[want - 1] = v;
}

/* ===== What checkpoint-*j's steps are ===== */

/* checkpoint-*j runs under a %cpj-hide frame (vm/core/delim.h): from outside
   it takes the steps *j would take -- those of its first run, (f x) -- at
   the step it started plus the position in that run, whatever its
   strategy re-executes and wherever it runs.  Its VL_HIDE_ORIGIN register
   is the origin of those steps (position p is step origin + p), its
   VL_HIDE_COUNTED 1 + the steps counted so far, or 0 while a first run's
   segment runs (vm/core/delimregs.h).

   A first run's segment (SEG_MODE_FIRST, SEG_MODE_REC) starting in the
   frame at
   'base', with positions from 'anchor' at step 'now': the clock moves to
   the origin's scale (returned; *anchor becomes the origin) and the
   barrier comes down, so the steps count and the limits below fire. */
/* The registers from ctlreg of the %cpj-hide frame holding the segment
   frame at 'base', and its entry in '*h'; NULL when none hides steps. */
static Value *hiding_frame(VladState *S, const Value *base, Limit **h)
{
    *h = vl_delim_barrier_below(S, (size_t)(base - S->stack));
    if (*h == NULL || !(*h)->hides)
        return NULL;
    Value *hb = S->stack + (*h)->frame;
    return hb + AS_CLOSURE(hb[-1])->proto->ctlreg;
}

static int64_t count_first_run(VladState *S, const Value *base,
                               int64_t *anchor, int64_t now)
{
    Limit *h;
    Value *reg = hiding_frame(S, base, &h);
    if (reg == NULL)
        return now;
    int64_t origin = reg[VL_HIDE_ORIGIN].as.i;
    vl_delim_rewind(S, *anchor - origin);
    now += origin - *anchor;
    *anchor = origin;
    reg[VL_HIDE_COUNTED] = vl_raw(0);
    vl_delim_set_barrier(S, h, 0);
    return now;
}

/* The first run's segment at 'base' ends, 'counted' steps into the run:
   the barrier goes up again. */
static void stop_counting(VladState *S, const Value *base, int64_t counted)
{
    Limit *h;
    Value *reg = hiding_frame(S, base, &h);
    if (reg == NULL)
        return;
    reg[VL_HIDE_COUNTED] = vl_raw(counted + 1);
    vl_delim_set_barrier(S, h, 1);
}

/* ===== Pattern errors ===== */

static VL_NORETURN void pattern_error(VladState *S, const Proto *p,
                                      int minfo, Value whole)
{
    const MatchInfo *m = &p->matches[minfo];
    vl_except_runtime(S, VLAD_ERR_RUNTIME,
                      "%s does not match pattern %s",
                      vl_print_to_string(S, whole, 200),
                      vl_datum_to_string(m->pattern->source, 200));
}

static void check_procedure(VladState *S, const char *who, Value f)
{
#ifdef VL_NO_STEP_COUNT
    if (strcmp(who, "checkpoint") == 0 || strcmp(who, "primops") == 0)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "%s: this vlad was built without step counting "
                          "(configure --disable-step-counting)", who);
#endif
    if (!IS_PROC(f))
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "%s: expected a procedure, got %s", who,
                          vl_print_to_string(S, f, 200));
}

/* ===== Stack ===== */

/* ===== The loop ===== */

static Value execute(VladState *S, Value *base, const Instr *ip);

Value vl_vm_apply(VladState *S, Value fn, Value arg)
{
    /* the stack is allocated on the first call: reserve before forming
       a pointer into it */
    vl_cont_reserve(S, S->stack_top, 2 + 3 + VL_STACK_SLACK);
    Value *base = S->stack + S->stack_top + 2;
    base[-2] = vl_raw(0);
    base[-2].as.ptr = NULL;
    Proto *entry = S->control[CTL_ENTRY];
    Closure *ecl = vl_gc_alloc(sizeof *ecl);
    ecl->proto = entry;
    base[-1] = vl_obj(VT_CLOSURE, ecl);
    base[1] = fn;
    base[2] = arg;
    int was_running = S->vm_running;
    size_t was_entry = S->entry_frame;
    S->vm_running = 1;
    S->entry_frame = (size_t)(base - S->stack);
    Value r = execute(S, base, entry->code);
    S->vm_running = was_running;
    S->entry_frame = was_entry;
    return r;
}

#ifdef VL_COMPUTED_GOTO
#define VM_DISPATCH() goto *dispatch[(i = ip++)->op]
#define VM_CASE(name) L_##name:
#define VM_NEXT() VM_DISPATCH()
#else
#define VM_DISPATCH() switch ((i = ip++)->op)
#define VM_CASE(name) case OP_##name:
#define VM_NEXT() goto next
#endif

#define R(x) base[x]
#define SAVE() (S->vm_base = base, S->vm_ip = ip, S->vm_cl = cl, \
                S->steps = S->fuel_anchor - fuel)
#define LOAD_CLOSURE(c) (cl = (c), K = cl->proto->consts)
#define OFF(i) ((int16_t)(i)->c)
#define SHADOWED(id) (VL_UNLIKELY(shadow & BIT(id)) \
                      && !(i->x & VL_X_PRELUDE))

/* Whether instruction i, an arithmetic operation, needs only its primal
   (VL_X_PRIMAL, vm/core/object.h): its result reaches comparisons and
   predicates only, and no step runs while it is live, so no checkpoint
   can capture the plain value (the (co)tangent of a checkpoint carries
   those of every real of its state) -- provided no inline primitive is
   rebound by the user: one could then call the user's procedure, a step,
   or give it the value. */
#define PRIMAL_ONLY(i) (((i)->x & VL_X_PRIMAL) \
                        && (shadow == 0 || ((i)->x & VL_X_PRELUDE)))

/* An arithmetic operation that needs only its primal: the primal alone,
   a plain real, when its operands are plain reals, plain duals or tape
   nodes (no dual, no tape node: a comparison of the result gives the
   same answer); 0 otherwise (the usual path follows). */
static inline int arith_primal_only(int op, Value a, Value b, Value *out)
{
    double x, y;
    if (!vl_ad_plain_primal(a, &x) || !vl_ad_plain_primal(b, &y))
        return 0;
    *out = vl_num_marked(vl_ad_plain2_inline(op, x, y), vl_ad_mark2(a, b));
    return 1;
}

/* A comparison of two reals that are plain, plain duals or tape nodes
   (comparisons act on primals): 1 or 0, or -1 when the general path is
   needed.  Out of line: inlined, it costs the dispatch loop registers. */
static VL_NOINLINE int compare_primals(int id, Value a, Value b)
{
    double x, y;
    if (vl_ad_plain_primal(a, &x) && vl_ad_plain_primal(b, &y))
        return vl_inline_compare2(id, x, y);
    return -1;
}

/* The operands of an operation compiled with its constant first operand
   second (VL_X_SWAPPED) back in the source's order, for a call to the
   user's rebinding of the operator and for error messages. */
static void swap_operands(Value *a, Value *b)
{
    Value t = *a;
    *a = *b;
    *b = t;
}

/* A comparison compiled swapped: the source's operator and order. */
static void unswap(int *id, Value *a, Value *b)
{
    swap_operands(a, b);
    *id = vl_inline_swap_cmp(*id);
}

/* The general path of inline arithmetic, out of line (the dispatch
   loop's registers): temporary duals are copied to the heap first, as a
   general node may keep an operand (vm/ad/adfast.h). */
static VL_NOINLINE Value arith_general(VladState *S, int op, Value a,
                                       Value b)
{
    a = vl_ad_untemp(S, a);
    b = vl_ad_untemp(S, b);
    Value r;
    if (vl_ad_binary_fast(S, op, a, b, &r))
        return r;
    return vl_prims_binary(S, op, a, b);
}

/* Copy the temporary duals among v[0 .. end - v) to the heap. */
static VL_NOINLINE void untemp_all(VladState *S, Value *v, Value *end)
{
    for (; v < end; v++)
        *v = vl_ad_untemp(S, *v);
}

/* Deliver the value 'va' returned to the frame at 'base' to the
   instruction before 'ip', the return address: its destination register,
   or, for an inline comparison that called a user procedure, its branch.
   The frequent case, a CALL, is inline in execute's return path. */
static VL_NOINLINE const Instr *deliver(Value *base, const Instr *ip,
                                        Value va)
{
    const Instr *i = ip - 1;
    switch (i->op) {
    case OP_JLT: case OP_JLE: case OP_JGT: case OP_JGE: case OP_JEQ:
    case OP_JLTK: case OP_JLEK: case OP_JGTK: case OP_JGEK:
    case OP_JEQK: case OP_JPRIM1:
        if (IS_FALSE(va))
            ip += OFF(i);
        break;
    default:
        R(i->a) = va;
        break;
    }
    return ip;
}

/* The slow path of a step (execute, 'enter'), out of the dispatch loop:
   the fuel ran out at step 'now', before the application of the call
   block 'fb' (nargs arguments); the VM's registers are saved.  Output is
   flushed; an interrupt the host asked for makes the whole evaluation a
   checkpoint and raises VLAD_ERR_INTERRUPTED; the step limit raises
   VLAD_ERR_LIMIT.  Returns NULL to go on with the application (the
   regular poll: autosave, progress, the next poll due), or, when the
   limit of a checkpoint fired, the frame of its delimiter, whose CALL
   (at CTL_CKPT_CALL) receives the captured checkpoint: execution goes
   on after its CKPT_END.  Either way S->fuel_anchor is the new anchor. */
static VL_NOINLINE Value *out_of_fuel(VladState *S, Value *fb, int nargs,
                                      int64_t now)
{
    if (S->nout > 0) {          /* output waits at most one poll (and, */
        if (vl_comm_size(S) > 1)            /* beside other ranks, for */
            vl_state_flush_lines(S);        /* the end of its line) */
        else
            vl_state_flush(S);
    }
    if (S->interrupt) {
        vl_except_if_closed(S);         /* vlad_close from a callback */
        /* the whole evaluation becomes a checkpoint (vlad_resume) */
        S->interrupt = 0;
        Checkpoint *k = vl_cont_capture(S, S->entry_frame, fb, nargs, now);
        S->interrupted = vl_obj(VT_CKPT, k);
        vl_except_runtime(S, VLAD_ERR_INTERRUPTED,
                          "interrupted after %lld steps",
                          (long long)(now - S->form_start));
    }
    Limit *fired;
    do
        fired = vl_delim_fired(S, now);
    while (fired != NULL && vl_delim_defer(S, fired));
    if (fired == NULL) {
        /* the regular poll (with fired limits only, it waits for the next
           step where none fires: vl_delim_anchor) */
        if (S->autosave_hook != NULL)           /* vm/exec/autosave.h */
            S->autosave_hook(S, fb, nargs, now);
        S->poll_due = now + VL_POLL_QUANTUM;
        S->fuel_anchor = vl_delim_anchor(S, now);
        if (S->config.progress != NULL)
            vl_cpj_progress_counting(S, now);
        return NULL;
    }
    if (fired->frame == SIZE_MAX)
        vl_except_runtime(S, VLAD_ERR_LIMIT,
                          "step limit exceeded (%lld steps)",
                          (long long)S->step_limit);
    size_t delim = fired->frame;
    Checkpoint *k = vl_cont_capture(S, delim, fb, nargs, now);
    /* the capture may have suspended the *j that held back an advance: it
       stops at the first step outside every *j */
    vl_delim_undefer(S, now);
    Value *base = S->stack + delim;
    const Instr *call = AS_CLOSURE(base[-1])->proto->code + CTL_CKPT_CALL;
    base[call->a] = vl_obj(VT_CKPT, k);
    S->fuel_anchor = vl_delim_anchor(S, now);
    return base;
}

static Value execute(VladState *S, Value *base, const Instr *ip)
{
    Closure *cl;
    Value *K;
    const Instr *i;
    LOAD_CLOSURE(AS_CLOSURE(base[-1]));
    int64_t fuel = S->fuel_anchor - S->steps;
    uint64_t shadow = S->shadowed;
    Value *fb;              /* call block being entered */
    int nargs;
    Value va, vb;           /* operands of an inline call */
    int inline_id;

#ifdef VL_COMPUTED_GOTO
    static const void *const dispatch[] = {
#define VL_OP_LABEL(name, comment) &&L_##name,
        VL_OPCODES(VL_OP_LABEL)
#undef VL_OP_LABEL
    };
    VM_DISPATCH();
#else
next:
    VM_DISPATCH() {
#endif

    VM_CASE(MOVE) {
        R(i->a) = R(i->b);
        VM_NEXT();
    }
    VM_CASE(LOADK) {
        R(i->a) = K[i->b];
        VM_NEXT();
    }
    VM_CASE(GETGLOBAL) {
        Global *g = (Global *)K[i->b].as.ptr;
        if (VL_UNLIKELY(IS_UNDEF(g->value))) {
            SAVE();
            vl_except_runtime(S, VLAD_ERR_RUNTIME, "unbound variable %s",
                              g->name->name);
        }
        R(i->a) = g->value;
        VM_NEXT();
    }
    VM_CASE(DEFGLOBAL) {
        vl_state_define(S, (Global *)K[i->b].as.ptr, R(i->a));
        shadow = S->shadowed;
        VM_NEXT();
    }
    VM_CASE(GETFREE) {
        R(i->a) = cl->free[i->b];
        VM_NEXT();
    }
    VM_CASE(SELF) {
        R(i->a) = vl_obj(VT_CLOSURE, cl);
        VM_NEXT();
    }
    VM_CASE(CLOSURE) {
        Proto *p = cl->proto->children[i->b];
        SAVE();
        Closure *c = vl_gc_alloc(sizeof(Closure)
                                 + (size_t)p->nfree * sizeof(Value));
        c->proto = p;
        for (uint32_t j = 0; j < p->nfree; j++) {
            Capture cap = p->captures[j];
            c->free[j] = cap.kind == CAP_REG ? R(cap.index)
                         : cap.kind == CAP_FREE ? cl->free[cap.index]
                         : vl_obj(VT_CLOSURE, cl);
        }
        R(i->a) = vl_obj(VT_CLOSURE, c);
        VM_NEXT();
    }
    VM_CASE(SETFREE) {
        AS_CLOSURE(R(i->a))->free[i->b] = R(i->c);
        VM_NEXT();
    }
    VM_CASE(CONS) {
        SAVE();
        Pair *p = vl_gc_alloc(sizeof *p);
        p->car = R(i->b);
        p->cdr = R(i->c);
        R(i->a) = vl_obj(VT_PAIR, p);
        VM_NEXT();
    }
    VM_CASE(REVAPPEND) {
        SAVE();
        Value acc = R(i->c);
        for (Value l = R(i->b); IS_PAIR(l); l = AS_PAIR(l)->cdr) {
            Pair *p = vl_gc_alloc(sizeof *p);
            p->car = AS_PAIR(l)->car;
            p->cdr = acc;
            acc = vl_obj(VT_PAIR, p);
        }
        R(i->a) = acc;
        VM_NEXT();
    }
    VM_CASE(JMP) {
        ip += OFF(i);
        VM_NEXT();
    }
    VM_CASE(JMPF) {
        if (IS_FALSE(R(i->a)))
            ip += OFF(i);
        VM_NEXT();
    }
    VM_CASE(JMPT) {
        if (!IS_FALSE(R(i->a)))
            ip += OFF(i);
        VM_NEXT();
    }
    VM_CASE(MATCHK) {
        if (VL_UNLIKELY(!vl_object_equal(R(i->a), K[i->b]))) {
            SAVE();
            pattern_error(S, cl->proto, i->c,
                          R(cl->proto->matches[i->c].root));
        }
        VM_NEXT();
    }
    VM_CASE(MATCHPAIR) {
        Value v = R(i->a);
        if (VL_UNLIKELY(!IS_PAIR(v))) {
            SAVE();
            pattern_error(S, cl->proto, i->c,
                          R(cl->proto->matches[i->c].root));
        }
        R(i->b) = AS_PAIR(v)->car;
        R(i->b + 1) = AS_PAIR(v)->cdr;
        VM_NEXT();
    }
    VM_CASE(CALL) {
        fb = base + i->a;
        fb[0].tag = VT_RAW;
        fb[0].aux = (uint32_t)i->a + 2;
        fb[0].as.ptr = ip;
        nargs = i->b;
        goto enter;
    }
    VM_CASE(TAILCALL) {
        fb = base - 2;
        nargs = i->b;
        {   /* a forward copy (the callee's slots are above fb + 1):
               inline, as a library memmove costs more than the few
               values it moves */
            const Value *src = base + i->a + 1;
            for (int k = 0; k <= nargs; k++)
                fb[1 + k] = src[k];
        }
        goto enter;
    }
    VM_CASE(RETURN) {
        va = R(i->a);
        goto do_return;
    }

    /* ----- inline arithmetic ----- */
#define ARITH(name, id, expr_a, expr_b, OPER) \
    VM_CASE(name) { \
        va = expr_a; \
        vb = expr_b; \
        if (VL_LIKELY(va.tag == VT_NUM && vb.tag == VT_NUM \
                      && !(shadow & BIT(id)))) { \
            R(i->a) = vl_num_marked(va.as.num OPER vb.as.num, \
                                    va.aux | vb.aux); \
            VM_NEXT(); \
        } \
        inline_id = id; \
        goto arith_slow; \
    }
    ARITH(ADD, IN_ADD, R(i->b), R(i->c), +)
    ARITH(ADDK, IN_ADD, R(i->b), K[i->c], +)
    ARITH(SUB, IN_SUB, R(i->b), R(i->c), -)
    ARITH(SUBK, IN_SUB, R(i->b), K[i->c], -)
    ARITH(SUBKR, IN_SUB, K[i->b], R(i->c), -)
    ARITH(MUL, IN_MUL, R(i->b), R(i->c), *)
    ARITH(MULK, IN_MUL, R(i->b), K[i->c], *)
    ARITH(DIV, IN_DIV, R(i->b), R(i->c), /)
    ARITH(DIVK, IN_DIV, R(i->b), K[i->c], /)
    ARITH(DIVKR, IN_DIV, K[i->b], R(i->c), /)
#undef ARITH

    VM_CASE(CMP) {
        va = R(i->b);
        vb = R(i->c);
        inline_id = IN_EQ + (i->x & VL_X_CMP);
        goto compare_value;
    }
    VM_CASE(CMPK) {
        va = R(i->b);
        vb = K[i->c];
        inline_id = IN_EQ + (i->x & VL_X_CMP);
        goto compare_value;
    }

#define JCMP(name, id, expr_b, OPER, rebound) \
    VM_CASE(name) { \
        va = R(i->a); \
        vb = expr_b; \
        if (VL_LIKELY(va.tag == VT_NUM && vb.tag == VT_NUM \
                      && !(shadow & (rebound)))) { \
            if (!(va.as.num OPER vb.as.num)) \
                ip += OFF(i); \
            VM_NEXT(); \
        } \
        inline_id = id; \
        goto jcompare_slow; \
    }
    /* a J..K may be swapped (VL_X_SWAPPED): the rebinding of either
       comparison sends it to the slow path, which sorts it out */
    JCMP(JLT, IN_LT, R(i->b), <, BIT(IN_LT))
    JCMP(JLE, IN_LE, R(i->b), <=, BIT(IN_LE))
    JCMP(JGT, IN_GT, R(i->b), >, BIT(IN_GT))
    JCMP(JGE, IN_GE, R(i->b), >=, BIT(IN_GE))
    JCMP(JEQ, IN_EQ, R(i->b), ==, BIT(IN_EQ))
    JCMP(JLTK, IN_LT, K[i->b], <, BIT(IN_LT) | BIT(IN_GT))
    JCMP(JLEK, IN_LE, K[i->b], <=, BIT(IN_LE) | BIT(IN_GE))
    JCMP(JGTK, IN_GT, K[i->b], >, BIT(IN_GT) | BIT(IN_LT))
    JCMP(JGEK, IN_GE, K[i->b], >=, BIT(IN_GE) | BIT(IN_LE))
    JCMP(JEQK, IN_EQ, K[i->b], ==, BIT(IN_EQ))
#undef JCMP

    VM_CASE(PRIM1) {
        inline_id = i->c;       /* vl_instr_inline_id */
        va = R(i->b);
        if (SHADOWED(inline_id))
            goto inline_call1;
        if (inline_id == IN_CAR || inline_id == IN_CDR) {
            if (VL_LIKELY(IS_PAIR(va))) {
                R(i->a) = inline_id == IN_CAR ? AS_PAIR(va)->car
                                              : AS_PAIR(va)->cdr;
                VM_NEXT();
            }
            /* the prelude's own procedure reports the error */
            fb = base + cl->proto->nregs;
            fb[1] = S->inline_values[inline_id];
            goto inline_call1_block;
        }
        if (VL_LIKELY(va.tag == VT_NUM && VL_IS_MATH1(inline_id))) {
            R(i->a) = vl_num_marked(vl_inline_math1(inline_id, va.as.num),
                                    va.aux);
            VM_NEXT();
        }
        if (VL_IS_MATH1(inline_id)) {
            double x;
            if (PRIMAL_ONLY(i) && vl_ad_plain_primal(va, &x)) {
                R(i->a) = vl_num_marked(vl_inline_math1(inline_id, x),
                                        va.aux & VL_ACTIVE);
                VM_NEXT();
            }
            if (vl_ad_unary_inline(S, inline_id, va, i->x & VL_X_TEMP,
                                   &R(i->a)))
                VM_NEXT();
        }
        SAVE();
        R(i->a) = vl_prims_unary(S, inline_id, vl_ad_untemp(S, va));
        VM_NEXT();
    }
    VM_CASE(PRIM2) {
        inline_id = i->x & VL_X_ID;
        va = R(i->b);
        vb = R(i->c);
        if (SHADOWED(inline_id))
            goto inline_call2;
        SAVE();
        R(i->a) = vl_prims_binary(S, inline_id, vl_ad_untemp(S, va),
                                  vl_ad_untemp(S, vb));
        VM_NEXT();
    }
    VM_CASE(JPRIM1) {
        inline_id = i->x & VL_X_ID;
        va = R(i->a);
        if (SHADOWED(inline_id))
            goto inline_call1;
        if (inline_id == IN_NULLP) {
            if (!IS_NIL(va))
                ip += OFF(i);
            VM_NEXT();
        }
        if (inline_id == IN_PAIRP) {
            if (!IS_PAIR(va))
                ip += OFF(i);
            VM_NEXT();
        }
        SAVE();
        if (!vl_prims_predicate(S, inline_id, va))
            ip += OFF(i);
        VM_NEXT();
    }

    /* ----- checkpointing interface ----- */
    VM_CASE(CKPT_BEGIN) {
        Value k = R(i->b);
        SAVE();
        if (i->x == 0)      /* x = 1: the advance delimiter, R0 a state */
            check_procedure(S, "checkpoint", R(0));
        if (!IS_REAL(k))
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "checkpoint: the step count must be a real, "
                              "got %s", vl_print_to_string(S, k, 100));
        double kd = vl_object_primal(k);
        if (!(kd >= 0) || (kd != floor(kd) && !isinf(kd)))
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "checkpoint: the step count must be a "
                              "non-negative integer, got %s",
                              vl_print_to_string(S, k, 100));
        int64_t now = S->fuel_anchor - fuel;
        /* beyond VL_STEPS_MAX no computation can run: no limit at all */
        int64_t deadline = kd >= (double)VL_STEPS_MAX
                           ? VL_COUNT_SATURATED : now + (int64_t)kd;
        R(i->a + VL_CKPT_DEADLINE) = vl_raw(deadline);
        vl_delim_push_limit(S, deadline, (size_t)(base - S->stack));
        S->fuel_anchor = vl_delim_anchor(S, now);
        fuel = S->fuel_anchor - now;
        VM_NEXT();
    }
    VM_CASE(CKPT_END) {
        int64_t now = S->fuel_anchor - fuel;
        SAVE();
        vl_delim_pop_limit(S);
        R(i->a) = vl_cont_finished(S, R(i->a));
        S->fuel_anchor = vl_delim_anchor(S, now);
        fuel = S->fuel_anchor - now;
        VM_NEXT();
    }
    VM_CASE(PRIMOPS_BEGIN) {
        SAVE();
        check_procedure(S, "primops", R(0));
        R(i->a + VL_PRIMOPS_START) = vl_raw(S->fuel_anchor - fuel);
        VM_NEXT();
    }
    VM_CASE(PRIMOPS_END) {
        int64_t n = S->fuel_anchor - fuel - R(i->b + VL_PRIMOPS_START).as.i;
        SAVE();
        R(i->a) = vl_object_list2(R(i->a), vl_num((double)n));
        VM_NEXT();
    }
    VM_CASE(RESUME) {
        Value u = R(i->b);
        SAVE();
        if (!IS_CKPT(u))
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "resume: expected a checkpoint, got %s",
                              vl_print_to_string(S, u, 100));
        const Checkpoint *k = AS_CKPT(u);
        if (k->finished) {
            R(i->a) = k->result;
            VM_NEXT();
        }
        int64_t now = S->fuel_anchor - fuel;
        k = vl_ad_fresh_tags(S, k, -1);          /* finding W1 */
        fb = vl_cont_reinstall(S, k, &base, ip, i->a, now);
        S->fuel_anchor = vl_delim_anchor(S, now);
        fuel = S->fuel_anchor - now;
        nargs = 1;
        goto enter;
    }
    /* ----- checkpoint-*j segments (vm/cpj/cpj.h) ----- */
    VM_CASE(SEG_BEGIN) {
        SAVE();
        int64_t now = S->fuel_anchor - fuel;
        int first = vl_seg_mode_first(i->x);
        if (i->x == SEG_MODE_FIRST) {
            check_procedure(S, "checkpoint-*j", R(0));
            R(i->a + VL_SEG_POS) = vl_num(0);
            R(i->a + VL_SEG_LOG) = vl_raw_ptr(VL_RAW_LOG_LIST, NULL);
        }
        int64_t anchor = now + i->c
                         - (int64_t)vl_object_primal(R(i->a + VL_SEG_POS));
        if (first) {            /* a first run: its steps are counted */
            now = count_first_run(S, base, &anchor, now);
            S->fuel_anchor = vl_delim_anchor(S, now);
            fuel = S->fuel_anchor - now;
        }
        R(i->a + VL_SEG_ANCHOR) = vl_raw(anchor);
        vl_delim_push_seg(S, (size_t)(base - S->stack), anchor,
                          !first, R(i->a + VL_SEG_LOG));  /* replays */
        VM_NEXT();
    }
    VM_CASE(SEG_END) {
        SAVE();
        vl_delim_pop_segs(S, (size_t)(base - S->stack));
        if ((i->x == SEG_MODE_ADV || i->x == SEG_MODE_REC)
            && IS_CKPT(R(i->a)))        /* where it stopped */
            AS_CKPT(R(i->a))->position = S->fuel_anchor - fuel
                                         - R(i->b + VL_SEG_ANCHOR).as.i;
        if (i->x == SEG_MODE_REC)       /* the state and the log */
            R(i->a) = vl_object_list2(R(i->a), R(i->b + VL_SEG_LOG));
        if (i->x == SEG_MODE_FIRST)     /* (list y n log) */
            R(i->a) = vl_cpj_first_result(S, R(i->a),
                                          S->fuel_anchor - fuel
                                          - R(i->b + VL_SEG_ANCHOR).as.i,
                                          R(i->b + VL_SEG_LOG));
        if (vl_seg_mode_first(i->x)) {  /* counting stops */
            int64_t now = S->fuel_anchor - fuel;
            stop_counting(S, base, now - R(i->b + VL_SEG_ANCHOR).as.i);
            S->fuel_anchor = vl_delim_anchor(S, now);
            fuel = S->fuel_anchor - now;
        }
        VM_NEXT();
    }
    VM_CASE(HIDE_BEGIN) {
        /* checkpoint-*j takes the steps *j would: the call of %cpj-hide
           itself is not one, its first run's steps are, from the next
           (SEG_BEGIN), and nothing else while the barrier is up */
        SAVE();
        int64_t now = S->fuel_anchor - fuel;
        Value st = vl_cpj_start_strategy(S);
        int hides = !vl_cpj_counts_all(st);
        R(i->a + VL_HIDE_ORIGIN) = vl_raw(now - hides);
        R(i->a + VL_HIDE_COUNTED) = vl_raw(1);
        R(i->a + VL_HIDE_STRATEGY) = st;
        R(i->a + VL_HIDE_HIDES) = vl_raw(hides);
        vl_delim_push_barrier(S, (size_t)(base - S->stack), 1, hides);
        S->fuel_anchor = vl_delim_anchor(S, now);
        fuel = S->fuel_anchor - now;
        VM_NEXT();
    }
    VM_CASE(HIDE_END) {
        /* the clock back to the steps counted: those of the first run */
        SAVE();
        int64_t now = S->fuel_anchor - fuel;
        vl_delim_pop_limit(S);
        if (R(i->b + VL_HIDE_HIDES).as.i) {     /* (not under steps=all) */
            now = R(i->b + VL_HIDE_ORIGIN).as.i
                  + R(i->b + VL_HIDE_COUNTED).as.i - 1;
            vl_delim_rewind(S, S->fuel_anchor - fuel - now);
        }
        S->fuel_anchor = vl_delim_anchor(S, now);
        fuel = S->fuel_anchor - now;
        VM_NEXT();
    }
    /* ----- AD operators ----- */
    VM_CASE(JSTAR_BEGIN) {
        SAVE();
        check_procedure(S, "j*", R(0));
        int64_t tag = ++S->next_tag;
        R(i->a + VL_JSTAR_INPUT) = vl_ad_bundle(S, tag, R(i->b),
                                                R(i->b + 1));
        R(i->a + VL_AD_TAG) = vl_raw(tag);
        vl_delim_push_ad(S, tag, 0, (size_t)(base - S->stack), NULL, 0);
        VM_NEXT();
    }
    VM_CASE(JSTAR_END) {
        SAVE();
        vl_delim_pop_ad(S);
        R(i->a) = vl_ad_jstar_result(S, R(i->b + VL_AD_TAG).as.i, R(i->a));
        VM_NEXT();
    }
    VM_CASE(STARJ_BEGIN) {
        SAVE();
        check_procedure(S, "*j", R(0));
        int64_t tag = ++S->next_tag;
        vl_delim_push_ad(S, tag, 1, (size_t)(base - S->stack), NULL, 0);
        R(i->a + VL_STARJ_INPUT) = vl_ad_tapify(S, tag, R(i->b), i->c);
        R(i->a + VL_AD_TAG) = vl_raw(tag);
        R(i->a + VL_STARJ_TAPE_END) = UNDEF_VAL;
        VM_NEXT();
    }
    VM_CASE(STARJ_END) {
        SAVE();
        AdFrame top = *vl_delim_top_ad(S);
        vl_delim_pop_ad(S);
        uint64_t nodes = vl_ad_tape_nodes(top.chunk, top.n);
        if (nodes > S->peak_tape_nodes)
            S->peak_tape_nodes = nodes;
        S->last_tape_slots = top.chunk != NULL
                             ? (uint64_t)top.chunk->base + top.n : 0;
        if (S->nlimits > 0) {       /* let deferred advances fire */
            int64_t now = S->fuel_anchor - fuel;
            vl_delim_undefer(S, now);
            S->fuel_anchor = vl_delim_anchor(S, now);
            fuel = S->fuel_anchor - now;
        }
        R(i->a) = vl_ad_starj_result(S, R(i->b + VL_AD_TAG).as.i,
                                     R(i->b + VL_STARJ_INPUT), R(i->a),
                                     R(i->b + VL_STARJ_YBAR), top.chunk,
                                     top.n);
        vl_ad_release_tape(S, &top);
        VM_NEXT();
    }
    VM_CASE(UNDERFLOW) {
        /* (not through do_return: one more way into it makes the
           compiler lay the return path out with one more jump) */
        SAVE();
        va = R(i->a);
        base = vl_cont_underflow(S, base);
        ip = (const Instr *)base[-2].as.ptr;
        base -= base[-2].aux;
        LOAD_CLOSURE(AS_CLOSURE(base[-1]));
        ip = deliver(base, ip, va);
        VM_NEXT();
    }
    VM_CASE(HALT) {
        S->steps = S->fuel_anchor - fuel;
        return R(i->a);
    }

#ifndef VL_COMPUTED_GOTO
    default:
        break;
    }
    goto next;
#endif

    /* ===== Slow paths of inline operations ===== */
arith_slow:
    if (SHADOWED(inline_id)) {
        if (VL_UNLIKELY(i->x & VL_X_SWAPPED))     /* (+ 1 x) as (+ x 1) */
            swap_operands(&va, &vb);
        goto inline_call2;
    }
    if (PRIMAL_ONLY(i) && arith_primal_only(inline_id, va, vb, &R(i->a)))
        VM_NEXT();
    if (VL_LIKELY(vl_ad_binary_inline(S, inline_id, va, vb,
                                      i->x & VL_X_TEMP, &R(i->a))))
        VM_NEXT();
    SAVE();
    R(i->a) = arith_general(S, inline_id, va, vb);
    VM_NEXT();

compare_value:
    if (VL_UNLIKELY(i->x & VL_X_SWAPPED))
        unswap(&inline_id, &va, &vb);
    if (SHADOWED(inline_id))
        goto inline_call2;
    {
        int r = compare_primals(inline_id, va, vb);
        if (VL_LIKELY(r >= 0)) {
            R(i->a) = vl_bool(r);
            VM_NEXT();
        }
    }
    SAVE();
    R(i->a) = vl_bool(vl_prims_compare_two(S, inline_id, va, vb));
    VM_NEXT();

jcompare_slow:
    if (VL_UNLIKELY(i->x & VL_X_SWAPPED))
        unswap(&inline_id, &va, &vb);
    if (SHADOWED(inline_id))
        goto inline_call2;
    {
        double x, y;    /* inline here (fewer instructions than the
                           call on newton's *j, callgrind) */
        int r = vl_ad_plain_primal(va, &x) && vl_ad_plain_primal(vb, &y)
                    ? vl_inline_compare2(inline_id, x, y)
                    : -1;
        if (VL_LIKELY(r >= 0)) {
            if (!r)
                ip += OFF(i);
            VM_NEXT();
        }
    }
    SAVE();
    if (!vl_prims_compare_two(S, inline_id, va, vb))
        ip += OFF(i);
    VM_NEXT();

    /* Call the user's binding of an inline primitive: the call block goes
       above the frame's registers; the return lands on this instruction's
       continuation (vm.c, do_return). */
inline_call1:
    fb = base + cl->proto->nregs;
    fb[1] = S->inline_cells[inline_id]->value;
inline_call1_block:
    fb[2] = va;
    nargs = 1;
    goto inline_enter;
inline_call2:
    fb = base + cl->proto->nregs;
    fb[1] = S->inline_cells[inline_id]->value;
    fb[2] = va;
    fb[3] = vb;
    nargs = 2;
inline_enter:
    /* the call is a step: no temporary dual may be in the frame or the
       block (vm/ad/adfast.h) */
    SAVE();
    untemp_all(S, base, fb + 2 + nargs);
    fb[0].tag = VT_RAW;
    fb[0].aux = (uint32_t)cl->proto->nregs + 2;
    fb[0].as.ptr = ip;
    goto enter;

    /* ===== Applying a procedure ===== */
enter:
#ifndef VL_NO_STEP_COUNT
    if (VL_UNLIKELY(fuel <= 0)) {
        int64_t now = S->fuel_anchor - fuel;
        SAVE();
        Value *at = out_of_fuel(S, fb, nargs, now);
        fuel = S->fuel_anchor - now;
        if (at != NULL) {
            /* a limit fired: its delimiter's CALL (at CTL_CKPT_CALL)
               received the checkpoint; skip CKPT_END */
            base = at;
            LOAD_CLOSURE(AS_CLOSURE(base[-1]));
            ip = cl->proto->code + CTL_CKPT_CALL + 2;
            VM_NEXT();
        }
    }
    fuel--;
#endif
    {
        Value fn = fb[1];
        if (VL_LIKELY(fn.tag == VT_CLOSURE)) {
            Closure *c = AS_CLOSURE(fn);
            Proto *p = c->proto;
            if (VL_UNLIKELY(fb + 2 + p->nregs + VL_STACK_SLACK
                            > S->stack + S->stack_size)) {
                SAVE();
                size_t boff = (size_t)(base - S->stack);
                vl_cont_ensure(S, &fb,
                               2 + (size_t)p->nregs + VL_STACK_SLACK);
                base = S->stack + boff;
            }
            if (VL_UNLIKELY(p->nparams != nargs)) {
                SAVE();
                adapt_args(S, fn, fb + 2, nargs, p->nparams);
            }
            base = fb + 2;
            LOAD_CLOSURE(c);
            ip = p->code;
            VM_NEXT();
        }
        if (VL_LIKELY(fn.tag == VT_PRIM)) {
            const PrimInfo *pi = AS_PRIM(fn);
            SAVE();
            if (VL_UNLIKELY(pi->arity != nargs))
                adapt_args(S, fn, fb + 2, nargs, pi->arity);
            S->stack_top = (size_t)(fb + 2 + pi->arity - S->stack);
            S->calling_prim = pi;
            va = pi->fn(S, fb + 2);
            base = fb + 2;
            goto do_return;
        }
        SAVE();
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "attempt to apply a non-procedure: %s",
                          vl_print_to_string(S, fn, 200));
    }

    /* ===== Returning 'va' from the frame at 'base' ===== */
do_return:
    {
        Value h = base[-2];
        ip = (const Instr *)h.as.ptr;
        base -= h.aux;
        LOAD_CLOSURE(AS_CLOSURE(base[-1]));
        i = ip - 1;
        if (VL_LIKELY(i->op == OP_CALL)) {
            R(i->a) = va;
            VM_NEXT();
        }
        ip = deliver(base, ip, va);
        VM_NEXT();
    }
}

/* the dispatch loop's macros (deliver uses R and OFF too) */
#undef VM_DISPATCH
#undef VM_CASE
#undef VM_NEXT
#undef R
#undef SAVE
#undef LOAD_CLOSURE
#undef OFF
#undef SHADOWED
#undef PRIMAL_ONLY

/* ===== Control primitives ===== */

#define I(op, a, b, c) {OP_##op, 0, a, b, c}
#define SEG(op, mode, a, b, c) {OP_SEG_##op, SEG_MODE_##mode, a, b, c}

/* A delimiter prototype's registers of its own start at operand a of its
   *_BEGIN instruction (vm/core/delimregs.h): its ctlreg. */
static void set_ctlreg(Proto *p)
{
    for (uint32_t k = 0; k < p->ncode; k++)
        switch (p->code[k].op) {
        case OP_CKPT_BEGIN: case OP_PRIMOPS_BEGIN: case OP_JSTAR_BEGIN:
        case OP_STARJ_BEGIN: case OP_SEG_BEGIN: case OP_HIDE_BEGIN:
            p->ctlreg = p->code[k].a;
            return;
        default:
            break;
        }
}

static Value bind_control(VladState *S, const char *name, Proto *p)
{
    Closure *c = vl_gc_alloc(sizeof *c);
    c->proto = p;
    Global *g = vl_state_prelude_cell(S, vl_symbol_intern_c(S->syms, name));
    g->value = vl_obj(VT_CLOSURE, c);
    return g->value;
}

void vl_vm_init(VladState *S)
{
    static const Instr entry[] = {I(CALL, 0, 1, 0), I(HALT, 0, 0, 0)};
    /* The delimiters' registers of their own start at C, operand a of
       their *_BEGIN (and b of their *_END): vm/core/delimregs.h.
       (checkpoint f x k): R0 f, R1 x, R2 k, C = 3 deadline, R4.. call */
    static const Instr ckpt[] = {
        I(CKPT_BEGIN, 3, 2, 0), I(MOVE, 5, 0, 0), I(MOVE, 6, 1, 0),
        I(CALL, 4, 1, 0), I(CKPT_END, 4, 3, 0), I(RETURN, 4, 0, 0)};
    /* (primops f x): R0 f, R1 x, C = 2 start, R3.. call */
    static const Instr primops[] = {
        I(PRIMOPS_BEGIN, 2, 0, 0), I(MOVE, 4, 0, 0), I(MOVE, 5, 1, 0),
        I(CALL, 3, 1, 0), I(PRIMOPS_END, 3, 2, 0), I(RETURN, 3, 0, 0)};
    /* (resume u): R0 u, R1.. the reinstalled computation's call block */
    static const Instr resume[] = {I(RESUME, 1, 0, 0), I(RETURN, 1, 0, 0)};
    /* (j* f x x'): C = 3 tag, R4.. call block whose argument R6 is the
       bundled input */
    static const Instr jstar[] = {
        I(JSTAR_BEGIN, 3, 1, 0), I(MOVE, 5, 0, 0), I(CALL, 4, 1, 0),
        I(JSTAR_END, 4, 3, 0), I(RETURN, 4, 0, 0)};
    /* (*j f x y`): R2 y`, C = 3 tag, R4 tapified input, R5 the tape while
       captured, R6.. call block */
    static const Instr starj[] = {
        I(STARJ_BEGIN, 3, 1, 0), I(MOVE, 7, 0, 0),
        I(MOVE, 8, 3 + VL_STARJ_INPUT, 0), I(CALL, 6, 1, 0),
        I(STARJ_END, 6, 3, 0), I(RETURN, 6, 0, 0)};
    /* the same, tapifying only the active reals of x (c = 1) */
    static const Instr starj_active[] = {
        I(STARJ_BEGIN, 3, 1, 1), I(MOVE, 7, 0, 0),
        I(MOVE, 8, 3 + VL_STARJ_INPUT, 0), I(CALL, 6, 1, 0),
        I(STARJ_END, 6, 3, 0), I(RETURN, 6, 0, 0)};

    /* checkpoint-*j segments (vm/cpj/cpj.h).  FIRST (f x): R2 pos, R3 log,
       C = 4 anchor, R5.. call block.  RUN s (free pos log): R1 pos, R2 log,
       C = 3 anchor, R4.. the resumed computation.  ADV s (free pos log m
       advance): C = 3 anchor, R5.. call block of (advance s m), a step
       that SEG_BEGIN counts in (c = 1).  REC is ADV recording, its
       log R2 the first run's raw log so far, carried from chunk to chunk
       (vm/cpj/cpjfirst.c): it returns (list u log).  ADVANCE (u m) is a checkpoint
       delimiter whose body resumes u instead of calling a procedure:
       C = 3 deadline. */
    static const Instr seg_first[] = {
        SEG(BEGIN, FIRST, 4, 0, 0), I(MOVE, 6, 0, 0), I(MOVE, 7, 1, 0),
        I(CALL, 5, 1, 0), SEG(END, FIRST, 5, 4, 0), I(RETURN, 5, 0, 0)};
    static const Instr seg_run[] = {
        I(GETFREE, 3 + VL_SEG_POS, 0, 0), I(GETFREE, 3 + VL_SEG_LOG, 1, 0),
        SEG(BEGIN, RUN, 3, 0, 0), I(RESUME, 4, 0, 0),
        SEG(END, RUN, 4, 3, 0), I(RETURN, 4, 0, 0)};
    static const Instr seg_adv[] = {
        I(GETFREE, 3 + VL_SEG_POS, 0, 0), I(GETFREE, 3 + VL_SEG_LOG, 1, 0),
        SEG(BEGIN, ADV, 3, 0, 1),
        I(GETFREE, 6, 3, 0), I(MOVE, 7, 0, 0), I(GETFREE, 8, 2, 0),
        I(CALL, 5, 2, 0), SEG(END, ADV, 5, 3, 0), I(RETURN, 5, 0, 0)};
    static const Instr seg_rec[] = {
        I(GETFREE, 3 + VL_SEG_POS, 0, 0), I(GETFREE, 3 + VL_SEG_LOG, 1, 0),
        SEG(BEGIN, REC, 3, 0, 1),
        I(GETFREE, 6, 3, 0), I(MOVE, 7, 0, 0), I(GETFREE, 8, 2, 0),
        I(CALL, 5, 2, 0), SEG(END, REC, 5, 3, 0), I(RETURN, 5, 0, 0)};
    /* (%cpj-hide f x ybar): checkpoint-*j's run.  R0 f, R1 x, R2 ybar,
       C = 3 origin, R4 counted + 1, R5 the run's strategy (vm/cpj/cpjstrat.c),
       R6 1 when it hides steps (not steps=all), R7.. the call of the driver,
       %cpj-run (K0, its global cell: no program's value ever holds it),
       on (f x ybar) */
    static const Instr hide[] = {
        I(HIDE_BEGIN, 3, 0, 0), I(GETGLOBAL, 8, 0, 0), I(CONS, 9, 1, 2),
        I(CONS, 9, 0, 9), I(CALL, 7, 1, 0), I(HIDE_END, 7, 3, 0),
        I(RETURN, 7, 0, 0)};
    static const Instr advance[] = {
        {OP_CKPT_BEGIN, 1, 3, 1, 0}, I(MOVE, 2, 0, 0), I(MOVE, 2, 0, 0),
        I(RESUME, 4, 0, 0), I(CKPT_END, 4, 3, 0), I(RETURN, 4, 0, 0)};

    S->control[CTL_ENTRY] = vl_compile_assemble(S, "entry", PK_TOPLEVEL, 1,
                                                3, entry, 2);
    S->control[CTL_CHECKPOINT] = vl_compile_assemble(S, "checkpoint",
                                                     PK_CHECKPOINT, 3, 7,
                                                     ckpt, 6);
    S->control[CTL_PRIMOPS] = vl_compile_assemble(S, "primops", PK_PRIMOPS,
                                                  2, 6, primops, 6);
    S->control[CTL_RESUME] = vl_compile_assemble(S, "resume", PK_RESUME, 1,
                                                 4, resume, 2);
    S->control[CTL_JSTAR] = vl_compile_assemble(S, "j*", PK_JSTAR, 3, 7,
                                                jstar, 5);
    S->control[CTL_STARJ] = vl_compile_assemble(S, "*j", PK_STARJ, 3, 9,
                                                starj, 6);
    S->control[CTL_STARJ_ACTIVE] = vl_compile_assemble(S, "*j", PK_STARJ, 3,
                                                       9, starj_active, 6);
    S->control[CTL_SEG_FIRST] = vl_compile_assemble(
        S, "checkpoint-*j", PK_SEGMENT, 2, 8, seg_first, 6);
    S->control[CTL_SEG_RUN] = vl_compile_assemble(
        S, "checkpoint-*j", PK_SEGMENT, 1, 7, seg_run, 6);
    S->control[CTL_SEG_RUN]->nfree = 2;
    S->control[CTL_SEG_ADV] = vl_compile_assemble(
        S, "checkpoint-*j", PK_SEGMENT, 1, 9, seg_adv, 9);
    S->control[CTL_SEG_ADV]->nfree = 4;
    S->control[CTL_SEG_REC] = vl_compile_assemble(
        S, "checkpoint-*j", PK_SEGMENT, 1, 9, seg_rec, 9);
    S->control[CTL_SEG_REC]->nfree = 4;
    S->control[CTL_ADVANCE] = vl_compile_assemble(
        S, "checkpoint-*j", PK_CHECKPOINT, 2, 7, advance, 6);
    Proto *h = vl_compile_assemble(S, "checkpoint-*j", PK_HIDE, 3, 10, hide,
                                   7);
    h->consts = vl_gc_alloc(sizeof *h->consts);
    h->consts[0] = vl_obj(VT_RAW, vl_state_prelude_cell(
                                      S, vl_symbol_intern_c(S->syms,
                                                            "%cpj-run")));
    h->nconsts = 1;
    S->control[CTL_HIDE] = h;
    /* an underflow frame: R0 its frame sequence, R1 a count, R2.. the
       call block of the frame above, which returns into UNDERFLOW */
    static const Instr underflow[] = {I(CALL, 2, 1, 0), I(UNDERFLOW, 2, 0, 0)};
    S->control[CTL_UNDERFLOW] = vl_compile_assemble(
        S, "resume", PK_RESUME, 1, 4, underflow, 2);
    for (int k = 0; k < CTL__COUNT; k++)
        set_ctlreg(S->control[k]);
    Closure *under = vl_gc_alloc(sizeof *under);
    under->proto = S->control[CTL_UNDERFLOW];
    S->underflow_value = vl_obj(VT_CLOSURE, under);
    Closure *adv = vl_gc_alloc(sizeof *adv);
    adv->proto = S->control[CTL_ADVANCE];
    S->advance_value = vl_obj(VT_CLOSURE, adv);
    bind_control(S, "%cpj-first", S->control[CTL_SEG_FIRST]);
    bind_control(S, "j*", S->control[CTL_JSTAR]);
    bind_control(S, "*j", S->control[CTL_STARJ]);
    bind_control(S, "%cpj-*j", S->control[CTL_STARJ_ACTIVE]);
    bind_control(S, "%cpj-hide", S->control[CTL_HIDE]);
    bind_control(S, "checkpoint", S->control[CTL_CHECKPOINT]);
    bind_control(S, "primops", S->control[CTL_PRIMOPS]);
    S->resume_value = bind_control(S, "resume", S->control[CTL_RESUME]);
}
#undef I
#undef SEG
