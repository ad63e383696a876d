#!/usr/bin/env python3
"""tests/mpi/runner.py -- parallel programs, run as P ranks

usage: runner.py P [P ...]   (P = 1: plain ./vlad, one rank; P > 1:
                              mpiexec -n P ./vlad)

Checks, for each P:
  - examples/mpi/ring.vlad's token visits every rank in order;
  - the programs tests/mpi/NAME.vlad print tests/mpi/NAME.out on standard
    output (the top level echoes on rank 0 only, and each program's output
    is the same for every P), exit 0; derivs.vlad checks derivatives
    through messages against closed forms, fig3.vlad checkpoint-*j's
    pieces holding only a send, only a receive... (receive logging), also
    under several strategies (SPECS);
  - bad input and faults: each a clear error (with "rank R: " in front
    when P > 1), a non-zero exit, and no hang: a procedure or a checkpoint
    sent, ranks out of range or not whole, collectives of different
    shapes or kinds on different ranks, an error on one rank while the
    others wait in a receive or after they have finished (they wait for
    it at the end, where its abort stops them: not inside MPI_Finalize),
    a send never received (the end gives up on it: exit 0), a receive from oneself with nothing sent,
    data that is not a tree of reals given to mpi-allreduce, a tangent or
    a tape node arriving outside the matching j* or *j, *j around a
    collective on some ranks only;
  - an error on one rank while the others wait: every waiting rank says
    "stopped: rank R failed: ..." (P > 1);
  - kill -9 of one rank, or SIGINT (Ctrl-C) or SIGTERM to mpiexec, while
    all wait for messages: mpiexec ends with a non-zero status and no
    rank is left behind (P > 1).
Every run has a generous timeout (TIMEOUT seconds, scaled by
VLAD_TEST_TIME_SCALE): it only turns a hang into a failure.
Prints "N passed, N failed"; exit status 1 when a check fails.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

srcdir = os.environ.get('srcdir', '.')
here = os.path.join(srcdir, 'tests', 'mpi')
vlad = os.environ.get('VLAD', './vlad')
TIMEOUT = 120 * float(os.environ.get('VLAD_TEST_TIME_SCALE', '1'))
passed = failed = 0

PROGRAMS = ['ring', 'pairs', 'sendfirst', 'collectives', 'deep', 'derivs',
            'fig3', 'resume']
# fig3.vlad (a checkpoint-*j piece with only a send, only a receive, ...)
# again under strategies whose pieces are single steps, a few steps, a
# budget, and a budget whose held states go to files: its pieces fall
# elsewhere on each rank, and receive logging must make each *j's result
SPECS = ['bisection,base=1', 'binomial,slots=2,base=1',
         'binomial,slots=3,base=4', 'binomial,budget=8k',
         'binomial,budget=8k,spill=%s']

# (name, expression, P -> expected stderr text or None for success)
LAST = '(- (mpi-size) 1)'
CASES = [
    ('send a procedure', '(mpi-send 0 car)',
     lambda p: 'mpi-send: a procedure cannot be sent'),
    ('send a checkpoint',
     '(mpi-send 0 (checkpoint (lambda (x) (+ x 1)) 1 0))',
     lambda p: 'mpi-send: a checkpoint cannot be sent'),
    ('destination out of range', '(mpi-send (mpi-size) 1)',
     lambda p: 'mpi-send: the destination rank must be a whole number '
               'from 0 to %d (the ranks of this job), got %d' % (p - 1, p)),
    ('source negative', '(mpi-recv -1)',
     lambda p: 'mpi-recv: the source rank must be a whole number'),
    ('root not whole', '(mpi-bcast 0.5 1)',
     lambda p: 'mpi-bcast: the root rank must be a whole number'),
    ('rank not a real', "(mpi-send 'zero 1)",
     lambda p: 'got zero'),
    ('allreduce shapes differ',
     '(mpi-allreduce (if (= (mpi-rank) 0) (list 1 2) (list 1 (list 2))))',
     lambda p: None if p == 1 else
     "mpi-allreduce: the ranks' values have different shapes"),
    ('allreduce lengths differ',
     '(mpi-allreduce (if (= (mpi-rank) %s) (list 1 2) (list 1 2 3)))' % LAST,
     lambda p: None if p == 1 else
     "mpi-allreduce: the ranks' values have different shapes"),
    ('collectives differ',
     '(if (= (mpi-rank) 0) (mpi-barrier) (mpi-allreduce 1))',
     lambda p: None if p == 1 else
     'the ranks are not all in the same collective operation: some called '
     'mpi-allreduce, others mpi-barrier'),
    ('roots differ', '(mpi-bcast (if (= (mpi-rank) 0) 0 %s) 1)' % LAST,
     lambda p: None if p == 1 else 'mpi-bcast: the ranks name different '
                                   'roots'),
    ('error while others receive',
     '(if (= (mpi-rank) %s) (car 5) (mpi-recv %s))' % (LAST, LAST),
     lambda p: 'car: expected a pair, got 5'),
    # the others have finished (and wait at the end) when it stops
    ('error after the others finished',
     "(define (loop n) (if (= n 0) 0 (loop (- n 1)))) "
     "(if (= (mpi-rank) %s) (begin (loop 300000) (car 5)) 'done)" % LAST,
     lambda p: 'car: expected a pair, got 5'),
    # never received: the end does not wait for it for ever
    ('a send never received',
     '(if (= (mpi-rank) 0) (begin (mpi-send %s (iota 20000)) 1) 0)' % LAST,
     lambda p: None),
    ('receive from oneself, nothing sent', '(mpi-recv (mpi-rank))',
     lambda p: 'the receive would wait forever'),
    ('allreduce of a symbol', "(mpi-allreduce (list 1 'a))",
     lambda p: 'mpi-allreduce: expected a real or a list or tuple tree of '
               'reals, got (1 a)'),
    ('a derivative sent to oneself',
     '(derivative (lambda (x) (begin (mpi-send (mpi-rank) (* x x)) '
     '(mpi-recv (mpi-rank)))) 3)',
     lambda p: None),
    ('a tangent arrives outside j*',
     '(if (= (mpi-rank) 0) (derivative (lambda (x) (mpi-send %s x)) 1) '
     '(mpi-recv 0))' % LAST,
     lambda p: None if p == 1 else
     'mpi-recv: rank 0 sent a value with reals inside j* (outermost '
     'first); it arrived at rank %d outside j* and *j' % (p - 1)),
    ('a tape node arrives outside *j',
     '(if (= (mpi-rank) 0) (*j (lambda (x) (mpi-send %s x)) 1 1) '
     '(mpi-recv 0))' % LAST,
     lambda p: '*j (the adjoint of mpi-send): no message from rank 0 (this '
               'rank itself) is waiting' if p == 1 else
     'mpi-recv: rank 0 sent a value with reals inside *j'),
    ('*j around a collective on one rank only',
     '(if (= (mpi-rank) 0) (*j (lambda (x) (mpi-allreduce x)) 1 1) '
     '(mpi-allreduce 1))',
     lambda p: None if p == 1 else
     "mpi-allreduce: the ranks' values have different shapes"),
    # a rank that has finished says so: waiting for it is an error
    ('a receive from a rank that has finished',
     '(if (= (mpi-rank) 0) (mpi-recv %s) 0)' % LAST,
     lambda p: 'the receive would wait forever' if p == 1 else
     'mpi-recv: rank %d has finished its program: the message it waits '
     'for can never come' % (p - 1)),
    ('a collective a finished rank never joins',
     '(if (= (mpi-rank) 0) (mpi-allreduce 1) 0)',
     lambda p: None if p == 1 else
     'has finished its program: it will never take part in this '
     'collective operation'),
    # standard input reaches rank 0 only (here: nothing); the others read
    # its end instead of waiting forever
    ('read-real on a rank without standard input', '(read-real)',
     lambda p: 'read-real: end of input'),
    ('checkpoint-*j around a collective',
     '(checkpoint-*j (lambda (x) (mpi-allreduce (* x x))) 1 1)',
     lambda p: None),
]


def ok():
    global passed
    passed += 1


def bad(msg):
    global failed
    failed += 1
    print('FAIL: ' + msg)


def command(p, args):
    return ([vlad] if p == 1 else ['mpiexec', '-n', str(p), vlad]) + args


def run(p, args):
    try:
        r = subprocess.run(command(p, args), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None
    return r.returncode, r.stdout.decode(errors='replace'), \
        r.stderr.decode(errors='replace')


def check_program(p, name, spec=None):
    args = [os.path.join(here, name + '.vlad')]
    what = '%s with %d rank(s)' % (name, p)
    if spec is not None:
        args = ['--checkpoint=' + spec] + args
        what += ' under ' + spec
    r = run(p, args)
    if r is None:
        return bad('%s: no end within %g s (a hang)' % (what, TIMEOUT))
    want = open(os.path.join(here, name + '.out')).read()
    if r[0] != 0 or r[1] != want:
        return bad('%s: status %d\n--- stdout\n%s--- wanted\n%s--- stderr\n%s'
                   % (what, r[0], r[1], want, r[2]))
    ok()


def check_example(p):
    """examples/mpi/ring.vlad: the token holds every rank, in order."""
    r = run(p, [os.path.join(srcdir, 'examples', 'mpi', 'ring.vlad')])
    what = 'examples/mpi/ring.vlad with %d rank(s)' % p
    if r is None:
        return bad('%s: no end within %g s (a hang)' % (what, TIMEOUT))
    want = '(%s)\n%d\n' % (' '.join(str(i) for i in range(p)),
                            sum(i * i for i in range(p)))
    if r[0] != 0 or r[1] != want:
        return bad('%s: status %d, stdout %r, wanted %r\n%s'
                   % (what, r[0], r[1], want, r[2]))
    ok()


def check_case(p, name, expr, expect):
    r = run(p, ['-e', expr])
    what = '%s with %d rank(s)' % (name, p)
    if r is None:
        return bad('%s: no end within %g s (a hang)' % (what, TIMEOUT))
    status, out, err = r
    want = expect(p)
    if want is None:
        if status != 0:
            return bad('%s: status %d, wanted 0\n%s' % (what, status, err))
        return ok()
    if status == 0:
        return bad('%s: status 0, wanted an error' % what)
    if want not in err:
        return bad('%s: stderr lacks %r:\n%s' % (what, want, err))
    if p > 1 and not any(line.startswith('rank ') and ': <-e>:1:' in line
                         and 'error: ' in line for line in err.splitlines()):
        return bad('%s: no "rank R: <-e>:L:C: error: ..." line:\n%s'
                   % (what, err))
    if p == 1 and 'rank ' in err.split('error:')[0]:
        return bad('%s: a rank named with one rank:\n%s' % (what, err))
    ok()


def descendants(pid):
    """The processes under pid (from /proc), deepest last."""
    children = {}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % d) as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(')') + 2:].split()[1])
        children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def comm(pid):
    try:
        with open('/proc/%d/comm' % pid) as f:
            return f.read().strip()
    except OSError:
        return ''


def check_stop(p, how):
    """Every rank prints a line, then waits for a message that never
    comes; then one rank is killed with SIGKILL ('kill'), or mpiexec gets
    SIGINT (Ctrl-C) or SIGTERM: mpiexec ends (non-zero after kill -9) and
    no rank is left behind; on SIGINT, the ranks say they
    were interrupted (each its own error, or another rank's: "stopped:
    rank R failed: ... interrupted")."""
    names = {'kill': 'kill -9 of a rank', signal.SIGINT: 'Ctrl-C to mpiexec',
             signal.SIGTERM: 'SIGTERM to mpiexec'}
    what = '%s with %d ranks' % (names[how], p)
    prog = '(write (mpi-rank)) (mpi-recv (modulo (+ (mpi-rank) 1) (mpi-size)))'
    proc = subprocess.Popen(command(p, ['-e', prog]),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        for _ in range(p):                  # every rank is in its receive
            if not proc.stdout.readline():
                break
        ranks = [c for c in descendants(proc.pid) if 'vlad' in comm(c)]
        if len(ranks) < p:
            return bad('%s: found %d vlad processes under mpiexec'
                       % (what, len(ranks)))
        os.kill(ranks[-1] if how == 'kill' else proc.pid,
                signal.SIGKILL if how == 'kill' else how)
        try:
            status = proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return bad('%s: mpiexec did not end within %g s'
                       % (what, TIMEOUT))
        err = proc.stderr.read().decode(errors='replace')
        # (after a signal to mpiexec itself, MPICH's mpiexec sometimes
        # exits 0 although its ranks did not: pmodels/mpich#7057; the
        # ranks' ending and their messages are what is checked then)
        if status == 0 and how == 'kill':
            return bad('%s: mpiexec exited 0' % what)
        left = [c for c in ranks if os.path.exists('/proc/%d' % c)
                and comm(c) and not open('/proc/%d/stat' % c).read()
                .split(') ')[1].startswith('Z')]
        if left:
            return bad('%s: ranks left behind: %s' % (what, left))
        if how == signal.SIGINT and 'interrupted' not in err:
            return bad('%s: no rank said it was interrupted:\n%s'
                       % (what, err))
        ok()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def check_lines(p):
    """lines.vlad: each rank writes two lines in 40 pieces each, waiting
    between pieces: every line of standard output is one rank's whole
    line (libvlad hands over whole lines only in a job of several
    ranks)."""
    what = 'whole lines with %d rank(s)' % p
    r = run(p, [os.path.join(here, 'lines.vlad')])
    if r is None:
        return bad('%s: no end within %g s (a hang)' % (what, TIMEOUT))
    lines = r[1].splitlines()
    want = sorted(('%d-' % k) * 40 for k in range(p) for _ in range(2))
    if r[0] != 0 or sorted(lines) != want:
        return bad('%s: status %d\n%s' % (what, r[0], r[1][:2000]))
    ok()


def check_waiting(p):
    """--progress: a rank that has waited a second for a message says so
    on stderr, and says when the wait ends.  Rank 1 waits for what rank 0
    reads from standard input, which this test writes only once it has
    seen rank 1's line (no timing)."""
    what = '--progress showing a wait with %d ranks' % p
    prog = ('(if (= (mpi-rank) 0) (mpi-send 1 (read-real)) '
            '(if (= (mpi-rank) 1) (mpi-recv 0) 0))')
    proc = subprocess.Popen(command(p, ['--progress', '-e', prog]),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        want = 'rank 1: waiting for a message from rank 0 ('
        seen = ''
        deadline = time.time() + TIMEOUT
        while want not in seen and time.time() < deadline:
            line = proc.stderr.readline().decode(errors='replace')
            if not line:
                break
            seen += line
        if want not in seen:
            return bad('%s: no line %r:\n%s' % (what, want, seen))
        proc.stdin.write(b'5\n')
        proc.stdin.flush()
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return bad('%s: no end within %g s' % (what, TIMEOUT))
        err = seen + err.decode(errors='replace')
        if proc.returncode != 0 or \
                'rank 1: the wait ended after ' not in err:
            return bad('%s: status %d\n%s' % (what, proc.returncode, err))
        ok()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def check_no_file(p):
    """No FILE and no -e under mpiexec: refused on every rank (standard
    input reaches rank 0 only: no REPL, no program on standard input)."""
    for args in ([], ['-']):
        what = 'vlad %s with %d ranks' % (' '.join(args), p)
        r = run(p, args)
        if r is None:
            return bad('%s: no end within %g s (a hang)' % (what, TIMEOUT))
        if r[0] == 0 or 'standard input reaches rank 0 only' not in r[2]:
            return bad('%s: status %d\n%s' % (what, r[0], r[2]))
        ok()


def check_stopped_others(p):
    """An error on the last rank while the others wait for it: each
    waiting rank says why it stops ("stopped: rank R failed: ...")."""
    what = 'the others told of an error with %d ranks' % p
    r = run(p, ['-e', '(if (= (mpi-rank) %s) (car 5) (mpi-recv %s))'
                % (LAST, LAST)])
    if r is None:
        return bad('%s: no end within %g s (a hang)' % (what, TIMEOUT))
    status, out, err = r
    said = 'error: mpi-recv: stopped: rank %d failed: <-e>:1:' % (p - 1)
    told = [k for k in range(p - 1)
            if any(line.startswith('rank %d: <-e>:1:' % k) and said in line
                   for line in err.splitlines())]
    if status == 0 or len(told) != p - 1:
        return bad('%s: status %d, ranks that said so: %s\n%s'
                   % (what, status, told, err))
    ok()


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [1]
    for p in sizes:
        for name in PROGRAMS:
            check_program(p, name)
        spill = tempfile.mkdtemp(prefix='vlad-mpi-spill-')
        try:
            for spec in SPECS:
                check_program(p, 'fig3', spec.replace('%s', spill))
        finally:
            shutil.rmtree(spill, ignore_errors=True)
        check_example(p)
        check_lines(p)
        for name, expr, expect in CASES:
            check_case(p, name, expr, expect)
        if p > 1:
            check_no_file(p)
            check_waiting(p)
            check_stopped_others(p)
            for how in ('kill', signal.SIGINT, signal.SIGTERM):
                check_stop(p, how)
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
