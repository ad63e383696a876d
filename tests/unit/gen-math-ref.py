#!/usr/bin/env python3
"""tests/unit/gen-math-ref.py -- reference derivatives of vm/core/math1.h's and
vm/core/math2.h's rows, by mpmath

usage: python3 gen-math-ref.py [SRCDIR]   (default: the tree this script is in)

Writes tests/unit/math-ref.h (for tests/unit/test-math1.c and
test-math2.c) and tests/ad/math-tails-ref.vlad (for tests/ad/math-tails.vlad):
for each row, points that reach the tails (|x| up to ~710 where the
function is defined, arguments from 1e-300 to 1e300, the edges of the
domains), and at each point the first and second derivatives, computed
from their closed forms at 200 bits from the exact double argument and
rounded once to the nearest double (subnormals included; +inf where the
value is beyond the largest double).  The output is deterministic:
running the script again writes the same files.  The C and VLAD tests
need no Python: the values are in the files.

Needs mpmath (Debian: python3-mpmath).
"""
import os
import sys

import mpmath
from mpmath import mp, mpf

mp.prec = 200

# ---- the points ---------------------------------------------------------

ONE_M = 1 - 2.0 ** -53          # the largest double below 1
TAILS = [0, 1e-10, 0.5, 1, 5.5, 10, 19.1, 19.9, 20, 20.5, 40, 100, 250, 300,
         355, 372, 400, 700]


def sym(xs):
    out = []
    for x in xs:
        for v in (x, -x):
            if v not in out:
                out.append(v)
    return sorted(out)


def dd(x):
    return mpf(x)   # exact: mpf of a float is the float


# (name, points, f', f'') for vm/core/math1.h
def unary():
    rows = []
    rows.append(("sqrt", [1e-300, 1e-100, 1e-10, 0.01, 0.5, 1, 2, 9, 1e10,
                          1e100, 1e300, 1.7e308],
                 lambda x: 1 / (2 * mpmath.sqrt(x)),
                 lambda x: -1 / (4 * x * mpmath.sqrt(x))))
    rows.append(("exp", [-745, -740, -708, -700, -500, -100, -40, -20, -1,
                         -1e-10, 0, 1e-10, 1, 20, 100, 500, 700, 709.7],
                 mpmath.exp, mpmath.exp))
    rows.append(("log", [1e-300, 1e-100, 1e-10, 0.01, 0.5, 1 - 1e-10, 1,
                         1 + 1e-10, 2, 1e10, 1e100, 1e300],
                 lambda x: 1 / x, lambda x: -1 / x ** 2))
    trig = sym([0, 1e-10, 0.5, 1.5707963267948966, 3, 3.141592653589793,
                6, 100, 700])
    rows.append(("sin", trig, mpmath.cos, lambda x: -mpmath.sin(x)))
    rows.append(("cos", trig, lambda x: -mpmath.sin(x),
                 lambda x: -mpmath.cos(x)))
    rows.append(("floor", [-700.5, -4.73, -0.5, 0.25, 4.31, 700.5],
                 lambda x: mpf(0), lambda x: mpf(0)))
    rows.append(("tan", sym([0, 1e-10, 0.5, 1.4, 1.5707963267948966,
                             1.5707963267948, 3, 100, 700]),
                 lambda x: 1 / mpmath.cos(x) ** 2,
                 lambda x: 2 * mpmath.tan(x) / mpmath.cos(x) ** 2))
    rows.append(("tanh", sym(TAILS),
                 lambda x: 1 / mpmath.cosh(x) ** 2,
                 lambda x: -2 * mpmath.tanh(x) / mpmath.cosh(x) ** 2))
    near1 = sym([0, 1e-10, 0.5, 0.7071067811865476, 0.99, 0.9999999,
                 1 - 1e-12, ONE_M])
    rows.append(("asin", near1,
                 lambda x: 1 / mpmath.sqrt(1 - x * x),
                 lambda x: x / (1 - x * x) ** mpf(1.5)))
    rows.append(("acos", near1,
                 lambda x: -1 / mpmath.sqrt(1 - x * x),
                 lambda x: -x / (1 - x * x) ** mpf(1.5)))
    hyp = sym([0, 1e-10, 1, 20, 300, 700, 710.4, 711])
    rows.append(("sinh", hyp, mpmath.cosh, mpmath.sinh))
    rows.append(("cosh", hyp, mpmath.sinh, mpmath.cosh))
    rows.append(("log1p", [-ONE_M, -0.999999, -0.5, -1e-10, 0, 1e-10, 1,
                           1e10, 1e300],
                 lambda x: 1 / (1 + x), lambda x: -1 / (1 + x) ** 2))
    rows.append(("expm1", [-745, -700, -100, -40, -37, -11, -1, -1e-10, 0,
                           1e-10, 1, 100, 700, 709.7],
                 mpmath.exp, mpmath.exp))
    # new rows go above this line
    return rows


