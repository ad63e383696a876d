#!/usr/bin/env python3
"""tests/cpj/runner.py -- checkpoint-*j under every strategy (make check)

usage: python3 runner.py [-v] [-j N] [PROGRAM.vlad ...]
       (normally through tests/cpj/run-corpus.sh, which make check runs)

Runs every program tests/cpj/corpus-*.vlad and tests/cpj/count-*.vlad
(or the ones named) under each strategy of CORPUS_SPECS or COUNT_SPECS
below (bisection with base 1, 3, 10, 100; binomial with slots 2, 3, 5, 10
and base 1, 4, 25 -- all 12 combinations for count-*, 8 for corpus-*;
count-* also under the default, binomial,base=4, bisection and four
budgets), as

    vlad --stats --checkpoint=SPEC NAME.vlad   < NAME.in or /dev/null

from this directory, and checks:

(a) the exit status is 0 and standard output is the golden NAME.out (made
    with the default strategy; run-golden checks that run itself).  Lines
    must be identical except that a real may differ from the golden one
    by at most 1e-12 relative: x` of checkpoint-*j equals the x` of *j
    only up to floating-point reassociation, and the reassociation
    depends on the strategy.  (Each line's #t, computed in the same run,
    is what checks that y is IDENTICAL to *j's and x` within 1e-12; the
    golden comparison guards the numbers themselves.)  Standard error
    holds only the --stats lines ("NAME: VALUE", no errors).

(b) for count-*.vlad (ONE checkpoint-*j call per run, f without *j or
    checkpoint-*j; the first output line is n = (cadr (primops f x))),
    the --stats totals of that call:
      runs = 1, primal steps = n, base-case steps = n, and
      the plan --stats prints (SPEC's slots and base, or those the
      budget's planner chose; the budget as given, the predicted peak
      within it), and binomial with s slots, base b, t = ceil(n / b)
      units:
        re-executed steps R = b * T(t, s), where T(1, s) = 0,
        T(t, 1) = t(t-1)/2, T(t, s) = min over 1 <= m < t of
        m + T(t - m, s - 1) + T(m, s)   (the revolve optimum; computed
        by the closed form r t - C(s + r, s + 1), which is first checked
        against this definition for t <= 150);
        base cases = t; peak live checkpoints <= s - 1; the plan's
        predicted and the run's actual re-executed steps both R;
      bisection with base b: with m = floor(n / 2) at every level,
        R(n) = 0 if n <= b else m + R(n - m) + R(m), base cases
        L(n) = 1 if n <= b else L(n - m) + L(m) (both exact), and
        peak live checkpoints <= ceil(log2 t) + 1.
    count-200.vlad is also run with binomial,slots=1 (bases 1, 4, 25):
    no free slot, quadratic re-execution, nothing held.

(c) the environment variable VLAD_CHECKPOINT: a malformed value makes
    vlad exit with status 2, print nothing on standard output and one
    line on standard error naming VLAD_CHECKPOINT; a valid value is used
    (the stats equal those of the same --checkpoint), and --checkpoint
    overrides it.  (Malformed --checkpoint values are golden tests:
    bad-spec-*.vlad with .args.)

Prints one line per failure (and with -v one per run), then
"N passed, N failed" (one check = one run, or one environment case).
Exit status: 0 all passed, 1 a failure, 77 skipped, 99 hard error.

Environment: VLAD (the interpreter, required), VLAD_PATH (passed on),
VLAD_CPJ_JOBS (parallel runs; default: the number of CPUs, at most 4),
VLAD_TEST_TIMEOUT (seconds per run, default 300).

A libtool wrapper script as $VLAD (the uninstalled build) costs ~0.2 s of
shell per run; when $VLAD is one and its real program .libs/NAME answers
--version identically, that program is run directly, with the wrapper's
.libs directory prepended to LD_LIBRARY_PATH.
"""

import math
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

HERE = os.path.dirname(os.path.abspath(__file__))

# The strategies (SPEC strings; "" = no --checkpoint, the default).
BISECTION = ["bisection,base=%d" % b for b in (1, 3, 10, 100)]
BINOMIAL = ["binomial,slots=%d,base=%d" % (s, b)
            for s in (2, 3, 5, 10) for b in (1, 4, 25)]
# Budgets (the planner chooses slots, and base where none is given).
# the most states a first run in chunks keeps, and its first spacing:
# runs of at most that many steps are one chunk (vm/cpj/cpjfirst.c)
KEEP_MAX = 64
FIRST_SPACING = 1024
BUDGETS = ["binomial,budget=5k", "binomial,budget=8k",
           "binomial,budget=30k,base=4", "binomial,budget=1M"]
