/*
 * tests/unit/test-reader.c -- unit tests of the reader and of datums
 *
 * Drives vl_read_string (parser/read.h) over every token kind, comments,
 * positions, dotted pairs, syntax errors, incomplete input, NUL bytes, huge
 * number literals and nesting a million levels deep, and checks
 * vl_datum_to_string and vl_datum_list_length.  Prints one line per failed
 * check and a final "N passed, N failed"; exits 0 iff nothing failed.
 */
#include "config.h"
#include "parser/read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
static VlSymtab *syms;

static void check(bool ok, int line, const char *fmt, ...)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "test-reader.c:%d: FAILED: ", line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

#define CHECK(cond) check((cond), __LINE__, "%s", #cond)
#define CHECK_STR(got, want)                                              \
    do {                                                                  \
        const char *g_ = (got), *w_ = (want);                             \
        check(g_ != NULL && strcmp(g_, w_) == 0, __LINE__,                \
              "got [%s], want [%s]", g_ ? g_ : "(null)", w_);             \
    } while (0)
#define CHECK_INT(got, want)                                              \
    do {                                                                  \
        long g_ = (long)(got), w_ = (long)(want);                         \
        check(g_ == w_, __LINE__, "%s: got %ld, want %ld", #got, g_, w_); \
    } while (0)

/* ---------------------------------------------------------------------
 * Helpers
 * --------------------------------------------------------------------- */

typedef struct Result {
    VlReadStatus status;
    Datum *out;
    VlDiag *diags;
} Result;

static Result rd_n(const char *src, size_t len)
{
    Result r;
    r.status = vl_read_string(syms, src, len, "test.vlad", &r.out, &r.diags);
    return r;
}

static Result rd(const char *src)
{
    return rd_n(src, strlen(src));
}

/* All diagnostics as "L:C: msg" lines joined by '\n'. */
static char *diags_text(const VlDiag *d)
{
    static char buf[8192];
    size_t n = 0;
    buf[0] = '\0';
    for (; d != NULL && n < sizeof buf - 200; d = d->next)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d:%d: %s",
                              n ? "\n" : "", d->pos.line, d->pos.col,
                              d->message);
    return buf;
}

static int count_diags(const VlDiag *d)
{
    int n = 0;
    for (; d != NULL; d = d->next)
        n++;
    return n;
}

/* Read 'src' and check that it prints (as the list of its top-level
   datums) as 'want'. */
static void check_read(int line, const char *src, const char *want)
{
    Result r = rd(src);
    if (r.status != VL_READ_OK) {
        check(false, line, "reading [%s]: status %d: %s", src, r.status,
              diags_text(r.diags));
        return;
    }
    const char *got = vl_datum_to_string(r.out, 100000);
    check(strcmp(got, want) == 0, line, "reading [%s]: got [%s], want [%s]",
          src, got, want);
}
#define READS(src, want) check_read(__LINE__, (src), (want))

/* Read 'src' and check the status and all diagnostics. */
static void check_diags_n(int line, const char *src, size_t len,
                          VlReadStatus status, const char *want)
{
    Result r = rd_n(src, len);
    const char *got = diags_text(r.diags);
    check(r.status == status && strcmp(got, want) == 0
          && (r.out == NULL) == (status != VL_READ_OK)
          && (r.diags == NULL) == (status == VL_READ_OK),
          line, "reading [%s]: got status %d [%s], want %d [%s]", src,
          r.status, got, status, want);
}
#define ERRS(src, want) \
    check_diags_n(__LINE__, (src), strlen(src), VL_READ_ERROR, (want))
#define INCOMPLETE(src, want) \
    check_diags_n(__LINE__, (src), strlen(src), VL_READ_INCOMPLETE, (want))

/* The only datum of 'src'. */
static Datum *one(const char *src)
{
    Result r = rd(src);
    if (r.status != VL_READ_OK || r.out->kind != D_PAIR
        || r.out->u.pair.cdr->kind != D_NIL) {
        fprintf(stderr, "cannot read one datum from [%s]: %s\n", src,
                diags_text(r.diags));
        return NULL;
    }
    return r.out->u.pair.car;
}

static Datum *car(Datum *d) { return d->u.pair.car; }
static Datum *cdr(Datum *d) { return d->u.pair.cdr; }

static void check_pos(int line, const Datum *d, int l, int c)
{
    check(d != NULL && d->pos.line == l && d->pos.col == c
          && strcmp(d->pos.file, "test.vlad") == 0, line,
          "position: got %d:%d, want %d:%d", d ? d->pos.line : -1,
          d ? d->pos.col : -1, l, c);
}
#define POS(d, l, c) check_pos(__LINE__, (d), (l), (c))

