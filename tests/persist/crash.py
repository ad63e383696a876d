"""tests/persist/crash.py -- vlad --autosave survives kill -9 (issue 23)

A script of a few seconds that prints as it goes, with *j and
checkpoint-*j inside its loop, runs with --autosave FILE,every=0.02 and
its output going to a file; it is killed with SIGKILL at a random moment
(after its first save), then `vlad --resume FILE`, its output appended to
the same file, finishes it: the file must then hold exactly the output of
an uninterrupted run (no line lost, none printed twice; the final values
and derivatives are printed by the script), 20 times.  In a few of them
the resumed run autosaves too and is itself killed before a second
--resume finishes the program.  A run that ends normally removes its
file.  Output to a pipe: the resumed output is the rest of the program
from the last save (lines after the save are printed again there: only a
file tells how much the killed run wrote).

Run through tests/repl/run-pty (make check); exit 0, 1, or 77 without
$VLAD.
"""

import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.environ.get("srcdir", "."), "tests",
                                "persist"))
from persistlib import env, kill_after_save, vlpty     # noqa: E402

PROGRAM = """\
(define (g x) (let loop ((i 0) (a x))
  (if (< i 20000) (loop (+ i 1) (+ (* 0.999 a) (* 0.001 (sin a)))) a)))
(define (iter k n acc)
  (if (= k n) acc
      (let* ((d (*j g (+ 0.5 (* 0.01 k)) 1))
             (c (checkpoint-*j g (* 0.02 k) 1))
             (m (write-real k)))
        (iter (+ k 1) n (+ acc (cadr d) (cadr c))))))
(define a (iter 0 40 0))
(write-real a)
(iter 0 20 a)
(list a (*j g a 1) (checkpoint-*j g a 1))
"""


def start(args, out, mode):
    f = open(out, mode)
    p = subprocess.Popen([vlpty.VLAD] + args, stdout=f,
                         stderr=subprocess.PIPE, env=env())
    f.close()
    return p


def main():
    if not vlpty.VLAD:
        print("SKIP: VLAD is not set")
        return 77
    tmp = tempfile.mkdtemp(prefix="vlad-crash-")
    prog = os.path.join(tmp, "prog.vlad")
    with open(prog, "w") as f:
        f.write(PROGRAM)
    t0 = time.monotonic()
    r = subprocess.run([vlpty.VLAD, prog], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env())
    whole = time.monotonic() - t0
    if r.returncode != 0:
        print("FAIL: the uninterrupted run: %s" % r.stderr.decode())
        return 1
    expected = r.stdout
    rng = random.Random(23)
    passed = failed = 0
    saved = os.path.join(tmp, "run.ckpt")
    out = os.path.join(tmp, "out")
    for trial in range(20):
        for f in (saved, out):
            if os.path.exists(f):
                os.unlink(f)
        p = start(["--autosave", saved + ",every=0.02", prog], out, "wb")
        moment = rng.uniform(0.0, 0.9 * whole)
        status = 1 if kill_after_save(p, saved, moment) else 0
        what = "killed %.2f s after its first save" % moment
        if status == 0:
            what = "ended before the kill"
        elif trial % 4 == 3 and os.path.exists(saved):
            # the resumed run autosaves too, and is killed as well
            q = start(["--resume", saved, "--autosave",
                       saved + ",every=0.02"], out, "ab")
            again = rng.uniform(0.0, 0.5 * whole)
            time.sleep(again)
            if q.poll() is None:
                q.kill()
            q.wait()
            if q.returncode == 0:       # it finished first: nothing left
                status = 0
                what += ", its resumption ended before the kill"
            else:
                what += ", its resumption killed after %.2f s" % again
        if status != 0:
            q = start(["--resume", saved], out, "ab")
            _, err = q.communicate(timeout=120 * vlpty.SCALE)
            if q.returncode != 0:
                failed += 1
                print("FAIL: trial %d (%s): --resume: %s"
                      % (trial, what, err.decode()))
                continue
        with open(out, "rb") as f:
            got = f.read()
        if got != expected:
            failed += 1
            print("FAIL: trial %d (%s): the output differs:\n%s\n--- "
                  "expected:\n%s" % (trial, what, got.decode(),
                                     expected.decode()))
        elif status == 0 and os.path.exists(saved):
            failed += 1
            print("FAIL: trial %d: a run that ended kept its file" % trial)
        else:
            passed += 1
            print("ok: trial %d (%s)" % (trial, what))
    # a pipe: the resumed output is the rest from the last save
    p = start(["--autosave", saved + ",every=0.02", prog], out, "wb")
    kill_after_save(p, saved, 0.3 * whole)
    r = subprocess.run([vlpty.VLAD, "--resume", saved],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env())
    with open(out, "rb") as f:
        before = f.read()
    # nothing lost: the killed run's output, then the resumed run's, cover
    # the whole, and the resumed run's is the end of it
    if r.returncode == 0 and expected.startswith(before) and \
            expected.endswith(r.stdout) and \
            len(before) + len(r.stdout) >= len(expected):
        passed += 1
        print("ok: resumed into a pipe: the rest of the output from the "
              "last save")
    else:
        failed += 1
        print("FAIL: resumed into a pipe: %r after %r" % (r.stdout, before))
    subprocess.run(["rm", "-rf", tmp])
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
