/*
 * vm/core/compile.c -- from core AST to bytecode prototypes
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
 * name is redefined later (vm/core/opcodes.h).
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
#include "vm/core/compile.h"

#include <string.h>
#include "vm/core/except.h"
#include "vm/core/state.h"
#include "vm/core/delimregs.h"

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
    uint32_t *khash;        /* hash table of the constants (their index
                               + 1; 0: empty) once there are 8 or more */
    uint32_t capkhash;      /* its slots, a power of 2, or 0 */
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
    size_t c = *cap;    /* 16 at first: the prelude has ~500 small ones */
    p = vl_gc_reserve(p, c, need < 16 ? 16 : need, &c, elem, atomic);
    *cap = (uint32_t)c;
    return p;
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

/* The slot of constant 'v' in the hash table of the constants: the one
   holding its index + 1, or the empty one where it would go. */
static uint32_t const_slot(const FuncState *fs, Value v)
{
    uint64_t h = ((uint64_t)v.as.i ^ v.tag) * 0x9E3779B97F4A7C15u;
    uint32_t mask = fs->capkhash - 1, k = (uint32_t)(h >> 32) & mask;
    for (;;) {
        uint32_t at = fs->khash[k];
        if (at == 0)
            return k;
        Value w = fs->consts[at - 1];
        if (w.tag == v.tag && w.as.i == v.as.i)
            return k;
        k = (k + 1) & mask;
    }
}

/* Index of constant 'v' (equal: the same tag and bits), added if new.
   Past a few constants a hash table finds them: a long list of distinct
   numbers compiles in linear time. */
static int add_const(FuncState *fs, Value v)
{
    uint32_t slot = 0;
    if (fs->nconsts < 8) {
        for (uint32_t i = 0; i < fs->nconsts; i++) {
            Value w = fs->consts[i];
            if (w.tag == v.tag && w.as.i == v.as.i)
                return (int)i;
        }
    } else {
        if (2 * (fs->nconsts + 1) > fs->capkhash) {
            uint32_t cap = 64;
            while (cap < 4 * (fs->nconsts + 1))
                cap *= 2;
            fs->khash = vl_gc_alloc_atomic(cap * sizeof(uint32_t));
            memset(fs->khash, 0, cap * sizeof(uint32_t));
            fs->capkhash = cap;
            for (uint32_t i = 0; i < fs->nconsts; i++)
                fs->khash[const_slot(fs, fs->consts[i])] = i + 1;
        }
        slot = const_slot(fs, v);
        if (fs->khash[slot] != 0)
            return (int)fs->khash[slot] - 1;
    }
    fs->consts = grow(fs->consts, &fs->capconsts, fs->nconsts + 1,
                      sizeof(Value), 0);
    if (fs->nconsts >= MAX_REGS)
        vl_except_at(fs->S, VLAD_ERR_SYNTAX, fs->pos,
                     "procedure has too many constants");
    fs->consts[fs->nconsts] = v;
    if (fs->khash != NULL)
        fs->khash[slot] = fs->nconsts + 1;
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
    VladState *S = fs->S;
    uint64_t bit = (uint64_t)1 << g->inline_id;
    if (S->compile_forced != NULL)      /* recompiling (vm/core/unit.h) */
        return (*S->compile_forced & bit) ? -1 : g->inline_id;
    Value b = S->inline_values[g->inline_id];
    if (g->value.tag != b.tag || g->value.as.ptr != b.as.ptr) {
        S->compile_rebound |= bit;
        return -1;
    }
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
   VL_TEMP_DUALS temporaries instead of the heap (vm/ad/adfast.h).  The ring
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
    return i->op == OP_PRIM1 && VL_IS_MATH1(vl_instr_inline_id(i));
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
    int arity = vl_inline_arity(id);
    if (e->u.app.nargs != arity)
        return -1;
    return id;
}

static int xflag(FuncState *fs)
{
    return fs->prelude ? VL_X_PRELUDE : 0;
}

