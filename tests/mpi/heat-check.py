#!/usr/bin/env python3
"""tests/mpi/heat-check.py -- examples/mpi/heat.vlad gives the same
answers on any number of ranks, and its gradient is the derivative j*
computes

usage: heat-check.py P [P ...]   (P = 1: plain ./vlad; P > 1: mpiexec -n P)

The global problem is fixed (CELLS = 16, STEPS = 200); for each P it runs
the example's gradient (SHOW = 1: every rank writes its part, rank 0 the
totals) by *j and by checkpoint-*j under binomial,budget=48K (which
re-executes on every P: checked from --stats, so the receive log is
replayed), binomial,slots=2 and bisection, and its j* along the example's
direction v.  Checks, to 1e-12 relative:
  - J, dJ/dkappa, |dJ/du0| and the gradient reassembled by rank (16
    components, rank r's part holding cells r*16/P ...) equal those of
    the first run (*j on the first P given);
  - j*'s dJ.v equals <gradient, v> (v = (1, cos(5 i) for cell i)), the
    per-rank tangents add up to it, and j*'s J is the same J.
Every run has a generous timeout (scaled by VLAD_TEST_TIME_SCALE): it only
turns a hang into a failure.  Prints "N passed, N failed"; exit status 1
when a check fails.
"""
import math
import os
import re
import subprocess
import sys

srcdir = os.environ.get('srcdir', '.')
example = os.path.join(srcdir, 'examples', 'mpi', 'heat.vlad')
vlad = os.environ.get('VLAD', './vlad')
TIMEOUT = 120 * float(os.environ.get('VLAD_TEST_TIME_SCALE', '1'))
CELLS, STEPS = 16, 200
TOL = 1e-12
STRATEGIES = ['binomial,budget=48K', 'binomial,slots=2', 'bisection']
failures = []      # what failed, one message a check
checks = 0


def record(problem):
    """Count a check; problem: None when it passed, else what is wrong."""
    global checks
    checks += 1
    if problem:
        failures.append(problem)
        print('FAIL: ' + problem)


def parse(text):
    """The s-expression text (lists of symbols and reals) as Python lists."""
    tokens = re.findall(r'[()]|[^\s()]+', text)
    stack = [[]]
    for t in tokens:
        if t == '(':
            stack.append([])
        elif t == ')':
            done = stack.pop()
            stack[-1].append(done)
        else:
            try:
                stack[-1].append(float(t))
            except ValueError:
                stack[-1].append(t)
    return stack[0]


def run(p, mode, options):
    """Run the example as p ranks; (parts by rank, rank 0's results as a
    dict, stderr), or a string saying what went wrong."""
    cmd = ([vlad] if p == 1 else ['mpiexec', '-n', str(p), vlad]) + \
        options + [example, str(CELLS), str(STEPS), str(mode), '1']
    try:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return 'no end within %g s (a hang)' % TIMEOUT
    out, err = r.stdout.decode(), r.stderr.decode()
    if r.returncode != 0:
        return 'status %d\n%s%s' % (r.returncode, out, err)
    parts, results = {}, None
    for form in parse(out):
        if isinstance(form[0], list):           # ((J x) (name y) ...)
            results = dict((k, v) for k, v in form)
        else:                                   # (rank part)
            parts[int(form[0])] = form[1]
    if sorted(parts) != list(range(p)) or results is None:
        return 'not one part per rank and the results:\n' + out
    return parts, results, err


def close(a, b, scale=None):
    return abs(a - b) <= TOL * (scale if scale is not None
                                else max(abs(a), abs(b)))


def gathered(parts, p):
    g = [x for r in range(p) for x in parts[r]]
    if len(g) != CELLS or any(len(parts[r]) != CELLS // p for r in range(p)):
        return None
    return g


def check_gradient(what, got, want):
    """got, want: (gradient, results); each number to 1e-12 relative (a
    component to 1e-12 of the gradient's largest)."""
    (g, res), (g0, res0) = got, want
    scale = max(abs(x) for x in g0)
    diff = [k for k in range(CELLS) if not close(g[k], g0[k], scale)]
    if diff:
        return ('%s: dJ/du0 differs at cells %s: %r against %r'
                   % (what, diff, [g[k] for k in diff],
                      [g0[k] for k in diff]))
    for name in ('J', 'norm-dJ/du0', 'dJ/dkappa'):
        if not close(res[name], res0[name]):
            return ('%s: %s = %r, wanted %r'
                       % (what, name, res[name], res0[name]))
    return None


def check_reexecuted(what, err, p):
    """Every rank re-executed steps (so it replayed logged receives)."""
    counts = [int(n) for n in
              re.findall(r'checkpoint-\*j re-executed steps: (\d+)', err)]
    if len(counts) != p or min(counts) == 0:
        return ('%s: wanted re-executed steps on each of %d ranks, '
                   'got %r' % (what, p, counts))
    return None


def check_jstar(what, r, p, ref):
    parts, res, _ = r
    g, res0 = ref
    v = [math.cos(5 * i) for i in range(CELLS)]
    terms = [res0['dJ/dkappa']] + [g[i] * v[i] for i in range(CELLS)]
    inner = sum(terms)
    scale = sum(abs(t) for t in terms)
    if not close(res['dJ-along-v'], inner, scale):
        return ('%s: dJ.v = %r, <gradient, v> = %r'
                   % (what, res['dJ-along-v'], inner))
    shares = [parts[k] for k in range(p)]
    if not close(sum(shares), res['dJ-along-v'],
                 sum(abs(s) for s in shares)):
        return ('%s: the ranks\' tangents %r do not add up to %r'
                   % (what, shares, res['dJ-along-v']))
    if not close(res['J'], res0['J']):
        return ('%s: J = %r, wanted %r' % (what, res['J'], res0['J']))
    return None


def main():
    ps = [int(a) for a in sys.argv[1:]] or [1]
    ref = None
    for p in ps:
        runs = [('*j', 1, [])] + [('checkpoint-*j ' + s, 2,
                                   ['--stats', '--checkpoint=' + s])
                                  for s in STRATEGIES]
        for name, mode, options in runs:
            what = '%s, %d rank(s)' % (name, p)
            r = run(p, mode, options)
            if isinstance(r, str):
                record('%s: %s' % (what, r))
                continue
            g = gathered(r[0], p)
            if g is None:
                record('%s: parts of the wrong lengths: %r' % (what, r[0]))
                continue
            if ref is None:
                ref = (g, r[1])
            record(check_gradient(what, (g, r[1]), ref))
            if 'budget' in name:
                record(check_reexecuted(what, r[2], p))
        what = 'j*, %d rank(s)' % p
        r = run(p, 3, [])
        if isinstance(r, str):
            record('%s: %s' % (what, r))
        elif ref is not None:
            record(check_jstar(what, r, p, ref))
    print('%d passed, %d failed' % (checks - len(failures), len(failures)))
    sys.exit(1 if failures else 0)


main()
