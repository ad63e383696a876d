/*
 * vm/exec/prims.c -- the primitive procedures, declared in one table
 *
 * Every primitive is a row of 'prim_table': name, C function, arity (how
 * many values it receives: a binary primitive called with one pair gets
 * its car and cdr) and its InlineId when the compiler may inline it.
 * Arithmetic accepts more than two arguments as the spec allows:
 * (+ a b c) passes a and the pair (b . c), which is folded from the left.
 * Comparisons likewise chain.  Type errors name the primitive, what it
 * expected and what it got.
 */
#include "config.h"
#include "vm/exec/prims.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parser/cnum.h"
#include "vm/ad/ad.h"
#include "vm/ad/adfast.h"
#include "vm/cpj/cpj.h"
#include "vm/core/except.h"
#include "vm/core/print.h"
#include "vm/core/stdinwait.h"
#include "vm/exec/mpiprims.h"

/* ===== Argument checks ===== */

static VL_NORETURN void type_error(VladState *S, const char *who,
                                   const char *want, Value got)
{
    vl_except_runtime(S, VLAD_ERR_RUNTIME, "%s: expected %s, got %s", who,
                      want, vl_print_to_string(S, got, 200));
}

static double real_arg(VladState *S, const char *who, Value v)
{
    if (VL_LIKELY(IS_NUM(v)))
        return v.as.num;
    if (IS_REAL(v))
        return vl_object_primal(v);
    type_error(S, who, "a real", v);
}

/* ===== Arithmetic ===== */

static const char *const inline_names[IN__COUNT] = {
#define VL_MATH2_NAME_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) NAME,
    VL_MATH2(VL_MATH2_NAME_)
#undef VL_MATH2_NAME_
    "=", "<", ">", "<=", ">=",
    "zero?", "positive?", "negative?", "null?", "pair?",
#define VL_MATH1_NAME_(ID, NAME, FN, D) NAME,
    VL_MATH1(VL_MATH1_NAME_)
#undef VL_MATH1_NAME_
    "car", "cdr"
};

/* A real argument of an arithmetic primitive (any kind of real). */
static Value real_value(VladState *S, const char *who, Value v)
{
    if (!IS_REAL(v))
        type_error(S, who, "a real", v);
    return v;
}

static Value arith_values(VladState *S, int id, Value a, Value b)
{
    if (VL_LIKELY(IS_NUM(a) && IS_NUM(b)))
        return vl_num_marked(vl_ad_plain2(id, a.as.num, b.as.num),
                             a.aux | b.aux);
    const char *who = inline_names[id];
    Value x = real_value(S, who, a);    /* the first operand checked first */
    Value y = real_value(S, who, b);
    return vl_ad_binary(S, id, x, y);
}

/* The operands of a variadic call: its tuple (a . b), (op x y z) passes
   (x y . z).  The first is checked first; then a tail b that is a list,
   '() at its end, is a binary call given a list, (op x '(y z)): an error
   naming that list, as the inline operation on the same operands reports
   it. */
static void check_operands(VladState *S, const char *who, Value a, Value b)
{
    real_value(S, who, a);
    Value t = b;
    while (IS_PAIR(t))
        t = AS_PAIR(t)->cdr;
    if (IS_NIL(t) && IS_PAIR(b))
        type_error(S, who, "a real", b);
}

Value vl_prims_arith(VladState *S, int id, Value a, Value b)
{
    check_operands(S, inline_names[id], a, b);
    Value acc = a;
    while (IS_PAIR(b)) {
        acc = arith_values(S, id, acc, AS_PAIR(b)->car);
        b = AS_PAIR(b)->cdr;
    }
    return arith_values(S, id, acc, b);
}

Value vl_prims_binary(VladState *S, int id, Value a, Value b)
{
    return arith_values(S, id, a, b);
}

int vl_prims_compare(VladState *S, int id, Value a, Value b)
{
    const char *who = inline_names[id];
    check_operands(S, who, a, b);
    double x = real_arg(S, who, a);
    int ok = 1;
    while (IS_PAIR(b)) {
        double y = real_arg(S, who, AS_PAIR(b)->car);
        ok = ok && vl_inline_compare2(id, x, y);
        x = y;
        b = AS_PAIR(b)->cdr;
    }
    double y = real_arg(S, who, b);     /* checked whatever 'ok' is */
    return ok && vl_inline_compare2(id, x, y);
}