static void check_num(int line, const char *src, double want)
{
    Datum *d = one(src);
    bool ok = d != NULL && d->kind == D_NUM
              && (d->u.num == want || (isnan(want) && isnan(d->u.num)))
              && signbit(d->u.num) == signbit(want);
    check(ok, line, "[%s]: got %s %.17g, want number %.17g", src,
          d == NULL ? "nothing" : d->kind == D_NUM ? "number" : "non-number",
          d != NULL && d->kind == D_NUM ? d->u.num : 0.0, want);
}
#define NUM(src, want) check_num(__LINE__, (src), (want))

static void check_sym(int line, const char *src)
{
    Datum *d = one(src);
    check(d != NULL && d->kind == D_SYM && strcmp(d->u.sym->name, src) == 0,
          line, "[%s] is not read as that symbol", src);
}
#define SYM(src) check_sym(__LINE__, (src))

static char *repeat(const char *s, size_t times)
{
    size_t n = strlen(s);
    char *b = malloc(n * times + 1);
    for (size_t i = 0; i < times; i++)
        memcpy(b + i * n, s, n);
    b[n * times] = '\0';
    return b;
}

static char *concat3(const char *a, const char *b, const char *c)
{
    size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
    char *r = malloc(na + nb + nc + 1);
    memcpy(r, a, na);
    memcpy(r + na, b, nb);
    memcpy(r + na + nb, c, nc + 1);
    return r;
}

/* ---------------------------------------------------------------------
 * Tokens
 * --------------------------------------------------------------------- */

static void test_numbers(void)
{
    NUM("3", 3);
    NUM("-2.5", -2.5);
    NUM("1e-5", 1e-5);
    NUM(".5", 0.5);
    /* the printer's special reals read back */
    NUM("+inf.0", INFINITY);
    NUM("-inf.0", -INFINITY);
    NUM("+nan.0", NAN);
    NUM("-nan.0", NAN);
    NUM("+5", 5);
    NUM("1.", 1);
    NUM("6.02E23", 6.02e23);
    NUM("-0", -0.0);
    NUM("0", 0.0);
    NUM("0.1", 0.1);
    NUM("+.5e-3", 0.5e-3);
    NUM("-.25", -0.25);
    NUM("007", 7);
    NUM("1e+2", 100);
    NUM("1.5E-0", 1.5);
    NUM("123456789012345678901234567890", 1.2345678901234568e29);
    NUM("1.7976931348623157e308", 1.7976931348623157e308);
    NUM("4.9e-324", 4.9e-324);
    /* Overflow and underflow. */
    NUM("1e999", INFINITY);
    NUM("-1e999", -INFINITY);
    NUM("1e-999", 0.0);
    NUM("-1e-999", -0.0);
    NUM("1e99999999999999999999", INFINITY);
    /* Huge literals. */
    char *big = concat3("1", repeat("0", 400), "");
    NUM(big, INFINITY);
    char *exact = concat3("1", repeat("0", 400), "e-400");
    NUM(exact, 1.0);
    char *tiny = concat3("0.", repeat("0", 100000), "1");
    NUM(tiny, 0.0);
    char *huge = concat3("-", repeat("9", 200000), ".5");
    NUM(huge, -INFINITY);
    char *pi = concat3("3.14159265358979323846", repeat("0", 5000), "");
    NUM(pi, 3.141592653589793);
    free(big);
    free(exact);
    free(tiny);
    free(huge);
    free(pi);
}

static void test_symbols(void)
{
    static const char *const syms_[] = {
        "+", "-", "...", "1+", "-x", "x", "foo-bar", "*j", "j*",
        "checkpoint-*j", "v+", "k*v", "list->x", "<=", ">=", "=", "null?",
        "set!", "a.b", "..", "inf", "nan", "-inf", "+inf", "infinity",
        "inf.0", "+inf.1", "+nan.00", "+INF.0", "0x10", "0X1p3", "1e", "1e+",
        "e5",
        "1.2.3", "--1", "+-1", "1-", "!$%&*/:<=>?^_~+-.@", "\xce\xbb",
        "CamelCase", "_", "@", "a1", "1a"
    };
    for (size_t i = 0; i < sizeof syms_ / sizeof *syms_; i++)
        SYM(syms_[i]);
    /* Interned: the same spelling is the same symbol. */
    Result r = rd("abc abc Abc");
    CHECK(r.status == VL_READ_OK);
    Datum *a = car(r.out), *b = car(cdr(r.out)), *c = car(cdr(cdr(r.out)));
    CHECK(a->u.sym == b->u.sym);
    CHECK(a->u.sym != c->u.sym);
    CHECK(a->u.sym == vl_symbol_intern_c(syms, "abc"));
}