# (name, points (a, b), gradient, Hessian (aa, ab, bb)) for vm/core/math2.h
def binary():
    rows = []
    grid = [(1, 2), (-0.5, 3), (0, 4), (7, -0.25)]
    rows.append(("+", grid, lambda a, b: (1, 1), lambda a, b: (0, 0, 0)))
    rows.append(("-", grid, lambda a, b: (1, -1), lambda a, b: (0, 0, 0)))
    rows.append(("*", grid + [(1e300, 1e-300), (1e-300, 1e-300)],
                 lambda a, b: (b, a), lambda a, b: (0, 1, 0)))
    rows.append(("/", [(1, 2), (-0.5, 3), (7, -0.25), (1e300, 1e10),
                       (1e-300, 1e-5), (1, 1e-150), (3, 1e200)],
                 lambda a, b: (1 / b, -a / b ** 2),
                 lambda a, b: (0, -1 / b ** 2, 2 * a / b ** 3)))

    def atan_g(a, b):
        r = a * a + b * b
        return (b / r, -a / r)

    def atan_h(a, b):
        r2 = (a * a + b * b) ** 2
        return (-2 * a * b / r2, (a * a - b * b) / r2, 2 * a * b / r2)
    rows.append(("atan", [(1, 2), (-0.5, 3), (2, -1), (0.3, -0.4),
                          (1e-170, 1e-170), (4e-160, 3e-160),
                          (1e160, 1e160), (1e-100, 3e-100), (1e300, 1e300),
                          (-1e300, 1e-300), (1e-300, 1), (1, 1e-300),
                          (1e150, -2e150), (1e-200, 1e200), (5e-324, 1)],
                 atan_g, atan_h))

    def expt_g(a, b):
        return (b * a ** (b - 1), a ** b * mpmath.log(a))

    def expt_h(a, b):
        la = mpmath.log(a)
        return (b * (b - 1) * a ** (b - 2), a ** (b - 1) * (1 + b * la),
                a ** b * la * la)
    rows.append(("expt", [(2, 3), (0.5, -1.5), (3, 0.5), (1.7, 2.2),
                          (1e-300, 0.3), (1e-300, 0.01), (1e300, 0.3),
                          (1e-300, -0.3), (1e200, 1.3), (1e200, 2.3),
                          (1e-200, 1.6), (1e-100, 3.2), (7, 300.5),
                          (0.999, 1e5), (1e-10, 1e-20), (123.5, -100.1),
                          (2, 1024), (5, 1.0000001), (0.3, 0.9999999),
                          (2.5, -0.3), (1e-300, -1.3)],
                 expt_g, expt_h))
    rows.append(("modulo", [(7.5, 2), (-7.5, 2), (7.5, -2), (1, 3),
                            (1e300, 3), (-1e-300, 1)],
                 lambda a, b: (1, -mpmath.floor(a / b)),
                 lambda a, b: (0, 0, 0)))
    return rows


# ---- rounding to doubles --------------------------------------------------

def to_double(v):
    """v (an mpf) rounded to the nearest double, subnormals included."""
    v = mpf(v)
    if v == 0:
        return 0.0
    m, e = mpmath.frexp(v)          # v = m 2^e, 1/2 <= |m| < 1
    e -= 1                          # v = (2m) 2^e, 1 <= |2m| < 2
    shift = 52 - e if e >= -1022 else 1074
    q = int(mpmath.nint(v * mpf(2) ** shift))
    r = mpmath.ldexp(mpf(q), -shift)    # a double exactly, or beyond them
    if abs(r) > mpf(sys.float_info.max):
        return float("inf") if q > 0 else float("-inf")
    return float(r)


