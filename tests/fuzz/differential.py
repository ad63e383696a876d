#!/usr/bin/env python3
"""tests/fuzz/differential.py -- *j against checkpoint-*j on random programs

Generates random well-formed VLAD procedures f (of a real, or of a list of
one to three reals, returning a real or a list of reals) from a small
grammar: arithmetic and math primitives, if/cond, let, lambda, named-let
loops, non-tail recursion, lists with map/reduce, closures, tuples, nested
j* / *j / checkpoint-*j, primops / checkpoint / resume, and write-real
inside f.  The programs go into batch files; each batch runs in one vlad
process under a checkpoint-*j strategy (--checkpoint=SPEC) drawn at
random: bisection or binomial, slots 1..8 or automatic, base 1..50 or the
default.  For each program the batch prints a marker, (*j f x y`), a
second marker, (checkpoint-*j f x y`), and this script checks that

  - y is identical (bit for bit: the printed reals are the shortest
    round-trip forms; NaN equals NaN),
  - x` agrees within 1e-9 relative, or 1e-9 absolute below 1 (the order
    of the sums differs: a derivative that cancels to about 0 may come out
    as 1e-16 one way and 0 the other),
  - f printed the same lines under both (write-real exactly once),
  - neither run failed (the programs are well formed and terminate).

A mismatch prints the program, the point, the strategy and both results,
and writes a stand-alone reproducer (differential-fail-N.vlad, with the
SPEC in its first line) to the output directory.

usage: differential.py [--programs N] [--batch N] [--seed S] [--keep]
                       [--finite-only] [--vlad PATH] [--outdir DIR] [-v]

Defaults: 2400 programs in batches of 200, seed 1 (make check runs 4000
through run-differential.sh).  A longer manual run: differential.py --programs 100000 --seed 7.
Exit status 0 when everything agreed, 1 on a mismatch, 77 when vlad is
missing, 99 on a harness error.  The last line is "N passed, N failed".
"""

import argparse
import math
import os
import random
import re
import subprocess
import sys

CONSTANTS = ["0", "1", "-1", "2", "0.5", "3", "-2.5", "0.001", "10", "0.1",
             "-0.75", "1.5"]
POINTS = ["0.5", "1", "-1.5", "2", "0.1", "3", "-0.3", "1.25", "-2", "0.7"]
UNARY = ["sin", "cos", "exp", "sqrt", "log", "floor", "abs", "sqr", "real"]
SAFE_UNARY = ["sin", "cos", "abs", "sqr", "real"]
BINARY = ["+", "-", "*", "/", "atan", "expt", "max", "min", "modulo"]
CMP = ["<", ">", "<=", ">=", "="]


