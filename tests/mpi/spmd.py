#!/usr/bin/env python3
"""tests/mpi/spmd.py -- SPMD differential tester: derivatives across ranks

Issue 33, item 3: random programs whose values make round trips through
other ranks, run as P ranks, against the serial program that does the same
arithmetic in one process.

Each random program is a procedure f of a list of 2 or 3 reals (this
rank's input x_r) returning a list of 2 reals.  Its body is a chain of
stages: random expressions (the generator of tests/ad/gen-random.py:
arithmetic, sin cos exp log sqrt expt atan, closures, lists, map/fold,
conditionals decided far from their thresholds, loops, recursion, nested
j* / *j) alternating with communications of the last value at random
points:

  ring      (begin (mpi-send right e) (mpi-recv left))
  back      the ring the other way round
  pair      an exchange with rank r xor 1 (itself when that is no rank)
  trip      e goes to the right, comes back through g applied there
  sum       (/ (mpi-allreduce e) (mpi-size))
  sumlist   mpi-allreduce of (list e (sin e))
  bcast     (mpi-bcast root e)
  listring  the ring of (list e (cos e))
  loop      a named-let loop of 3..12 steps with one of these inside
  inner     (cadr (j* (lambda (u) C) 1 1)) or the same by *j, every rank
            in it, C one of ring, back, pair, sum, bcast of (* u e)

and, before some of them, rank-dependent work (rank r iterates
z <- 0.5 z + 0.4 sin z r K times more), so that the ranks' checkpoint-*j
plans differ and their checkpoints fall at different messages.

Every rank runs the same f on its own input, x_r = b + 0.1 r, and seeds its
own tangent t_r, cotangent c_r and (for the nested *j) d_r.  The serial
reference is a procedure F of the list of all P inputs, returning the list
of all P outputs, that evaluates the stages for every rank in turn, a
received value being the sender's expression on the sender's data
(generated anew for each P).  For P = 1 (plain ./vlad), 2 and 4
(mpiexec -n P) this script checks that rank r's

  val    (f x_r)                              = component r of (F xs)
  jstar  the tangent of (j* f x_r t_r)        = component r of (j* F xs ts)
  rev    (*j f x_r c_r)                        = component r of (*j F xs cs)
  cpj    (checkpoint-*j f x_r c_r), under each strategy of
         tests/cpj/runner.py's COUNT_SPECS (--checkpoint=SPEC, one run
         per strategy, and binomial,slots=8,base=1,spill=DIR)
                                              = rev
  jrev   j* (tangent t_r) of x -> the gradient of (*j f x c_r)
                                              = j* of xs -> *j of F
  jcpj   the same with checkpoint-*j inside, under each strategy
  rcpj   *j (cotangent d_r) of x -> the gradient of (checkpoint-*j f x c_r),
         under each strategy                  = *j of xs -> *j of F
  revj   *j (cotangent c_r) of x -> the tangent of (j* f x t_r)
                                              = *j of xs -> j* of F
  cpjj   the same by checkpoint-*j, under each strategy

to 1e-12 relative (absolute below 1).  The generator's own dual-number
evaluation (exact values and gradients) rejects programs with branches
near their thresholds, large magnitudes or cancellation, and also checks
the serial reference's values and gradients to 1e-9.

Every run has --stats; with P > 1 vlad prefixes each of a rank's lines
with "rank R: ", and mpiexec -l with "[R] ": the two must agree.  Checked: every rank
reports its steps, and in checkpoint-*j runs its re-executed steps; the
re-executed steps per rank are summed over the strategies and printed.

A mismatch prints what differed and keeps the batch files (each a whole
program, with the command line in its first line) in the output
directory.  All programs of one P and strategy run in one vlad process.

usage: spmd.py [-n PROGRAMS] [--seed S] [--sizes 1,2,4] [--vlad PATH]
               [--outdir DIR] [--keep] [-v]

Defaults: 8 programs, seed 1, sizes 1,2,4 (make check runs that:
tests/mpi/run-spmd.sh).
Each run has a generous timeout (TIMEOUT seconds, scaled by
VLAD_TEST_TIME_SCALE) that only turns a hang into a failure.
Prints "N passed, N failed"; exit status 1 when a check fails.
"""
import argparse
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spmdgen import MAX_P, Program, load  # noqa: E402

