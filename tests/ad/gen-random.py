#!/usr/bin/env python3
"""tests/ad/gen-random.py -- generate the random AD property tests.

usage: python3 gen-random.py [OUTDIR]      (default: the directory of this script)

Writes random-grad-1.vlad .. random-grad-4.vlad (100 real-valued functions
each), random-jac-1.vlad, random-jac-2.vlad (60 tree-valued functions each)
random-ckpt-1.vlad (40 real-valued functions differentiated through
checkpoint/resume), random-ckpt-2.vlad (40 more, each wrapped as
d/dt f(t x) at t = 1 by an inner j* or *j, so that the checkpoints fall
inside it) and random-ckpt-3.vlad (20 more, wrapped the same way by
checkpoint-*j of a closure over x) and random-ckpt-4.vlad (20 more, each
resumed inside its own resumed execution: fresh tags, finding W1 of
doc/hardening.md), with their expected outputs (.out).  The output is
deterministic (fixed seeds): re-running the script rewrites the same files.

Every generated function is a random smooth VLAD procedure of a list of 2
to 4 reals, built from + - * / sin cos exp log sqrt expt atan, closures
(let-bound lambdas, procedures returning procedures, procedures taking
procedures), list and pair construction and destructuring (patterns and
car/cadr/list-ref), map / map2 / fold-left / reduce / dot / magnitude over
the input list, conditionals (if, cond, and, abs, max, min), named-let loops
with a fixed count, non-tail recursion (letrec), and nested AD: the
derivative, by j* or *j, of a closure over outer values (so the outer
j* / *j differentiates through an inner one).

The generator evaluates each function itself (in Python, with forward-mode
dual numbers) at the test point, which gives the value and the exact
gradient, and rejects a candidate unless it is safe to test numerically:
  - every conditional is decided far from its threshold (each threshold is
    placed 0.3..1 away from the value tested the first time it is reached,
    and every test, for every evaluation, must be at least 0.05 away), so
    finite differences never cross a branch;
  - moderate magnitudes: |f| <= 50 and every |df/dx_i| <= 200;
  - no cancellation that could make two correct summation orders differ by
    more than the j*/*j tolerance: the gradient computed with the absolute
    values of all partial derivatives is at most 30 * max(1, |df/dx_i|);
  - central finite differences computed here in the same way as the VLAD
    test does (h = 1e-6 * max(1, |x_i|)) agree with the exact gradient to
    1e-7 (100 times tighter than the 1e-5 the test requires).

In VLAD, each function is checked by ad-check-gradient / ad-check-jvp-vjp
(ad-lib.vlad): the gradient by j* (one call per basis direction) and by *j
(one call) must agree to 1e-12, agree with the generator's gradient to 1e-9
and with central finite differences to 1e-5.  For tree-valued functions
(lists, pairs, #t, #f, () and constant reals in the result), u . (J v) by
j* must equal (J^T u) . v by *j to 1e-12, for a random u (shaped like the
output) and v.  In random-ckpt-1, -2 and -3, ad-check-checkpoint checks the
identities of ad-ck-identities for every step k.  Each check prints #t; the last line
is the number of functions that passed.
"""
import math
import os
import random
import sys


# ===== Dual numbers: value, gradient, and gradient of absolute values =====

class D:
    __slots__ = ("v", "g", "a")

    def __init__(self, v, g, a):
        self.v, self.g, self.a = v, g, a


N = 0  # number of independent variables of the function being evaluated


class Reject(Exception):
    pass


def const(c):
    return D(float(c), [0.0] * N, [0.0] * N)


def lin(v, parts):
    """A result with value v and partials parts = [(partial, operand)]."""
    g = [0.0] * N
    a = [0.0] * N
    for p, x in parts:
        for i in range(N):
            g[i] += p * x.g[i]
            a[i] += abs(p) * x.a[i]
    if not math.isfinite(v) or abs(v) > 1e6:
        raise Reject("overflow")
    return D(v, g, a)


def add(x, y): return lin(x.v + y.v, [(1.0, x), (1.0, y)])
def sub(x, y): return lin(x.v - y.v, [(1.0, x), (-1.0, y)])
def mul(x, y): return lin(x.v * y.v, [(y.v, x), (x.v, y)])


def div(x, y):
    if abs(y.v) < 0.1:
        raise Reject("division")
    return lin(x.v / y.v, [(1.0 / y.v, x), (-x.v / (y.v * y.v), y)])


def sin_(x): return lin(math.sin(x.v), [(math.cos(x.v), x)])
def cos_(x): return lin(math.cos(x.v), [(-math.sin(x.v), x)])


def exp_(x):
    if x.v > 5:
        raise Reject("exp")
    e = math.exp(x.v)
    return lin(e, [(e, x)])


def log_(x):
    if x.v < 0.1:
        raise Reject("log")
    return lin(math.log(x.v), [(1.0 / x.v, x)])


def sqrt_(x):
    if x.v < 0.1:
        raise Reject("sqrt")
    s = math.sqrt(x.v)
    return lin(s, [(1.0 / (2 * s), x)])


def atan2_(y, x):
    r = x.v * x.v + y.v * y.v
    if r < 0.01:
        raise Reject("atan")
    return lin(math.atan2(y.v, x.v), [(x.v / r, y), (-y.v / r, x)])


def expt_int(b, k):
    """(expt b k) for a constant integer k: the exponent's tangent is 0."""
    if k < 0 and abs(b.v) < 0.1:
        raise Reject("expt")
    return lin(b.v ** k, [(k * b.v ** (k - 1), b)])