class Gen:
    """A random procedure body, as text, over the real variables in scope."""

    def __init__(self, rng, tame):
        self.rng = rng
        self.fresh = 0
        self.nodes = 0
        # tame: avoid the primitives that make infinities and NaNs easily
        # (log, sqrt, /, expt, exp), for --finite-only runs
        self.tame = tame

    def name(self, prefix):
        self.fresh += 1
        return "%s%d" % (prefix, self.fresh)

    def leaf(self, scope):
        if scope and self.rng.random() < 0.75:
            return self.rng.choice(scope)
        return self.rng.choice(CONSTANTS)

    def lam(self, depth, scope):
        v = self.name("v")
        return "(lambda (%s) %s)" % (v, self.real(depth, scope + [v]))

    def lst(self, depth, scope):
        k = self.rng.randrange(4)
        if k == 0 or depth <= 0:
            n = self.rng.randint(1, 4)
            return "(list %s)" % " ".join(self.real(depth - 1, scope)
                                          for _ in range(n))
        if k == 1:
            return "(map %s %s)" % (self.lam(depth - 1, scope),
                                    self.lst(depth - 1, scope))
        if k == 2:
            return "(cons %s %s)" % (self.real(depth - 1, scope),
                                     self.lst(depth - 1, scope))
        return "(reverse %s)" % self.lst(depth - 1, scope)

    def real(self, depth, scope):
        self.nodes += 1
        r = self.rng
        if depth <= 0 or self.nodes > 150:
            return self.leaf(scope)
        d = depth - 1
        k = r.randrange(23)
        if k < 2:
            return self.leaf(scope)
        if k < 5:
            op = r.choice(["+", "-", "*"])
            return "(%s %s %s)" % (op, self.real(d, scope), self.real(d, scope))
        if k == 5:
            op = r.choice(["+", "-", "*", "atan", "max", "min"] if self.tame
                          else BINARY)
            return "(%s %s %s)" % (op, self.real(d, scope), self.real(d, scope))
        if k < 8:
            op = r.choice(SAFE_UNARY if self.tame else UNARY)
            return "(%s %s)" % (op, self.real(d, scope))
        if k == 8:
            return "(if (%s %s %s) %s %s)" % (
                r.choice(CMP), self.real(d, scope), self.real(d, scope),
                self.real(d, scope), self.real(d, scope))
        if k == 9:
            v = self.name("v")
            return "(let ((%s %s)) %s)" % (v, self.real(d, scope),
                                           self.real(d, scope + [v]))
        if k == 10:
            return "(%s %s)" % (self.lam(d, scope), self.real(d, scope))
        if k == 11:
            loop, i, acc = self.name("loop"), self.name("i"), self.name("acc")
            n = r.randint(1, 20)
            return "(let %s ((%s 0) (%s %s)) (if (< %s %d) (%s (+ %s 1) %s) %s))" % (
                loop, i, acc, self.real(d, scope), i, n, loop, i,
                self.real(d, scope + [i, acc]), acc)
        if k == 12:
            f, n, a = self.name("rec"), self.name("n"), self.name("a")
            depth_n = r.randint(1, 20)
            return ("(letrec ((%s (lambda (%s %s) (if (<= %s 0) %s (%s %s (%s (- %s 1) %s))))))"
                    " (%s %d %s))") % (
                f, n, a, n, a, r.choice(["+", "-", "*"]),
                self.real(d, scope + [a]), f, n, a, f, depth_n,
                self.real(d, scope))
        if k == 13:
            return "(reduce + 0 %s)" % self.lst(d, scope)
        if k == 14:
            return "(car %s)" % self.lst(d, scope)
        if k == 15:
            op = r.choice(["(cadr (j* ", "(cadr (*j ", "(cadr (checkpoint-*j ",
                           "(car (*j ", "(car (checkpoint-*j "])
            return "%s%s %s 1))" % (op, self.lam(d, scope), self.real(d, scope))
        if k == 16:
            return "(resume (checkpoint %s %s %d))" % (
                self.lam(d, scope), self.real(d, scope), r.randrange(40))
        if k == 17:
            return "(car (primops %s %s))" % (self.lam(d, scope),
                                              self.real(d, scope))
        if k == 18:
            return "(write-real %s)" % self.real(d, scope)
        if k == 19:
            h = self.name("h")
            return "(let ((%s %s)) (%s (%s %s)))" % (
                h, self.lam(d, scope), h, h, self.real(d, scope))
        if k == 20:
            p, q = self.name("p"), self.name("q")
            return "((lambda (%s %s) %s) %s %s)" % (
                p, q, self.real(d, scope + [p, q]), self.real(d, scope),
                self.real(d, scope))
        if k == 21:
            g, v = self.name("d"), self.name("v")
            return "((lambda () (define (%s %s) %s) (%s %s)))" % (
                g, v, self.real(d, scope + [v]), g, self.real(d, scope))
        return "(cond ((%s %s 0) %s) (else %s))" % (
            r.choice(CMP), self.real(d, scope), self.real(d, scope),
            self.real(d, scope))


def make_program(rng, k, tame):
    """Text defining p<k>-f, p<k>-x and p<k>-ybar, and whether f takes a
    checkpoint around *j or checkpoint-*j."""
    g = Gen(rng, tame)
    nx = rng.choice([0, 0, 1, 2, 3])
    depth = rng.randint(2, 5)
    if nx == 0:
        scope = ["x"]
        params = "x"
        point = rng.choice(POINTS)
    else:
        scope = ["x%d" % i for i in range(nx)]
        params = "(list %s)" % " ".join(scope)
        point = "'(%s)" % " ".join(rng.choice(POINTS) for _ in range(nx))
    ny = rng.choice([1, 1, 1, 2])
    if ny == 1:
        body = g.real(depth, scope)
        ybar = rng.choice(["1", "1", "-2", "0.5"])
    else:
        body = "(list %s %s)" % (g.real(depth, scope), g.real(depth, scope))
        ybar = "'(%s %s)" % (rng.choice(["1", "-1", "0.5"]),
                             rng.choice(["1", "2", "0"]))
    text = ("(define (p%d-f %s)\n  %s)\n(define p%d-x %s)\n"
            "(define p%d-ybar %s)\n" % (k, params, body, k, point, k, ybar))
    return text


