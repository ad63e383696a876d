/*
 * vm/compile.c -- from core AST to bytecode prototypes
 *
 * One pass over the AST per lambda.  A FuncState holds the prototype being
 * built, the scope of local variables (each bound to a register) and the
 * list of captured variables.  Registers are allocated stack-like: locals
 * of a scope, then temporaries above them; everything at or above
 * 'freereg' is dead, which is what lets a call put the callee's frame right
 * there.  A call block is [header, callee, arg1 .. argn] at 'freereg'; the
 * result comes back in the header register.
 *
 * Variables resolve innermost-first to: a register of this frame; the
 * running closure itself (a lambda bound by letrec referring to its own
 * name, so self-recursion creates no cycle); a captured value (added to the
 * flat closure's capture list, recursively through enclosing functions);
 * or a global cell of the user or prelude environment.
 *
 * Primitives called by name whose global cell still holds the builtin are
 * compiled as inline operations; the VM defers to the user's binding if the
 * name is redefined later (vm/opcodes.h).
 *
 * The compiler recurses on the C stack over the nesting of expressions,
 * patterns and lambdas; 'expr', 'bind_pattern' and 'resolve' check the C
 * stack guard of the state (parser/cstack.h) and stop with "expression
 * nested too deeply" before it is exhausted.  Quoted constants are built
 * by a loop with an explicit stack, so they may be nested to any depth.
 *
 * After code generation a backward pass (all jumps go forward, so one pass
 * suffices) computes, for every instruction that can call VLAD code, the
 * registers live after it returns: a captured frame keeps only those.
 */
#include "config.h"
#include "vm/compile.h"

#include <string.h>
#include "vm/except.h"
#include "vm/state.h"
#include "vm/prims.h"

#define MAX_REGS 60000
#define MAX_JUMP 32767

typedef struct LocalVar {
    Symbol *name;
    uint16_t reg;
} LocalVar;

typedef struct FuncState {
    struct FuncState *parent;
    VladState *S;
    int prelude;
    const char *file;
    Symbol *self_name;      /* letrec name bound to this lambda, or NULL */

    Instr *code;
    Loc *locs;
    uint32_t ncode, capcode;
    Value *consts;
    uint32_t nconsts, capconsts;
    Proto **children;
    uint32_t nchildren, capchildren;
    Capture *caps;
    Symbol **capnames;
    uint32_t ncaps, capcaps;
    MatchInfo *matches;
    uint32_t nmatches, capmatches;

    LocalVar *vars;
    int nvars, capvars;
    int freereg;
    int maxreg;
    SrcPos pos;             /* position of the node being compiled */
    int depth;              /* expressions being compiled, counting those
                               of enclosing lambdas */
    int writer;             /* set by to_reg (mark_temps) */
} FuncState;

/* ===== Growing arrays ===== */

static void *grow(void *p, uint32_t *cap, uint32_t need, size_t elem,
                  int atomic)
{
    if (need <= *cap)
        return p;
    uint32_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = atomic ? vl_gc_alloc_atomic(n * elem) : vl_gc_alloc(n * elem);
    if (p != NULL)
        memcpy(q, p, *cap * elem);
    *cap = n;
    return q;
}

/* ===== Emitting ===== */

static int emit(FuncState *fs, int op, int x, int a, int b, int c)
{
    uint32_t cap = fs->capcode;
    fs->code = grow(fs->code, &cap, fs->ncode + 1, sizeof(Instr), 1);
    uint32_t cap2 = fs->capcode;
    fs->locs = grow(fs->locs, &cap2, fs->ncode + 1, sizeof(Loc), 1);
    fs->capcode = cap;
    Instr *i = &fs->code[fs->ncode];
    i->op = (uint8_t)op;
    i->x = (uint8_t)x;
    i->a = (uint16_t)a;
    i->b = (uint16_t)b;
    i->c = (uint16_t)c;
    fs->locs[fs->ncode].line = fs->pos.line;
    fs->locs[fs->ncode].col = fs->pos.col;
    return (int)fs->ncode++;
}

/* Point the jump at 'at' to the next instruction to be emitted. */
static void patch_here(FuncState *fs, int at)
{
    int off = (int)fs->ncode - (at + 1);
    if (off > MAX_JUMP)
        vl_except_at(fs->S, VLAD_ERR_SYNTAX, fs->pos,
                     "procedure too large to compile (a jump spans more "
                     "than %d instructions)", MAX_JUMP);
    fs->code[at].c = (uint16_t)(int16_t)off;
}

static int add_const(FuncState *fs, Value v)
{
    for (uint32_t i = 0; i < fs->nconsts; i++) {
        Value w = fs->consts[i];
        if (w.tag == v.tag && w.as.i == v.as.i)
            return (int)i;
    }
    fs->consts = grow(fs->consts, &fs->capconsts, fs->nconsts + 1,
                      sizeof(Value), 0);
    if (fs->nconsts >= MAX_REGS)
        vl_except_at(fs->S, VLAD_ERR_SYNTAX, fs->pos,
                     "procedure has too many constants");
    fs->consts[fs->nconsts] = v;
    return (int)fs->nconsts++;
}

static int alloc_reg(FuncState *fs)
{
    int r = fs->freereg++;
    if (fs->freereg > MAX_REGS)
        vl_except_at(fs->S, VLAD_ERR_SYNTAX, fs->pos,
                     "procedure too large to compile (more than %d "
                     "registers)", MAX_REGS);
    if (fs->freereg > fs->maxreg)
        fs->maxreg = fs->freereg;
    return r;
}