TIMEOUT = 300 * float(os.environ.get('VLAD_TEST_TIME_SCALE', '1'))
TOL = 1e-12
ORACLE_TOL = 1e-9
# after COUNT_SPECS: held states in files (DIR: under the output
# directory, shared by the ranks)
SPILL = "binomial,slots=8,base=1,spill=%s"

diff = load('differential', 'fuzz', 'differential.py')  # parse, same
COUNT_SPECS = load('cpj_runner', 'cpj', 'runner.py').COUNT_SPECS


# ---- batches ----------------------------------------------------------------

SPMD_HEAD = """\
(define me (mpi-rank))
(define np (mpi-size))
(define right (modulo (+ me 1) np))
(define left (modulo (+ me np -1) np))
(define partner (let ((q (if (even? me) (+ me 1) (- me 1))))
                  (if (< q np) q me)))
(define (emit k kind v) (begin (write (list 'spmd k kind me v)) (newline)))
"""
SERIAL_HEAD = """\
(define (emit k kind vs)
  (let loop ((r 0) (l vs))
    (if (null? l) 0
        (begin (write (list 'spmd k kind r (car l))) (newline)
               (loop (+ r 1) (cdr l))))))
(define (pairs a b) (map2 (lambda (u v) (list u v)) a b))
"""
# What each rank computes, and the serial counterpart (all ranks at once;
# component r is rank r's).  f, x, t, c, d: this rank's procedure, input,
# tangent, output cotangent, gradient cotangent; F, xs, ts, cs, ds: the
# lists of all ranks'.  Yes in the last column: also under every
# strategy (the others only in the first run, the default strategy).
REV = "(let ((yg (*j {F} {xs} {cs}))) (pairs (car yg) (cadr yg)))"
JREV = "(cadr (j* (lambda (xss) (cadr (*j {F} xss {cs}))) {xs} {ts}))"
RJ = "(let ((yg (*j (lambda (xss) (cadr (j* {F} xss {ts}))) {xs} {cs})))" \
    " (pairs (car yg) (cadr yg)))"
CALLS = [
    ("val", "({f} {x})", "({F} {xs})", False),
    ("jstar", "(cadr (j* {f} {x} {t}))", "(cadr (j* {F} {xs} {ts}))", False),
    ("rev", "(*j {f} {x} {c})", REV, False),
    ("cpj", "(checkpoint-*j {f} {x} {c})", REV, True),
    # nested: j* of *j and of checkpoint-*j (the tangent of the gradient)
    ("jrev", "(cadr (j* (lambda (x) (cadr (*j {f} x {c}))) {x} {t}))",
     JREV, False),
    ("jcpj", "(cadr (j* (lambda (x) (cadr (checkpoint-*j {f} x {c}))) {x} "
     "{t}))", JREV, True),
    # *j of checkpoint-*j (the gradient of <d, gradient>)
    ("rcpj", "(cadr (*j (lambda (x) (cadr (checkpoint-*j {f} x {c}))) {x} "
     "{d}))", "(cadr (*j (lambda (xss) (cadr (*j {F} xss {cs}))) {xs} {ds}))",
     True),
    # *j and checkpoint-*j of j* (the gradient of <c, tangent>)
    ("revj", "(*j (lambda (x) (cadr (j* {f} x {t}))) {x} {c})", RJ, False),
    ("cpjj", "(checkpoint-*j (lambda (x) (cadr (j* {f} x {t}))) {x} {c})",
     RJ, True)]


def kinds(first):
    return [w for w, _, _, every in CALLS if first or every]


def spmd_calls(k, first):
    names = dict((s, "p%d-%s" % (k, s)) for s in "fxtcd")
    return "".join("(define p%d-%s-out (emit %d '%s %s))\n"
                   % (k, w, k, w, e.format(**names))
                   for w, e, _, every in CALLS if first or every)