static void test_booleans_strings(void)
{
    Datum *d = one("#t");
    CHECK(d && d->kind == D_BOOL && d->u.boolean);
    d = one("#f");
    CHECK(d && d->kind == D_BOOL && !d->u.boolean);
    d = one("#true");
    CHECK(d && d->kind == D_BOOL && d->u.boolean);
    d = one("#false");
    CHECK(d && d->kind == D_BOOL && !d->u.boolean);
    ERRS("#t#f", "1:1: invalid token '#t#f'");  /* no delimiter */
    READS("(#t)", "((#t))");

    d = one("\"a\\\"b\\\\c\\nd\\te\"");
    CHECK(d && d->kind == D_STR && strcmp(d->u.str, "a\"b\\c\nd\te") == 0);
    d = one("\"\"");
    CHECK(d && d->kind == D_STR && strcmp(d->u.str, "") == 0);
    d = one("\"lib/ad\"");
    CHECK(d && d->kind == D_STR && strcmp(d->u.str, "lib/ad") == 0);
    d = one("\"two\nlines ; not a comment (\"");
    CHECK(d && d->kind == D_STR
          && strcmp(d->u.str, "two\nlines ; not a comment (") == 0);
    READS("(include \"a b\")", "((include \"a b\"))");
    READS("\"x\"y", "(\"x\" y)");
}

static void test_lists(void)
{
    READS("", "()");
    READS("   \n\t ", "()");
    READS("()", "(())");
    READS("[]", "(())");
    READS("(a b c)", "((a b c))");
    READS("[a b]", "((a b))");
    READS("([a] (b) [(c)])", "(((a) (b) ((c))))");
    READS("(a(b)c)", "((a (b) c))");
    READS("a b c", "(a b c)");
    READS("(1 2 3)", "((1 2 3))");
    READS("(a . b)", "((a . b))");
    READS("(a b . c)", "((a b . c))");
    READS("((1 2) 3 . 4)", "(((1 2) 3 . 4))");
    READS("(a . (b c))", "((a b c))");
    READS("(a . ())", "((a))");
    READS("(a .b)", "((a .b))");        /* '.b' is a symbol */
    READS("(a . .5)", "((a . 0.5))");
    READS("[a . b]", "((a . b))");
    READS("(define (f x) (* x x))", "((define (f x) (* x x)))");

    Datum *d = one("(a b . c)");
    CHECK_INT(vl_datum_list_length(d), -1);
    d = one("(a b c)");
    CHECK_INT(vl_datum_list_length(d), 3);
    CHECK_INT(vl_datum_list_length(one("()")), 0);
    CHECK_INT(vl_datum_list_length(one("x")), -1);
}

static void test_quote(void)
{
    Datum *d = one("'x");
    CHECK(d && d->kind == D_PAIR && vl_datum_list_length(d) == 2);
    CHECK(car(d)->kind == D_SYM && strcmp(car(d)->u.sym->name, "quote") == 0);
    CHECK(car(cdr(d))->kind == D_SYM
          && strcmp(car(cdr(d))->u.sym->name, "x") == 0);
    READS("'x", "('x)");
    READS("''x", "(''x)");
    READS("'()", "('())");
    READS("'(1 . 2)", "('(1 . 2))");
    READS("(quote x)", "('x)");
    READS("(f '(1 2) 'a)", "((f '(1 2) 'a))");
    READS("' x", "('x)");
    READS("'\n;c\n x", "('x)");
    READS("'#t", "('#t)");
}