int vl_prims_compare_two(VladState *S, int id, Value a, Value b)
{
    const char *who = inline_names[id];
    double x = real_arg(S, who, a);
    return vl_inline_compare2(id, x, real_arg(S, who, b));
}


int vl_prims_predicate(VladState *S, int id, Value a)
{
    switch (id) {
    case IN_ZEROP: return real_arg(S, "zero?", a) == 0;
    case IN_POSITIVEP: return real_arg(S, "positive?", a) > 0;
    case IN_NEGATIVEP: return real_arg(S, "negative?", a) < 0;
    case IN_NULLP: return IS_NIL(a);
    default: return IS_PAIR(a);
    }
}

Value vl_prims_unary(VladState *S, int id, Value a)
{
    if (VL_IS_MATH1(id)) {
        if (IS_NUM(a))
            return vl_num_marked(vl_inline_math1(id, a.as.num), a.aux);
        return vl_ad_unary(S, id, real_value(S, inline_names[id], a));
    }
    if (id == IN_CAR || id == IN_CDR) {
        if (!IS_PAIR(a))
            type_error(S, inline_names[id], "a pair", a);
        return id == IN_CAR ? AS_PAIR(a)->car : AS_PAIR(a)->cdr;
    }
    return vl_bool(vl_prims_predicate(S, id, a));
}

/* ===== Primitive procedures ===== */

/* The primitives of vm/core/math2.h's rows, by their form: a fold over the
   operands, (- x) being (- -0.0 x), exactly -x (also for zeros), and
   (/ x) being (/ 1 x) (vl_prims_one_operand); or exactly two operands. */
static Value math2_prim(VladState *S, int id, int fold, double unit,
                        Value *args)
{
    if (!isnan(unit) && IS_UNDEF(args[1]))
        return vl_prims_arith(S, id, vl_num(unit), args[0]);
    if (fold)
        return vl_prims_arith(S, id, args[0], args[1]);
    return vl_prims_binary(S, id, args[0], args[1]);
}

