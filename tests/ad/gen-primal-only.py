#!/usr/bin/env python3
"""tests/ad/gen-primal-only.py -- generate the random tests of primal-only
arithmetic.

usage: python3 gen-primal-only.py [OUTDIR]   (default: this script's directory)

Writes primal-only-random-1.vlad and primal-only-random-2.vlad (and their
.out): random procedures of one real whose intermediate values are compared,
let-bound, passed through calls, captured by closures, returned, and held
while steps run.  The compiler's primal-only analysis (vm/core/compile.c,
compute_liveness) lets an arithmetic operation whose result is only ever
compared, with no step while it is live, skip its dual and its tape node.
Each procedure comes in two versions: as generated, and "kept", where every
arithmetic result goes through a pair, (car (cons E 0)), which the analysis
takes as a use of the value: nothing is primal-only there, and the step
counts are the same (car, cdr and cons are not steps).  The test requires,
bit for bit (derivatives to 1e-12 relative):
  - (j* f x 1) and (*j f x y`) equal the kept version's;
  - for every k from 0 to n + 1 (n: f's step count), the tangent of the
    checkpoint (checkpoint f x k) under j*, resumed as a computation, gives
    the kept version's result (a plain value held by a checkpoint would
    have lost its tangent);
  - the checkpoint identities of ad-ck-identities (ad-lib.vlad) hold for
    every k (a plain value held by a checkpoint would lose its cotangent).
Only + - * sin cos and comparisons: no operation whose partial can be
infinite, so that skipping a node whose cotangent is zero changes nothing.
The results, #t per procedure, are printed as a list, then the number
that passed.  The
output is deterministic (fixed seeds).
"""
import os
import random
import sys

HELPERS = """\
(define (po-id v) v)
(define (po-h a b) (+ (* a 0.5) b))
(define (po-check f g x rev? yb)
  (let* ((n (cadr (primops f x)))
         (ok1 (ad-same-pair? (j* f x 1) (j* g x 1)))
         (ok2 (or (not rev?) (ad-same-pair? (*j f x yb) (*j g x yb))))
         (ok3 (let loop ((k 0) (ok #t))
                (if (> k (+ n 1))
                    ok
                    (loop (+ k 1)
                          (and ok
                               (let (((list u ut) (j* (lambda (z) (checkpoint f z k)) x 1))
                                     ((list v vt) (j* (lambda (z) (checkpoint g z k)) x 1)))
                                 (ad-same-primal? (resume ut) (resume vt))))))))
         (ok4 (or (not rev?) (ad-all-true? (cdr (ad-ck-identities f x 1 yb))))))
    (if (and ok1 ok2 ok3 ok4) #t (list -1 ok1 ok2 ok3 ok4))))
"""


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.fresh = 0

    def name(self, prefix):
        self.fresh += 1
        return "%s%d" % (prefix, self.fresh)

    # A real expression: (plain, kept) texts.
    def real(self, env, depth):
        r = self.rng.random()
        if depth <= 0 or r < 0.25:
            if env["reals"] and self.rng.random() < 0.8:
                v = self.rng.choice(env["reals"])
                return v, v
            c = "%.2f" % self.rng.uniform(-2, 2)
            return c, c
        r = self.rng.random()
        if r < 0.45:
            op = self.rng.choice(["+", "-", "*"])
            a, ak = self.real(env, depth - 1)
            b, bk = self.real(env, depth - 1)
            return self.arith("(%s %s %s)" % (op, a, b), "(%s %s %s)" % (op, ak, bk))
        if r < 0.6:
            op = self.rng.choice(["sin", "cos"])
            a, ak = self.real(env, depth - 1)
            return self.arith("(%s %s)" % (op, a), "(%s %s)" % (op, ak))
        if r < 0.7:
            a, ak = self.real(env, depth - 1)
            return "(po-id %s)" % a, "(po-id %s)" % ak
        if r < 0.8 and env["procs"]:
            g = self.rng.choice(env["procs"])
            a, ak = self.real(env, depth - 1)
            return "(%s %s)" % (g, a), "(%s %s)" % (g, ak)
        if r < 0.9:
            t, tk = self.test(env, depth - 1)
            a, ak = self.real(env, depth - 1)
            b, bk = self.real(env, depth - 1)
            return "(if %s %s %s)" % (t, a, b), "(if %s %s %s)" % (tk, ak, bk)
        k = "%.2f" % self.rng.uniform(-2, 2)
        a, ak = self.real(env, depth - 1)
        return self.arith("(* %s %s)" % (k, a), "(* %s %s)" % (k, ak))

    @staticmethod
    def arith(plain, kept):
        return plain, "(car (cons %s 0))" % kept

    def test(self, env, depth):
        r = self.rng.random()
        a, ak = self.real(env, depth)
        if r < 0.5:
            op = self.rng.choice(["<", ">", "<=", ">=", "="])
            b, bk = self.real(env, depth)
            return "(%s %s %s)" % (op, a, b), "(%s %s %s)" % (op, ak, bk)
        if r < 0.8:
            p = self.rng.choice(["zero?", "positive?", "negative?"])
            return "(%s %s)" % (p, a), "(%s %s)" % (p, ak)
        b, bk = self.real(env, depth)
        op = self.rng.choice(["<", ">"])
        c = "%.2f" % self.rng.uniform(-1, 1)
        return ("(or (%s %s %s) (> %s %s))" % (op, a, c, b, c),
                "(or (%s %s %s) (> %s %s))" % (op, ak, c, bk, c))

    # A body: (plain, kept, kind) where kind is 'real', 'bool' or 'proc'.
    def body(self, env, depth):
        r = self.rng.random()
        if depth <= 0 or r < 0.15:
            return self.leaf(env)
        if r < 0.4:
            v = self.name("v")
            e, ek = self.real(env, 2)
            b, bk, kind = self.body(dict(env, reals=env["reals"] + [v]), depth - 1)
            return ("(let ((%s %s)) %s)" % (v, e, b),
                    "(let ((%s %s)) %s)" % (v, ek, bk), kind)
        if r < 0.5:
            v, w = self.name("v"), self.name("w")
            e, ek = self.real(env, 2)
            f, fk = self.real(env, 1)
            b, bk, kind = self.body(dict(env, reals=env["reals"] + [v, w]), depth - 1)
            return ("(let ((%s %s) (%s (po-id %s))) %s)" % (v, e, w, f, b),
                    "(let ((%s %s) (%s (po-id %s))) %s)" % (v, ek, w, fk, bk), kind)
        if r < 0.7:
            t, tk = self.test(env, 2)
            kind = self.rng.choice(["real", "real", "bool", "proc"])
            a, ak, _ = self.body_of(env, depth - 1, kind)
            b, bk, _ = self.body_of(env, depth - 1, kind)
            return ("(if %s %s %s)" % (t, a, b), "(if %s %s %s)" % (tk, ak, bk), kind)
        if r < 0.85:
            g, z = self.name("g"), self.name("z")
            inner = dict(env, reals=env["reals"] + [z])
            t, tk = self.test(inner, 1)
            a, ak = self.real(inner, 1)
            b, bk, kind = self.body(dict(env, procs=env["procs"] + [g]), depth - 1)
            return ("(let ((%s (lambda (%s) (if %s %s %s)))) %s)" % (g, z, t, a, z, b),
                    "(let ((%s (lambda (%s) (if %s %s %s)))) %s)" % (g, z, tk, ak, z, bk),
                    kind)
        v = self.name("v")
        t, tk = self.test(env, 1)
        a, ak = self.real(env, 1)
        b, bk = self.real(env, 1)
        c, ck, kind = self.body(dict(env, reals=env["reals"] + [v]), depth - 1)
        return ("(let ((%s (if %s %s %s))) %s)" % (v, t, a, b, c),
                "(let ((%s (if %s %s %s))) %s)" % (v, tk, ak, bk, ck), kind)

    def body_of(self, env, depth, kind):
        while True:
            b = self.body(env, depth)
            if b[2] == kind:
                return b

    def leaf(self, env):
        r = self.rng.random()
        if r < 0.55:
            a, ak = self.real(env, 2)
            return a, ak, "real"
        if r < 0.7:
            a, ak = self.real(env, 1)
            b, bk = self.real(env, 1)
            return "(po-h %s %s)" % (a, b), "(po-h %s %s)" % (ak, bk), "real"
        if r < 0.85:
            t, tk = self.test(env, 2)
            return t, tk, "bool"
        z = self.name("z")
        inner = dict(env, reals=env["reals"] + [z])
        t, tk = self.test(inner, 1)
        a, ak = self.real(inner, 1)
        b, bk = self.real(inner, 1)
        return ("(lambda (%s) (if %s %s %s))" % (z, t, a, b),
                "(lambda (%s) (if %s %s %s))" % (z, tk, ak, bk), "proc")