static void test_comments(void)
{
    READS("; comment\na ; more\nb", "(a b)");
    READS(";no newline at end", "()");
    READS("a;b\nc", "(a c)");
    READS("#| block |# a", "(a)");
    READS("#|a|#b", "(b)");
    READS("#| #| nested |# still comment |# a", "(a)");
    READS("#|#|#||#|#|#a", "(a)");
    READS("#| multi\nline\n|# a", "(a)");
    READS("#| ; |# a", "(a)");
    READS("; #| \na", "(a)");
    READS("#| # | |#a", "(a)");
    READS("(a #| x |# b)", "((a b))");
    READS("#;a b", "(b)");
    READS("#; a b", "(b)");
    READS("#; #; a b c", "(c)");
    READS("#;#;#;a b c d", "(d)");
    READS("(a #;(b c) d)", "((a d))");
    READS("(a #;[b (c)] d)", "((a d))");
    READS("(#;a)", "(())");
    READS("(a #;b)", "((a))");
    READS("'#;a b", "('b)");
    READS("#;'a b", "(b)");
    READS("#;''a b", "(b)");
    READS("(a . #;b c)", "((a . c))");
    READS("(a . b #;c)", "((a . b))");
    READS("(a #;b . c)", "((a . c))");
    READS("#;#|x|# a b", "(b)");
    READS("#; ; line\n a b", "(b)");
    READS("#;(a\n b\n c) d", "(d)");
    READS("#;\"s\" d", "(d)");
}

/* ---------------------------------------------------------------------
 * Positions
 * --------------------------------------------------------------------- */

static void test_positions(void)
{
    Result r = rd("(define (f x)\n  (+ x 1))\n  y");
    CHECK(r.status == VL_READ_OK);
    Datum *top = r.out;
    POS(top, 1, 1);                     /* top-level pair: its datum */
    Datum *def = car(top);
    POS(def, 1, 1);                     /* first pair: the '(' */
    POS(car(def), 1, 2);                /* define */
    POS(cdr(def), 1, 9);                /* later pair: its element */
    Datum *fx = car(cdr(def));
    POS(fx, 1, 9);
    POS(car(fx), 1, 10);
    POS(cdr(fx), 1, 12);
    POS(car(cdr(fx)), 1, 12);
    POS(cdr(cdr(fx)), 1, 13);           /* () at the ')' */
    Datum *body = car(cdr(cdr(def)));
    POS(body, 2, 3);
    POS(cdr(cdr(def)), 2, 3);
    POS(car(body), 2, 4);
    POS(car(cdr(body)), 2, 6);
    POS(car(cdr(cdr(body))), 2, 8);
    POS(cdr(top), 3, 3);
    POS(car(cdr(top)), 3, 3);

    Datum *q = one("  'x");
    POS(q, 1, 3);
    POS(car(q), 1, 3);
    POS(cdr(q), 1, 3);
    POS(car(cdr(q)), 1, 4);
    POS(cdr(cdr(q)), 1, 3);

    q = one("(a\n 'b)");
    Datum *qb = car(cdr(q));
    POS(cdr(q), 2, 2);
    POS(qb, 2, 2);
    POS(car(qb), 2, 2);
    POS(cdr(qb), 2, 2);
    POS(car(cdr(qb)), 2, 3);

    Datum *d = one("\tx");
    POS(d, 1, 2);                       /* columns count bytes */
    r = rd("\xce\xbb\xce\xbb y");
    POS(car(cdr(r.out)), 1, 6);
    r = rd("\"a\nb\" c");
    POS(car(r.out), 1, 1);
    POS(car(cdr(r.out)), 2, 4);
    r = rd("#| \n\n |# x");
    POS(car(r.out), 3, 5);
    r = rd("a\r\nb");
    POS(car(cdr(r.out)), 2, 1);
    r = rd("#;(a\nb) c ; z\n d");
    POS(car(r.out), 2, 4);
    POS(car(cdr(r.out)), 3, 2);
    d = one("(a . b)");
    POS(d, 1, 1);
    POS(cdr(d), 1, 6);
    d = one("()");
    POS(d, 1, 1);
    d = one("[\n]");
    POS(d, 1, 1);
    d = one("  -2.5e3");
    POS(d, 1, 3);
    d = one(" #true");
    POS(d, 1, 2);
}

/* ---------------------------------------------------------------------
 * Errors
 * --------------------------------------------------------------------- */

