"""tests/persist/read-real.py -- --autosave with read-real survives
kill -9 (issue 31, W2)

A program reads 30 numbers with read-real (which reads 4096 bytes ahead),
computing a derivative between two reads and printing as it goes; it
runs with --autosave FILE,every=0, its input a file and its output going
to a file, and is killed with SIGKILL at a random moment after its first
save (a fixed seed).  `vlad --resume FILE`, given the whole input again
and its output appended to the same file, must then finish it: the file
holds exactly the output of an uninterrupted run.  The saved file records
the bytes read-real had consumed (not those read ahead); the resumed run
skips them -- by a seek when its standard input is a regular file (odd
trials), by reading them when it is a pipe (even trials).  Every third
trial the resumed run is killed too before a second --resume finishes (it
goes on counting the input from the start).  Then: input shorter than
what the saved run consumed is refused, saying how many bytes it needs.

Run through tests/repl/run-pty (make check); exit 0, 1, or 77 without
$VLAD.
"""

import os
import random
import shutil
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
      (let* ((v (read-real 0))
             (d (*j g (+ v (* 0.01 k)) 1))
             (m (write-real (+ (* 1000 k) v))))
        (iter (+ k 1) n (+ acc (cadr d))))))
(iter 0 30 0)
"""

INPUT = "".join("%d\n" % ((k * 7919) % 997) for k in range(30))


def start(args, out, mode, stdin):
    with open(out, mode) as f:
        return subprocess.Popen([vlpty.VLAD] + args, stdin=stdin, stdout=f,
                                stderr=subprocess.PIPE, env=env())


def resume(saved, out, inp, pipe):
    """--resume given the whole input (a pipe or the file)."""
    if pipe:
        q = start(["--resume", saved], out, "ab", subprocess.PIPE)
        _, err = q.communicate(INPUT.encode(), timeout=300 * vlpty.SCALE)
    else:
        with open(inp, "rb") as f:
            q = start(["--resume", saved], out, "ab", f)
        _, err = q.communicate(timeout=300 * vlpty.SCALE)
    return q.returncode, err.decode()


def main():
    if not vlpty.VLAD:
        print("SKIP: VLAD is not set")
        return 77
    tmp = tempfile.mkdtemp(prefix="vlad-readreal-")
    prog = os.path.join(tmp, "prog.vlad")
    inp = os.path.join(tmp, "in")
    with open(prog, "w") as f:
        f.write(PROGRAM)
    with open(inp, "w") as f:
        f.write(INPUT)
    r = subprocess.run([vlpty.VLAD, prog], input=INPUT.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env())
    if r.returncode != 0:
        print("FAIL: the uninterrupted run: %s" % r.stderr.decode())
        return 1
    expected = r.stdout
    # the kills fall within the time of a whole run that saves
    t0 = time.monotonic()
    a = subprocess.run([vlpty.VLAD, "--autosave", os.path.join(tmp, "a.sav")
                        + ",every=0", prog], input=INPUT.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env())
    whole = time.monotonic() - t0
    if a.returncode != 0 or a.stdout != expected or a.stderr:
        print("FAIL: the uninterrupted run that saves: %d %r" % (
            a.returncode, a.stderr.decode()))
        return 1
    rng = random.Random(31)
    passed = failed = 0
    saved = os.path.join(tmp, "run.sav")
    out = os.path.join(tmp, "out")
    for trial in range(12):
        for f in (saved, out):
            if os.path.exists(f):
                os.unlink(f)
        with open(inp, "rb") as fi:
            p = start(["--autosave", saved + ",every=0", prog], out, "wb", fi)
        moment = rng.uniform(0.0, 0.9 * whole)
        pipe = trial % 2 == 0
        what = "killed %.2f s after its first save, resumed from a %s" % (
            moment, "pipe" if pipe else "file")
        if not kill_after_save(p, saved, moment):
            what = "ended before the kill"
        elif trial % 3 == 2:
            # the resumed run (autosaving: --resume goes on) killed too
            with open(inp, "rb") as fi:
                q = start(["--resume", saved], out, "ab", fi)
            again = rng.uniform(0.0, 0.5 * whole)
            killed = kill_after_save(q, saved, again)
            what += ", its resumption %s" % (
                "killed after %.2f s" % again if killed else "ended first")
        if os.path.exists(saved):
            status, err = resume(saved, out, inp, pipe)
            if status != 0:
                failed += 1
                print("FAIL: trial %d (%s): --resume: %s" % (trial, what,
                                                             err))
                continue
        with open(out, "rb") as f:
            got = f.read()
        if got != expected:
            failed += 1
            print("FAIL: trial %d (%s): the output differs:\n%s\n--- "
                  "expected:\n%s" % (trial, what, got.decode(),
                                     expected.decode()))
        elif sorted(os.listdir(tmp)) != ["in", "out", "prog.vlad"]:
            failed += 1
            print("FAIL: trial %d: left %r" % (trial, os.listdir(tmp)))
        else:
            passed += 1
            print("ok: trial %d (%s)" % (trial, what))
    # too little input: refused, saying what it needs
    for f in (saved, out):
        if os.path.exists(f):
            os.unlink(f)
    p = start(["--autosave", saved + ",every=0", prog], out, "wb",
              subprocess.PIPE)
    p.stdin.write(INPUT.encode()[:40])      # then it waits for more
    p.stdin.flush()
    deadline = time.monotonic() + 60 * vlpty.SCALE
    while time.monotonic() < deadline:     # 4 numbers used: 14 bytes
        with open(out, "rb") as f:
            if f.read().count(b"\n") >= 5:
                break
        time.sleep(0.01)
    p.kill()
    p.wait()
    r = subprocess.run([vlpty.VLAD, "--resume", saved], input=b"1\n2\n",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env())
    err = r.stderr.decode()
    if r.returncode == 1 and r.stdout == b"" and "bytes of standard " \
            "input, and standard input has only 4: give it the whole " \
            "input again" in err and os.path.exists(saved):
        passed += 1
        print("ok: too little input is refused: " + err.strip())
    else:
        failed += 1
        print("FAIL: too little input: %d %r %r" % (r.returncode, r.stdout,
                                                    err))
    shutil.rmtree(tmp)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
