"""tests/persist/autosave.py -- `vlad --autosave FILE` never destroys a
file, and --resume goes on as a user relying on it expects (issue 31)

  L1  FILE that is the program, standard input or output, a directory, a
      FIFO, a device, a text or a save of an unfinished run is refused
      before the program starts, with the reason, and is left as it was;
      a FILE in a missing directory is refused at start-up; a symbolic
      link is written through (the link stays a link)
  U4  a second run (or a --resume) autosaving to the FILE of a running
      one is refused, naming its process; the first finishes normally
  U3  a save that fails (its directory removed) warns once and the
      program goes on; when the directory is back, the next save is made
      and said; the output is the uninterrupted run's
  L2  a loop of short checkpoint-*j calls is autosaved (it never was);
      killed at random moments while checkpoint-*j's driver runs (short
      calls, then a long one in many segments, under two strategies),
      --resume gives the uninterrupted run's output
  R2  kill -9 at seeded random moments of a run that saves a large state
      at every check (many kills land inside a save): the --resume that
      follows removes the temporary files left, and when it is over
      nothing but the program is left in the directory
  6   `vlad --resume FILE` of a killed run goes on autosaving to FILE at
      the saved interval and removes FILE (and its lock) when the program
      ends, so `while [ -e FILE ]; do vlad --resume FILE; done` ends

Timing decides nothing: a program that must be caught at a point stops
there in read-real (its output so far is flushed before it waits), and
the kill trials accept any moment.  Run through tests/repl/run-pty (make
check); exit 0, 1, or 77 without $VLAD.
"""

import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.environ.get("srcdir", "."), "tests",
                                "persist"))
from persistlib import env, kill_after_save, vlpty     # noqa: E402

passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok: " + what)
    else:
        failed += 1
        print("FAIL: " + what + (": " + detail if detail else ""))


def run(args, stdin=None, stdout=None, cwd=None, timeout=300):
    """Run vlad to its end: (status, stdout text or '', stderr text)."""
    r = subprocess.run([vlpty.VLAD] + args, stdin=stdin,
                       stdout=stdout if stdout is not None
                       else subprocess.PIPE,
                       stderr=subprocess.PIPE, cwd=cwd, env=env(),
                       timeout=timeout * vlpty.SCALE)
    out = r.stdout.decode() if stdout is None else ""
    return r.returncode, out, r.stderr.decode()


def start(args, cwd, stdout=subprocess.PIPE):
    # unbuffered: communicate() reads the descriptor, not what a
    # buffered readline() took ahead
    return subprocess.Popen([vlpty.VLAD] + args, stdin=subprocess.PIPE,
                            stdout=stdout, stderr=subprocess.PIPE,
                            cwd=cwd, env=env(), bufsize=0)


def line(p):
    """The next line p writes (it is flushed before read-real waits)."""
    return p.stdout.readline().decode()


def finish(p, text=b""):
    out, err = p.communicate(text, timeout=300 * vlpty.SCALE)
    return p.returncode, (out or b"").decode(), err.decode()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def ident(path):
    """What tells one save of FILE from another: its bytes (its inode
    does not: a save renames a new file over it, and after two saves the
    file system may give the first one's inode number again)."""
    with open(path, "rb") as f:
        return f.read()


# A computation of a few hundred thousand steps that prints one line,
# then read-real: the program stops there until it is given a number.
STOPS = """\
(define (g x) (let loop ((i 0) (a x))
  (if (< i 30000) (loop (+ i 1) (+ (* 0.999 a) (* 0.001 (sin a)))) a)))
(define r1 (write-real (g 0.5)))
(define a (read-real 0))
(define r2 (write-real (g a)))
(define b (read-real 0))
(define r3 (write-real (g b)))
"""

SHORT = "(define (f n a) (if (= n 0) a (f (- n 1) (+ a 1))))\n(f 300000 0)\n"


