/*
 * vm/core/disasm.c -- the bytecode listing of a prototype (luac -l)
 *
 * Owns the text format described in vm/core/disasm.h and in
 * doc/internals.md ("Reading a bytecode listing").  The opcode names come
 * from the one list of vm/core/opcodes.h; what each operand means (a
 * constant index, a jump offset, a child prototype, an inline id) is
 * decoded here, for the notes only: the operands themselves are always
 * printed as they are stored.  Reads prototypes, never changes them.
 */
#include "config.h"
#include "vm/core/disasm.h"

#include <stdarg.h>
#include <stdio.h>
#include "vm/core/compile.h"
#include "vm/core/inline.h"
#include "vm/core/print.h"
#include "vm/core/state.h"

static const char *const opnames[] = {
#define VL_OP_NAME(name, comment) #name,
    VL_OPCODES(VL_OP_NAME)
#undef VL_OP_NAME
};

/* The longest constant or value shown in a note. */
#define NOTE_MAX 60

static void addf(StrBuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Append printf-formatted text (any length: names may be long). */
static void addf(StrBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = vl_gc_vformat(fmt, ap);
    va_end(ap);
    vl_strbuf_adds(b, text);
}

/* Constant k of p: the global cell a GETGLOBAL/DEFGLOBAL names (VT_RAW:
   the compiler's only raw constants), otherwise the value as printed. */
static void add_const(VladState *S, StrBuf *b, const Proto *p, uint32_t k)
{
    if (k >= p->nconsts) {
        addf(b, "K[%u] (out of range)", (unsigned)k);
        return;
    }
    Value v = p->consts[k];
    if (v.tag == VT_RAW) {
        const Global *g = v.as.ptr;
        addf(b, "global %s", g->name->name);
        return;
    }
    StrBuf t;               /* (the limit counts all of a buffer) */
    vl_strbuf_init(&t);
    vl_print_value(S, &t, v, NOTE_MAX);
    vl_strbuf_add(b, t.data, t.len);
}

/* The name of inline primitive 'id' (that of its user cell). */
static const char *inline_name(VladState *S, int id)
{
    if (id < 0 || id >= IN__COUNT || S->inline_cells[id] == NULL)
        return "?";
    return S->inline_cells[id]->name->name;
}

/* The VL_X_* flags in Instr.x of an inline operation (vm/core/object.h:
   below them, PRIM2 and JPRIM1 keep an inline id, CMP and CMPK a
   comparison); 0 for other instructions. */
static int inline_flags(const Instr *i)
{
    if (i->op < OP_ADD || i->op > OP_JPRIM1)
        return 0;
    if (i->op == OP_PRIM2 || i->op == OP_JPRIM1)
        return i->x & ~VL_X_ID;
    if (i->op == OP_CMP || i->op == OP_CMPK)
        return i->x & ~VL_X_CMP;
    return i->x;
}

/* The step mark of instruction i (vm/exec/vm.c, "Steps"): "step" where
   the VM always counts one (it applies a procedure), "step?" where it
   counts one only when it calls a procedure -- an inline operation whose
   primitive the user rebound (never in prelude code), or car/cdr of a
   non-pair (the prelude's procedure reports the error) -- and "" where
   it never does. */
static const char *step_mark(const Instr *i)
{
    switch (i->op) {
    case OP_CALL: case OP_TAILCALL: case OP_RESUME:
        return "step";
    case OP_PRIM1:
        if (i->c == IN_CAR || i->c == IN_CDR)
            return "step?";
        break;
    default:
        break;
    }
    if (vl_compile_is_call_capable(i->op) && !(i->x & VL_X_PRELUDE))
        return "step?";
    return "";
}

/* The notes of instruction 'i' at index 'k' of p (listed as 'label'):
   what its operands name (after "; "), or nothing. */
static void add_notes(VladState *S, StrBuf *b, const Proto *p,
                      const char *label, const Instr *i, uint32_t k)
{
    StrBuf n;
    vl_strbuf_init(&n);
    switch (i->op) {
    case OP_LOADK: case OP_GETGLOBAL: case OP_DEFGLOBAL: case OP_MATCHK:
    case OP_SUBKR: case OP_DIVKR:
    case OP_JLTK: case OP_JLEK: case OP_JGTK: case OP_JGEK: case OP_JEQK:
        add_const(S, &n, p, i->b);
        break;
    case OP_ADDK: case OP_SUBK: case OP_MULK: case OP_DIVK: case OP_CMPK:
        add_const(S, &n, p, i->c);
        break;
    case OP_CLOSURE:
        if (i->b < p->nchildren) {
            const Proto *c = p->children[i->b];
            vl_strbuf_adds(&n, label);
            addf(&n, ".%u %s", (unsigned)i->b,
                 c->name != NULL ? c->name : "(lambda)");
        }
        break;
    case OP_PRIM1: case OP_PRIM2: case OP_JPRIM1:
        addf(&n, "%s", inline_name(S, vl_instr_inline_id(i)));
        break;
    default:
        break;
    }
    if (i->op == OP_CMP || i->op == OP_CMPK)
        addf(&n, "%s%s", n.len ? ", " : "",
             inline_name(S, IN_EQ + (i->x & VL_X_CMP)));
    if (vl_compile_is_jump(i->op))
        addf(&n, "%sto %ld", n.len ? ", " : "",
             (long)k + 1 + (int16_t)i->c);
    int x = inline_flags(i);
    if (x != 0) {
        static const struct { int bit; const char *name; } flags[] = {
            {VL_X_PRELUDE, "prelude"}, {VL_X_TEMP, "temp"},
            {VL_X_PRIMAL, "primal"}, {VL_X_SWAPPED, "swapped"},
        };
        for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++)
            if (x & flags[f].bit)
                addf(&n, "%s%s", n.len ? ", " : "", flags[f].name);
    }
    if (n.len > 0) {
        vl_strbuf_adds(b, "  ; ");
        vl_strbuf_adds(b, n.data);
    }
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case PK_LAMBDA: return "procedure";
    case PK_TOPLEVEL: return "top-level form";
    case PK_CHECKPOINT: return "control: checkpoint";
    case PK_PRIMOPS: return "control: primops";
    case PK_RESUME: return "control: resume";
    case PK_JSTAR: return "control: j*";
    case PK_STARJ: return "control: *j";
    case PK_SEGMENT: return "control: checkpoint-*j segment";
    case PK_HIDE: return "control: %cpj-hide";
    default: return "?";
    }
}

