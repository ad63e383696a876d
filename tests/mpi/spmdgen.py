#!/usr/bin/env python3
"""tests/mpi/spmdgen.py -- the random SPMD programs of spmd.py

A Program is a chain of stages: random real expressions (tests/ad/
gen-random.py's generator, with its dual numbers), communications of the
last value (COMM kinds below), loops with a communication inside, and
rank-dependent padding (rank r runs r * K steps more).  It writes itself
as the SPMD procedure p<k>-f of this rank's input, as the serial
procedure p<k>-F of the list of all P ranks' inputs (a received value is
the sender's expression on the sender's data), and evaluates all P ranks
with dual numbers (exact values and gradients over the P * n inputs),
which screen() uses to reject programs unfit for a 1e-12 comparison.
"""
import importlib.util
import os

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_P = 4                       # the most ranks a program is made for


def load(name, *path):
    """A module of tests/ by its path (the names hold '-')."""
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(TESTS, *path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gr = load('gen_random', 'ad', 'gen-random.py')      # expressions, duals
fmt = gr.fmt


# ---- communications -------------------------------------------------------
#
# Each kind: the SPMD text around the sent expression X, the serial text
# for rank r from the per-rank texts V (simple names), and the dual-number
# value for rank r from the per-rank values.

def partner(r, p):
    q = r ^ 1
    return q if q < p else r


TRIP_G = [("(* 1.5 (sin %s))", lambda v: gr.mul(gr.const(1.5), gr.sin_(v))),
          ("(+ %s 0.25)", lambda v: gr.add(v, gr.const(0.25))),
          ("(* %s 0.5)", lambda v: gr.mul(v, gr.const(0.5)))]
KINDS = ["ring", "back", "pair", "trip", "sum", "sumlist", "bcast",
         "listring"]
# linear in the value sent: inner j* / *j of one are simple to evaluate
LINEAR = ["ring", "back", "pair", "sum", "bcast"]


def sum_text(terms):
    out = terms[-1]
    for t in reversed(terms[:-1]):
        out = "(+ %s %s)" % (t, out)
    return out


def comm_spmd(kind, param, x):
    if kind == "ring":
        return "(begin (mpi-send right %s) (mpi-recv left))" % x
    if kind == "back":
        return "(begin (mpi-send left %s) (mpi-recv right))" % x
    if kind == "pair":
        return "(begin (mpi-send partner %s) (mpi-recv partner))" % x
    if kind == "trip":
        back = TRIP_G[param][0] % "(mpi-recv left)"
        return ("(begin (mpi-send right %s) (mpi-send left %s) "
                "(mpi-recv right))" % (x, back))
    if kind == "sum":
        return "(/ (mpi-allreduce %s) np)" % x
    if kind == "sumlist":
        return ("(let ((mv (mpi-allreduce (let ((mw %s)) "
                "(list mw (sin mw)))))) (- (car mv) (* 0.5 (cadr mv))))" % x)
    if kind == "bcast":
        return "(mpi-bcast (modulo %d np) %s)" % (param, x)
    assert kind == "listring"
    return ("(let ((mv (begin (mpi-send right (let ((mw %s)) (list mw "
            "(cos mw)))) (mpi-recv left)))) (+ (car mv) (cadr mv)))" % x)


def comm_source(kind, param, r, p):
    """The rank whose value rank r gets (point to point and bcast)."""
    return {"ring": (r - 1) % p, "back": (r + 1) % p, "pair": partner(r, p),
            "trip": r, "listring": (r - 1) % p, "bcast": param % p}[kind]


def comm_serial(kind, param, v, r, p):
    if kind == "sum":
        return "(/ %s %d)" % (sum_text(v), p)
    if kind == "sumlist":
        return "(- %s (* 0.5 %s))" % (
            sum_text(v), sum_text(["(sin %s)" % t for t in v]))
    s = v[comm_source(kind, param, r, p)]
    if kind == "trip":
        return TRIP_G[param][0] % s
    if kind == "listring":
        return "(+ %s (cos %s))" % (s, s)
    return s


def comm_value(kind, param, v, r, p):
    if kind in ("sum", "sumlist"):
        acc = v[0]
        for d in v[1:]:
            acc = gr.add(acc, d)
        if kind == "sum":
            return gr.div(acc, gr.const(p))
        sins = gr.sin_(v[0])
        for d in v[1:]:
            sins = gr.add(sins, gr.sin_(d))
        return gr.sub(acc, gr.mul(gr.const(0.5), sins))
    s = v[comm_source(kind, param, r, p)]
    if kind == "trip":
        return TRIP_G[param][1](s)
    if kind == "listring":
        return gr.add(s, gr.cos_(s))
    return s


def inner_value(op, kind, param, v, r, p):
    """(cadr (op (lambda (u) COMM(u v)) 1 1)) on rank r, all ranks in the
    same op: j* (tangent 1 on every rank) gives COMM(v); *j (cotangent 1
    on every rank) gives the sum over ranks s of dCOMM_s/du_r: v_r, as
    every rank's value goes to one rank, except bcast, whose root's goes
    to all P."""
    if op == "j*":
        return comm_value(kind, param, v, r, p)
    if kind != "bcast":
        return v[r]
    return gr.mul(gr.const(p), v[r]) if r == param % p else gr.const(0)


def pad_text(stage, count):
    _, pd, st, _ = stage
    return ("(let lp%s ((i%s 0) (z%s %s)) (if (< i%s %s) (lp%s (+ i%s 1) "
            "(+ (* 0.5 z%s) (* 0.4 (sin z%s)))) z%s))"
            % (pd, pd, pd, st, pd, count, pd, pd, pd, pd, pd))


# ---- programs ---------------------------------------------------------------

class Program:
    """A chain of stages; text for the SPMD f and the serial F of P ranks,
    and the dual-number evaluation of all ranks."""

    def __init__(self, rng, k):
        self.k = k
        self.n = rng.randint(2, 3)
        self.xs = ["x%d" % (i + 1) for i in range(self.n)]
        self.gen = gr.Gen(rng)
        self.gen.xs = "xs"
        self.stages = []
        scope = list(self.xs)
        last = None
        for j in range(rng.randint(2, 3)):
            st = "st%d" % j
            self.stages.append(("expr", st, self.gen.gen_real(
                scope, rng.randint(1, 3))))
            scope.append(st)
            if rng.random() < 0.5:
                # rank r spends r * K steps more: the ranks' checkpoint-*j
                # plans differ, their checkpoints fall at different
                # messages
                pd = "pd%d" % j
                self.stages.append(("pad", pd, st, rng.randint(3, 15)))
                scope.append(pd)
                st = pd
            kind = rng.choice(KINDS)
            param = rng.randrange(3 if kind == "trip" else 7)
            ms = "ms%d" % j
            u = rng.random()
            if u < 0.35:
                li, la = "li%d" % j, "la%d" % j
                step = self.gen.gen_real(scope + [la, la, li],
                                         rng.randint(1, 2))
                self.stages.append(("loop", ms, st, rng.randint(3, 12),
                                    self.gen.num(0.3, 0.7), step, kind, param,
                                    li, la))
            elif u < 0.55:
                self.stages.append(("inner", ms, st, rng.choice(["*j", "j*"]),
                                    rng.choice(LINEAR), param))
            else:
                self.stages.append(("comm", ms, st, kind, param))
            scope.append(ms)
            last = ms
        self.stages.append(("expr", "out", self.gen.gen_real(
            scope, rng.randint(1, 3))))
        self.outputs = ["out", last]
        self.base = [round(rng.uniform(-1.2, 1.2), 2) for _ in self.xs]
        draw = lambda m: [[round(rng.uniform(-1, 1), 2) for _ in range(m)]
                          for _ in range(MAX_P)]
        self.t, self.c, self.d = draw(self.n), draw(2), draw(self.n)

    # -- dual numbers
    def inputs(self, p):
        return [[self.base[i] + 0.1 * r for i in range(self.n)]
                for r in range(p)]

    def evaluate(self, p):
        """[[y_r1, y_r2] for each rank r] as D over all p * n inputs."""
        gr.N = p * self.n
        self.sent = []              # the values sent, for screen
        envs = []
        for r, xr in enumerate(self.inputs(p)):
            env = {}
            for i, v in enumerate(xr):
                g = [0.0] * gr.N
                g[r * self.n + i] = 1.0
                env[self.xs[i]] = gr.D(v, g, list(g))
            env["xs"] = [env[x] for x in self.xs]
            envs.append(env)
        for s in self.stages:
            if s[0] == "expr":
                for env in envs:
                    env[s[1]] = s[2][1](env)
            elif s[0] == "pad":
                for r, env in enumerate(envs):
                    z = env[s[2]]
                    for _ in range(r * s[3]):
                        z = gr.add(gr.mul(gr.const(0.5), z),
                                   gr.mul(gr.const(0.4), gr.sin_(z)))
                    env[s[1]] = z
            elif s[0] == "inner":
                _, ms, st, op, kind, param = s
                v = [env[st] for env in envs]
                self.sent += v
                for r, env in enumerate(envs):
                    env[ms] = inner_value(op, kind, param, v, r, p)
            elif s[0] == "comm":
                _, ms, st, kind, param = s
                v = [env[st] for env in envs]
                self.sent += v
                for r, env in enumerate(envs):
                    env[ms] = comm_value(kind, param, v, r, p)
            else:
                _, ms, st, K, w, step, kind, param, li, la = s
                a = [env[st] for env in envs]
                for i in range(K):
                    m = []
                    for r, env in enumerate(envs):
                        e2 = dict(env)
                        e2[la], e2[li] = a[r], gr.const(i)
                        m.append(step[1](e2))
                    self.sent += m
                    a = [gr.add(gr.mul(gr.const(w), a[r]),
                                gr.mul(gr.const(0.5), gr.sin_(
                                    comm_value(kind, param, m, r, p))))
                         for r in range(p)]
                for r, env in enumerate(envs):
                    env[ms] = a[r]
        return [[env[o] for o in self.outputs] for env in envs]

    def screen(self):
        """None when the program is safe to compare numerically (for each
        P), else why not."""
        self.exact = {}
        try:
            for p in (1, 2, MAX_P):
                ys = self.evaluate(p)
                self.exact[p] = ys
                for y in (d for yr in ys for d in yr):
                    if abs(y.v) > 50 or any(abs(g) > 200 for g in y.g):
                        return "magnitude"
                    if any(a > 30 * max(1.0, abs(g))
                           for g, a in zip(y.g, y.a)):
                        return "cancellation"
                # every message depends on the inputs, and with several
                # ranks some output on another rank's
                if any(not any(d.g) for d in self.sent):
                    return "constant message"
                if p > 1 and not any(
                        y.g[s * self.n + i] for r, yr in enumerate(ys)
                        for y in yr for s in range(p) if s != r
                        for i in range(self.n)):
                    return "no rank depends on another"
        except gr.Reject as e:
            return str(e)
        except (OverflowError, ZeroDivisionError, ValueError):
            return "math"
        if self.gen.margins and min(self.gen.margins) < gr.MARGIN:
            return "threshold"
        return None

    # -- text
    def env_text(self, xs_name, names):
        """Binding forms giving rank-local names."""
        binds = ["((list %s) xs)" % " ".join(self.xs)]
        binds += ["(%s %s)" % (a, b) for a, b in names]
        return "(let ((xs %s)) (let (%s) %%s))" % (xs_name, " ".join(binds))

    def spmd_text(self):
        k = self.k
        binds = ["((list %s) xs)" % " ".join(self.xs)]
        for s in self.stages:
            if s[0] == "expr":
                binds.append("(%s %s)" % (s[1], s[2][0]()))
            elif s[0] == "pad":
                binds.append("(%s %s)" % (
                    s[1], pad_text(s, "(* %d me)" % s[3])))
            elif s[0] == "inner":
                _, ms, st, op, kind, param = s
                iu = "iu%s" % ms
                binds.append("(%s (cadr (%s (lambda (%s) %s) 1 1)))" % (
                    ms, op, iu, comm_spmd(kind, param,
                                          "(* %s %s)" % (iu, st))))
            elif s[0] == "comm":
                _, ms, st, kind, param = s
                binds.append("(%s %s)" % (ms, comm_spmd(kind, param, st)))
            else:
                _, ms, st, K, w, step, kind, param, li, la = s
                lp = "lp%s" % ms
                binds.append(
                    "(%s (let %s ((%s 0) (%s %s)) (if (= %s %d) %s "
                    "(%s (+ %s 1) (+ (* %s %s) (* 0.5 (sin %s)))))))" % (
                        ms, lp, li, la, st, li, K, la, lp, li, fmt(w), la,
                        comm_spmd(kind, param, step[0]())))
        per_rank = lambda v: "(list-ref '(%s) me)" % " ".join(
            "(%s)" % " ".join(fmt(a) for a in row) for row in v)
        return ("(define (p%d-f xs)\n  (let* (%s)\n    (list %s)))\n"
                "(define p%d-x (map (lambda (b) (+ b (* 0.1 me))) '(%s)))\n"
                "(define p%d-t %s)\n(define p%d-c %s)\n(define p%d-d %s)\n" % (
                    k, "\n         ".join(binds), " ".join(self.outputs),
                    k, " ".join(fmt(b) for b in self.base),
                    k, per_rank(self.t), k, per_rank(self.c),
                    k, per_rank(self.d)))

    def serial_text(self, p):
        k = self.k
        ranks = range(p)
        binds = ["((list %s) xss)" % " ".join("X%d" % r for r in ranks)]
        local = []          # names bound per rank so far
        rn = lambda name, r: "%s_%d" % (name, r)

        def at(r, text, extra=()):
            names = [(a, rn(a, r)) for a in local] + list(extra)
            return self.env_text("X%d" % r, names) % text
        for s in self.stages:
            if s[0] == "expr":
                for r in ranks:
                    binds.append("(%s %s)" % (rn(s[1], r), at(r, s[2][0]())))
            elif s[0] == "pad":
                for r in ranks:
                    binds.append("(%s %s)" % (rn(s[1], r), pad_text(
                        s[:2] + (rn(s[2], r),) + s[3:], str(r * s[3]))))
            elif s[0] == "inner":
                _, ms, st, op, kind, param = s
                iu = [rn("iu", r) for r in ranks]
                v = ["(* %s %s)" % (iu[r], rn(st, r)) for r in ranks]
                ones = "(list %s)" % " ".join("1" for _ in ranks)
                binds.append(
                    "(I%s (cadr (%s (lambda (ius) (let (((list %s) ius)) "
                    "(list %s))) %s %s)))" % (
                        ms, op, " ".join(iu), " ".join(
                            comm_serial(kind, param, v, r, p) for r in ranks),
                        ones, ones))
                binds.append("((list %s) I%s)" % (
                    " ".join(rn(ms, r) for r in ranks), ms))
            elif s[0] == "comm":
                _, ms, st, kind, param = s
                v = [rn(st, r) for r in ranks]
                for r in ranks:
                    binds.append("(%s %s)" % (
                        rn(ms, r), comm_serial(kind, param, v, r, p)))
            else:
                _, ms, st, K, w, step, kind, param, li, la = s
                lp, A = "lp%s" % ms, "A%s" % ms
                m = [rn("lm", r) for r in ranks]
                a = [rn("la", r) for r in ranks]
                inner = ["((list %s) %s)" % (" ".join(a), A)]
                inner += ["(%s %s)" % (m[r], at(r, step[0](), [(la, a[r])]))
                          for r in ranks]
                nxt = " ".join("(+ (* %s %s) (* 0.5 (sin %s)))" % (
                    fmt(w), a[r], comm_serial(kind, param, m, r, p))
                    for r in ranks)
                binds.append(
                    "(%s (let %s ((%s 0) (%s (list %s))) (if (= %s %d) %s "
                    "(%s (+ %s 1) (let* (%s) (list %s))))))" % (
                        A, lp, li, A, " ".join(rn(st, r) for r in ranks), li,
                        K, A, lp, li, " ".join(inner), nxt))
                binds.append("((list %s) %s)" % (
                    " ".join(rn(ms, r) for r in ranks), A))
            local.append(s[1])
        outs = " ".join("(list %s)" % " ".join(rn(o, r) for o in self.outputs)
                        for r in ranks)
        rows = lambda v, m: "'(%s)" % " ".join(
            "(%s)" % " ".join(fmt(a) for a in row) for row in v[:m])
        return ("(define (p%d-F xss)\n  (let* (%s)\n    (list %s)))\n"
                "(define p%d-xss (map (lambda (r) (map (lambda (b) "
                "(+ b (* 0.1 r))) '(%s))) '(%s)))\n"
                "(define p%d-ts %s)\n(define p%d-cs %s)\n(define p%d-ds %s)\n"
                % (k, "\n         ".join(binds), outs,
                   k, " ".join(fmt(b) for b in self.base),
                   " ".join(str(r) for r in ranks),
                   k, rows(self.t, p), k, rows(self.c, p), k, rows(self.d, p)))