static void bind_var(FuncState *fs, Symbol *name, int reg)
{
    uint32_t cap = (uint32_t)fs->capvars;
    fs->vars = grow(fs->vars, &cap, (uint32_t)fs->nvars + 1,
                    sizeof(LocalVar), 0);
    fs->capvars = (int)cap;
    fs->vars[fs->nvars].name = name;
    fs->vars[fs->nvars].reg = (uint16_t)reg;
    fs->nvars++;
}

/* ===== The C stack guard ===== */

/* Stop when the C stack is nearly exhausted (parser/cstack.h), at the
   node being compiled ('what': "expression", "pattern"). */
static void check_stack(FuncState *fs, SrcPos pos, const char *what)
{
    if (vl_cstack_exhausted(&fs->S->cstack))
        vl_except_at(fs->S, VLAD_ERR_MEMORY, pos, "%s nested too deeply "
                     "(the C stack is exhausted at depth %d)", what,
                     fs->depth);
}

/* ===== Constants ===== */

/* A datum still to convert and the slot its value goes to. */
typedef struct DatumWork {
    const Datum *d;
    Value *dest;
} DatumWork;

Value vl_compile_datum_value(VladState *S, const Datum *d)
{
    (void)S;
    /* depth first, car before cdr, with an explicit stack of the cdrs
       still to convert: any depth works */
    Value root = NIL_VAL;
    Value *dest = &root;
    DatumWork *todo = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        switch (d->kind) {
        case D_NUM:
            *dest = vl_num(d->u.num);
            break;
        case D_BOOL:
            *dest = vl_bool(d->u.boolean);
            break;
        case D_NIL:
            *dest = NIL_VAL;
            break;
        case D_PAIR: {
            Pair *cell = vl_gc_alloc(sizeof *cell);
            cell->car = NIL_VAL;
            cell->cdr = NIL_VAL;
            *dest = vl_obj(VT_PAIR, cell);
            if (d->u.pair.cdr->kind != D_NIL) {
                if (n == cap) {
                    cap = cap ? 2 * cap : 64;
                    todo = vl_gc_realloc(todo, cap * sizeof *todo);
                }
                todo[n].d = d->u.pair.cdr;
                todo[n++].dest = &cell->cdr;
            }
            d = d->u.pair.car;
            dest = &cell->car;
            continue;
        }
        case D_SYM:
            *dest = vl_obj(VT_SYM, d->u.sym);
            break;
        case D_STR:
            *dest = vl_obj(VT_STR, d->u.str);
            break;
        }
        if (n == 0)
            return root;
        n--;
        d = todo[n].d;
        dest = todo[n].dest;
    }
}

/* ===== Variable resolution ===== */

typedef enum VarKind { V_LOCAL, V_FREE, V_SELF, V_GLOBAL } VarKind;

typedef struct VarRef {
    VarKind kind;
    int index;      /* register, or capture index */
} VarRef;

static VarRef resolve(FuncState *fs, Symbol *name)
{
    VarRef r;
    check_stack(fs, fs->pos, "expression");
    for (int i = fs->nvars - 1; i >= 0; i--)
        if (fs->vars[i].name == name) {
            r.kind = V_LOCAL;
            r.index = fs->vars[i].reg;
            return r;
        }
    if (fs->self_name == name) {
        r.kind = V_SELF;
        r.index = 0;
        return r;
    }
    for (uint32_t i = 0; i < fs->ncaps; i++)
        if (fs->capnames[i] == name) {
            r.kind = V_FREE;
            r.index = (int)i;
            return r;
        }
    if (fs->parent == NULL) {
        r.kind = V_GLOBAL;
        r.index = 0;
        return r;
    }
    VarRef up = resolve(fs->parent, name);
    if (up.kind == V_GLOBAL)
        return up;
    uint32_t cap = fs->capcaps;
    fs->caps = grow(fs->caps, &cap, fs->ncaps + 1, sizeof(Capture), 1);
    uint32_t cap2 = fs->capcaps;
    fs->capnames = grow(fs->capnames, &cap2, fs->ncaps + 1,
                        sizeof(Symbol *), 0);
    fs->capcaps = cap;
    Capture *c = &fs->caps[fs->ncaps];
    c->kind = up.kind == V_LOCAL ? CAP_REG
              : up.kind == V_FREE ? CAP_FREE : CAP_SELF;
    c->index = (uint16_t)up.index;
    fs->capnames[fs->ncaps] = name;
    r.kind = V_FREE;
    r.index = (int)fs->ncaps++;
    return r;
}

static Global *global_cell(FuncState *fs, Symbol *name)
{
    return fs->prelude ? vl_state_prelude_cell(fs->S, name)
                       : vl_state_user_cell(fs->S, name);
}

/* The inline id of global 'name' if it currently holds that builtin. */
static int inline_id_of(FuncState *fs, Symbol *name)
{
    Global *g = global_cell(fs, name);
    if (g->inline_id < 0)
        return -1;
    Value b = fs->S->inline_values[g->inline_id];
    if (g->value.tag != b.tag || g->value.as.ptr != b.as.ptr)
        return -1;
    return g->inline_id;
}

/* ===== Expressions ===== */

static void expr(FuncState *fs, Ast *e, int dest, int tail);
static Proto *compile_lambda(FuncState *parent, Ast *lam, Symbol *self);

static void emit_return_reg(FuncState *fs, int reg)
{
    emit(fs, OP_RETURN, 0, reg, 0, 0);
}