# count-*.vlad: every combination, the default (a budget), a budget with a
# small base, bisection's default base, and the budgets.
COUNT_SPECS = ([""] + BISECTION + BINOMIAL + ["binomial,base=4", "bisection"]
               + BUDGETS)
# corpus-*.vlad: every bisection base and, to keep make check fast (each
# vlad run costs ~0.1 s under ASan), 8 of the 12 binomial combinations,
# each slots value with two bases and each base with 2 or 3 slots values,
# and a budget small enough to split most of their runs.
# (The default strategy is the golden test itself, run by run-golden.)
# Two of them with steps=all (every step a run takes counts: a program
# that checkpoints inside f may then suspend nested runs in their
# reversal), whose results must not change.
CORPUS_SPECS = BISECTION + ["binomial,slots=%d,base=%d" % sb for sb in
                            ((2, 1), (2, 25), (3, 1), (3, 4),
                             (5, 4), (5, 25), (10, 1), (10, 25))] + [
                                 "binomial,budget=24k",
                                 "bisection,base=3,steps=all",
                                 "binomial,budget=24k,steps=all"]
# Extra strategies for count-200.vlad: no free slot.
SLOTS_ONE = ["binomial,slots=1,base=%d" % b for b in (1, 4, 25)]

TOL = 1e-12


# ---------------------------------------------------------------- oracles

@lru_cache(maxsize=None)
def revolve_t_min(t, s):
    """T(t, s) by its definition: the minimal number of re-executed units
    to reverse t units with s slots (O(t^2 s): small t only)."""
    if t <= 1:
        return 0
    if s == 1:
        return t * (t - 1) // 2
    return min(m + revolve_t_min(t - m, s - 1) + revolve_t_min(m, s)
               for m in range(1, t))


def revolve_t(t, s):
    """T(t, s) in closed form (Griewank-Walther): with
    beta(s, r) = C(s + r, s) and r the least integer with t <= beta(s, r),
    T(t, s) = r t - beta(s + 1, r - 1); checked against revolve_t_min
    for every t <= REVOLVE_CHECKED below before it is used."""
    if t <= 1:
        return 0
    if s == 1:
        return t * (t - 1) // 2
    r = 0
    while math.comb(s + r, s) < t:
        r += 1
    return r * t - math.comb(s + 1 + r - 1, s + 1)


REVOLVE_CHECKED = 150


def check_revolve_formula():
    """Failures of the closed form against the definition."""
    bad = []
    for s in range(1, 11):
        for t in range(1, REVOLVE_CHECKED + 1):
            if revolve_t(t, s) != revolve_t_min(t, s):
                bad.append("T(%d,%d): closed form %d, definition %d"
                           % (t, s, revolve_t(t, s), revolve_t_min(t, s)))
    return bad


def bisection_counts(n, base):
    """(re-executed steps, base cases) of bisection on n steps."""
    memo = {}

    def go(k):
        if k <= base:
            return (0, 1)
        if k in memo:
            return memo[k]
        m = k // 2
        r1, l1 = go(k - m)
        r2, l2 = go(m)
        memo[k] = (m + r1 + r2, l1 + l2)
        return memo[k]
    return go(n)


def ceil_log2(t):
    return 0 if t <= 1 else (t - 1).bit_length()


def parse_spec(spec):
    """(strategy, slots or None, base or None, budget or None) of a SPEC
    string (the default: binomial with a budget)."""
    if spec == "":
        return ("binomial", None, None, "default")
    parts = spec.split(",")
    slots, base, budget = None, None, None
    for p in parts[1:]:
        k, v = p.split("=")
        if k == "slots":
            slots = int(v)
        elif k == "base":
            base = int(v)
        elif k == "budget":
            budget = int(v[:-1]) * {"k": 1 << 10, "M": 1 << 20}[v[-1]]
    if parts[0] == "binomial" and slots is None and budget is None:
        budget = "default"
    return (parts[0], slots, base, budget)


# ---------------------------------------------------------------- running