def serial_calls(k):
    names = dict((s, "p%d-%s" % (k, v)) for s, v in (
        ("F", "F"), ("xs", "xss"), ("ts", "ts"), ("cs", "cs"), ("ds", "ds")))
    return "".join("(define p%d-%s-out (emit %d '%s %s))\n"
                   % (k, w, k, w, e.format(**names)) for w, _, e, _ in CALLS)


LINE = re.compile(r"^(?:\[(\d+)\] )?\(spmd (\d+) (\w+) (\d+) (.*)\)$")
STAT = re.compile(r"^(?:\[(\d+)\] )?(?:rank (\d+): )?"
                  r"(steps|checkpoint-\*j re-executed steps): (\d+)")


def results(out):
    """{(k, kind, rank): value}, and lines whose prefix named another rank"""
    res, bad = {}, []
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        if m.group(1) is not None and m.group(1) != m.group(4):
            bad.append(line)
        res[(int(m.group(2)), m.group(3), int(m.group(4)))] = \
            diff.parse(m.group(5))
    return res, bad


def stats(err):
    """{rank: {name: [values]}} from --stats lines"""
    out = {}
    for line in err.splitlines():
        m = STAT.match(line)
        if m:
            r = int(m.group(1) or m.group(2) or 0)
            if m.group(1) is not None and m.group(2) is not None \
                    and m.group(1) != m.group(2):
                r = -1              # mpiexec's rank is not vlad's
            out.setdefault(r, {}).setdefault(m.group(3), []).append(
                int(m.group(4)))
    return out