/* ===== Temporary duals =====
   An inline arithmetic operation whose result only the operation that
   reads it as an operand sees, with nothing between them but loads and
   other inline operations (straight-line, no call), is flagged
   VL_X_TEMP: in forward mode its plain dual goes to the state's ring of
   VL_TEMP_DUALS temporaries instead of the heap (vm/adfast.h).  The ring
   is safe when fewer than VL_TEMP_DUALS - 1 instructions that may make
   a temporary run between the writer and its reader.  An inline
   operation between them may still call a user's binding of its
   primitive: the VM then copies the frame's temporaries to the heap
   first. */

/* Whether instruction i may make a temporary (in the register it
   writes): an arithmetic operation or a unary math primitive. */
static int temp_writer(const Instr *i)
{
    if (i->op >= OP_ADD && i->op <= OP_DIVKR)
        return 1;
    int id = i->x & VL_X_ID;
    return i->op == OP_PRIM1 && id >= IN_SQRT && id <= IN_FLOOR;
}

/* Whether instruction i may run while a temporary waits for its reader. */
static int temp_safe(const Instr *i)
{
    switch (i->op) {
    case OP_MOVE: case OP_LOADK: case OP_GETGLOBAL: case OP_GETFREE:
    case OP_SELF: case OP_CMP: case OP_CMPK: case OP_PRIM1: case OP_PRIM2:
        return 1;
    default:
        return i->op >= OP_ADD && i->op <= OP_DIVKR;
    }
}

/* The register holding e's value: a local's own, or a fresh one it is
   compiled into.  fs->writer: the index of the instruction that wrote
   the fresh register when that may make a temporary (mark_temps), else
   -1 (a local, a call, a branch's join...). */
static int to_reg(FuncState *fs, Ast *e)
{
    fs->writer = -1;
    if (e->kind == A_VAR) {
        VarRef r = resolve(fs, e->u.var);
        if (r.kind == V_LOCAL)
            return r.index;
    }
    int t = alloc_reg(fs);
    uint32_t n = fs->ncode;
    expr(fs, e, t, 0);
    fs->writer = -1;
    if (fs->ncode > n && fs->code[fs->ncode - 1].a == t
        && temp_writer(&fs->code[fs->ncode - 1]))
        fs->writer = (int)fs->ncode - 1;
    return t;
}

/* Flag the writers wa and wb (the fs->writer of the operands' to_reg;
   -1: none) of an inline operation's operands, about to be emitted,
   whose results may be temporaries.  (No helper compiles the operands:
   a frame more per level of nested arithmetic would lower the nesting
   the C stack allows, tests/bad-input/limits-deep.sh.) */
static void mark_temps(FuncState *fs, int wa, int wb)
{
    /* the second first, so that the first's count includes it; every
       instruction that may make a temporary counts, flagged or not (the
       scan then stops after a few dozen: counting only the flagged ones
       made a long chain of nested sums quadratic to compile) */
    int writer[2] = {wb, wa};
    for (int k = 0; k < 2; k++) {
        if (writer[k] < 0)
            continue;
        int temps = 0, safe = 1;
        for (uint32_t j = (uint32_t)writer[k] + 1;
             j < fs->ncode && safe && temps < VL_TEMP_DUALS - 1; j++) {
            const Instr *i = &fs->code[j];
            safe = temp_safe(i);
            temps += temp_writer(i);
        }
        if (safe && temps < VL_TEMP_DUALS - 1)
            fs->code[writer[k]].x |= VL_X_TEMP;
    }
}

static int is_num_const(Ast *e)
{
    return e->kind == A_CONST && e->u.constant->kind == D_NUM;
}

static int num_const(FuncState *fs, Ast *e)
{
    return add_const(fs, vl_num(e->u.constant->u.num));
}

/* Inline id of an application's operator, or -1. */
static int app_inline_id(FuncState *fs, Ast *e)
{
    Ast *f = e->u.app.fn;
    if (f->kind != A_VAR)
        return -1;
    VarRef r = resolve(fs, f->u.var);
    if (r.kind != V_GLOBAL)
        return -1;
    int id = inline_id_of(fs, f->u.var);
    if (id < 0)
        return -1;
    int arity = vl_prims_inline_arity(id);
    if (e->u.app.nargs != arity)
        return -1;
    return id;
}

static int xflag(FuncState *fs)
{
    return fs->prelude ? VL_X_PRELUDE : 0;
}

/* Arithmetic: R[dest] = a OP b with constant forms. */
static void arith(FuncState *fs, int id, Ast *a, Ast *b, int dest)
{
    int save = fs->freereg;
    static const int rr[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV};
    static const int rk[] = {OP_ADDK, OP_SUBK, OP_MULK, OP_DIVK};
    int commut = id == IN_ADD || id == IN_MUL;
    if (is_num_const(b)) {
        int ra = to_reg(fs, a);
        mark_temps(fs, fs->writer, -1);
        emit(fs, rk[id], xflag(fs), dest, ra, num_const(fs, b));
    } else if (is_num_const(a) && commut) {
        int rb = to_reg(fs, b);
        mark_temps(fs, fs->writer, -1);
        emit(fs, rk[id], xflag(fs) | VL_X_SWAPPED, dest, rb,
             num_const(fs, a));
    } else if (is_num_const(a)) {
        int rb = to_reg(fs, b);
        mark_temps(fs, fs->writer, -1);
        emit(fs, id == IN_SUB ? OP_SUBKR : OP_DIVKR, xflag(fs), dest,
             num_const(fs, a), rb);
    } else {
        int ra = to_reg(fs, a), wa = fs->writer;
        int rb = to_reg(fs, b);
        mark_temps(fs, wa, fs->writer);
        emit(fs, rr[id], xflag(fs), dest, ra, rb);
    }
    fs->freereg = save;
}