static void test_errors(void)
{
    ERRS(")", "1:1: unexpected ')'");
    ERRS("a ]", "1:3: unexpected ']'");
    ERRS("(a b) )", "1:7: unexpected ')'");
    ERRS("(a]", "1:3: mismatched ']' closing '(' opened at 1:1");
    ERRS("[a)", "1:3: mismatched ')' closing '[' opened at 1:1");
    ERRS("\n\n    (a b]", "3:9: mismatched ']' closing '(' opened at 3:5");
    ERRS("([a)]", "1:4: mismatched ')' closing '[' opened at 1:2\n"
         "1:5: mismatched ']' closing '(' opened at 1:1");
    ERRS("#x", "1:1: invalid token '#x'");
    ERRS("#xFF", "1:1: invalid token '#xFF'");
    ERRS("#", "1:1: invalid token '#'");
    ERRS("#(1 2)", "1:1: invalid token '#'");
    ERRS("#\\a", "1:1: invalid token '#\\a'");
    ERRS("#tru", "1:1: invalid token '#tru'");
    ERRS("(a #x b)", "1:4: invalid token '#x'");
    ERRS("'#x", "1:2: invalid token '#x'");
    ERRS("a,b", "1:1: invalid token 'a,b'");
    ERRS("{a}", "1:1: invalid token '{a}'");
    ERRS("|x|", "1:1: invalid token '|x|'");
    ERRS("a |# b", "1:3: invalid token '|#'");
    ERRS("`(a ,b)", "1:1: invalid token '`' (quasiquote is not supported)\n"
         "1:5: invalid token ',b' (quasiquote is not supported)");
    ERRS("x\x01y", "1:1: invalid token 'x\\x01y'");
    char *longtok = concat3("#", repeat("z", 100), "");
    ERRS(longtok, "1:1: invalid token "
         "'#zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz...'");
    free(longtok);
    ERRS("\"a\\qb\"", "1:3: invalid escape sequence '\\q' in string "
         "(only \\\" \\\\ \\n \\t are allowed)");

    ERRS("(a . )", "1:4: '.' must be followed by exactly one datum before "
         "')'");
    ERRS("(a . b c)", "1:4: '.' must be followed by exactly one datum before "
         "')'");
    ERRS("[a . b c]", "1:4: '.' must be followed by exactly one datum before "
         "']'");
    ERRS("( . a)", "1:3: '.' must be preceded by at least one datum");
    ERRS("(.)", "1:2: '.' must be preceded by at least one datum");
    ERRS("(a . b . c)", "1:8: unexpected second '.' in a list");
    ERRS(".", "1:1: unexpected '.'");
    ERRS("a . b", "1:3: unexpected '.'");
    ERRS("(a ')", "1:5: unexpected ')': the quote at 1:4 is not followed by "
         "a datum");
    ERRS("'.", "1:2: unexpected '.': the quote at 1:1 is not followed by a "
         "datum");
    ERRS("(a '. b)", "1:5: unexpected '.': the quote at 1:4 is not followed "
         "by a datum");
    ERRS("(#;)", "1:4: unexpected ')': the '#;' at 1:2 is not followed by a "
         "datum");
    ERRS("('#;)", "1:5: unexpected ')': the '#;' at 1:3 is not followed by "
         "a datum");
    ERRS("(''#;#;]", "1:8: unexpected ']': the '#;' at 1:6 is not followed "
         "by a datum");
    ERRS("#;)", "1:3: unexpected ')': the '#;' at 1:1 is not followed by a "
         "datum");

    /* Several errors, in source order, and parsing goes on after each. */
    ERRS(") #x (a]", "1:1: unexpected ')'\n1:3: invalid token '#x'\n"
         "1:8: mismatched ']' closing '(' opened at 1:6");
    ERRS("(a . b #x c)", "1:4: '.' must be followed by exactly one datum "
         "before ')'\n1:8: invalid token '#x'");
    /* One diagnostic per position: the mismatch at 1:11 is dropped. */
    Result r = rd("(a ') (b ']) #y");
    CHECK_INT(count_diags(r.diags), 4);
    CHECK_STR(diags_text(r.diags),
              "1:5: unexpected ')': the quote at 1:4 is not followed by a "
              "datum\n1:11: unexpected ']': the quote at 1:10 is not "
              "followed by a datum\n1:12: unexpected ')'\n"
              "1:14: invalid token '#y'");

    /* An error and an unfinished form: an error, not incomplete. */
    ERRS(") (", "1:1: unexpected ')'\n1:3: unexpected end of input: '(' "
         "opened at 1:3 is not closed");
    ERRS("#x \"abc", "1:1: invalid token '#x'\n1:4: unterminated string");

    /* Many errors are capped. */
    char *many = repeat(") ", 1000);
    r = rd(many);
    CHECK(r.status == VL_READ_ERROR);
    CHECK_INT(count_diags(r.diags), 100);
    free(many);

    /* Diagnostics carry the file name. */
    r = rd(")");
    CHECK(r.diags && strcmp(r.diags->pos.file, "test.vlad") == 0);
    VlDiag *dg;
    Datum *out;
    CHECK(vl_read_string(syms, ")", 1, NULL, &out, &dg) == VL_READ_ERROR);
    CHECK(out == NULL && dg != NULL && dg->pos.file != NULL);
}