def find_vlad():
    vlad = os.environ.get("VLAD", "")
    if not vlad or not os.access(vlad, os.X_OK):
        return None, None
    vlad = os.path.abspath(vlad)
    env = dict(os.environ)
    try:
        with open(vlad, "rb") as f:
            head = f.read(4096)
    except OSError:
        return vlad, env
    if not head.startswith(b"#!") or b"libtool" not in head:
        return vlad, env
    libs = os.path.join(os.path.dirname(vlad), ".libs")
    real = os.path.join(libs, os.path.basename(vlad))
    if not os.access(real, os.X_OK):
        return vlad, env
    env2 = dict(env)
    env2["LD_LIBRARY_PATH"] = libs + (":" + env["LD_LIBRARY_PATH"]
                                      if env.get("LD_LIBRARY_PATH") else "")
    try:
        a = subprocess.run([vlad, "--version"], capture_output=True, timeout=60)
        b = subprocess.run([real, "--version"], capture_output=True,
                           env=env2, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return vlad, env
    if a.returncode == 0 and a.stdout and (a.returncode, a.stdout) == (b.returncode, b.stdout):
        return real, env2
    return vlad, env


VLAD, ENV = find_vlad()
TIMEOUT = int(os.environ.get("VLAD_TEST_TIMEOUT", "300"))


def run(name, args, extra_env=None):
    """Run vlad ARGS NAME (from HERE) with NAME's .in; (status, out, err)."""
    env = dict(ENV)
    env.pop("VLAD_CHECKPOINT", None)
    if extra_env:
        env.update(extra_env)
    stem = name[:-5]
    inp = os.path.join(HERE, stem + ".in")
    stdin = open(inp, "rb") if os.path.exists(inp) else subprocess.DEVNULL
    try:
        p = subprocess.run([VLAD] + args + [name], cwd=HERE, stdin=stdin,
                           capture_output=True, env=env, timeout=TIMEOUT)
        return p.returncode, p.stdout.decode("utf-8", "replace"), \
            p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "", "killed after %d s" % TIMEOUT
    finally:
        if stdin is not subprocess.DEVNULL:
            stdin.close()


# ---------------------------------------------------------------- checks

TOKEN = re.compile(r"[()]|[^\s()]+")


def as_real(tok):
    if not re.match(r"^[-+]?(\d|\.\d)", tok):
        return None
    try:
        v = float(tok)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def same_output(expected, actual):
    """None if equal up to TOL on reals, else a description."""
    el, al = expected.split("\n"), actual.split("\n")
    if len(el) != len(al):
        return "%d lines instead of %d" % (len(al) - 1, len(el) - 1)
    for i, (e, a) in enumerate(zip(el, al), 1):
        if e == a:
            continue
        et, at = TOKEN.findall(e), TOKEN.findall(a)
        ok = len(et) == len(at)
        if ok:
            for x, y in zip(et, at):
                if x == y:
                    continue
                u, v = as_real(x), as_real(y)
                if u is None or v is None or abs(u - v) > TOL * max(abs(u), abs(v)):
                    ok = False
                    break
        if not ok:
            return "line %d: expected %r, got %r" % (i, e, a)
    return None


STAT_LINE = re.compile(r"^[A-Za-z*][A-Za-z0-9*\- ]*: \S")


def parse_stats(err):
    """(stats dict, unexpected stderr lines)."""
    stats, bad = {}, []
    pats = {
        "runs": r"^checkpoint-\*j runs: (\d+)",
        "primal": r"^checkpoint-\*j primal steps: (\d+)",
        "reexec": r"^checkpoint-\*j re-executed steps: (\d+)",
        "leaves": r"^checkpoint-\*j base cases: (\d+) \((\d+) steps\)",
        "peak": r"^checkpoint-\*j peak live checkpoints: (\d+)",
        "plan_budget": r"^checkpoint-\*j plan: binomial, budget (\d+) bytes",
        "plan_slots": r"^checkpoint-\*j plan: .* (\d+) slots",
        "plan_base": r"^checkpoint-\*j plan: .*base (\d+) steps",
        "predicted": r"^checkpoint-\*j plan predicted: (\d+) re-executed",
        "predicted_peak": r"^checkpoint-\*j plan predicted: .*peak (\d+)",
        "actual": r"^checkpoint-\*j plan actual: (\d+) re-executed",
        "kept": r"^checkpoint-\*j plan: .*states kept from the first run: (\d+)",
    }
    for line in err.splitlines():
        if not STAT_LINE.match(line) or re.search(r"error|sanitizer", line, re.I):
            bad.append(line)
            continue
        for k, p in pats.items():
            m = re.match(p, line)
            if m:
                stats[k] = int(m.group(1))
                if k == "leaves":
                    stats["leaf_steps"] = int(m.group(2))
    return stats, bad


def check_counts(spec, n_printed, st):
    """Failures of the stats invariants of a count-*.vlad run."""
    fails = []
    need = ("runs", "primal", "reexec", "leaves", "leaf_steps", "peak")
    missing = [k for k in need if k not in st]
    if missing:
        return ["--stats lacks %s" % ", ".join(missing)]
    n = st["primal"]

    def expect(what, got, want):
        if got != want:
            fails.append("%s = %d, expected %d" % (what, got, want))
    expect("runs", st["runs"], 1)
    if n_printed is not None:
        expect("primal steps", n, n_printed)
    expect("base-case steps", st["leaf_steps"], n)
    strategy, slots, base, budget = parse_spec(spec)
    if "plan_base" not in st:
        return ["--stats lacks the plan"]
    # the plan: as given, or as the budget's planner chose it
    if base is not None or budget is None:
        expect("plan's base", st["plan_base"], base or 1000)
    base = st["plan_base"]
    t = -(-n // base)
    if strategy == "binomial":
        if slots is not None:
            expect("plan's slots", st["plan_slots"], min(slots, t))
        s = st["plan_slots"]
        if budget is not None:
            if budget != "default":
                expect("plan's budget", st.get("plan_budget", -1), budget)
            if st.get("predicted_peak", 0) > st.get("plan_budget", 0):
                fails.append("predicted peak %s > budget %s"
                             % (st.get("predicted_peak"),
                                st.get("plan_budget")))
        kept = st.get("kept", 0)
        expect("the run's re-executed steps", st.get("actual", -1),
               st["reexec"])
        if kept == 0:
            expect("re-executed steps (b*T(%d,%d))" % (t, s), st["reexec"],
                   base * revolve_t(t, s))
            expect("predicted re-executed steps", st.get("predicted", -1),
                   base * revolve_t(t, s))
            expect("base cases", st["leaves"], t)
            # (a first run in chunks holds up to KEEP_MAX states)
            bound = s - 1 if budget is None or n <= FIRST_SPACING \
                else max(s - 1, KEEP_MAX)
            if st["peak"] > bound:
                fails.append("peak live checkpoints = %d > %d" % (st["peak"], bound))
        else:
            # segments from states the first run kept (vm/cpj/cpjfirst.c):
            # exactly as predicted, never more than counting first
            expect("predicted re-executed steps", st.get("predicted", -1),
                   st["reexec"])
            if st["reexec"] > base * revolve_t(t, s):
                fails.append("re-executed steps %d > b*T(%d,%d) = %d"
                             % (st["reexec"], t, s, base * revolve_t(t, s)))
            if kept > s or not t <= st["leaves"] <= t + kept:
                fails.append("%d kept states, %d base cases (t = %d, "
                             "s = %d)" % (kept, st["leaves"], t, s))
            if st["peak"] > max(s - 1, KEEP_MAX):
                fails.append("peak live checkpoints = %d > %d"
                             % (st["peak"], max(s - 1, KEEP_MAX)))
    else:
        r, leaves = bisection_counts(n, base)
        expect("re-executed steps", st["reexec"], r)
        expect("base cases", st["leaves"], leaves)
        bound = ceil_log2(t) + 1
        if st["peak"] > bound:
            fails.append("peak live checkpoints = %d > ceil(log2 %d)+1 = %d"
                         % (st["peak"], t, bound))
    return fails


def check_run(name, spec):
    """(label, list of failures, exact?) of one program under one spec."""
    args = ["--stats"] + (["--checkpoint=" + spec] if spec else [])
    label = "%s [%s]" % (name, spec or "default")
    status, out, err = run(name, args)
    fails = []
    if status != 0:
        fails.append("exit status %s" % status)
    golden_path = os.path.join(HERE, name[:-5] + ".out")
    with open(golden_path, encoding="utf-8") as f:
        golden = f.read()
    diff = None if out == golden else same_output(golden, out)
    if diff:
        fails.append("stdout differs from %s: %s" % (os.path.basename(golden_path), diff))
    st, bad = parse_stats(err)
    if bad:
        fails.append("unexpected stderr: %s" % " | ".join(bad[:5]))
    if name.startswith("count-") and status == 0:
        n_printed = None
        for line in out.splitlines():
            if re.match(r"^\d+$", line):
                n_printed = int(line)
                break
        fails += check_counts(spec, n_printed, st)
    return label, fails, out == golden


def check_env():
    """(label, failures) of the VLAD_CHECKPOINT cases."""
    results = []
    for bad in ("nonsense", "bisection,base=0", "binomial,slots=0",
                "binomial,slots=x", "binomial,base=2.5", "bisection,slots=3",
                "binomial,budget=0", "binomial,budget=12X",
                "binomial,slots=2,budget=1M", "bisection,budget=1M",
                "binomial,budget=", "binomial,budget=9999999999G"):
        label = "VLAD_CHECKPOINT=%s" % bad
        status, out, err = run("count-one.vlad", [], {"VLAD_CHECKPOINT": bad})
        fails = []
        if status != 2:
            fails.append("exit status %s, expected 2" % status)
        if out:
            fails.append("stdout not empty: %r" % out[:200])
        lines = err.splitlines()
        if len(lines) != 1 or "VLAD_CHECKPOINT" not in lines[0]:
            fails.append("stderr is not one line naming VLAD_CHECKPOINT: %r" % err[:300])
        results.append((label, fails))

    def reexec(args, env):
        status, out, err = run("count-loop.vlad", ["--stats"] + args, env)
        st, bad = parse_stats(err)
        return status, st.get("reexec"), st.get("peak"), bad

    a = reexec(["--checkpoint=binomial,slots=2,base=1"], None)
    b = reexec([], {"VLAD_CHECKPOINT": "binomial,slots=2,base=1"})
    c = reexec([], None)
    label = "VLAD_CHECKPOINT=binomial,slots=2,base=1 is used"
    fails = []
    if a[0] != 0 or b[0] != 0 or c[0] != 0:
        fails.append("exit statuses %s %s %s" % (a[0], b[0], c[0]))
    if a[1:3] != b[1:3]:
        fails.append("env gives (re-executed, peak) %s, the option %s" % (b[1:3], a[1:3]))
    if a[1:3] == c[1:3]:
        fails.append("the default gives the same stats %s: test is void" % (c[1:3],))
    results.append((label, fails))

    d = reexec(["--checkpoint=bisection,base=10"], {"VLAD_CHECKPOINT": "binomial,slots=2,base=1"})
    e = reexec(["--checkpoint=bisection,base=10"], None)
    label = "--checkpoint overrides VLAD_CHECKPOINT"
    fails = []
    if d[0] != 0 or e[0] != 0:
        fails.append("exit statuses %s %s" % (d[0], e[0]))
    if d[1:3] != e[1:3]:
        fails.append("with the env set: %s, without: %s" % (d[1:3], e[1:3]))
    results.append((label, fails))
    return results


def main(argv):
    verbose = False
    jobs = None
    names = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-v":
            verbose = True
        elif a == "-j" and i + 1 < len(argv):
            jobs = int(argv[i + 1])
            i += 1
        else:
            names.append(os.path.basename(a))
        i += 1
    if VLAD is None:
        print("run-corpus: VLAD is not set to the built vlad (run through make check)",
              file=sys.stderr)
        return 99
    if jobs is None:
        jobs = int(os.environ.get("VLAD_CPJ_JOBS", "0")) or min(4, os.cpu_count() or 1)
    if not names:
        names = sorted(f for f in os.listdir(HERE)
                       if re.match(r"^(corpus|count)-.*\.vlad$", f))
    tasks = []
    for n in names:
        tasks += [(n, s) for s in (COUNT_SPECS if n.startswith("count-") else CORPUS_SPECS)]
        if n == "count-200.vlad":
            tasks += [(n, s) for s in SLOTS_ONE]
    passed = failed = exact = close = 0
    bad = check_revolve_formula()
    if bad:
        print("run-corpus: the revolve oracle is wrong: %s" % "; ".join(bad[:3]))
        return 99
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        env_future = pool.submit(check_env)
        futures = [pool.submit(check_run, n, s) for n, s in tasks]
        for fut in futures:
            label, fails, is_exact = fut.result()
            if fails:
                failed += 1
                print("FAIL: %s: %s" % (label, "; ".join(fails)))
            else:
                passed += 1
                if is_exact:
                    exact += 1
                else:
                    close += 1
                if verbose:
                    print("ok: %s%s" % (label, "" if is_exact else " (reals within 1e-12)"))
        for label, fails in env_future.result():
            if fails:
                failed += 1
                print("FAIL: %s: %s" % (label, "; ".join(fails)))
            else:
                passed += 1
                if verbose:
                    print("ok: %s" % label)
    print("run-corpus: %d runs of %d programs; passing runs: %d with output "
          "identical to the golden file, %d with reals within 1e-12"
          % (len(tasks), len(names), exact, close))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