/* Comparison as a value. */
static void compare_value(FuncState *fs, int id, Ast *a, Ast *b, int dest)
{
    int save = fs->freereg, swapped = 0;
    if (is_num_const(a) && !is_num_const(b)) {
        Ast *t = a;
        a = b;
        b = t;
        id = vl_prims_swap_cmp(id);
        swapped = VL_X_SWAPPED;
    }
    int x = (id - IN_EQ) | xflag(fs) | swapped;
    if (is_num_const(b)) {
        int ra = to_reg(fs, a);
        mark_temps(fs, fs->writer, -1);
        emit(fs, OP_CMPK, x, dest, ra, num_const(fs, b));
    } else {
        int ra = to_reg(fs, a), wa = fs->writer;
        int rb = to_reg(fs, b);
        mark_temps(fs, wa, fs->writer);
        emit(fs, OP_CMP, x, dest, ra, rb);
    }
    fs->freereg = save;
}

/* Compile a test that jumps when false; returns the jump to patch. */
static int test_jump(FuncState *fs, Ast *test)
{
    int save = fs->freereg;
    if (test->kind == A_APP) {
        int id = app_inline_id(fs, test);
        if (id >= IN_EQ && id <= IN_GE) {
            Ast *a = test->u.app.args[0], *b = test->u.app.args[1];
            int swapped = 0;
            if (is_num_const(a) && !is_num_const(b)) {
                Ast *t = a;
                a = b;
                b = t;
                id = vl_prims_swap_cmp(id);
                swapped = VL_X_SWAPPED;
            }
            static const int jr[] = {OP_JEQ, OP_JLT, OP_JGT, OP_JLE, OP_JGE};
            static const int jk[] = {OP_JEQK, OP_JLTK, OP_JGTK, OP_JLEK,
                                     OP_JGEK};
            int at;
            SrcPos keep = fs->pos;
            fs->pos = test->pos;
            if (is_num_const(b)) {
                int ra = to_reg(fs, a);
                mark_temps(fs, fs->writer, -1);
                at = emit(fs, jk[id - IN_EQ], xflag(fs) | swapped, ra,
                          num_const(fs, b), 0);
            } else {
                int ra = to_reg(fs, a), wa = fs->writer;
                int rb = to_reg(fs, b);
                mark_temps(fs, wa, fs->writer);
                at = emit(fs, jr[id - IN_EQ], xflag(fs), ra, rb, 0);
            }
            fs->pos = keep;
            fs->freereg = save;
            return at;
        }
        if (id >= IN_ZEROP && id <= IN_PAIRP) {
            SrcPos keep = fs->pos;
            int ra = to_reg(fs, test->u.app.args[0]);
            mark_temps(fs, fs->writer, -1);
            fs->pos = test->pos;
            int at = emit(fs, OP_JPRIM1, id | xflag(fs), ra, 0, 0);
            fs->pos = keep;
            fs->freereg = save;
            return at;
        }
    }
    int r = to_reg(fs, test);
    int at = emit(fs, OP_JMPF, 0, r, 0, 0);
    fs->freereg = save;
    return at;
}

/* Generic application. */
static void call(FuncState *fs, Ast *e, int dest, int tail)
{
    int save = fs->freereg;
    int n = e->u.app.nargs;
    /* when 'dest' is the topmost register, the call block can start there
       and the result needs no move */
    int a = !tail && dest == fs->freereg - 1 ? dest : alloc_reg(fs);
    int fr = alloc_reg(fs);
    for (int i = 0; i < n; i++)
        alloc_reg(fs);
    /* evaluate operator, then operands, into the block */
    fs->freereg = fr + 1 + n;
    expr(fs, e->u.app.fn, fr, 0);
    for (int i = 0; i < n; i++)
        expr(fs, e->u.app.args[i], fr + 1 + i, 0);
    fs->pos = e->pos;
    if (tail) {
        emit(fs, OP_TAILCALL, 0, a, n, 0);
    } else {
        emit(fs, OP_CALL, 0, a, n, 0);
        if (dest != a)
            emit(fs, OP_MOVE, 0, dest, a, 0);
    }
    fs->freereg = save;
}

static void application(FuncState *fs, Ast *e, int dest, int tail)
{
    int id = app_inline_id(fs, e);
    if (id < 0) {
        call(fs, e, dest, tail);
        return;
    }
    Ast **args = e->u.app.args;
    if (id <= IN_DIV)
        arith(fs, id, args[0], args[1], dest);
    else if (id <= IN_GE)
        compare_value(fs, id, args[0], args[1], dest);
    else if (vl_prims_inline_arity(id) == 1) {
        int save = fs->freereg;
        int r = to_reg(fs, args[0]);
        mark_temps(fs, fs->writer, -1);
        fs->pos = e->pos;
        emit(fs, OP_PRIM1, id | xflag(fs), dest, r, 0);
        fs->freereg = save;
    } else {
        int save = fs->freereg;
        int ra = to_reg(fs, args[0]), wa = fs->writer;
        int rb = to_reg(fs, args[1]);
        mark_temps(fs, wa, fs->writer);
        fs->pos = e->pos;
        emit(fs, OP_PRIM2, id | xflag(fs), dest, ra, rb);
        fs->freereg = save;
    }
    if (tail)
        emit_return_reg(fs, dest);
}