static void test_nul_bytes(void)
{
    check_diags_n(__LINE__, "(a \0 b)", 7, VL_READ_ERROR,
                  "1:4: NUL byte in input");
    check_diags_n(__LINE__, "ab\0cd", 5, VL_READ_ERROR,
                  "1:3: NUL byte in input");
    check_diags_n(__LINE__, "\"a\0b\"", 5, VL_READ_ERROR,
                  "1:3: NUL byte in input");
    check_diags_n(__LINE__, "; c\0\nx", 6, VL_READ_ERROR,
                  "1:4: NUL byte in input");
    check_diags_n(__LINE__, "#| \0 |# x", 9, VL_READ_ERROR,
                  "1:4: NUL byte in input");
    check_diags_n(__LINE__, "\0", 1, VL_READ_ERROR,
                  "1:1: NUL byte in input");
    check_diags_n(__LINE__, "\"a\\\0\"", 5, VL_READ_ERROR,
                  "1:4: NUL byte in input");
    check_diags_n(__LINE__, "a\0\0", 3, VL_READ_ERROR,
                  "1:2: NUL byte in input\n1:3: NUL byte in input");
    /* 'len' bounds the text: bytes after it are not read. */
    Result r = rd_n("abc)", 3);
    CHECK(r.status == VL_READ_OK);
    r = rd_n("(a b) junk", 5);
    CHECK(r.status == VL_READ_OK
          && strcmp(vl_datum_to_string(r.out, 100), "((a b))") == 0);
    r = rd_n(NULL, 0);
    CHECK(r.status == VL_READ_OK && r.out->kind == D_NIL);
}

static void test_incomplete(void)
{
    INCOMPLETE("(", "1:1: unexpected end of input: '(' opened at 1:1 is not "
               "closed");
    INCOMPLETE("[a", "1:1: unexpected end of input: '[' opened at 1:1 is not "
               "closed");
    INCOMPLETE("(a\n (b c)\n  (d", "3:3: unexpected end of input: '(' "
               "opened at 3:3 is not closed");
    INCOMPLETE("(define (f x)\n  (+ x 1)", "1:1: unexpected end of input: "
               "'(' opened at 1:1 is not closed");
    INCOMPLETE("(a . ", "1:1: unexpected end of input: '(' opened at 1:1 is "
               "not closed");
    INCOMPLETE("(a . b", "1:1: unexpected end of input: '(' opened at 1:1 is "
               "not closed");
    INCOMPLETE("'", "1:1: unexpected end of input: the quote at 1:1 is not "
               "followed by a datum");
    INCOMPLETE("a '  ; c", "1:3: unexpected end of input: the quote at 1:3 "
               "is not followed by a datum");
    INCOMPLETE("(a '", "1:4: unexpected end of input: the quote at 1:4 is "
               "not followed by a datum");
    INCOMPLETE("''", "1:2: unexpected end of input: the quote at 1:2 is not "
               "followed by a datum");
    INCOMPLETE("#;", "1:1: unexpected end of input: the '#;' at 1:1 is not "
               "followed by a datum");
    INCOMPLETE("#; #; a", "1:1: unexpected end of input: the '#;' at 1:1 is "
               "not followed by a datum");
    INCOMPLETE("#|", "1:1: unterminated block comment");
    INCOMPLETE("x #| #| |#", "1:3: unterminated block comment");
    INCOMPLETE("#| |# #| a", "1:7: unterminated block comment");
    INCOMPLETE("(a #| b", "1:4: unterminated block comment");
    INCOMPLETE("\"abc", "1:1: unterminated string");
    INCOMPLETE("(a \"b\nc", "1:4: unterminated string");
    INCOMPLETE("\"ab\\", "1:1: unterminated string");
    INCOMPLETE("'\"", "1:2: unterminated string");
    /* Completing the text makes it readable (the REPL's continuation). */
    READS("(a '#;\n b\n c)", "((a 'c))");
}

/* ---------------------------------------------------------------------
 * Depth
 * --------------------------------------------------------------------- */

#define DEPTH 1000000

static void churn(void)
{
    /* Allocate garbage so that the collector runs and would reuse any
       datum it failed to see. */
    for (int i = 0; i < 200000; i++)
        (void)vl_datum_num((SrcPos){ "x", 1, 1 }, i);
    vl_gc_collect();
}