def refusals(tmp):
    prog = os.path.join(tmp, "p.vlad")
    write(prog, SHORT)

    def refused(target, why, stdin=None, stdout=None, program=prog):
        before = os.lstat(target) if os.path.lexists(target) else None
        st, out, err = run(["--autosave", target + ",every=0", program],
                           stdin=stdin, stdout=stdout, cwd=tmp)
        after = os.lstat(target) if os.path.lexists(target) else None
        same = (before is None) == (after is None) and (
            before is None or (before.st_ino == after.st_ino
                               and before.st_mode == after.st_mode
                               and before.st_size == after.st_size))
        where = os.path.dirname(target)
        left = [n for n in (os.listdir(where) if os.path.isdir(where)
                            else [])
                if n.startswith(os.path.basename(target) + ".")]
        check(st == 1 and out == "" and why in err and same and not left,
              "--autosave %s refused: %s" % (os.path.basename(target), why),
              "status %d, %r, %r, unchanged %s, left %r"
              % (st, out, err, same, left))

    refused(prog, "it is the program being run")
    outp = os.path.join(tmp, "out.txt")
    with open(outp, "w") as f:
        refused(outp, "it is where standard output goes", stdout=f)
    inp = os.path.join(tmp, "in.txt")
    write(inp, "1 2 3\n")
    with open(inp) as f:
        refused(inp, "it is where standard input comes from", stdin=f)
    d = os.path.join(tmp, "dir")
    os.mkdir(d)
    refused(d, "it is a directory")
    os.rmdir(d)
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    refused(fifo, "it is a FIFO")
    os.unlink(fifo)
    if os.geteuid() == 0:               # a clone of /dev/null
        node = os.path.join(tmp, "mynull")
        os.mknod(node, 0o644 | stat.S_IFCHR, os.makedev(1, 3))
        refused(node, "it is a device")
        os.unlink(node)
    else:
        refused("/dev/null", "it is a device")
    notes = os.path.join(tmp, "notes.txt")
    write(notes, "my notes\n")
    refused(notes, "is not a file vlad saved")
    os.unlink(notes)
    refused(os.path.join(tmp, "no", "such", "f.sav"),
            "No such file or directory")
    # a save of a run that did not finish: only --resume takes it over
    sav = os.path.join(tmp, "left.sav")
    p = start(["--autosave", sav + ",every=0", "-"], tmp)
    finish(p, STOPS.encode())           # read-real then meets the end
    check(os.path.exists(sav), "a run ended by an error keeps its file")
    refused(sav, "it holds the saved state of a run that did not finish")
    os.unlink(sav)
    # a symbolic link is written through, and stays a link
    link = os.path.join(tmp, "link.sav")
    os.symlink("target.sav", link)
    bad = os.path.join(tmp, "r.vlad")
    write(bad, SHORT + "(car 1)\n")
    st, out, err = run(["--autosave", link + ",every=0", bad], cwd=tmp)
    target = os.path.join(tmp, "target.sav")
    check(st == 1 and os.path.islink(link) and os.path.isfile(target)
          and read(target).startswith(b"VLADCKPT"),
          "--autosave through a symbolic link writes its target",
          "status %d, %r" % (st, err))
    st, out, err = run(["--resume", link], cwd=tmp)
    check(st == 1 and os.path.islink(link) and "car" in err,
          "--resume through the link: still a link", err)
    for f in (link, target, bad, prog, outp, inp):
        os.unlink(f)


def stopped(tmp):
    """STOPS in tmp, run autosaving at every check to tmp/run.sav up to
    its first read-real: (the program, FILE, the run, its first line)."""
    prog = os.path.join(tmp, "stops.vlad")
    if not os.path.exists(prog):
        write(prog, STOPS)
    sav = os.path.join(tmp, "run.sav")
    p = start(["--autosave", sav + ",every=0", prog], tmp)
    return prog, sav, p, line(p)


def two_runs(tmp):
    prog, sav, a, first = stopped(tmp)
    check(os.path.exists(sav), "the first run saved before read-real")
    for args in (["--autosave", sav + ",every=0", prog], ["--resume", sav]):
        st, out, err = run(args, stdin=subprocess.DEVNULL, cwd=tmp)
        check(st == 1 and "another vlad (process %d) is saving to it"
              % a.pid in err and out == "",
              "%s while a run autosaves there: refused" % args[0],
              "status %d, %r" % (st, err))
    st, out, err = finish(a, b"0.25 0.75\n")
    r = subprocess.run([vlpty.VLAD, prog], input=b"0.25 0.75\n",
                       stdout=subprocess.PIPE, env=env())
    check(st == 0 and first + out == r.stdout.decode() and err == ""
          and os.listdir(tmp) == ["stops.vlad"],
          "the first run finished as if alone, and removed its file",
          "%d %r %r %r" % (st, out, err, os.listdir(tmp)))
    os.unlink(prog)