/* ===== Patterns ===== */

static int add_match(FuncState *fs, Pattern *whole, int root)
{
    fs->matches = grow(fs->matches, &fs->capmatches, fs->nmatches + 1,
                       sizeof(MatchInfo), 0);
    fs->matches[fs->nmatches].pattern = whole;
    fs->matches[fs->nmatches].root = (uint16_t)root;
    return (int)fs->nmatches++;
}

/* Match R[src] against 'p', binding its variables (in registers that stay
   allocated until the scope ends). */
static void bind_subpattern(FuncState *fs, Pattern *p, int src, int minfo,
                            int level)
{
    fs->pos = p->pos;
    check_stack(fs, p->pos, level > 0 ? "pattern" : "expression");
    switch (p->kind) {
    case P_VAR:
        bind_var(fs, p->var, src);
        break;
    case P_CONST:
        emit(fs, OP_MATCHK, 0, src,
             add_const(fs, vl_compile_datum_value(fs->S, p->constant)),
             minfo);
        break;
    case P_CONS: {
        int t = alloc_reg(fs);
        alloc_reg(fs);
        emit(fs, OP_MATCHPAIR, 0, src, t, minfo);
        bind_subpattern(fs, p->car, t, minfo, level + 1);
        bind_subpattern(fs, p->cdr, t + 1, minfo, level + 1);
        break;
    }
    }
}

static void bind_pattern(FuncState *fs, Pattern *p, int src, int minfo)
{
    bind_subpattern(fs, p, src, minfo, 0);
}

/* Number of variables if 'p' is (cons* v1 ... vn) of distinct variables
   with n > 1, else 1. */
static int tuple_arity(Pattern *p)
{
    int n = 0;
    while (p->kind == P_CONS && p->car->kind == P_VAR) {
        n++;
        p = p->cdr;
    }
    if (n >= 1 && p->kind == P_VAR)
        return n + 1;
    return 1;
}

/* ===== Binding forms ===== */