def expt_(b, e):
    """(expt b e) for b > 0 and a real e."""
    if b.v < 0.1:
        raise Reject("expt")
    p = b.v ** e.v
    return lin(p, [(e.v * b.v ** (e.v - 1), b), (p * math.log(b.v), e)])


# ===== The generator =====
#
# gen_real(scope, depth) returns (code, ev): code() gives the VLAD text
# (called after the test evaluation, so that thresholds are known) and
# ev(env) evaluates it; env maps names to D, lists of values, tuples
# ("pair", a, b) and Python functions (VLAD procedures of one argument).

MARGIN = 0.05


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.counter = 0
        self.margins = []

    def fresh(self, base):
        self.counter += 1
        return f"{base}{self.counter}"

    def num(self, lo=-2.0, hi=2.0):
        return round(self.rng.uniform(lo, hi), 2)

    # -- thresholds ---------------------------------------------------------
    def threshold(self):
        cell = {"c": None}

        def test(v):
            if cell["c"] is None:
                cell["c"] = round(v + self.rng.choice([-1, 1]) * self.rng.uniform(0.3, 1.0), 3)
            self.margins.append(abs(v - cell["c"]))
            return v < cell["c"]

        return cell, test

    # -- real-valued expressions -------------------------------------------
    def leaf(self, scope):
        r = self.rng
        if scope and r.random() < 0.8:
            name = r.choice(scope)
            return (lambda: name), (lambda env: env[name])
        c = self.num()
        return (lambda: fmt(c)), (lambda env: const(c))

    def gen_real(self, scope, depth):
        r = self.rng
        if depth <= 0 or r.random() < 0.05:
            return self.leaf(scope)
        kinds = [
            ("arith", 6), ("div", 2), ("unary", 5), ("expt", 2), ("atan", 1),
            ("closure", 2), ("factory", 1), ("higher", 1), ("destructure", 2),
            ("map", 2), ("if", 2), ("cond", 1), ("absmax", 1), ("loop", 1),
            ("loop2", 1), ("rec", 1), ("inner", 2),
        ]
        kind = weighted(r, kinds)
        return getattr(self, "g_" + kind)(scope, depth - 1)

    def g_arith(self, scope, d):
        op = self.rng.choice(["+", "-", "*"])
        a, b = self.gen_real(scope, d), self.gen_real(scope, d)
        f = {"+": add, "-": sub, "*": mul}[op]
        return (lambda: f"({op} {a[0]()} {b[0]()})"), (lambda env: f(a[1](env), b[1](env)))

    def g_div(self, scope, d):
        a, b = self.gen_real(scope, d), self.gen_real(scope, d - 1)
        if self.rng.random() < 0.5:
            return ((lambda: f"(/ {a[0]()} (+ 1.5 (cos {b[0]()})))"),
                    (lambda env: div(a[1](env), add(const(1.5), cos_(b[1](env))))))
        return ((lambda: f"(/ {a[0]()} (+ 1 (sqr {b[0]()})))"),
                (lambda env: div(a[1](env), add(const(1), sq(b[1](env))))))

    def g_unary(self, scope, d):
        a = self.gen_real(scope, d)
        k = self.rng.choice(["sin", "cos", "exp", "expsin", "log", "logsin", "sqrt"])
        if k == "sin":
            return (lambda: f"(sin {a[0]()})"), (lambda env: sin_(a[1](env)))
        if k == "cos":
            return (lambda: f"(cos {a[0]()})"), (lambda env: cos_(a[1](env)))
        if k == "exp":
            return (lambda: f"(exp (* 0.5 {a[0]()}))"), (lambda env: exp_(mul(const(0.5), a[1](env))))
        if k == "expsin":
            return (lambda: f"(exp (sin {a[0]()}))"), (lambda env: exp_(sin_(a[1](env))))
        if k == "log":
            return (lambda: f"(log (+ 2 (* {a[0]()} {a[0]()})))"), \
                   (lambda env: log_(add(const(2), sq(a[1](env)))))
        if k == "logsin":
            return (lambda: f"(log (+ 1.5 (sin {a[0]()})))"), \
                   (lambda env: log_(add(const(1.5), sin_(a[1](env)))))
        return (lambda: f"(sqrt (+ 1 (sqr {a[0]()})))"), (lambda env: sqrt_(add(const(1), sq(a[1](env)))))

    def g_expt(self, scope, d):
        r = self.rng
        a = self.gen_real(scope, d)
        k = r.choice([2, 3, 2, 3, -1, -2, "var"])
        if k == "var":
            e = self.gen_real(scope, d - 1)
            return ((lambda: f"(expt (+ 1.5 (sin {a[0]()})) {e[0]()})"),
                    (lambda env: expt_(add(const(1.5), sin_(a[1](env))), e[1](env))))
        if k < 0:
            return ((lambda: f"(expt (+ 1 (sqr {a[0]()})) {k})"),
                    (lambda env: expt_int(add(const(1), sq(a[1](env))), k)))
        return (lambda: f"(expt {a[0]()} {k})"), (lambda env: expt_int(a[1](env), k))

    def g_atan(self, scope, d):
        a, b = self.gen_real(scope, d), self.gen_real(scope, d)
        if self.rng.random() < 0.5:
            return (lambda: f"(atan {a[0]()} {b[0]()})"), (lambda env: atan2_(a[1](env), b[1](env)))
        return ((lambda: f"(atan {a[0]()} (+ 2 (sqr {b[0]()})))"),
                (lambda env: atan2_(a[1](env), add(const(2), sq(b[1](env))))))

    def g_closure(self, scope, d):
        # (let ((g (lambda (t) B))) (op (g E1) (g E2)))  -- g captures scope
        g, t = self.fresh("g"), self.fresh("t")
        body = self.gen_real(scope + [t], d)
        e1, e2 = self.gen_real(scope, d - 1), self.gen_real(scope, d - 1)
        op = self.rng.choice(["+", "-", "*"])
        f = {"+": add, "-": sub, "*": mul}[op]

        def ev(env):
            def proc(x):
                env2 = dict(env)
                env2[t] = x
                return body[1](env2)
            return f(proc(e1[1](env)), proc(e2[1](env)))
        return (lambda: f"(let (({g} (lambda ({t}) {body[0]()}))) ({op} ({g} {e1[0]()}) ({g} {e2[0]()})))"), ev

    def g_factory(self, scope, d):
        # a procedure returning a closure over its argument, curried
        mk, c, t = self.fresh("mk"), self.fresh("c"), self.fresh("t")
        body = self.gen_real(scope + [c, t], d)
        e1, e2 = self.gen_real(scope, d - 1), self.gen_real(scope, d - 1)
        curried = self.rng.random() < 0.5

        def ev(env):
            def mkp(cv):
                def proc(x):
                    env2 = dict(env)
                    env2[c] = cv
                    env2[t] = x
                    return body[1](env2)
                return proc
            return mkp(e1[1](env))(e2[1](env))
        if curried:
            # an internal curried definition
            return (lambda: f"(let () (define (({mk} {c}) {t}) {body[0]()}) (({mk} {e1[0]()}) {e2[0]()}))"), ev
        return (lambda: f"(let (({mk} (lambda ({c}) (lambda ({t}) {body[0]()})))) (({mk} {e1[0]()}) {e2[0]()}))"), ev

    def g_higher(self, scope, d):
        # ((twice h) E) with h a closure over the scope
        tw, h, z, t = self.fresh("twice"), self.fresh("h"), self.fresh("z"), self.fresh("t")
        body = self.gen_real(scope + [t], d)
        e = self.gen_real(scope, d - 1)
        squash = self.rng.random() < 0.5

        def ev(env):
            def hp(x):
                env2 = dict(env)
                env2[t] = x
                v = body[1](env2)
                return sin_(v) if squash else v
            return hp(hp(e[1](env)))
        inner = (lambda: f"(sin {body[0]()})") if squash else (lambda: body[0]())
        return ((lambda: f"(let (({tw} (lambda ({h}) (lambda ({z}) ({h} ({h} {z})))))) "
                         f"(({tw} (lambda ({t}) {inner()})) {e[0]()}))"), ev)

    def g_destructure(self, scope, d):
        r = self.rng
        k = r.choice(["list", "cons", "nested", "access", "tuple"])
        if k == "list":
            a, b, c = self.fresh("a"), self.fresh("b"), self.fresh("c")
            es = [self.gen_real(scope, d - 1) for _ in range(3)]
            body = self.gen_real(scope + [a, b, c], d)

            def ev(env):
                env2 = dict(env)
                env2[a], env2[b], env2[c] = (x[1](env) for x in es)
                return body[1](env2)
            return (lambda: f"(let (((list {a} {b} {c}) (list {es[0][0]()} {es[1][0]()} {es[2][0]()}))) {body[0]()})"), ev
        if k == "cons":
            a, b = self.fresh("a"), self.fresh("b")
            es = [self.gen_real(scope, d - 1) for _ in range(2)]
            body = self.gen_real(scope + [a, b], d)

            def ev(env):
                env2 = dict(env)
                env2[a], env2[b] = (x[1](env) for x in es)
                return body[1](env2)
            return (lambda: f"(let (((cons {a} {b}) (cons {es[0][0]()} {es[1][0]()}))) {body[0]()})"), ev
        if k == "nested":
            # a structure with a boolean and () inside, destructured by let*
            a, b, c, p = self.fresh("a"), self.fresh("b"), self.fresh("c"), self.fresh("p")
            es = [self.gen_real(scope, d - 1) for _ in range(3)]
            body = self.gen_real(scope + [a, b, c], d)

            def ev(env):
                env2 = dict(env)
                env2[a], env2[b], env2[c] = (x[1](env) for x in es)
                return body[1](env2)
            return (lambda: f"(let* (({p} (list (cons {es[0][0]()} #t) '() (list {es[1][0]()} {es[2][0]()}))) "
                            f"((list (cons {a} flag) nil (list {b} {c})) {p})) "
                            f"(if (and flag (null? nil)) {body[0]()} 0))"), ev
        if k == "access":
            es = [self.gen_real(scope, d) for _ in range(3)]
            acc = r.choice(["car", "cadr", "caddr", "sum"])
            idx = {"car": 0, "cadr": 1, "caddr": 2}

            def ev(env):
                vs = [x[1](env) for x in es]
                if acc == "sum":
                    return add(add(vs[0], vs[1]), vs[2])
                return vs[idx[acc]]
            if acc == "sum":
                return (lambda: f"(reduce + 0 (reverse (list {es[0][0]()} {es[1][0]()} {es[2][0]()})))"), \
                       (lambda env: add(add(es[2][1](env), es[1][1](env)), es[0][1](env)))
            return (lambda: f"({acc} (list {es[0][0]()} {es[1][0]()} {es[2][0]()}))"), ev
        # a procedure of a tuple: (lambda (p q) B) applied as (h E1 E2)
        h, p, q = self.fresh("h"), self.fresh("p"), self.fresh("q")
        body = self.gen_real(scope + [p, q], d)
        e1, e2 = self.gen_real(scope, d - 1), self.gen_real(scope, d - 1)

        def ev(env):
            env2 = dict(env)
            env2[p], env2[q] = e1[1](env), e2[1](env)
            return body[1](env2)
        return (lambda: f"(let (({h} (lambda ({p} {q}) {body[0]()}))) ({h} {e1[0]()} {e2[0]()}))"), ev

    def list_source(self, scope, d):
        """A list of reals: the input list, or a list built from the scope."""
        r = self.rng
        if self.xs is not None and r.random() < 0.5:
            name = self.xs
            return (lambda: name), (lambda env: env[name])
        es = [self.gen_real(scope, d - 1) for _ in range(r.randint(2, 4))]
        return (lambda: "(list " + " ".join(e[0]() for e in es) + ")"), (lambda env: [e[1](env) for e in es])

    def g_map(self, scope, d):
        r = self.rng
        v = self.fresh("v")
        body = self.gen_real(scope + [v], d)
        src = self.list_source(scope, d)
        how = r.choice(["fold", "reduce", "dot", "magnitude", "map2"])

        def mapped(env):
            out = []
            for x in src[1](env):
                env2 = dict(env)
                env2[v] = x
                out.append(body[1](env2))
            return out
        lam = lambda: f"(lambda ({v}) {body[0]()})"
        if how == "fold":
            acc, y = self.fresh("acc"), self.fresh("y")

            def ev(env):
                s = const(0)
                for y_ in mapped(env):
                    s = add(mul(const(0.5), s), y_)
                return s
            return (lambda: f"(fold-left (lambda ({acc} {y}) (+ (* 0.5 {acc}) {y})) 0 (map {lam()} {src[0]()}))"), ev
        if how == "reduce":
            def ev(env):
                ys = mapped(env)
                acc = ys[0]
                for y_ in ys[1:]:
                    acc = add(y_, acc)
                return acc
            return (lambda: f"(reduce + 0 (map {lam()} {src[0]()}))"), ev
        if how == "dot":
            def ev(env):
                ys, xs = mapped(env), src[1](env)
                s = const(0)
                for a, b in zip(xs, ys):
                    s = add(s, mul(a, b))
                return s
            # the list source is evaluated twice in VLAD; it is pure
            return (lambda: f"(dot {src[0]()} (map {lam()} {src[0]()}))"), ev
        if how == "magnitude":
            def ev(env):
                s = add(const(0), mul(const(1), const(1)))
                for y_ in mapped(env):
                    s = add(s, mul(y_, y_))
                return sqrt_(s)
            return (lambda: f"(magnitude (cons 1 (map {lam()} {src[0]()})))"), ev
        # map2 of a two-argument closure over the list and its reverse
        p, q = self.fresh("p"), self.fresh("q")
        body2 = self.gen_real(scope + [p, q], d)

        def ev(env):
            xs = src[1](env)
            s = const(0)
            outs = []
            for a, b in zip(xs, list(reversed(xs))):
                env2 = dict(env)
                env2[p], env2[q] = a, b
                outs.append(body2[1](env2))
            # (reduce + 0 l) = (+ x_n (+ ... (+ x_2 x_1)))
            s = outs[0]
            for y_ in outs[1:]:
                s = add(y_, s)
            return s
        return (lambda: f"(let (({v} {src[0]()})) (reduce + 0 (map2 (lambda ({p} {q}) {body2[0]()}) {v} (reverse {v}))))"), ev

    def g_if(self, scope, d):
        r = self.rng
        t = self.gen_real(scope, d - 1)
        a, b = self.gen_real(scope, d), self.gen_real(scope, d)
        cell, test = self.threshold()
        form = r.choice(["<", ">", "pos", "and"])
        if form == "and":
            t2 = self.gen_real(scope, d - 1)
            cell2, test2 = self.threshold()

            def ev(env):
                # (and (< t c) (< t2 c2)): t2 is only evaluated when the first holds
                if test(t[1](env).v) and test2(t2[1](env).v):
                    return a[1](env)
                return b[1](env)
            return (lambda: f"(if (and (< {t[0]()} {thr(cell)}) (< {t2[0]()} {thr(cell2)})) "
                            f"{a[0]()} {b[0]()})"), ev

        def ev(env):
            return a[1](env) if test(t[1](env).v) else b[1](env)
        if form == "<":
            return (lambda: f"(if (< {t[0]()} {thr(cell)}) {a[0]()} {b[0]()})"), ev
        if form == ">":
            return (lambda: f"(if (> {thr(cell)} {t[0]()}) {a[0]()} {b[0]()})"), ev
        return (lambda: f"(if (positive? (- {thr(cell)} {t[0]()})) {a[0]()} {b[0]()})"), ev

    def g_cond(self, scope, d):
        t = self.gen_real(scope, d - 1)
        a, b, c = (self.gen_real(scope, d) for _ in range(3))
        cell1, test1 = self.threshold()
        cell2, test2 = self.threshold()
        tv = self.fresh("s")

        def ev(env):
            v = t[1](env).v
            if test1(v):
                return a[1](env)
            if test2(v):
                return b[1](env)
            return c[1](env)
        return (lambda: f"(let (({tv} {t[0]()})) (cond ((< {tv} {thr(cell1)}) {a[0]()}) "
                        f"((< {tv} {thr(cell2)}) {b[0]()}) (else {c[0]()})))"), ev

    def g_absmax(self, scope, d):
        r = self.rng
        a, b = self.gen_real(scope, d), self.gen_real(scope, d)
        k = r.choice(["abs", "max", "min"])
        if k == "abs":
            def ev(env):
                x = a[1](env)
                self.margins.append(abs(x.v))
                return lin(-x.v, [(-1.0, x)]) if x.v < 0 else x
            return (lambda: f"(abs {a[0]()})"), ev

        def ev(env):
            x, y = a[1](env), b[1](env)
            self.margins.append(abs(x.v - y.v))
            if k == "max":
                return y if x.v < y.v else x
            return y if y.v < x.v else x
        return (lambda: f"({k} {a[0]()} {b[0]()})"), ev

    def g_inner(self, scope, d):
        # nested AD: the derivative, by j* or *j, of a closure over outer
        # values A and C, taken at a point P (all expressions of the scope)
        r = self.rng
        t = self.fresh("t")
        A, C, P = (self.gen_real(scope, d - 1) for _ in range(3))
        op = r.choice(["j*", "*j"])
        k = r.choice(["sin", "exp", "atan"])
        if k == "sin":
            # d/dt C sin(A t) = C A cos(A t)
            fn = lambda: f"(lambda ({t}) (* {C[0]()} (sin (* {A[0]()} {t}))))"

            def ev(env):
                a, c, p = A[1](env), C[1](env), P[1](env)
                return mul(mul(c, a), cos_(mul(a, p)))
        elif k == "exp":
            # d/dt t exp(0.5 sin(A) t) = exp(B t) (1 + B t), B = 0.5 sin A
            fn = lambda: f"(lambda ({t}) (* {t} (exp (* (* 0.5 (sin {A[0]()})) {t}))))"

            def ev(env):
                b, p = mul(const(0.5), sin_(A[1](env))), P[1](env)
                bt = mul(b, p)
                return mul(exp_(bt), add(const(1), bt))
        else:
            # d/dt atan(t, B) = B / (B^2 + t^2), B = 2 + A^2
            fn = lambda: f"(lambda ({t}) (atan {t} (+ 2 (sqr {A[0]()}))))"

            def ev(env):
                b, p = add(const(2), sq(A[1](env))), P[1](env)
                return div(b, add(sq(b), sq(p)))
        return (lambda: f"(cadr ({op} {fn()} {P[0]()} 1))"), ev

    def g_loop(self, scope, d):
        # (let loop ((i 0) (acc E0)) (if (= i K) acc (loop (+ i 1) STEP)))
        r = self.rng
        lp, i, acc = self.fresh("loop"), self.fresh("i"), self.fresh("acc")
        K = r.randint(2, 4)
        e0 = self.gen_real(scope, d - 1)
        step = self.gen_real(scope + [acc, acc, i], d - 1)
        w = self.num(0.3, 0.7)

        def ev(env):
            a = e0[1](env)
            for k in range(K):
                env2 = dict(env)
                env2[acc], env2[i] = a, const(k)
                a = add(mul(const(w), a), mul(const(0.5), sin_(step[1](env2))))
            return a
        return (lambda: f"(let {lp} (({i} 0) ({acc} {e0[0]()})) (if (= {i} {K}) {acc} "
                        f"({lp} (+ {i} 1) (+ (* {fmt(w)} {acc}) (* 0.5 (sin {step[0]()}))))))"), ev

    def g_loop2(self, scope, d):
        # a countdown loop carrying a pair of accumulators
        r = self.rng
        lp, k_, a_, b_ = self.fresh("loop"), self.fresh("k"), self.fresh("a"), self.fresh("b")
        K = r.randint(2, 4)
        ea, eb = self.gen_real(scope, d - 1), self.gen_real(scope, d - 1)
        sa = self.gen_real(scope + [a_, b_], d - 1)

        def ev(env):
            a, b = ea[1](env), eb[1](env)
            for _ in range(K):
                env2 = dict(env)
                env2[a_], env2[b_] = a, b
                na = add(mul(const(0.5), b), mul(const(0.5), cos_(sa[1](env2))))
                nb = mul(const(0.5), sub(a, b))
                a, b = na, nb
            return add(a, mul(const(2), b))
        return (lambda: f"(let {lp} (({k_} {K}) ({a_} {ea[0]()}) ({b_} {eb[0]()})) "
                        f"(if (= {k_} 0) (+ {a_} (* 2 {b_})) "
                        f"({lp} (- {k_} 1) (+ (* 0.5 {b_}) (* 0.5 (cos {sa[0]()}))) (* 0.5 (- {a_} {b_})))))"), ev

    def g_rec(self, scope, d):
        # non-tail recursion: r(k, z) = z if k = 0 else 0.7 r(k-1, sin(STEP)) + 0.3 cos z
        r = self.rng
        rn, k_, z = self.fresh("r"), self.fresh("k"), self.fresh("z")
        K = r.randint(2, 5)
        e0 = self.gen_real(scope, d - 1)
        step = self.gen_real(scope + [z, z], d - 1)

        def rec(env, k, zv):
            if k == 0:
                return zv
            env2 = dict(env)
            env2[z] = zv
            inner = rec(env, k - 1, sin_(step[1](env2)))
            return add(mul(const(0.7), inner), mul(const(0.3), cos_(zv)))
        return (lambda: f"(letrec (({rn} (lambda ({k_} {z}) (if (= {k_} 0) {z} "
                        f"(+ (* 0.7 ({rn} (- {k_} 1) (sin {step[0]()}))) (* 0.3 (cos {z}))))))) "
                        f"({rn} {K} {e0[0]()}))"), (lambda env: rec(env, K, e0[1](env)))