#define VL_MATH2_PRIM_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) \
    static Value p_math2_##ID(VladState *S, Value *args)       \
    {                                                          \
        return math2_prim(S, IN_##ID, FORM(1, 0), U, args);    \
    }
VL_MATH2(VL_MATH2_PRIM_)
#undef VL_MATH2_PRIM_

#define COMPARE_PRIM(cname, id) \
    static Value cname(VladState *S, Value *args) \
    { \
        return vl_bool(vl_prims_compare(S, id, args[0], args[1])); \
    }
COMPARE_PRIM(p_eq, IN_EQ)
COMPARE_PRIM(p_lt, IN_LT)
COMPARE_PRIM(p_gt, IN_GT)
COMPARE_PRIM(p_le, IN_LE)
COMPARE_PRIM(p_ge, IN_GE)
#undef COMPARE_PRIM

#define UNARY_PRIM(cname, id) \
    static Value cname(VladState *S, Value *args) \
    { \
        return vl_prims_unary(S, id, args[0]); \
    }
#define VL_MATH1_PRIM_(ID, NAME, FN, D) UNARY_PRIM(p_math1_##ID, IN_##ID)
VL_MATH1(VL_MATH1_PRIM_)
#undef VL_MATH1_PRIM_
UNARY_PRIM(p_zerop, IN_ZEROP)
UNARY_PRIM(p_positivep, IN_POSITIVEP)
UNARY_PRIM(p_negativep, IN_NEGATIVEP)
UNARY_PRIM(p_nullp, IN_NULLP)
UNARY_PRIM(p_pairp, IN_PAIRP)
#undef UNARY_PRIM

static Value p_booleanp(VladState *S, Value *args)
{
    (void)S;
    return vl_bool(IS_BOOL(args[0]));
}

static Value p_realp(VladState *S, Value *args)
{
    (void)S;
    return vl_bool(IS_REAL(args[0]));
}

static Value p_procedurep(VladState *S, Value *args)
{
    (void)S;
    return vl_bool(IS_PROC(args[0]));
}

static Value p_checkpointp(VladState *S, Value *args)
{
    (void)S;
    return vl_bool(IS_CKPT(args[0]));
}

static Value p_real(VladState *S, Value *args)
{
    if (!IS_REAL(args[0]))
        type_error(S, "real", "a real", args[0]);
    return args[0];
}

static Value p_cons(VladState *S, Value *args)
{
    (void)S;
    Pair *p = vl_gc_alloc(sizeof *p);
    p->car = args[0];
    p->cdr = args[1];
    return vl_obj(VT_PAIR, p);
}

static Value p_write(VladState *S, Value *args)
{
    if (!vl_cpj_may_output(S))      /* a checkpoint-*j re-execution */
        return args[0];
    vl_print_write(S, args[0], NULL);
    return args[0];
}

static Value p_write_real(VladState *S, Value *args)
{
    double x = real_arg(S, "write-real", args[0]);
    if (!vl_cpj_may_output(S))
        return args[0];
    StrBuf b;
    vl_strbuf_init(&b);
    vl_print_number(&b, x);
    vl_strbuf_add(&b, "\n", 1);
    vl_state_write(S, b.data, b.len);
    return args[0];
}

static void stop_if_interrupted(VladState *S);

/* Next byte of input, or -1 at its end. */
static int input_byte(VladState *S)
{
    if (S->in_pos == S->in_len) {
        if (S->in_eof)
            return -1;
        vl_state_flush(S);          /* a prompt shows before the wait */
        stop_if_interrupted(S);
        if (S->in_buf == NULL)
            S->in_buf = vl_gc_alloc_atomic(4096);
        size_t n;
        if (S->config.read != NULL) {
            n = S->config.read(S->config.userdata, S->in_buf, 4096);
            vl_except_if_closed(S);
            if (n > 4096)       /* never read past the buffer (U5) */
                vl_except_runtime(S, VLAD_ERR_IO, "read-real: the host's "
                                  "read callback returned %zu bytes for a "
                                  "buffer of 4096", n);
        } else {
            ssize_t r = vl_stdinwait_read(S, S->in_buf, 4096);
            stop_if_interrupted(S);
            n = r > 0 ? (size_t)r : 0;
        }
        if (n == 0) {
            S->in_eof = 1;
            return -1;
        }
        S->in_pos = 0;
        S->in_len = n;
        S->in_read += n;            /* an autosave counts what is used */
    }
    return (unsigned char)S->in_buf[S->in_pos++];
}

/* Decimal number syntax of the reader: [+-] digits [. digits] [e [+-]
   digits] (with digits on at least one side of the point), or one of the
   printer's +inf.0 -inf.0 +nan.0. */
static int parse_real(const char *s, double *out)
{
    if (strcmp(s, "+inf.0") == 0 || strcmp(s, "-inf.0") == 0) {
        *out = s[0] == '-' ? -INFINITY : INFINITY;
        return 1;
    }
    if (strcmp(s, "+nan.0") == 0 || strcmp(s, "-nan.0") == 0) {
        *out = NAN;
        return 1;
    }
    const char *p = s;
    int digits = 0;
    if (*p == '+' || *p == '-')
        p++;
    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9')
            p++, digits++;
    }
    if (!digits)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p != '\0')
        return 0;
    *out = vl_cnum_strtod(s, NULL);
    return 1;
}

static Value read_real(VladState *S);

static Value p_read_real(VladState *S, Value *args)
{
    (void)args;
    Value v;
    if (vl_cpj_replay_input(S, &v))     /* a checkpoint-*j re-execution */
        return v;
    v = read_real(S);
    vl_cpj_record_input(S, v);
    return v;
}

/* read-real reads a token of at most this many bytes (doc/reference.md):
   the exact decimal expansion of any double fits with room to spare */
#define READ_REAL_MAX 4096

/* A vlad_interrupt request (a Ctrl-C) stops a read-real that is waiting
   for input or skipping it.  Unlike the VM's poll this leaves no
   checkpoint: the input read so far is gone. */
static void stop_if_interrupted(VladState *S)
{
    if (!S->interrupt)
        return;
    S->interrupt = 0;
    vl_except_runtime(S, VLAD_ERR_INTERRUPTED,
                      "read-real: interrupted while reading input");
}

/* A token for a message: its first 40 bytes, those outside printable
   ASCII as \xNN, and "..." when it is longer. */
static const char *token_text(const char *s, size_t n)
{
    StrBuf b;
    vl_strbuf_init(&b);
    for (size_t i = 0; i < n && i < 40; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            vl_strbuf_add(&b, &s[i], 1);
        else {
            snprintf(esc, sizeof esc, "\\x%02x", c);
            vl_strbuf_adds(&b, esc);
        }
    }
    if (n > 40)
        vl_strbuf_adds(&b, "...");
    return b.data;
}