def spill_spec(rng, outdir):
    # spill=DIR with fixed slots (every held state but the newest goes to
    # the file in outdir, and comes back when used), or under a budget
    base = rng.choice([1, 2, 3, 5])
    if rng.random() < 0.25:
        return "binomial,budget=%s,base=%d,spill=%s" % (
            rng.choice(["16k", "64k", "256k", "1M"]), base, outdir)
    slots = rng.choice([3, 4, 8, 16])
    return "binomial,slots=%d,base=%d,spill=%s" % (slots, base, outdir)


def random_spec(rng):
    kind = rng.choice(["bisection", "binomial", "binomial", "default"])
    base = rng.choice([1, 1, 2, 3, 5, 10, 50])
    if kind == "default":
        return ""
    if kind == "bisection":
        return "bisection,base=%d" % base
    slots = rng.choice([0, 1, 2, 3, 4, 8])
    if slots == 0:
        return "binomial,base=%d" % base
    if slots == 1:
        base = max(base, 10)    # one slot is quadratic: keep it quick
    elif slots == 2:
        base = max(base, 3)
    return "binomial,slots=%d,base=%d" % (slots, base)


# ---- reading results ------------------------------------------------------

TOKEN = re.compile(r"\(|\)|[^\s()]+")


def parse(text):
    """A printed value made of lists and reals (None if something else)."""
    toks = TOKEN.findall(text)
    pos = 0

    def atom(t):
        if t == "+inf.0":
            return math.inf
        if t == "-inf.0":
            return -math.inf
        if t in ("+nan.0", "-nan.0"):
            return math.nan
        return float(t)

    def item():
        nonlocal pos
        t = toks[pos]
        pos += 1
        if t == "(":
            out = []
            while toks[pos] != ")":
                out.append(item())
            pos += 1
            return out
        return atom(t)

    try:
        v = item()
    except (IndexError, ValueError):
        return None
    return v if pos == len(toks) else None


def same(a, b, rel, scale=1.0):
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(same(p, q, rel, scale) for p, q in zip(a, b)))
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if rel == 0:
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if a == b:
        return True
    if math.isinf(a) or math.isinf(b):
        return False
    # relative above 1, absolute below: a derivative that cancels to about
    # 0 (say 1e-16 against 0) differs only by where the rounding fell.
    # 'scale' is the largest magnitude f printed: a derivative summed from
    # terms that large and cancelling keeps only their rounding (1e19
    # terms leave a few thousand either way), which the two sides round in
    # a different order.
    return abs(a - b) <= rel * max(abs(a), abs(b), scale, 1.0)


def magnitude(lines):
    """The largest finite magnitude among printed reals."""
    m = 0.0
    for t in lines:
        try:
            v = abs(float(t))
        except ValueError:
            continue
        if math.isfinite(v):
            m = max(m, v)
    return m


# ---- running --------------------------------------------------------------

def marker(k, which):
    # reals no program prints: -987650000 - 2k (before *j), - 2k - 1
    return -987650000 - 2 * k - which


def run_batch(args, programs, spec, first):
    src = []
    for j, text in enumerate(programs):
        k = first + j
        src.append(text)
        f = "p%d-f" % k
        if args.repeat > 1:
            # f computed 'repeat' times, the last value returned: the same
            # derivative from a run that many times as long
            src.append("(define (p%d-g x)\n  (let loop ((i 1) (y (%s x)))\n"
                       "    (if (= i %d) y (loop (+ i 1) (%s x)))))\n"
                       % (k, f, args.repeat, f))
            f = "p%d-g" % k
        src.append("(define p%d-m (write-real %d))\n(*j %s p%d-x p%d-ybar)\n"
                   % (k, marker(k, 0), f, k, k))
        src.append("(define p%d-n (write-real %d))\n"
                   "(checkpoint-*j %s p%d-x p%d-ybar)\n"
                   % (k, marker(k, 1), f, k, k))
    path = os.path.join(args.outdir, "differential-batch-%d.vlad" % first)
    with open(path, "w") as f:
        f.write("".join(src))
    cmd = [args.vlad, "--step-limit",
           str(20000000 * args.repeat * (4 if args.spill else 1))]
    if spec:
        cmd.append("--checkpoint=" + spec)
    cmd.append(path)
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    if not args.keep and p.returncode == 0:
        os.unlink(path)
    return p, path