/* Arithmetic: R[dest] = a OP b with constant forms. */
_Static_assert(IN_ADD == 0 && IN_SUB == 1 && IN_MUL == 2 && IN_DIV == 3,
               "+ - * / are vm/core/math2.h's first rows, in this order");
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
        id = vl_inline_swap_cmp(id);
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
                id = vl_inline_swap_cmp(id);
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
    if (id <= IN_DIV)           /* + - * /: instructions of their own */
        arith(fs, id, args[0], args[1], dest);
    else if (id >= IN_EQ && id <= IN_GE)
        compare_value(fs, id, args[0], args[1], dest);
    else if (vl_inline_arity(id) == 1) {
        int save = fs->freereg;
        int r = to_reg(fs, args[0]);
        mark_temps(fs, fs->writer, -1);
        fs->pos = e->pos;
        emit(fs, OP_PRIM1, xflag(fs), dest, r, id);
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

/* ===== Pairs ===== */

/* A chain of conses longer than this (a long (list ...) or (cons* ...)
   form) is built in a loop of its own: see cons_form. */
#define LONG_CHAIN 16

/* R[dest] = (cons car cdr).  A short chain of conses nests: each level
   keeps its car in a register while its cdr is compiled, so a chain of n
   takes 2n registers and n levels of C recursion.  A long one takes two
   registers whatever its length: the elements, left to right, are consed
   onto a list in reverse order in one register (R[acc]), and one
   REVAPPEND puts them back in order onto the tail. */
static void cons_form(FuncState *fs, Ast *e, int dest)
{
    int save = fs->freereg, n = 0;
    Ast *t = e;
    while (t->kind == A_CONS && n <= LONG_CHAIN) {
        t = t->u.cons.cdr;
        n++;
    }
    if (n <= LONG_CHAIN) {
        int ra = to_reg(fs, e->u.cons.car);
        int rb = to_reg(fs, e->u.cons.cdr);
        fs->pos = e->pos;
        emit(fs, OP_CONS, 0, dest, ra, rb);
        fs->freereg = save;
        return;
    }
    int acc = alloc_reg(fs);
    fs->pos = e->pos;
    emit(fs, OP_LOADK, 0, acc, add_const(fs, NIL_VAL), 0);
    for (t = e; t->kind == A_CONS; t = t->u.cons.cdr) {
        int x = to_reg(fs, t->u.cons.car);
        fs->pos = t->pos;
        emit(fs, OP_CONS, 0, acc, x, acc);
        fs->freereg = acc + 1;
    }
    int rt = to_reg(fs, t);
    fs->pos = e->pos;
    emit(fs, OP_REVAPPEND, 0, dest, acc, rt);
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
    case A_CONS:
        cons_form(fs, e, dest);
        break;
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

/* The running sets of compute_liveness are bitsets of registers. */
static void set_bit(uint64_t *s, int r)
{
    s[r >> 6] |= (uint64_t)1 << (r & 63);
}

static void clear_bit(uint64_t *s, int r)
{
    s[r >> 6] &= ~((uint64_t)1 << (r & 63));
}

static int get_bit(const uint64_t *s, int r)
{
    return (int)((s[r >> 6] >> (r & 63)) & 1);
}

/* Set registers first .. first + count - 1. */
static void set_range(uint64_t *s, int first, int count)
{
    int r = first, end = first + count;
    while (r < end) {
        int n = 64 - (r & 63);
        if (n > end - r)
            n = end - r;
        uint64_t m = n == 64 ? ~(uint64_t)0
                             : (((uint64_t)1 << n) - 1) << (r & 63);
        s[r >> 6] |= m;
        r += n;
    }
}

/* The first register from 'from' on whose bit in 's' ('w' words) is
   'want', or 64 * w. */
static int next_bit(const uint64_t *s, int w, int from, int want)
{
    int k = from >> 6;
    if (k >= w)
        return 64 * w;
    uint64_t word = (want ? s[k] : ~s[k]) & (~(uint64_t)0 << (from & 63));
    while (word == 0) {
        if (++k >= w)
            return 64 * w;
        word = want ? s[k] : ~s[k];
    }
    int r = 64 * k;
    while (!(word & 1)) {
        word >>= 1;
        r++;
    }
    return r;
}

/* A growing array of runs of registers. */
typedef struct RunPool {
    LiveRun *runs;
    uint32_t n, cap;
} RunPool;

/* Append the runs of the registers below 'limit' set in 's' ('w' words)
   to 'pool'; returns how many were appended.  O(w + runs). */
static uint32_t add_runs(RunPool *pool, const uint64_t *s, int w, int limit)
{
    uint32_t before = pool->n;
    int r = 0;
    while (r < limit) {
        int first = next_bit(s, w, r, 1);
        if (first >= limit)
            break;
        int end = next_bit(s, w, first, 0);
        if (end > limit)
            end = limit;
        pool->runs = grow(pool->runs, &pool->cap, pool->n + 1,
                          sizeof(LiveRun), 1);
        pool->runs[pool->n].first = (uint16_t)first;
        pool->runs[pool->n].count = (uint16_t)(end - first);
        pool->n++;
        r = end;
    }
    return pool->n - before;
}

/* A list of registers: the uses or the definitions of one instruction. */
typedef struct RegList {
    uint16_t *r;
    uint32_t n, cap;
} RegList;

static void add_reg(RegList *l, int r)
{
    l->r = grow(l->r, &l->cap, l->n + 1, sizeof(uint16_t), 1);
    l->r[l->n++] = (uint16_t)r;
}

int vl_compile_is_call_capable(int op)
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

int vl_compile_is_jump(int op)
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
static void use_def(const Proto *p, const Instr *i, RegList *use,
                    RegList *def)
{
    use->n = 0;
    def->n = 0;
    switch (i->op) {
    case OP_MOVE: add_reg(def, i->a); add_reg(use, i->b); break;
    case OP_LOADK: case OP_GETGLOBAL: case OP_GETFREE: case OP_SELF:
        add_reg(def, i->a);
        break;
    case OP_DEFGLOBAL: case OP_JMPF: case OP_JMPT: case OP_RETURN:
    case OP_JPRIM1:
        add_reg(use, i->a);
        break;
    case OP_CLOSURE: {
        const Proto *c = p->children[i->b];
        add_reg(def, i->a);
        for (uint32_t k = 0; k < c->nfree; k++)
            if (c->captures[k].kind == CAP_REG)
                add_reg(use, c->captures[k].index);
        break;
    }
    case OP_SETFREE: add_reg(use, i->a); add_reg(use, i->c); break;
    case OP_CONS: case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
    case OP_CMP: case OP_PRIM2: case OP_REVAPPEND:
        add_reg(def, i->a); add_reg(use, i->b); add_reg(use, i->c);
        break;
    case OP_ADDK: case OP_SUBK: case OP_MULK: case OP_DIVK: case OP_CMPK:
    case OP_PRIM1: case OP_RESUME:
        add_reg(def, i->a); add_reg(use, i->b);
        break;
    case OP_SUBKR: case OP_DIVKR:
        add_reg(def, i->a); add_reg(use, i->c);
        break;
    case OP_JLT: case OP_JLE: case OP_JGT: case OP_JGE: case OP_JEQ:
        add_reg(use, i->a); add_reg(use, i->b);
        break;
    case OP_JLTK: case OP_JLEK: case OP_JGTK: case OP_JGEK: case OP_JEQK:
        add_reg(use, i->a);
        break;
    case OP_MATCHK:
        add_reg(use, i->a);
        add_reg(use, p->matches[i->c].root);
        break;
    case OP_MATCHPAIR:
        add_reg(use, i->a);
        add_reg(use, p->matches[i->c].root);
        add_reg(def, i->b); add_reg(def, i->b + 1);
        break;
    case OP_CALL:
    case OP_TAILCALL:
        for (int r = i->a + 1; r <= i->a + 1 + i->b; r++)
            add_reg(use, r);
        add_reg(def, i->a);
        break;
    /* the delimiters: operand a of *_BEGIN, b of *_END is the frame's
       first register of its own, C (vm/core/delimregs.h) */
    case OP_CKPT_BEGIN:
        add_reg(def, i->a + VL_CKPT_DEADLINE); add_reg(use, i->b);
        break;
    case OP_PRIMOPS_BEGIN:
        add_reg(def, i->a + VL_PRIMOPS_START);
        break;
    case OP_JSTAR_BEGIN:
        add_reg(def, i->a + VL_AD_TAG); add_reg(def, i->a + VL_JSTAR_INPUT);
        add_reg(use, i->b); add_reg(use, i->b + 1);
        break;
    case OP_JSTAR_END:
        add_reg(use, i->a); add_reg(use, i->b + VL_AD_TAG);
        add_reg(def, i->a);
        break;
    case OP_STARJ_BEGIN:
        add_reg(def, i->a + VL_AD_TAG); add_reg(def, i->a + VL_STARJ_INPUT);
        add_reg(def, i->a + VL_STARJ_TAPE_END);
        add_reg(use, i->b);
        break;
    case OP_STARJ_END:
        add_reg(use, i->a);
        for (int r = i->b + VL_STARJ_YBAR; r <= i->b + VL_STARJ_TAPE_END;
             r++)
            add_reg(use, r);
        add_reg(def, i->a);
        break;
    case OP_SEG_BEGIN:
        add_reg(def, i->a + VL_SEG_ANCHOR);
        if (vl_seg_mode_first(i->x)) {
            add_reg(def, i->a + VL_SEG_LOG); add_reg(def, i->a + VL_SEG_POS);
        } else {
            add_reg(use, i->a + VL_SEG_LOG); add_reg(use, i->a + VL_SEG_POS);
        }
        break;
    case OP_SEG_END:
        add_reg(use, i->a); add_reg(use, i->b + VL_SEG_ANCHOR);
        add_reg(use, i->b + VL_SEG_LOG);
        add_reg(def, i->a);
        break;
    case OP_HIDE_BEGIN:
        for (int r = i->a + VL_HIDE_ORIGIN; r <= i->a + VL_HIDE_HIDES; r++)
            add_reg(def, r);
        break;
    case OP_HIDE_END:   /* (the strategy is read by vm/cpj/cpjstrat.c) */
        add_reg(use, i->a);
        for (int r = i->b + VL_HIDE_ORIGIN; r <= i->b + VL_HIDE_HIDES; r++)
            add_reg(use, r);
        break;
    case OP_CKPT_END:
        add_reg(use, i->a); add_reg(use, i->b + VL_CKPT_DEADLINE);
        add_reg(def, i->a);
        break;
    case OP_PRIMOPS_END:
        add_reg(use, i->a); add_reg(use, i->b + VL_PRIMOPS_START);
        add_reg(def, i->a);
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
    int id = vl_instr_inline_id(i);
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
    case OP_PRIM2: case OP_REVAPPEND:
        return PU_FULL;
    default:
        return temp_writer(i) ? PU_WRITER : PU_STEP;
    }
}

/* The live sets at a jump target, kept as runs in compute_liveness's
   pool until the jumps to it are reached. */
typedef struct Snapshot {
    uint32_t first, n;          /* the runs of the live registers */
    uint32_t ffirst, fn;        /* the runs of the full registers */
} Snapshot;

/* Registers live after each call-capable instruction (p->liveat,
   p->liveruns), and, in the same backward pass (all jumps go forward),
   the arithmetic whose result needs its primal only: flagged VL_X_PRIMAL
   (vm/exec/vm.c).  'full' is the set of registers whose value is read as a
   value on some path before it is written again: by a call, a return, a
   cons, a closure, a global, a pattern, or by an operation that is
   itself full -- or that is live across an instruction that may run a
   step, where a checkpoint would hold it (the (co)tangent of a
   checkpoint carries those of the reals of its frames).  A value never
   full is read by comparisons and predicates only, through arithmetic
   and moves, with no step while it is live: its derivative can be seen
   nowhere.

   Linear: one pair of running sets (live, full) goes backwards; the sets
   at a jump target are saved as runs of registers when the pass reaches
   the target, and merged back at the jumps to it; the sets after a
   call-capable instruction are stored as runs.  Memory is O(ncode +
   nregs + runs), time O(ncode + (jumps + calls) x nregs / 64). */
static void compute_liveness(Proto *p)
{
    int w = (p->nregs + 2 + 63) / 64;
    uint32_t n = p->ncode;
    uint64_t *live = vl_gc_alloc_atomic((size_t)w * 8 * 2);
    uint64_t *full = live + w;
    memset(live, 0, (size_t)w * 8 * 2);
    /* snap[t]: the Snapshot index of jump target t (UINT32_MAX: a target
       not reached yet; 0 .. : saved), unused elsewhere; at[k], cnt[k]:
       instruction k's runs in 'runs' */
    uint32_t *snap = vl_gc_alloc_atomic((size_t)(n + 1) * 4 * 3);
    uint32_t *at = snap + n + 1, *cnt = at + n + 1;
    memset(snap, 0, (size_t)(n + 1) * 4 * 3);
    for (uint32_t k = 0; k < n; k++)
        if (vl_compile_is_jump(p->code[k].op)) {
            uint32_t t = k + 1 + (uint32_t)(int16_t)p->code[k].c;
            if (t < n)
                snap[t] = UINT32_MAX;
        }
    Snapshot *snaps = NULL;
    uint32_t nsnaps = 0, capsnaps = 0;
    RunPool saved = {NULL, 0, 0}, runs = {NULL, 0, 0};
    RegList use = {NULL, 0, 0}, def = {NULL, 0, 0};
    for (uint32_t k = n; k-- > 0;) {
        Instr *i = &p->code[k];
        /* live, full: the sets after i (before: at k + 1) */
        if (i->op == OP_JMP || i->op == OP_RETURN || i->op == OP_TAILCALL) {
            memset(live, 0, (size_t)w * 8 * 2);
        }
        if (vl_compile_is_jump(i->op)) {
            uint32_t t = k + 1 + (uint32_t)(int16_t)i->c;
            if (t < n) {
                const Snapshot *sn = &snaps[snap[t]];
                for (uint32_t q = 0; q < sn->n; q++)
                    set_range(live, saved.runs[sn->first + q].first,
                              saved.runs[sn->first + q].count);
                for (uint32_t q = 0; q < sn->fn; q++)
                    set_range(full, saved.runs[sn->ffirst + q].first,
                              saved.runs[sn->ffirst + q].count);
            }
        }
        use_def(p, i, &use, &def);
        if (vl_compile_is_call_capable(i->op)) {
            /* live after it returns: its destination is written then */
            int dest = !vl_compile_is_jump(i->op) && get_bit(live, i->a);
            if (dest)
                clear_bit(live, i->a);
            at[k] = runs.n;
            cnt[k] = add_runs(&runs, live, w, p->nregs);
            if (dest)
                set_bit(live, i->a);
        }
        PrimalUse pu = primal_use(i);
        int dest_full = (pu == PU_WRITER || pu == PU_MOVE)
                        && get_bit(full, i->a);
        if (pu == PU_WRITER && !dest_full)
            i->x |= VL_X_PRIMAL;
        int reads_full = pu == PU_FULL || pu == PU_STEP
                         || ((pu == PU_WRITER || pu == PU_MOVE) && dest_full);
        /* full before i: (full - def) | uses read as values | what is
           live across a step (a call's destination is written by it) */
        for (uint32_t q = 0; q < def.n; q++)
            clear_bit(full, def.r[q]);
        if (pu == PU_STEP) {
            for (int j = 0; j < w; j++)
                full[j] |= live[j];
            if (i->op == OP_CALL)
                clear_bit(full, i->a);
        }
        if (reads_full)
            for (uint32_t q = 0; q < use.n; q++)
                set_bit(full, use.r[q]);
        /* live before i: (live - def) | use */
        for (uint32_t q = 0; q < def.n; q++)
            clear_bit(live, def.r[q]);
        for (uint32_t q = 0; q < use.n; q++)
            set_bit(live, use.r[q]);
        if (snap[k] == UINT32_MAX) {
            snaps = grow(snaps, &capsnaps, nsnaps + 1, sizeof(Snapshot), 1);
            Snapshot *sn = &snaps[nsnaps];
            sn->first = saved.n;
            sn->n = add_runs(&saved, live, w, 64 * w);
            sn->ffirst = saved.n;
            sn->fn = add_runs(&saved, full, w, 64 * w);
            snap[k] = nsnaps++;
        }
    }
    p->liveat = vl_gc_alloc_atomic((size_t)(n + 1) * sizeof(uint32_t));
    p->liveruns = vl_gc_alloc_atomic((runs.n ? runs.n : 1)
                                     * sizeof(LiveRun));
    uint32_t pos = 0;
    for (uint32_t k = 0; k < n; k++) {
        p->liveat[k] = pos;
        if (cnt[k] > 0)
            memcpy(&p->liveruns[pos], &runs.runs[at[k]],
                   cnt[k] * sizeof(LiveRun));
        pos += cnt[k];
    }
    p->liveat[n] = pos;
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
    p->unit = fs->S->compile_unit;
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