static int is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static Value read_real(VladState *S)
{
    int c;
    do
        c = input_byte(S);
    while (is_space(c));
    if (c < 0)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "read-real: end of input");
    /* the token, in 'small' until it outgrows it */
    char small[128], *tok = small;
    size_t n = 0, cap = sizeof small;
    while (c >= 0 && !is_space(c)) {
        if (n == READ_REAL_MAX)
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "read-real: a token longer than %d bytes in "
                              "the input, starting '%s'", READ_REAL_MAX,
                              token_text(tok, n));
        tok = vl_gc_reserve(tok, n, n + 2, &cap, 1, 1);
        tok[n++] = (char)c;
        c = input_byte(S);
    }
    tok[n] = '\0';
    double x;
    if (memchr(tok, '\0', n) != NULL || !parse_real(tok, &x))
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "read-real: expected a real in the input, got "
                          "'%s'", token_text(tok, n));
    return vl_num(x);
}

/* ===== Labels: display, newline, symbol?, string?; prelude errors ===== */

/* (display v): v as display shows it (vm/core/print.h), no newline; the value
   is #<void>, which the top level does not echo.  Output once under
   checkpoint-*j, as for write. */
static Value p_display(VladState *S, Value *args)
{
    if (vl_cpj_may_output(S)) {
        StrBuf b;
        vl_strbuf_init(&b);
        vl_print_display(S, &b, args[0]);
        vl_state_write(S, b.data, b.len);
    }
    return VOID_VAL;
}

/* (newline): a newline; #<void>. */
static Value p_newline(VladState *S, Value *args)
{
    if (!IS_NIL(args[0]))
        vl_except_runtime(S, VLAD_ERR_RUNTIME, "newline: expected no "
                          "argument, got %s",
                          vl_print_to_string(S, args[0], 200));
    if (vl_cpj_may_output(S))
        vl_state_write(S, "\n", 1);
    return VOID_VAL;
}

static Value p_symbolp(VladState *S, Value *args)
{
    (void)S;
    return vl_bool(IS_SYM(args[0]));
}

static Value p_stringp(VladState *S, Value *args)
{
    (void)S;
    return vl_bool(IS_STR(args[0]));
}

/* (%type-error who what v), for the prelude's argument checks: the error
   "WHO: expected WHAT, got V" of a primitive (who a symbol, what a
   string such as "a list"). */
static Value p_type_error(VladState *S, Value *args)
{
    Value who = args[0];
    if (!IS_PAIR(args[1]) || !IS_SYM(who) || !IS_STR(AS_PAIR(args[1])->car))
        type_error(S, "%type-error", "(%type-error 'who \"what\" value)",
                   vl_object_tuple(args, 2));
    type_error(S, ((const Symbol *)who.as.ptr)->name,
               AS_PAIR(args[1])->car.as.ptr, AS_PAIR(args[1])->cdr);
}

/* (%real who x): x when it is a real, else the error "WHO: expected a
   real, got X" (a primitive: one step, and no frame in backtraces). */
static Value p_check_real(VladState *S, Value *args)
{
    if (IS_REAL(args[1]))
        return args[1];
    type_error(S, IS_SYM(args[0]) ? ((const Symbol *)args[0].as.ptr)->name
                                  : "%real", "a real", args[1]);
}

int vl_prims_param_list(const Proto *p)
{
    if (p->param == NULL)
        return 0;
    if (p->param->source->kind != D_PAIR)
        return 1;
    const Datum *head = p->param->source->u.pair.car;
    return !(head->kind == D_SYM && (strcmp(head->u.sym->name, "cons") == 0
                                     || strcmp(head->u.sym->name, "cons*")
                                        == 0));
}

/* (%check-tuple-call who f x): x, after checking that f is a procedure
   ("WHO: expected a procedure, got F"); unless f is a procedure of n >= 2
   parameters (written (lambda (a b ...) ...), taking the tuple
   (cons* a b ...)) and x is a list of exactly n elements: then the error
   that says how to call 'who' (gradient, ...) with f's arguments. */