def sq(x):
    return mul(x, x)


def weighted(rng, items):
    total = sum(w for _, w in items)
    x = rng.uniform(0, total)
    for k, w in items:
        x -= w
        if x <= 0:
            return k
    return items[-1][0]


def thr(cell):
    """A threshold as VLAD source; 0 when the test was never reached at the
    test point (nor, by the margins, anywhere near it)."""
    return fmt(0 if cell["c"] is None else cell["c"])


def fmt(c):
    """A real as VLAD source (shortest round-trip form)."""
    c = float(c)
    if c == int(c) and abs(c) < 1e15:
        return str(int(c))
    return repr(c)


# ===== Whole functions =====

def make_header(rng, name, n):
    """(define-head, variable names, input-list name or None)"""
    xs = [f"x{i + 1}" for i in range(n)]
    style = rng.choice(["pattern", "let", "access", "cons"])
    if style == "pattern":
        return f"(define ({name} (list {' '.join(xs)}))", xs, None, ")"
    if style == "let":
        return (f"(define ({name} xs)\n  (let (((list {' '.join(xs)}) xs))", xs, "xs", "))")
    if style == "access":
        acc = ["(car xs)", "(cadr xs)", "(caddr xs)", "(list-ref xs 3)"]
        binds = " ".join(f"({x} {acc[i]})" for i, x in enumerate(xs))
        return f"(define ({name} xs)\n  (let ({binds})", xs, "xs", "))"
    pat = "'()"
    for x in reversed(xs):
        pat = f"(cons {x} {pat})"
    return f"(define {name}\n  (lambda ({pat})", xs, None, "))"