static const char *plural(uint32_t n)
{
    return n == 1 ? "" : "s";
}

/* The listing of p alone (its children are listed after it). */
static void list_one(VladState *S, StrBuf *b, const Proto *p,
                     const char *label)
{
    addf(b, "%s %s", kind_name(p->kind), label);
    if (p->name != NULL || p->kind == PK_LAMBDA)
        addf(b, ": %s", p->name != NULL ? p->name : "(lambda)");
    if (p->pos.file != NULL)
        addf(b, " at %s:%d:%d", p->pos.file, p->pos.line, p->pos.col);
    else if (p->file != NULL)
        addf(b, " in %s", p->file);
    vl_strbuf_adds(b, "\n");
    addf(b, "  %u register%s, %u param%s", (unsigned)p->nregs,
         plural(p->nregs), (unsigned)p->nparams, plural(p->nparams));
    if (p->nparams > 1)
        addf(b, " (unboxed in R[0..%u])", (unsigned)p->nparams - 1);
    if (p->kind != PK_LAMBDA && p->kind != PK_TOPLEVEL)
        addf(b, ", ctlreg R[%u]", (unsigned)p->ctlreg);
    addf(b, ", %u constant%s, %u captured, %u child%s, %u instruction%s\n",
         (unsigned)p->nconsts, plural(p->nconsts), (unsigned)p->nfree,
         (unsigned)p->nchildren, p->nchildren == 1 ? "" : "ren",
         (unsigned)p->ncode, plural(p->ncode));
    for (uint32_t k = 0; k < p->nconsts; k++) {
        addf(b, "  K[%u] = ", (unsigned)k);
        add_const(S, b, p, k);
        vl_strbuf_adds(b, "\n");
    }
    for (uint32_t k = 0; k < p->nfree; k++) {
        Capture c = p->captures[k];
        addf(b, "  free[%u] = ", (unsigned)k);
        if (c.kind == CAP_REG)
            addf(b, "R[%u] of the enclosing frame\n", (unsigned)c.index);
        else if (c.kind == CAP_FREE)
            addf(b, "free[%u] of the enclosing closure\n",
                 (unsigned)c.index);
        else
            vl_strbuf_adds(b, "the enclosing closure\n");
    }
    vl_strbuf_adds(b, "  index  line:col  step   opcode           x     a     b"
                   "      c\n");
    for (uint32_t k = 0; k < p->ncode; k++) {
        const Instr *i = &p->code[k];
        char where[32] = "-";
        if (p->locs != NULL && p->locs[k].line > 0)
            snprintf(where, sizeof where, "%d:%d", (int)p->locs[k].line,
                     (int)p->locs[k].col);
        const char *name = i->op < OP__COUNT ? opnames[i->op] : "?";
        addf(b, "  %5u  %-9s %-6s %-13s %4u %5u %5u ", (unsigned)k, where,
             step_mark(i), name, (unsigned)i->x, (unsigned)i->a,
             (unsigned)i->b);
        if (vl_compile_is_jump(i->op))
            addf(b, "%+6d", (int)(int16_t)i->c);
        else
            addf(b, "%6u", (unsigned)i->c);
        add_notes(S, b, p, label, i, k);
        vl_strbuf_adds(b, "\n");
    }
}

void vl_disasm_proto(VladState *S, StrBuf *b, const Proto *p,
                     const char *label)
{
    /* preorder with an explicit stack (lambdas may nest deeply), children
       pushed last first */
    typedef struct Item { const Proto *p; const char *label; } Item;
    Item *stack = NULL;
    size_t n = 0, cap = 0;
    stack = vl_gc_grow(stack, n, &cap, sizeof *stack);
    stack[n++] = (Item){p, label};
    int first = 1;
    while (n > 0) {
        Item it = stack[--n];
        if (!first)
            vl_strbuf_adds(b, "\n");
        first = 0;
        list_one(S, b, it.p, it.label);
        for (uint32_t c = it.p->nchildren; c-- > 0;) {
            StrBuf l;
            vl_strbuf_init(&l);
            vl_strbuf_adds(&l, it.label);
            addf(&l, ".%u", (unsigned)c);
            stack = vl_gc_grow(stack, n, &cap, sizeof *stack);
            stack[n++] = (Item){it.p->children[c], l.data};
        }
    }
}