static void test_deep_nesting(void)
{
    char *src = concat3(repeat("(", DEPTH), "x", repeat(")", DEPTH));
    Result r = rd(src);
    CHECK(r.status == VL_READ_OK);
    churn();
    if (r.status == VL_READ_OK) {
        Datum *d = car(r.out);
        int depth = 0;
        bool ok = true;
        while (d->kind == D_PAIR && ok) {
            ok = cdr(d)->kind == D_NIL && d->pos.line == 1
                 && d->pos.col == depth + 1
                 && cdr(d)->pos.col == 2 * DEPTH - depth + 1;
            depth++;
            d = car(d);
        }
        CHECK(ok);
        CHECK_INT(depth, DEPTH);
        CHECK(d->kind == D_SYM && strcmp(d->u.sym->name, "x") == 0);
        POS(d, 1, DEPTH + 1);
        /* Printing stops at the limit without deep recursion. */
        char *s = vl_datum_to_string(car(r.out), 50);
        CHECK_INT(strlen(s), 50);
        CHECK(strncmp(s, "(((((", 5) == 0 && strcmp(s + 47, "...") == 0);
        s = vl_datum_to_string(car(r.out), 3 * DEPTH);
        CHECK_INT(strlen(s), 2 * DEPTH + 1);
        CHECK(s[DEPTH] == 'x' && s[2 * DEPTH] == ')');
    }
    free(src);

    /* Brackets, quotes and datum comments nest as deep. */
    src = concat3(repeat("[", DEPTH), "y", repeat("]", DEPTH));
    r = rd(src);
    CHECK(r.status == VL_READ_OK);
    free(src);

    src = concat3(repeat("'", DEPTH), "z", "");
    r = rd(src);
    CHECK(r.status == VL_READ_OK);
    if (r.status == VL_READ_OK) {
        churn();
        Datum *d = car(r.out);
        int depth = 0;
        while (d->kind == D_PAIR && vl_datum_list_length(d) == 2
               && car(d)->kind == D_SYM) {
            d = car(cdr(d));
            depth++;
        }
        CHECK_INT(depth, DEPTH);
        CHECK(d->kind == D_SYM && strcmp(d->u.sym->name, "z") == 0);
        POS(d, 1, DEPTH + 1);
    }
    free(src);

    char *skips = repeat("#; ", DEPTH);
    char *atoms = repeat("a ", DEPTH);
    src = concat3(skips, atoms, "last");
    r = rd(src);
    CHECK(r.status == VL_READ_OK
          && strcmp(vl_datum_to_string(r.out, 100), "(last)") == 0);
    free(src);
    free(skips);
    free(atoms);

    /* Unclosed: the innermost '(' is named. */
    src = repeat("(", DEPTH);
    r = rd(src);
    CHECK(r.status == VL_READ_INCOMPLETE);
    CHECK_STR(diags_text(r.diags), "1:1000000: unexpected end of input: '(' "
              "opened at 1:1000000 is not closed");
    free(src);

    /* A long flat list and many top-level datums. */
    src = concat3("(", repeat("1.5 ", DEPTH), ")");
    r = rd(src);
    CHECK(r.status == VL_READ_OK);
    churn();
    if (r.status == VL_READ_OK) {
        CHECK_INT(vl_datum_list_length(car(r.out)), DEPTH);
        int n = 0;
        for (Datum *d = car(r.out); d->kind == D_PAIR; d = cdr(d))
            n += car(d)->kind == D_NUM && car(d)->u.num == 1.5;
        CHECK_INT(n, DEPTH);
    }
    free(src);
    src = repeat("x\n", DEPTH);
    r = rd(src);
    CHECK(r.status == VL_READ_OK);
    if (r.status == VL_READ_OK) {
        CHECK_INT(vl_datum_list_length(r.out), DEPTH);
        Datum *last = r.out;
        while (cdr(last)->kind == D_PAIR)
            last = cdr(last);
        POS(car(last), DEPTH, 1);
    }
    free(src);
}

/* ---------------------------------------------------------------------
 * Printing
 * --------------------------------------------------------------------- */

static const char *num_str(double x)
{
    return vl_datum_to_string(vl_datum_num((SrcPos){ "t", 1, 1 }, x), 100);
}