def evaluate(ev, n, x0):
    """Value (D) of the function at x0 with gradient seeds."""
    env = {}
    for i in range(n):
        g = [0.0] * n
        g[i] = 1.0
        env[f"x{i + 1}"] = D(x0[i], g, list(g))
    env["xs"] = [env[f"x{i + 1}"] for i in range(n)]
    return ev(env)


def plain(ev, n, x):
    env = {}
    for i in range(n):
        env[f"x{i + 1}"] = D(x[i], [0.0] * n, [0.0] * n)
    env["xs"] = [env[f"x{i + 1}"] for i in range(n)]
    return ev(env)


def fd_grad(scalar, n, x0):
    out = []
    for i in range(n):
        h = 1e-6 * max(1.0, abs(x0[i]))
        xp, xm = list(x0), list(x0)
        xp[i] += h
        xm[i] -= h
        out.append((scalar(xp) - scalar(xm)) / (xp[i] - xm[i]))
    return out


def close(a, b, rtol, atol):
    return abs(a - b) <= max(atol, rtol * max(abs(a), abs(b)))


def gen_body(rng, gen, scope, vector):
    """Real-valued body, or for vector functions an output tree."""
    depth = rng.randint(3, 5)
    if not vector:
        return gen.gen_real(scope, depth)
    # an output tree: reals (some constant), booleans, () and pairs
    shape = rng.choice(["list3", "pair", "nested", "list2c", "deep"])
    es = [gen.gen_real(scope, rng.randint(2, 4)) for _ in range(4)]
    c = gen.num()
    if shape == "list3":
        return ((lambda: f"(list {es[0][0]()} {es[1][0]()} {es[2][0]()})"),
                (lambda env: [es[0][1](env), es[1][1](env), es[2][1](env)]))
    if shape == "pair":
        return ((lambda: f"(cons {es[0][0]()} {es[1][0]()})"),
                (lambda env: ("pair", es[0][1](env), es[1][1](env))))
    if shape == "nested":
        return ((lambda: f"(list {es[0][0]()} #t (cons {es[1][0]()} {es[2][0]()}) '())"),
                (lambda env: [es[0][1](env), True, ("pair", es[1][1](env), es[2][1](env)), []]))
    if shape == "list2c":
        # a real that does not depend on the input: tangent 0
        return ((lambda: f"(list {es[0][0]()} {fmt(c)} {es[1][0]()} #f)"),
                (lambda env: [es[0][1](env), const(c), es[1][1](env), False]))
    return ((lambda: f"(list (list {es[0][0]()} (list {es[1][0]()})) (cons {es[2][0]()} {es[3][0]()}))"),
            (lambda env: [[es[0][1](env), [es[1][1](env)]], ("pair", es[2][1](env), es[3][1](env))]))