def write_file(outdir, fname, seed, count):
    rng = random.Random(seed)
    g = Gen(rng)
    lines = [";;; tests/ad/%s.vlad -- GENERATED by gen-primal-only.py (seed %d): do not edit"
             % (fname, seed),
             ";;; See gen-primal-only.py for what is checked.",
             '(include "ad-lib")', HELPERS]
    checks = []
    for n in range(count):
        plain, kept, kind = g.body({"reals": ["x"], "procs": []}, 4)
        f, k = "pf%d" % n, "pk%d" % n
        lines.append("(define (%s x) %s)" % (f, plain))
        lines.append("(define (%s x) %s)" % (k, kept))
        # the cotangent of a real result: 1; of a boolean: the boolean; a
        # procedure's would be a closure: *j is checked on reals and booleans
        x = "%.2f" % rng.uniform(-1.5, 1.5)
        yb = {"real": "1", "bool": "(%s %s)" % (f, x), "proc": "#f"}[kind]
        rev = "#f" if kind == "proc" else "#t"
        checks.append("(po-check %s %s %s %s %s)" % (f, k, x, rev, yb))
    lines.append("(define po-results (list")
    lines.extend("  " + c for c in checks)
    lines.append("))")
    lines.append("(define (po-count rs) (if (null? rs) 0 (+ (if (and (boolean? (car rs)) (car rs)) 1 0) (po-count (cdr rs)))))")
    lines.append("po-results")
    lines.append("(po-count po-results)")
    with open(os.path.join(outdir, fname + ".vlad"), "w") as out:
        out.write("\n".join(lines) + "\n")
    with open(os.path.join(outdir, fname + ".out"), "w") as out:
        out.write("(" + " ".join(["#t"] * count) + ")\n%d\n" % count)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for fname, seed, count in [("primal-only-random-1", 5001, 80),
                               ("primal-only-random-2", 5002, 80)]:
        write_file(outdir, fname, seed, count)


if __name__ == "__main__":
    main()