def failing(tmp):
    prog = os.path.join(tmp, "stops.vlad")
    write(prog, STOPS)
    d = os.path.join(tmp, "d")
    os.mkdir(d)
    sav = os.path.join(d, "run.sav")
    p = start(["--autosave", sav + ",every=0", prog], tmp)
    out = line(p)
    shutil.rmtree(d)                    # the directory goes away
    p.stdin.write(b"0.25\n")
    p.stdin.flush()
    out += line(p)
    os.mkdir(d)                         # and comes back
    st, rest, err = finish(p, b"0.75\n")
    r = subprocess.run([vlpty.VLAD, prog], input=b"0.25 0.75\n",
                       stdout=subprocess.PIPE, env=env())
    warns = [w for w in err.splitlines() if w.startswith("vlad: warning:")]
    check(st == 0 and out + rest == r.stdout.decode(),
          "a run whose saves fail goes on to the right output",
          "%d %r %r" % (st, out + rest, err))
    check(len(warns) == 2 and "cannot save to '%s': No such file or "
          "directory; the program goes on" % sav in warns[0]
          and "saved to '%s' again" % sav in warns[1]
          and len(err.splitlines()) == 2,
          "one warning for the failures, one when saving works again",
          repr(err))
    check(os.listdir(d) == [], "the file removed at the end", repr(
        os.listdir(d)))
    shutil.rmtree(d)
    os.unlink(prog)


CPJ_LOOP = """\
(define (g x) (let loop ((i 0) (a x))
  (if (= i 50) a (loop (+ i 1) (+ (* 0.99 a) (* 0.01 (sin a)))))))
(define (iter k acc)
  (if (= k 20000) acc (iter (+ k 1) (+ acc (cadr (checkpoint-*j g 0.3 1))))))
(write-real (iter 0 0))
(define a (read-real 0))
a
"""


def cpj_loop(tmp):
    prog = os.path.join(tmp, "cpj.vlad")
    write(prog, CPJ_LOOP)
    sav = os.path.join(tmp, "cpj.sav")
    p = start(["--autosave", sav + ",every=0", prog], tmp)
    line(p)
    saved = os.path.exists(sav)
    st, out, err = finish(p, b"1\n")
    check(saved and st == 0 and not os.path.exists(sav),
          "a loop of short checkpoint-*j calls is autosaved",
          "saved %s, status %d, %r" % (saved, st, err))
    os.unlink(prog)


BIG = """\
(define big (let loop ((i 0) (acc '()))
  (if (= i 20000) acc (loop (+ i 1) (cons (* 0.5 i) acc)))))
(define (g x) (let loop ((i 0) (a x))
  (if (< i 20000) (loop (+ i 1) (+ (* 0.999 a) (* 0.001 (sin a)))) a)))
(define (iter k acc)
  (if (= k 12) acc (iter (+ k 1) (+ acc (g (* 0.01 (write-real k)))))))
(write-real (iter 0 0))
(length big)
"""


def kills(tmp):
    prog = os.path.join(tmp, "big.vlad")
    write(prog, BIG)
    ref = subprocess.run([vlpty.VLAD, prog], stdout=subprocess.PIPE,
                         env=env()).stdout
    sav = os.path.join(tmp, "big.sav")
    out = os.path.join(tmp, "out")
    rng = random.Random(31)
    left_names = set()
    for trial in range(8):
        with open(out, "wb") as f:
            p = subprocess.Popen([vlpty.VLAD, "--autosave", sav + ",every=0",
                                  prog], stdout=f, stderr=subprocess.PIPE,
                                 env=env())
        killed = kill_after_save(p, sav, rng.uniform(0, 0.8))
        left = [n for n in os.listdir(tmp) if n.startswith("big.sav.")
                and n != "big.sav.vlad-lock"]
        left_names |= set(left)
        if killed:
            with open(out, "ab") as f:
                q = subprocess.Popen([vlpty.VLAD, "--resume", sav],
                                     stdout=f, stderr=subprocess.PIPE,
                                     env=env())
            # once its lock names it, it has swept what was left
            lock = sav + ".vlad-lock"
            mark = ("vlad lock: pid %d\n" % q.pid).encode()
            swept = None
            while q.poll() is None and swept is None:
                try:
                    if read(lock) == mark:  # (its own may be there)
                        swept = [n for n in left
                                 if os.path.exists(os.path.join(tmp, n))]
                except OSError:
                    pass
                time.sleep(0.001)
            _, err = q.communicate(timeout=300 * vlpty.SCALE)
            check(q.returncode == 0 and not swept,
                  "trial %d: --resume swept %d temporary files at its start"
                  % (trial, len(left)),
                  "status %d, %r, still there while it ran: %r"
                  % (q.returncode, err.decode(), swept))
        check(read(out) == ref and sorted(os.listdir(tmp))
              == ["big.vlad", "out"],
              "trial %d (%s): the whole output, nothing left beside it"
              % (trial, "killed" if killed else "ended first"),
              repr(sorted(os.listdir(tmp))))
        os.unlink(out)
    print("(%d temporary files were left by the kills)" % len(left_names))
    os.unlink(prog)