def leaves(t):
    """Real leaves (D) of an output tree, left to right."""
    if isinstance(t, D):
        return [t]
    if isinstance(t, tuple):
        return leaves(t[1]) + leaves(t[2])
    if isinstance(t, list):
        out = []
        for x in t:
            out += leaves(x)
        return out
    return []


def tree_code(t, reals):
    """VLAD datum text of a tree shaped like t with the given real leaves."""
    it = iter(reals)

    def go(x):
        if isinstance(x, D):
            return fmt(next(it))
        if isinstance(x, tuple):
            return f"({go(x[1])} . {go(x[2])})"
        if isinstance(x, list):
            return "(" + " ".join(go(y) for y in x) + ")"
        if x is True:
            return "#t"
        if x is False:
            return "#f"
        raise AssertionError(x)
    return go(t)


def try_function(rng, name, mode):
    """mode: "grad" (real-valued, gradient checks), "jac" (tree-valued,
    JVP/VJP checks) or "ckpt" (real-valued, checkpoint identities)."""
    vector = mode == "jac"
    global N
    n = rng.randint(2, 4)
    N = n
    gen = Gen(rng)
    head, scope, xs, close_ = make_header(rng, name, n)
    gen.xs = xs
    body = gen_body(rng, gen, list(scope), vector)
    x0 = [round(rng.uniform(-1.5, 1.5), 3) for _ in range(n)]
    try:
        y = evaluate(body[1], n, x0)
        if vector:
            ls = leaves(y)
            u = [round(rng.uniform(-1, 1), 2) for _ in ls]
            v = [round(rng.uniform(-1, 1), 2) for _ in range(n)]
            # d = u . J v ; the absolute version bounds the rounding
            d = sum(ui * sum(l.g[i] * v[i] for i in range(n)) for ui, l in zip(u, ls))
            da = sum(abs(ui) * sum(l.a[i] * abs(v[i]) for i in range(n)) for ui, l in zip(u, ls))
            if da > 30 * max(1.0, abs(d)):
                raise Reject("cancellation")
            for l in ls:
                if abs(l.v) > 50 or any(abs(g) > 200 for g in l.g):
                    raise Reject("magnitude")

            def scalar(x):
                return sum(ui * l.v for ui, l in zip(u, leaves(plain(body[1], n, x))))
            h = 1e-6
            xp = [x0[i] + h * v[i] for i in range(n)]
            xm = [x0[i] - h * v[i] for i in range(n)]
            fd = (scalar(xp) - scalar(xm)) / (2 * h)
            if not close(fd, d, 1e-7, 1e-8):
                raise Reject("fd")
        else:
            if abs(y.v) > 50 or any(abs(g) > 200 for g in y.g):
                raise Reject("magnitude")
            for g, a in zip(y.g, y.a):
                if a > 30 * max(1.0, abs(g)):
                    raise Reject("cancellation")
            fd = fd_grad(lambda x: plain(body[1], n, x).v, n, x0)
            if not all(close(f, g, 1e-7, 1e-8) for f, g in zip(fd, y.g)):
                raise Reject("fd")
        if gen.margins and min(gen.margins) < MARGIN:
            raise Reject("threshold")
    except Reject as e:
        return None, str(e)
    except (OverflowError, ZeroDivisionError, ValueError) as e:
        return None, "math"
    code = f"{head}\n    {body[0]()}{close_}"
    # no trivial functions: a body of some size that depends on 2+ inputs
    grads = [l.g for l in leaves(y)]
    used = sum(1 for i in range(n) if any(g[i] != 0 for g in grads))
    if len(code) < 160 or used < 2:
        return None, "trivial"
    xlit = "'(" + " ".join(fmt(c) for c in x0) + ")"
    if mode in ("ckpt", "ckpt-nested", "ckpt-cpj"):
        xt = [round(rng.uniform(-1, 1), 2) for _ in range(n)]
        yb = round(rng.uniform(0.5, 2), 2)
        target = name
        if mode == "ckpt-nested":
            # d/dt f(t x) at t = 1 by an inner j* or *j, so that the
            # checkpoints of the identities fall inside it (vm/ad/ad.c,
            # through_tape and suspended duals)
            op = rng.choice(["*j", "j*"])
            target = name + "n"
            code += (f"\n(define ({target} xs)\n  (cadr ({op} (lambda (t) "
                     f"({name} (map (lambda (v) (* v t)) xs))) 1 1)))")
        elif mode == "ckpt-cpj":
            # the same by checkpoint-*j, whose procedure captures xs: the
            # reals of xs are constants to it, plain in one run of the
            # identities and perturbed in another, and its own *j must
            # record the same tape in both (limitation L2 of
            # doc/hardening.md, fixed)
            target = name + "c"
            code += (f"\n(define ({target} xs)\n  (cadr (checkpoint-*j (lambda (t) "
                     f"({name} (map (lambda (v) (* v t)) xs))) 1 1)))")
        return (code, f"(ad-check-checkpoint {target} {xlit} '({' '.join(fmt(c) for c in xt)}) {fmt(yb)})"), None
    if mode == "ckpt-reuse":
        # h runs f (or d/dt f(t x) at t = 1 by an inner *j, j* or
        # checkpoint-*j) under j*, and once go is #t also returns a second
        # execution of the checkpoint u of that run, suspended inside the
        # first: its derivative and the first's must be those of the run
        # without checkpoints, for u taken at several steps
        xt = [round(rng.uniform(-1, 1), 2) for _ in range(n)]
        inner = rng.choice(["", "*j", "j*", "checkpoint-*j"])
        call = (f"({name} xs)" if not inner else
                f"(cadr ({inner} (lambda (t) ({name} (map (lambda (v) (* v t)) "
                f"xs))) 1 1))")
        ks = sorted(set([1, 2, 3, rng.randint(4, 12), rng.randint(13, 40)]))
        xtl = "'(" + " ".join(fmt(c) for c in xt) + ")"
        code += (f"\n(define ({name}h0 xs) (list {call} 0))"
                 f"\n(define {name}d (car (cadr (j* {name}h0 {xlit} {xtl}))))")
        for k in ks:
            code += (f"\n(define ({name}h{k} xs) (list {call} (if go (checkpoint "
                     f"resume {name}u{k} 3) 0)))"
                     f"\n(define {name}u{k} (checkpoint (lambda (xs) (j* {name}h{k} "
                     f"xs {xtl})) {xlit} {k}))")
        us = " ".join(f"{name}u{k}" for k in ks)
        return (code, f"(ad-reuse-ok? (list {us}) {name}d)"), None
    if vector:
        return (code, f"(ad-check-jvp-vjp {name} {xlit} '{tree_code(y, u)} '({' '.join(fmt(c) for c in v)}) {fmt(d)})"), None
    return (code, f"(ad-check-gradient {name} {xlit} {fmt(y.v)} '({' '.join(fmt(g) for g in y.g)}))"), None