class Tester:
    def __init__(self, args):
        self.args = args
        self.passed = self.failed = 0
        self.reexec = {}            # P -> per-rank re-executed steps, summed
        self.steps = {}             # P -> per-rank steps of the first run

    def ok(self):
        self.passed += 1

    def bad(self, msg, keep=None):
        self.failed += 1
        print("FAIL: " + msg)
        if keep:
            print("  program: %s" % keep)

    def run(self, p, path, spec):
        cmd = ([self.args.vlad] if p == 1 else
               ["mpiexec", "-l", "-n", str(p), self.args.vlad])
        cmd += ["--stats"] + (["--checkpoint=" + spec] if spec else []) + \
            [path]
        with open(path) as f:
            text = f.read()
        if not text.startswith(";;;"):
            with open(path, "w") as f:
                f.write(";;; %s\n%s" % (" ".join(cmd), text))
        try:
            r = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return None, " ".join(cmd)
        return (r.returncode, r.stdout.decode(errors="replace"),
                r.stderr.decode(errors="replace")), " ".join(cmd)

    def write(self, name, text):
        path = os.path.join(self.args.outdir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def compare(self, what, want, got, which, progs, path, tol):
        for prog in progs:
            for kind in which:
                for r in range(len(prog.exact_p)):
                    key = (prog.k, kind, r)
                    a, b = want.get(key), got.get(key)
                    label = "%s: program %d, %s, rank %d" % (what, prog.k,
                                                            kind, r)
                    if b is None or a is None:
                        self.bad("%s: no result" % label, path)
                    elif not diff.same(a, b, tol):
                        self.bad("%s:\n  got  %s\n  want %s" % (label, b, a),
                                 path)
                    else:
                        self.ok()

    def serial(self, p, progs):
        for pr in progs:
            pr.exact_p = pr.exact[p]
        text = SERIAL_HEAD + "".join(pr.serial_text(p) + serial_calls(pr.k)
                                     for pr in progs)
        path = self.write("spmd-serial-p%d.vlad" % p, text)
        r, cmd = self.run(1, path, "")
        if r is None or r[0] != 0:
            self.bad("serial reference for %d ranks: %s" % (
                p, "no end within %g s" % TIMEOUT if r is None else
                "status %d\n%s" % (r[0], r[2])), path)
            return {}
        res, _ = results(r[1])
        # the reference itself against the generator's dual numbers
        exact = {}
        for pr in progs:
            for rk, ys in enumerate(pr.exact[p]):
                exact[(pr.k, "val", rk)] = [y.v for y in ys]
                grad = [sum(pr.c[s][j] * pr.exact[p][s][j].g[rk * pr.n + i]
                            for s in range(p) for j in range(2))
                        for i in range(pr.n)]
                exact[(pr.k, "rev", rk)] = [[y.v for y in ys], grad]
                tan = [sum(y.g[s * pr.n + i] * pr.t[s][i]
                           for s in range(p) for i in range(pr.n)) for y in ys]
                exact[(pr.k, "jstar", rk)] = tan
        self.compare("serial reference with %d ranks against the generator"
                     % p, exact, res, ["val", "rev", "jstar"], progs, path,
                     ORACLE_TOL)
        return res

    def spmd(self, p, progs, spec, si, want):
        text = SPMD_HEAD + "".join(pr.spmd_text() + spmd_calls(pr.k, si == 0)
                                   for pr in progs)
        path = self.write("spmd-p%d-%d.vlad" % (p, si), text)
        r, cmd = self.run(p, path, spec)
        what = "%d rank(s), --checkpoint=%s" % (p, spec or "(default)")
        if r is None:
            return self.bad("%s: no end within %g s (a hang)"
                            % (what, TIMEOUT), path)
        status, out, err = r
        if status != 0:
            return self.bad("%s: status %d\n%s" % (what, status, err), path)
        got, wrong = results(out)
        if wrong:
            self.bad("%s: lines printed under another rank's prefix:\n%s"
                     % (what, "\n".join(wrong[:3])), path)
        self.compare(what, want, got, kinds(si == 0), progs, path, TOL)
        st = stats(err)
        for rk in range(p):
            s = st.get(rk, {})
            if len(s.get("steps", [])) != 1:
                self.bad("%s: rank %d's --stats: no single 'steps:' line:\n%s"
                         % (what, rk, err), path)
                continue
            re_ = s.get("checkpoint-*j re-executed steps", [])
            if len(re_) != 1:
                self.bad("%s: rank %d's --stats: no single 'checkpoint-*j "
                         "re-executed steps:' line:\n%s" % (what, rk, err),
                         path)
                continue
            self.ok()
            if si == 0:
                self.steps.setdefault(p, [0] * p)[rk] = s["steps"][0]
            self.reexec.setdefault(p, [0] * p)[rk] += re_[0]
            if self.args.verbose:
                print("  %s: rank %d: %d steps, %d re-executed"
                      % (what, rk, s["steps"][0], re_[0]))
        if not self.args.keep and not self.failed:
            os.unlink(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", "--programs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sizes", default="1,2,4")
    ap.add_argument("--vlad", default=os.environ.get("VLAD", "./vlad"))
    ap.add_argument("--outdir", default=os.path.join(
        os.environ.get("VLAD_TEST_OUTDIR", "test-output"), "spmd"))
    ap.add_argument("--keep", action="store_true", help="keep the batches")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    args.vlad = os.path.abspath(args.vlad)
    sizes = [int(s) for s in args.sizes.split(",")]
    if any(p < 1 or p > MAX_P for p in sizes):
        ap.error("sizes from 1 to %d" % MAX_P)
    os.makedirs(args.outdir, exist_ok=True)
    rng = random.Random(args.seed)
    progs, rejected = [], {}
    while len(progs) < args.programs:
        pr = Program(rng, len(progs))
        why = pr.screen()
        if why is None:
            progs.append(pr)
        else:
            rejected[why] = rejected.get(why, 0) + 1
    if args.verbose:
        print("spmd: rejected %s" % rejected)
    t = Tester(args)
    spill = os.path.join(os.path.abspath(args.outdir), "spill")
    os.makedirs(spill, exist_ok=True)
    specs = COUNT_SPECS + [SPILL % spill]
    for p in sizes:
        want = t.serial(p, progs)
        for si, spec in enumerate(specs):
            t.spmd(p, progs, spec, si, want)
    print("spmd: %d programs, seed %d, sizes %s, %d strategies"
          % (len(progs), args.seed, args.sizes, len(specs)))
    for p in sizes:
        print("spmd: %d rank(s): steps per rank %s; checkpoint-*j re-executed "
              "steps per rank, over the strategies: %s"
              % (p, t.steps.get(p), t.reexec.get(p)))
    print("%d passed, %d failed" % (t.passed, t.failed))
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