static void test_printing(void)
{
    CHECK_STR(num_str(120), "120");
    CHECK_STR(num_str(-3), "-3");
    CHECK_STR(num_str(sqrt(2)), "1.4142135623730951");
    CHECK_STR(num_str(1e-7), "1e-07");
    CHECK_STR(num_str(1e300), "1e+300");
    CHECK_STR(num_str(0.1), "0.1");
    CHECK_STR(num_str(0.1 + 0.2), "0.30000000000000004");
    CHECK_STR(num_str(1.0 / 3), "0.3333333333333333");
    CHECK_STR(num_str(100.5), "100.5");
    CHECK_STR(num_str(6.02e23), "6.02e+23");
    CHECK_STR(num_str(1e21), "1e+21");
    CHECK_STR(num_str(123456789), "123456789");
    CHECK_STR(num_str(9007199254740993.0), "9007199254740992");
    CHECK_STR(num_str(0), "0");
    CHECK_STR(num_str(-0.0), "-0");
    CHECK_STR(num_str(INFINITY), "+inf.0");
    CHECK_STR(num_str(-INFINITY), "-inf.0");
    CHECK_STR(num_str(NAN), "+nan.0");
    CHECK_STR(num_str(5e-324), "4.94065645841247e-324");
    CHECK_STR(num_str(1.7976931348623157e308), "1.7976931348623157e+308");
    /* Every printed number reads back to itself. */
    double xs[] = { 0.1, 2.0 / 3, 1e-300, 123.456, 1.0 / 7, 3e100, -5e-7 };
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++) {
        Datum *d = one(num_str(xs[i]));
        CHECK(d && d->kind == D_NUM && d->u.num == xs[i]);
    }

    SrcPos p = { "t", 1, 1 };
    Datum *nil = vl_datum_nil(p);
    CHECK_STR(vl_datum_to_string(nil, 10), "()");
    CHECK_STR(vl_datum_to_string(vl_datum_bool(p, true), 10), "#t");
    CHECK_STR(vl_datum_to_string(vl_datum_bool(p, false), 10), "#f");
    CHECK_STR(vl_datum_to_string(vl_datum_str(p, "a\"b\\c\nd\te"), 100),
              "\"a\\\"b\\\\c\\nd\\te\"");
    Datum *l = vl_datum_cons(p, vl_datum_num(p, 1),
                             vl_datum_cons(p, vl_datum_num(p, 2),
                                           vl_datum_num(p, 3)));
    CHECK_STR(vl_datum_to_string(l, 100), "(1 2 . 3)");
    CHECK_INT(vl_datum_list_length(l), -1);
    Datum *q = vl_datum_cons(p, vl_datum_sym(p, vl_symbol_intern_c(syms,
                                                                  "quote")),
                             vl_datum_cons(p, l, nil));
    CHECK_STR(vl_datum_to_string(q, 100), "'(1 2 . 3)");
    /* (quote) and (quote a b) are not abbreviated. */
    READS("(quote) (quote a b) (quote . a)",
          "((quote) (quote a b) (quote . a))");
    READS("(a 'b '(c 'd) . 'e)", "((a 'b '(c 'd) quote e))");

    /* Truncation. */
    Datum *d = one("(1 2 3 4 5 6 7 8 9 10 11 12)");
    CHECK_STR(vl_datum_to_string(d, 100), "(1 2 3 4 5 6 7 8 9 10 11 12)");
        CHECK_STR(vl_datum_to_string(d, 28), "(1 2 3 4 5 6 7 8 9 10 11 12)");
    CHECK_STR(vl_datum_to_string(d, 27), "(1 2 3 4 5 6 7 8 9 10 11...");
    CHECK_STR(vl_datum_to_string(d, 10), "(1 2 3 ...");
    CHECK_STR(vl_datum_to_string(d, (size_t)-1),
              "(1 2 3 4 5 6 7 8 9 10 11 12)");
    CHECK_STR(vl_datum_to_string(d, 4), "(...");
    CHECK_STR(vl_datum_to_string(d, 3), "...");
    CHECK_STR(vl_datum_to_string(d, 0), "...");
    d = one("\xce\xbb\xce\xbb\xce\xbb");
    CHECK_STR(vl_datum_to_string(d, 6), "\xce\xbb\xce\xbb\xce\xbb");
    CHECK_STR(vl_datum_to_string(d, 5), "\xce\xbb...");

    /* Round trips. */
    static const char *const srcs[] = {
        "(define (f x) (* x x))", "((1 2) 3 . 4)", "('a '() #t #f)",
        "(x -2.5 1e-05 0.5 6.02e+23 -0)", "(\"s\\\"t\")",
    };
    for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++)
        CHECK_STR(vl_datum_to_string(one(srcs[i]), 1000), srcs[i]);
}

int main(void)
{
    vl_gc_init();
    syms = vl_symbol_table_new();
    test_numbers();
    test_symbols();
    test_booleans_strings();
    test_lists();
    test_quote();
    test_comments();
    test_positions();
    test_errors();
    test_nul_bytes();
    test_incomplete();
    test_printing();
    test_deep_nesting();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