CPJ_KILLS = """\
(define (g x) (let loop ((i 0) (a x))
  (if (= i 50) a (loop (+ i 1) (+ (* 0.99 a) (* 0.01 (sin a)))))))
(define (iter k acc)
  (if (= k 4000) acc
      (iter (+ k 1) (+ acc (cadr (checkpoint-*j g (* 0.001 k) 1))
                       (if (= (modulo k 400) 0) (write-real k) 0)))))
(write-real (iter 0 0))
(define (h x) (let loop ((i 0) (a x))
  (if (= i 60000) a (loop (+ i 1) (+ (* 0.999 a) (* 0.001 (sin a)))))))
(checkpoint-*j h 0.5 1)
"""


def cpj_kills(tmp):
    """kill -9 while checkpoint-*j's driver runs (short calls in a loop,
    then one long call split in many segments), --resume: the output of
    an uninterrupted run."""
    prog = os.path.join(tmp, "cpj.vlad")
    write(prog, CPJ_KILLS)
    sav = os.path.join(tmp, "cpj.sav")
    out = os.path.join(tmp, "out")
    rng = random.Random(2)
    for trial in range(8):
        flags = [] if trial % 2 == 0 else \
            ["--checkpoint=binomial,slots=3,base=10"]
        ref = subprocess.run([vlpty.VLAD] + flags + [prog],
                             stdout=subprocess.PIPE, env=env()).stdout
        t0 = time.monotonic()
        with open(out, "wb") as f:
            p = subprocess.Popen([vlpty.VLAD] + flags + [
                "--autosave", sav + ",every=0", prog], stdout=f,
                stderr=subprocess.PIPE, env=env())
        killed = kill_after_save(p, sav, rng.uniform(0, 3.0))
        what = "%s, %s" % (" ".join(flags) or "default",
                           "killed after %.2f s" % (time.monotonic() - t0)
                           if killed else "ended first")
        err = b""
        if killed:
            with open(out, "ab") as f:
                q = subprocess.run([vlpty.VLAD] + flags + ["--resume", sav],
                                   stdout=f, stderr=subprocess.PIPE,
                                   env=env(), timeout=300 * vlpty.SCALE)
            err = q.stderr
        check(read(out) == ref and sorted(os.listdir(tmp))
              == ["cpj.vlad", "out"],
              "checkpoint-*j trial %d (%s): the whole output" % (trial, what),
              "%r %r" % (err, sorted(os.listdir(tmp))))
        os.unlink(out)
    os.unlink(prog)


def resumed(tmp):
    prog, sav, p, _ = stopped(tmp)
    p.kill()                            # (waiting in read-real)
    p.wait()
    before = ident(sav)
    q = start(["--resume", sav], tmp)
    line(q)                             # the last save was in (g 0.5)
    q.stdin.write(b"0.25\n")
    q.stdin.flush()
    line(q)
    again = ident(sav)
    lock = read(sav + ".vlad-lock").decode()
    st, out, err = finish(q, b"0.75\n")
    check(again != before and lock == "vlad lock: pid %d\n" % q.pid,
          "--resume goes on autosaving to FILE at the saved interval", lock)
    check(st == 0 and err == "" and os.listdir(tmp) == ["stops.vlad"],
          "--resume removes FILE and its lock when the program ends",
          "%d %r %r" % (st, err, os.listdir(tmp)))
    # killed again, then resumed in a loop while FILE exists
    _, _, p, _ = stopped(tmp)
    p.kill()
    p.wait()
    inp = os.path.join(tmp, "in")
    write(inp, "0.25 0.75\n")
    loop = ('n=0; while [ -e "%s" ]; do n=$((n+1)); [ $n -gt 5 ] && exit 9;'
            ' "%s" --resume "%s" < "%s" > /dev/null; done' %
            (sav, vlpty.VLAD, sav, inp))
    r = subprocess.run(["sh", "-c", loop], env=env(),
                       timeout=300 * vlpty.SCALE)
    check(r.returncode == 0 and sorted(os.listdir(tmp)) == ["in",
                                                            "stops.vlad"],
          "while [ -e FILE ]; do vlad --resume FILE; done ends",
          "status %d, %r" % (r.returncode, os.listdir(tmp)))
    os.unlink(inp)
    os.unlink(prog)


def main():
    if not vlpty.VLAD:
        print("SKIP: VLAD is not set")
        return 77
    for name, fn in [("refusals", refusals), ("two runs", two_runs),
                     ("failing saves", failing), ("checkpoint-*j loop",
                                                  cpj_loop),
                     ("kills", kills), ("checkpoint-*j kills", cpj_kills),
                     ("resumed", resumed)]:
        tmp = tempfile.mkdtemp(prefix="vlad-autosave-")
        try:
            fn(tmp)
        except Exception as e:          # a hung or broken step: a failure
            check(False, name, "%s: %s" % (type(e).__name__, e))
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