def c_double(x):
    if x == float("inf"):
        return "INFINITY"
    if x == float("-inf"):
        return "-INFINITY"
    return x.hex()


def vlad_double(x):
    if x == float("inf"):
        return "+inf.0"
    if x == float("-inf"):
        return "-inf.0"
    r = repr(x)
    if r == "-0.0":
        return "0"
    return r


# ---- output ---------------------------------------------------------------

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(here))
    u_rows = []
    for name, xs, d1, d2 in unary():
        pts = []
        for x in xs:
            x = float(x)
            pts.append((x, to_double(d1(dd(x))), to_double(d2(dd(x)))))
        u_rows.append((name, pts))
    b_rows = []
    for name, ps, g, h in binary():
        pts = []
        for a, b in ps:
            a, b = float(a), float(b)
            ga, gb = g(dd(a), dd(b))
            haa, hab, hbb = h(dd(a), dd(b))
            pts.append((a, b, [to_double(v) for v in (ga, gb, haa, hab,
                                                       hbb)]))
        b_rows.append((name, pts))

    c = []
    c.append("/*\n * tests/unit/math-ref.h -- reference derivatives of the "
             "rows of vm/core/math1.h\n * and vm/core/math2.h, written by "
             "tests/unit/gen-math-ref.py (mpmath, 200\n * bits, rounded "
             "once): do not edit, run the script.  Included by\n * "
             "tests/unit/test-math1.c and tests/unit/test-math2.c.\n */")
    c.append("#ifndef VLAD_TESTS_MATH_REF_H\n#define VLAD_TESTS_MATH_REF_H\n")
    c.append("#include <math.h>    /* INFINITY */\n")
    c.append("/* a row's name, a point and its derivative there */")
    c.append("typedef struct MathRef1 {\n    const char *name;\n"
             "    double x, d;\n} MathRef1;\n")
    c.append("static const MathRef1 math_ref1[] = {")
    for name, pts in u_rows:
        for x, d1, _ in pts:
            c.append('    {"%s", %s, %s},' % (name, c_double(x), c_double(d1)))
    c.append("};\n")
    c.append("/* a row's name, a point (a, b) and the partials there */")
    c.append("typedef struct MathRef2 {\n    const char *name;\n"
             "    double a, b, da, db;\n} MathRef2;\n")
    c.append("static const MathRef2 math_ref2[] = {")
    for name, pts in b_rows:
        for a, b, v in pts:
            c.append('    {"%s", %s, %s,\n     %s, %s},'
                     % (name, c_double(a), c_double(b), c_double(v[0]),
                        c_double(v[1])))
    c.append("};\n\n#endif")
    with open(os.path.join(src, "tests", "unit", "math-ref.h"), "w") as f:
        f.write("\n".join(c) + "\n")

    v = []
    v.append(";;; tests/ad/math-tails-ref.vlad -- reference derivatives of "
             "the rows of\n;;; vm/core/math1.h and vm/core/math2.h, written by "
             "tests/unit/gen-math-ref.py\n;;; (mpmath, 200 bits, rounded "
             "once to the nearest double): do not edit,\n;;; run the "
             "script.  Included by tests/ad/math-tails.vlad.\n;;;\n"
             ";;; ref-unary: (name procedure (x f' f'') ...) for each row of "
             "vm/core/math1.h;\n;;; ref-binary: (name procedure ((a b) (da db) "
             "(daa dab dbb)) ...)\n;;; for each row of vm/core/math2.h.")
    v.append("(define ref-unary\n  (list")
    for name, pts in u_rows:
        v.append("   (list '%s %s" % (name, name))
        for x, d1, d2 in pts:
            v.append("         '(%s %s %s)" % (vlad_double(x), vlad_double(d1),
                                              vlad_double(d2)))
        v[-1] += ")"
    v[-1] += "))"
    v.append("(define ref-binary\n  (list")
    for name, pts in b_rows:
        v.append("   (list '%s %s" % (name, name))
        for a, b, r in pts:
            v.append("         '((%s %s) (%s %s) (%s %s %s))"
                     % tuple(vlad_double(t) for t in [a, b] + r))
        v[-1] += ")"
    v[-1] += "))"
    with open(os.path.join(src, "tests", "ad", "math-tails-ref.vlad"),
              "w") as f:
        f.write("\n".join(v) + "\n")


if __name__ == "__main__":
    main()