def split_output(out, first, count):
    """Per program: (lines f printed under *j, *j result, lines under
    checkpoint-*j, checkpoint-*j result); None where missing."""
    lines = out.split("\n")
    markers = set(str(marker(first + j, w)) for j in range(count + 1)
                  for w in (0, 1))
    idx = {}
    for n, line in enumerate(lines):
        if line in markers:
            idx.setdefault(line, n)
    res = []
    for j in range(count):
        k = first + j
        a = idx.get(str(marker(k, 0)))
        b = idx.get(str(marker(k, 1)))
        c = idx.get(str(marker(k + 1, 0)), len(lines) - 1)
        if a is None or b is None:
            res.append(None)
            continue
        # between a and b: what f printed, then the *j result (last line)
        ja = lines[a + 1:b]
        cj = lines[b + 1:c]
        if not ja or not cj:
            res.append(None)
            continue
        res.append((ja[:-1], ja[-1], cj[:-1], cj[-1]))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--programs", type=int, default=2400)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--vlad", default=os.environ.get("VLAD"))
    ap.add_argument("--outdir", default=os.path.join(
        os.environ.get("VLAD_TEST_OUTDIR", "test-output"), "fuzz"))
    ap.add_argument("--keep", action="store_true",
                    help="keep the batch files")
    ap.add_argument("--finite-only", action="store_true",
                    help="avoid log, sqrt, /, expt and exp (no infinities)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="differentiate f computed this many times (a "
                    "longer run: more segments, more held states)")
    ap.add_argument("--spill", action="store_true",
                    help="every batch under a small budget with spill=DIR "
                    "(DIR: the output directory)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if not args.vlad or not os.access(args.vlad, os.X_OK):
        print("differential: no vlad (set VLAD or --vlad): skipped")
        return 77
    os.makedirs(args.outdir, exist_ok=True)
    rng = random.Random(args.seed)
    passed = failed = 0
    nfail = 0
    k = 0
    while k < args.programs:
        count = min(args.batch, args.programs - k)
        spec = spill_spec(rng, os.path.abspath(args.outdir)) \
            if args.spill else random_spec(rng)
        programs = [make_program(rng, k + j, args.finite_only)
                    for j in range(count)]
        p, path = run_batch(args, programs, spec, k)
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        results = split_output(out, k, count)
        if args.verbose:
            print("differential: programs %d..%d, --checkpoint=%s: status %d"
                  % (k, k + count - 1, spec or "(default)", p.returncode))
        for j, r in enumerate(results):
            n = k + j
            why = None
            if r is None:
                why = "no result (the batch stopped: %s)" % (
                    err.strip().split("\n")[0] if err else
                    "status %d" % p.returncode)
            else:
                wj, rj, wc, rc = r
                vj, vc = parse(rj), parse(rc)
                if vj is None or vc is None or not isinstance(vj, list) \
                        or not isinstance(vc, list) or len(vj) != 2 \
                        or len(vc) != 2:
                    why = "unreadable results"
                elif not same(vj[0], vc[0], 0):
                    why = "different y"
                elif not same(vj[1], vc[1], 1e-9, magnitude(wj)):
                    why = "different x`"
                elif wj != wc:
                    why = "different output from f"
                if why is None:
                    passed += 1
                    continue
            failed += 1
            nfail += 1
            repro = os.path.join(args.outdir, "differential-fail-%d.vlad" % n)
            text = programs[j]
            with open(repro, "w") as f:
                f.write(";;; vlad --checkpoint=%s %s\n" % (
                    spec or "(default)", os.path.basename(repro)))
                f.write(";;; differential.py --seed %d: program %d: %s\n"
                        % (args.seed, n, why))
                f.write(text.replace("p%d-" % n, ""))
                f.write("(*j f x ybar)\n(checkpoint-*j f x ybar)\n")
            if nfail <= 5:
                print("FAIL: program %d (--checkpoint=%s): %s" % (
                    n, spec or "(default)", why))
                print(text.rstrip())
                if r is not None:
                    print("  *j:            %s   (printed %s)" % (r[1], r[0]))
                    print("  checkpoint-*j: %s   (printed %s)" % (r[3], r[2]))
                print("  reproducer: %s" % repro)
            if r is None:
                # the rest of the batch did not run either
                failed += len(results) - j - 1
                break
        k += count
    print("differential: %d programs, seed %d" % (args.programs, args.seed))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