static Value p_check_tuple_call(VladState *S, Value *args)
{
    if (!IS_PAIR(args[1]))
        return args[1];
    Value who = args[0], f = AS_PAIR(args[1])->car;
    Value x = AS_PAIR(args[1])->cdr;
    if (!IS_SYM(who))
        return x;
    if (!IS_PROC(f))
        type_error(S, ((const Symbol *)who.as.ptr)->name, "a procedure", f);
    if (!IS_CLOSURE(f) || AS_CLOSURE(f)->proto->nparams < 2)
        return x;
    const Proto *p = AS_CLOSURE(f)->proto;
    int n = p->nparams, len = 0;
    Value t = x;
    for (; IS_PAIR(t) && len <= n; t = AS_PAIR(t)->cdr)
        len++;
    if (len != n || !IS_NIL(t) || !vl_prims_param_list(p))
        return x;
    StrBuf call;                        /* " x1 ... xn" */
    vl_strbuf_init(&call);
    for (t = x; IS_PAIR(t); t = AS_PAIR(t)->cdr) {
        vl_strbuf_adds(&call, " ");
        vl_print_value(S, &call, AS_PAIR(t)->car, 40);
    }
    const char *params = vl_datum_to_string(p->param->source, 80);
    const char *name = ((const Symbol *)who.as.ptr)->name;
    const char *fname = p->name ? p->name : "the procedure";
    vl_except_runtime(S, VLAD_ERR_RUNTIME,
                      "%s: %s takes %d arguments %s, as a tuple, but x is "
                      "the list %s: write (%s %s%s), or define %s with the "
                      "one parameter (list %s", name, fname, n, params,
                      vl_print_to_string(S, x, 80), name,
                      p->name ? p->name : "f", call.data, fname,
                      params[0] == '(' ? params + 1 : params);
}

static const PrimInfo prim_table[] = {
#define VL_MATH2_ROW_(ID, NAME, FORM, U, V, T, DA, DB, TAPE) \
    {NAME, p_math2_##ID, 2, IN_##ID},
    VL_MATH2(VL_MATH2_ROW_)
#undef VL_MATH2_ROW_
    {"=", p_eq, 2, IN_EQ},
    {"<", p_lt, 2, IN_LT},
    {">", p_gt, 2, IN_GT},
    {"<=", p_le, 2, IN_LE},
    {">=", p_ge, 2, IN_GE},
    {"zero?", p_zerop, 1, IN_ZEROP},
    {"positive?", p_positivep, 1, IN_POSITIVEP},
    {"negative?", p_negativep, 1, IN_NEGATIVEP},
    {"null?", p_nullp, 1, IN_NULLP},
    {"pair?", p_pairp, 1, IN_PAIRP},
#define VL_MATH1_ROW_(ID, NAME, FN, D) {NAME, p_math1_##ID, 1, IN_##ID},
    VL_MATH1(VL_MATH1_ROW_)
#undef VL_MATH1_ROW_
    {"boolean?", p_booleanp, 1, -1},
    {"real?", p_realp, 1, -1},
    {"procedure?", p_procedurep, 1, -1},
    {"checkpoint?", p_checkpointp, 1, -1},
    {"real", p_real, 1, -1},
    {"cons", p_cons, 2, -1},
    {"write", p_write, 1, -1},
    {"write-real", p_write_real, 1, -1},
    {"read-real", p_read_real, 1, -1},
    /* labels (doc/reference.md, 6) and the prelude's errors */
    {"display", p_display, 1, -1},
    {"newline", p_newline, 1, -1},
    {"symbol?", p_symbolp, 1, -1},
    {"string?", p_stringp, 1, -1},
    {"%type-error", p_type_error, 2, -1},
    {"%check-tuple-call", p_check_tuple_call, 2, -1},
    {"%real", p_check_real, 2, -1},
};

void vl_prims_install(VladState *S)
{
    vl_state_install_prims(S, prim_table,
                           sizeof prim_table / sizeof prim_table[0]);
    vl_mpiprims_install(S);
}


void vl_prims_note_prelude_define(VladState *S, Global *g)
{
    for (int id = IN_CAR; id <= IN_CDR; id++)
        if (strcmp(g->name->name, inline_names[id]) == 0
            && IS_CLOSURE(g->value)) {
            g->inline_id = id;
            S->inline_values[id] = g->value;
        }
}

void vl_prims_bind_inline_cells(VladState *S)
{
    for (int id = 0; id < IN__COUNT; id++)
        S->inline_cells[id] = vl_state_user_cell(
            S, vl_symbol_intern_c(S->syms, inline_names[id]));
}