static void let_form(FuncState *fs, Ast *e, int dest, int tail)
{
    int save = fs->freereg;
    int savevars = fs->nvars;
    int n = e->u.let.n;
    int *regs = vl_gc_alloc_atomic((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) {
        Ast *init = e->u.let.inits[i];
        regs[i] = alloc_reg(fs);
        expr(fs, init, regs[i], 0);
    }
    for (int i = 0; i < n; i++) {
        Pattern *p = e->u.let.pats[i];
        int minfo = p->kind == P_VAR ? 0 : add_match(fs, p, regs[i]);
        bind_pattern(fs, p, regs[i], minfo);
    }
    expr(fs, e->u.let.body, dest, tail);
    fs->nvars = savevars;
    fs->freereg = save;
}

static void letrec_form(FuncState *fs, Ast *e, int dest, int tail)
{
    int save = fs->freereg;
    int savevars = fs->nvars;
    int n = e->u.letrec.n;
    int base = fs->freereg;
    for (int i = 0; i < n; i++) {
        int r = alloc_reg(fs);
        bind_var(fs, e->u.letrec.names[i], r);
    }
    uint32_t first_child = fs->nchildren;
    for (int i = 0; i < n; i++) {
        Ast *lam = e->u.letrec.lambdas[i];
        Proto *p = compile_lambda(fs, lam, e->u.letrec.names[i]);
        fs->children = grow(fs->children, &fs->capchildren,
                            fs->nchildren + 1, sizeof(Proto *), 0);
        fs->children[fs->nchildren] = p;
        fs->pos = lam->pos;
        emit(fs, OP_CLOSURE, 0, base + i, (int)fs->nchildren++, 0);
    }
    /* captures of members created later (or of themselves through a
       register) are filled in now */
    for (int i = 0; i < n; i++) {
        Proto *p = fs->children[first_child + (uint32_t)i];
        for (uint32_t j = 0; j < p->nfree; j++) {
            Capture c = p->captures[j];
            if (c.kind == CAP_REG && c.index >= base + i && c.index < base + n)
                emit(fs, OP_SETFREE, 0, base + i, (int)j, c.index);
        }
    }
    expr(fs, e->u.letrec.body, dest, tail);
    fs->nvars = savevars;
    fs->freereg = save;
}

/* ===== Expressions ===== */

static void expr_node(FuncState *fs, Ast *e, int dest, int tail)
{
    fs->pos = e->pos;
    switch (e->kind) {
    case A_CONST:
        emit(fs, OP_LOADK, 0, dest,
             add_const(fs, vl_compile_datum_value(fs->S, e->u.constant)), 0);
        break;
    case A_VAR: {
        VarRef r = resolve(fs, e->u.var);
        switch (r.kind) {
        case V_LOCAL:
            if (tail) {
                emit_return_reg(fs, r.index);
                return;
            }
            if (r.index != dest)
                emit(fs, OP_MOVE, 0, dest, r.index, 0);
            break;
        case V_FREE:
            emit(fs, OP_GETFREE, 0, dest, r.index, 0);
            break;
        case V_SELF:
            emit(fs, OP_SELF, 0, dest, 0, 0);
            break;
        case V_GLOBAL: {
            Global *g = global_cell(fs, e->u.var);
            emit(fs, OP_GETGLOBAL, 0, dest,
                 add_const(fs, vl_obj(VT_RAW, g)), 0);
            break;
        }
        }
        break;
    }
    case A_LAMBDA: {
        Proto *p = compile_lambda(fs, e, NULL);
        fs->children = grow(fs->children, &fs->capchildren,
                            fs->nchildren + 1, sizeof(Proto *), 0);
        fs->children[fs->nchildren] = p;
        fs->pos = e->pos;
        emit(fs, OP_CLOSURE, 0, dest, (int)fs->nchildren++, 0);
        break;
    }
    case A_APP:
        application(fs, e, dest, tail);
        return;
    case A_IF: {
        int jf = test_jump(fs, e->u.if_.test);
        expr(fs, e->u.if_.then, dest, tail);
        int jend = -1;
        if (!tail)
            jend = emit(fs, OP_JMP, 0, 0, 0, 0);
        patch_here(fs, jf);
        expr(fs, e->u.if_.els, dest, tail);
        if (!tail)
            patch_here(fs, jend);
        return;
    }
    case A_OR: {
        int save = fs->freereg;
        int r = tail ? alloc_reg(fs) : dest;
        expr(fs, e->u.or_.first, r, 0);
        if (tail) {
            int j = emit(fs, OP_JMPF, 0, r, 0, 0);
            emit_return_reg(fs, r);
            patch_here(fs, j);
            expr(fs, e->u.or_.second, dest, 1);
        } else {
            int j = emit(fs, OP_JMPT, 0, r, 0, 0);
            expr(fs, e->u.or_.second, dest, 0);
            patch_here(fs, j);
        }
        fs->freereg = save;
        return;
    }
    case A_LET:
        let_form(fs, e, dest, tail);
        return;
    case A_LETREC:
        letrec_form(fs, e, dest, tail);
        return;
    case A_CONS: {
        int save = fs->freereg;
        int ra = to_reg(fs, e->u.cons.car);
        int rb = to_reg(fs, e->u.cons.cdr);
        fs->pos = e->pos;
        emit(fs, OP_CONS, 0, dest, ra, rb);
        fs->freereg = save;
        break;
    }
    }
    if (tail)
        emit_return_reg(fs, dest);
}

static void expr(FuncState *fs, Ast *e, int dest, int tail)
{
    check_stack(fs, e->pos, "expression");
    fs->depth++;
    expr_node(fs, e, dest, tail);
    fs->depth--;
}

/* ===== Liveness ===== */

static void set_bit(uint64_t *s, int r)
{
    s[r >> 6] |= (uint64_t)1 << (r & 63);
}

static void clear_bit(uint64_t *s, int r)
{
    s[r >> 6] &= ~((uint64_t)1 << (r & 63));
}

static int is_call_capable(int op)
{
    switch (op) {
    case OP_CALL:
    case OP_ADD: case OP_ADDK: case OP_SUB: case OP_SUBK: case OP_SUBKR:
    case OP_MUL: case OP_MULK: case OP_DIV: case OP_DIVK: case OP_DIVKR:
    case OP_CMP: case OP_CMPK:
    case OP_JLT: case OP_JLE: case OP_JGT: case OP_JGE: case OP_JEQ:
    case OP_JLTK: case OP_JLEK: case OP_JGTK: case OP_JGEK: case OP_JEQK:
    case OP_PRIM1: case OP_PRIM2: case OP_JPRIM1:
    case OP_RESUME:
        return 1;
    default:
        return 0;
    }
}

static int is_jump(int op)
{
    switch (op) {
    case OP_JMP: case OP_JMPF: case OP_JMPT:
    case OP_JLT: case OP_JLE: case OP_JGT: case OP_JGE: case OP_JEQ:
    case OP_JLTK: case OP_JLEK: case OP_JGTK: case OP_JGEK: case OP_JEQK:
    case OP_JPRIM1:
        return 1;
    default:
        return 0;
    }
}

/* Registers read ('use') and written ('def') by instruction 'i'. */
static void use_def(const Proto *p, const Instr *i, uint64_t *use,
                    uint64_t *def)
{
    switch (i->op) {
    case OP_MOVE: set_bit(def, i->a); set_bit(use, i->b); break;
    case OP_LOADK: case OP_GETGLOBAL: case OP_GETFREE: case OP_SELF:
    case OP_PRIMOPS_BEGIN:
        set_bit(def, i->a);
        break;
    case OP_DEFGLOBAL: case OP_JMPF: case OP_JMPT: case OP_RETURN:
    case OP_JPRIM1:
        set_bit(use, i->a);
        break;
    case OP_CLOSURE: {
        const Proto *c = p->children[i->b];
        set_bit(def, i->a);
        for (uint32_t k = 0; k < c->nfree; k++)
            if (c->captures[k].kind == CAP_REG)
                set_bit(use, c->captures[k].index);
        break;
    }
    case OP_SETFREE: set_bit(use, i->a); set_bit(use, i->c); break;
    case OP_CONS: case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
    case OP_CMP: case OP_PRIM2:
        set_bit(def, i->a); set_bit(use, i->b); set_bit(use, i->c);
        break;
    case OP_ADDK: case OP_SUBK: case OP_MULK: case OP_DIVK: case OP_CMPK:
    case OP_PRIM1: case OP_RESUME:
        set_bit(def, i->a); set_bit(use, i->b);
        break;
    case OP_SUBKR: case OP_DIVKR:
        set_bit(def, i->a); set_bit(use, i->c);
        break;
    case OP_JLT: case OP_JLE: case OP_JGT: case OP_JGE: case OP_JEQ:
        set_bit(use, i->a); set_bit(use, i->b);
        break;
    case OP_JLTK: case OP_JLEK: case OP_JGTK: case OP_JGEK: case OP_JEQK:
        set_bit(use, i->a);
        break;
    case OP_MATCHK:
        set_bit(use, i->a);
        set_bit(use, p->matches[i->c].root);
        break;
    case OP_MATCHPAIR:
        set_bit(use, i->a);
        set_bit(use, p->matches[i->c].root);
        set_bit(def, i->b); set_bit(def, i->b + 1);
        break;
    case OP_CALL:
    case OP_TAILCALL:
        for (int r = i->a + 1; r <= i->a + 1 + i->b; r++)
            set_bit(use, r);
        set_bit(def, i->a);
        break;
    case OP_CKPT_BEGIN:
        set_bit(def, i->a); set_bit(use, i->b);
        break;
    case OP_JSTAR_BEGIN:
        set_bit(def, i->a); set_bit(def, i->a + 3);
        set_bit(use, i->b); set_bit(use, i->b + 1);
        break;
    case OP_JSTAR_END:
        set_bit(use, i->a); set_bit(use, i->b); set_bit(def, i->a);
        break;
    case OP_STARJ_BEGIN:
        set_bit(def, i->a); set_bit(def, i->a + 1); set_bit(def, i->a + 2);
        set_bit(use, i->b);
        break;
    case OP_STARJ_END:
        set_bit(use, i->a);
        for (int r = i->b; r <= i->b + 3; r++)
            set_bit(use, r);
        set_bit(def, i->a);
        break;
    case OP_SEG_BEGIN:
        set_bit(def, i->a);
        if (i->x) {
            set_bit(def, i->a - 1); set_bit(def, i->a - 2);
        } else {
            set_bit(use, i->a - 1); set_bit(use, i->a - 2);
        }
        break;
    case OP_SEG_END:
        set_bit(use, i->a); set_bit(use, i->b); set_bit(use, i->b - 1);
        set_bit(def, i->a);
        break;
    case OP_CKPT_END: case OP_PRIMOPS_END:
        set_bit(use, i->a); set_bit(use, i->b); set_bit(def, i->a);
        break;
    default:
        break;
    }
}

/* How the primal-only analysis sees an instruction (compute_liveness). */
typedef enum PrimalUse {
    PU_FULL,     /* reads its operands as values; runs no step */
    PU_PRIMAL,   /* reads the primals only: a comparison, a sign or type
                    predicate, a truth test */
    PU_MOVE,     /* passes its operand on: as its destination is read */
    PU_WRITER,   /* arithmetic: reads its operands as its result is read */
    PU_STEP      /* may run a step (a checkpoint may capture the frame's
                    live registers), or reads as values */
} PrimalUse;

static PrimalUse primal_use(const Instr *i)
{
    int id = i->x & VL_X_ID;
    switch (i->op) {
    case OP_MOVE:
        return PU_MOVE;
    case OP_CMP: case OP_CMPK: case OP_JMPF: case OP_JMPT: case OP_JPRIM1:
    case OP_JLT: case OP_JLE: case OP_JGT: case OP_JGE: case OP_JEQ:
    case OP_JLTK: case OP_JLEK: case OP_JGTK: case OP_JGEK: case OP_JEQK:
        return PU_PRIMAL;
    case OP_PRIM1:
        if (id >= IN_ZEROP && id <= IN_PAIRP)
            return PU_PRIMAL;
        if (id == IN_CAR || id == IN_CDR)   /* a non-pair: a call */
            return PU_STEP;
        return temp_writer(i) ? PU_WRITER : PU_FULL;
    case OP_LOADK: case OP_GETGLOBAL: case OP_GETFREE: case OP_SELF:
    case OP_CLOSURE: case OP_SETFREE: case OP_CONS: case OP_JMP:
    case OP_PRIM2:
        return PU_FULL;
    default:
        return temp_writer(i) ? PU_WRITER : PU_STEP;
    }
}

/* Registers live after each call-capable instruction (p->live), and, in
   the same backward pass (all jumps go forward), the arithmetic whose
   result needs its primal only: flagged VL_X_PRIMAL (vm/vm.c).  'full'
   is the set of registers whose value is read as a value on some path
   before it is written again: by a call, a return, a cons, a closure, a
   global, a pattern, or by an operation that is itself full -- or that
   is live across an instruction that may run a step, where a checkpoint
   would hold it (the (co)tangent of a checkpoint carries those of the
   reals of its frames).  A value never full is read by comparisons and
   predicates only, through arithmetic and moves, with no step while it
   is live: its derivative can be seen nowhere. */
static void compute_liveness(Proto *p)
{
    int w = (p->nregs + 2 + 63) / 64;
    p->livewords = (uint16_t)w;
    size_t n = p->ncode;
    uint64_t *in = vl_gc_alloc_atomic((n + 1) * (size_t)w * 8 * 2);
    memset(in, 0, (n + 1) * (size_t)w * 8 * 2);
    uint64_t *fin = in + (n + 1) * (size_t)w;
    p->live = vl_gc_alloc_atomic(n * (size_t)w * 8 + 8);
    memset(p->live, 0, n * (size_t)w * 8 + 8);
    uint64_t use[w], def[w], out[w], fout[w];
    for (size_t k = n; k-- > 0;) {
        Instr *i = &p->code[k];
        memset(out, 0, sizeof out);
        memset(fout, 0, sizeof fout);
        int falls = i->op != OP_JMP && i->op != OP_RETURN
                    && i->op != OP_TAILCALL;
        if (falls && k + 1 < n)
            for (int j = 0; j < w; j++) {
                out[j] |= in[(k + 1) * w + j];
                fout[j] |= fin[(k + 1) * w + j];
            }
        if (is_jump(i->op)) {
            size_t t = k + 1 + (size_t)(int16_t)i->c;
            if (t < n)
                for (int j = 0; j < w; j++) {
                    out[j] |= in[t * w + j];
                    fout[j] |= fin[t * w + j];
                }
        }
        memset(use, 0, sizeof use);
        memset(def, 0, sizeof def);
        use_def(p, i, use, def);
        uint64_t *l = &p->live[k * w];
        if (is_call_capable(i->op)) {
            for (int j = 0; j < w; j++)
                l[j] = out[j];
            if (!is_jump(i->op))
                clear_bit(l, i->a);
        }
        PrimalUse pu = primal_use(i);
        int dest_full = (pu == PU_WRITER || pu == PU_MOVE)
                        && (fout[i->a >> 6] >> (i->a & 63)) & 1;
        if (pu == PU_WRITER && !dest_full)
            i->x |= VL_X_PRIMAL;
        int reads_full = pu == PU_FULL || pu == PU_STEP
                         || ((pu == PU_WRITER || pu == PU_MOVE) && dest_full);
        for (int j = 0; j < w; j++) {
            in[k * w + j] = use[j] | (out[j] & ~def[j]);
            fin[k * w + j] = (fout[j] & ~def[j]) | (reads_full ? use[j] : 0)
                             | (pu != PU_STEP ? 0
                                : i->op == OP_CALL ? l[j] : out[j]);
        }
    }
}

/* ===== Prototypes ===== */

static Proto *finish(FuncState *fs, ProtoKind kind, int nparams,
                     Pattern *param, const char *name)
{
    Proto *p = vl_gc_alloc(sizeof *p);
    p->code = fs->code;
    p->locs = fs->locs;
    p->ncode = fs->ncode;
    p->consts = fs->consts;
    p->nconsts = fs->nconsts;
    p->children = fs->children;
    p->nchildren = fs->nchildren;
    p->captures = fs->caps;
    p->nfree = (uint16_t)fs->ncaps;
    p->matches = fs->matches;
    p->nmatches = fs->nmatches;
    p->name = name;
    p->file = fs->file;
    p->param = param;
    p->pos = fs->pos;
    p->nregs = (uint16_t)(fs->maxreg < nparams ? nparams : fs->maxreg);
    p->nparams = (uint16_t)nparams;
    p->kind = (uint8_t)kind;
    p->prelude = (uint8_t)fs->prelude;
    compute_liveness(p);
    return p;
}

static void init_fs(FuncState *fs, FuncState *parent, VladState *S,
                    int prelude, SrcPos pos)
{
    memset(fs, 0, sizeof *fs);
    fs->parent = parent;
    fs->S = S;
    fs->prelude = prelude;
    fs->file = pos.file;
    fs->pos = pos;
}

static Proto *compile_lambda(FuncState *parent, Ast *lam, Symbol *self)
{
    FuncState fs;
    init_fs(&fs, parent, parent->S, parent->prelude, lam->pos);
    fs.self_name = self;
    fs.depth = parent->depth;
    Pattern *param = lam->u.lambda.param;
    int nparams = tuple_arity(param);
    if (nparams > 1) {
        Pattern *p = param;
        for (int i = 0; i < nparams; i++) {
            alloc_reg(&fs);
            if (i + 1 < nparams) {
                bind_var(&fs, p->car->var, i);
                p = p->cdr;
            } else {
                bind_var(&fs, p->var, i);
            }
        }
    } else {
        alloc_reg(&fs);
        int minfo = param->kind == P_VAR ? 0 : add_match(&fs, param, 0);
        bind_pattern(&fs, param, 0, minfo);
    }
    expr(&fs, lam->u.lambda.body, 0, 1);
    const char *name = lam->u.lambda.name;
    if (name == NULL && self != NULL)
        name = self->name;
    fs.pos = lam->pos;
    return finish(&fs, PK_LAMBDA, nparams, param, name);
}

Proto *vl_compile_toplevel(VladState *S, const TopForm *form, int prelude)
{
    FuncState fs;
    init_fs(&fs, NULL, S, prelude, form->pos);
    alloc_reg(&fs);        /* R[0]: the ignored argument */
    int r = alloc_reg(&fs);
    if (form->kind == TOP_DEFINE) {
        expr(&fs, form->expr, r, 0);
        Global *g = global_cell(&fs, form->name);
        fs.pos = form->pos;
        emit(&fs, OP_DEFGLOBAL, 0, r, add_const(&fs, vl_obj(VT_RAW, g)), 0);
        emit(&fs, OP_LOADK, 0, r, add_const(&fs, NIL_VAL), 0);
        emit_return_reg(&fs, r);
    } else {
        /* not a tail call: the top-level frame stays visible in
           backtraces of errors raised by what it calls */
        expr(&fs, form->expr, r, 0);
        emit_return_reg(&fs, r);
    }
    fs.pos = form->pos;
    return finish(&fs, PK_TOPLEVEL, 1, NULL, NULL);
}

Proto *vl_compile_assemble(VladState *S, const char *name, ProtoKind kind,
                           int nparams, int nregs, const Instr *code,
                           int ncode)
{
    FuncState fs;
    SrcPos pos = {"<builtin>", 0, 0};
    init_fs(&fs, NULL, S, 1, pos);
    for (int i = 0; i < ncode; i++)
        emit(&fs, code[i].op, code[i].x, code[i].a, code[i].b, code[i].c);
    fs.maxreg = nregs;
    return finish(&fs, kind, nparams, NULL, name);
}