def write_file(outdir, fname, seed, count, mode):
    rng = random.Random(seed)
    parts = []
    checks = []
    reasons = {}
    k = 0
    while k < count:
        name = f"{'g' if mode == 'jac' else 'f'}{k + 1}"
        res, why = try_function(rng, name, mode)
        if res is None:
            reasons[why] = reasons.get(why, 0) + 1
            continue
        k += 1
        code, check = res
        if mode == "ckpt-reuse":
            parts.append(f"{code}\n")
            checks.append(f"(define r{k} (write {check}))\n")
        else:
            parts.append(f"{code}\n(define r{k} (write {check}))\n")
    kind = {"jac": "tree-valued functions:\n;;; u . (J v) by j* against (J^T u) . v by *j,\n"
                   ";;; and both against the generator's exact values and central finite\n"
                   ";;; differences)",
            "grad": "real-valued functions:\n;;; the gradient by j* against *j, and both against the generator's exact\n"
                    ";;; values and central finite differences)",
            "ckpt": "real-valued functions:\n;;; j* and *j through checkpoint and resume at every step k, see\n"
                    ";;; ad-ck-identities in ad-lib.vlad)",
            "ckpt-nested": "real-valued functions,\n;;; each differentiated inside: fN(x) = d/dt f(t x) at t = 1 by j* or\n"
                           ";;; *j; j* and *j of fN through checkpoint and resume at every step k,\n"
                           ";;; which falls inside that inner j* or *j, see ad-ck-identities in\n"
                           ";;; ad-lib.vlad)",
            "ckpt-reuse": "real-valued functions,\n;;; each run by h under j* as f or d/dt f(t x) at t = 1 by an inner\n"
                          ";;; *j, j* or checkpoint-*j; u = the checkpoint of that run at a few\n"
                          ";;; steps, and h, once go is #t, returns a second execution of u\n"
                          ";;; suspended inside the first: both must give the derivative of the\n"
                          ";;; run without checkpoints, see ad-reuse-ok? in ad-lib.vlad)",
            "ckpt-cpj": "real-valued functions,\n;;; each differentiated inside: fN(x) = d/dt f(t x) at t = 1 by\n"
                        ";;; checkpoint-*j of a closure over x; j* and *j of fN through\n"
                        ";;; checkpoint and resume at every step k, which falls inside\n"
                        ";;; checkpoint-*j's own *j too, see ad-ck-identities in ad-lib.vlad)"}[mode]
    head = (f";;; tests/ad/{fname}.vlad -- random AD property test ({count} {kind}.\n"
            f";;; GENERATED by gen-random.py (seed {seed}); do not edit,\n"
            f";;; re-run the generator.  Each check prints #t (or (-1 CODE ...) saying\n"
            f";;; which comparison failed, see ad-lib.vlad); the last line is the number\n"
            f";;; of functions that passed.\n"
            f"(include \"ad-lib\")\n\n")
    tail = "\n(ad-count-true (list " + " ".join(f"r{i + 1}" for i in range(count)) + "))\n"
    if mode == "ckpt-reuse":
        parts = ["(define go #f)\n"] + parts + ["(define go #t)\n"] + checks
    with open(os.path.join(outdir, fname + ".vlad"), "w") as fh:
        fh.write(head + "\n".join(parts) + tail)
    with open(os.path.join(outdir, fname + ".out"), "w") as fh:
        fh.write("#t\n" * count + f"{count}\n")
    return reasons


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    plan = [("random-grad-1", 1001, 100, "grad"), ("random-grad-2", 1002, 100, "grad"),
            ("random-grad-3", 1003, 100, "grad"), ("random-grad-4", 1004, 100, "grad"),
            ("random-jac-1", 2001, 60, "jac"), ("random-jac-2", 2002, 60, "jac"),
            ("random-ckpt-1", 3001, 40, "ckpt"),
            ("random-ckpt-2", 3002, 40, "ckpt-nested"),
            ("random-ckpt-3", 3003, 20, "ckpt-cpj"),
            ("random-ckpt-4", 3004, 20, "ckpt-reuse")]
    for fname, seed, count, mode in plan:
        reasons = write_file(outdir, fname, seed, count, mode)
        if os.environ.get("GEN_VERBOSE"):
            print(fname, "rejected:", reasons, file=sys.stderr)


if __name__ == "__main__":
    main()
