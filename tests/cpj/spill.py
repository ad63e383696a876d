"""tests/cpj/spill.py -- checkpoint-*j with spill=DIR (issue 23, item 3)

Under a budget with spill=DIR the states the driver holds beyond what
fits go to a file in DIR and come back when used.  Checked here, each
program run with spill=DIR under several small budgets:

- the same results as *j (y identical, x` within 1e-12) and as the run
  without spill, the same output printed once, input read once;
- states really went to the file and came back (--stats: "spilled: N
  bytes written, M bytes read", both > 0) where the run is long enough;
- programs with closures, deep non-tail recursion, lists, j* and *j
  inside f, a checkpoint-*j inside f (whose states stay in memory), f
  under j*, write-real and read-real inside f;
- a continuation captured in the middle of a spilling run (checkpoint),
  resumed twice: both give the result (the states it holds come back
  from the file after the first resume released them);
- DIR holds no file during or after a run (made and unlinked at once);
- a file that cannot be written (RLIMIT_FSIZE) is an error naming DIR
  and the reason, with the place, never a crash;
- a spill file damaged while the run waits for input (read-real) -- cut
  to nothing, cut in half, zeroed, a byte of each record changed,
  records of equal length swapped -- is an error located at the
  checkpoint-*j call, with a backtrace, naming DIR, the record's offset
  and what is wrong; never a result (issue 31, U2 and W6).

Run by make check through tests/cpj/run-spill.sh; exit 0, 1, or 77 without
$VLAD.
"""
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile

VLAD = os.environ.get("VLAD")
FAILS = []
PASSES = 0


def check(cond, what):
    global PASSES
    if cond:
        PASSES += 1
    else:
        FAILS.append(what)
        print("FAIL: " + what)


def run(args, stdin="", limit_fsize=None):
    env = dict(os.environ)
    env.pop("VLAD_CHECKPOINT", None)

    def pre():
        if limit_fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE,
                               (limit_fsize, limit_fsize))
    p = subprocess.run([VLAD] + args, input=stdin.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, timeout=600, preexec_fn=pre)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


NUM = re.compile(r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan)")


def close(a, b):
    """Two printed results: the same text but for reals within 1e-12."""
    ta, tb = NUM.split(a), NUM.split(b)
    na, nb = NUM.findall(a), NUM.findall(b)
    if ta != tb or len(na) != len(nb):
        return False
    for x, y in zip(na, nb):
        x, y = float(x), float(y)
        if x != y and abs(x - y) > 1e-12 * max(1.0, abs(x), abs(y)):
            return False
    return True


# name -> (program text defining f, x, ybar; stdin; budgets, the first
# small enough that states go to the file and come back)
PROGRAMS = {
    "scalar loop": ("""
(define (f x) (let loop ((i 0) (s x))
  (if (= i 3000) s (loop (+ i 1) (+ (* 0.999 s) (* 0.001 (sin s)))))))
(define x 0.5) (define ybar 1)
""", "", None),
    "lists and closures": ("""
(define (build n x acc) (if (= n 0) acc (build (- n 1) x (cons (* x n) acc))))
(define (scale xs c) (if (null? xs) '() (cons (* c (car xs)) (scale (cdr xs) c))))
(define (f x)
  (let loop ((i 0) (xs (build 40 (car x) '())) (k (lambda (v) (* v (cadr x)))))
    (if (= i 300) (fold-left + 0 (map k xs))
        (loop (+ i 1) (scale xs (+ 1 (* 0.001 (sin (car xs)))))
              (lambda (v) (k (+ v (* 0.0001 i))))))))
(define x '(0.5 1.25)) (define ybar 1)
""", "", ("24k", "8k", "256k")),
    "deep recursion": ("""
(define (down n x) (if (= n 0) x (+ (* 0.5 x) (* 0.5 (sin (down (- n 1) x))))))
(define (f x) (let loop ((i 0) (s x)) (if (= i 100) s (loop (+ i 1) (down 200 s)))))
(define x 0.3) (define ybar 2)
""", "", ("24k", "64k", "256k")),
    "AD inside f": ("""
(define (g y) (* y (sin y)))
(define (f x)
  (let loop ((i 0) (s x))
    (if (= i 150) s
        (loop (+ i 1)
              (+ (* 0.99 s)
                 (* 0.001 (cadr (j* g s 1)))
                 (* 0.001 (cadr (*j g s 1))))))))
(define x 0.7) (define ybar 1)
""", "", None),
    "checkpoint-*j inside f": ("""
(define (g y) (let loop ((i 0) (s y)) (if (= i 40) s (loop (+ i 1) (sin (+ s 0.1))))))
(define (f x)
  (let loop ((i 0) (s x))
    (if (= i 40) s (loop (+ i 1) (+ (* 0.5 s) (car (checkpoint-*j g s 1)))))))
(define x 0.4) (define ybar 1)
""", "", None),
    "effects": ("""
(define (f x)
  (let loop ((i 0) (s x))
    (if (= i 400) s
        (loop (+ i 1)
              (if (= (modulo i 100) 0)
                  (begin (write-real s) (* s (read-real)))
                  (+ s (* 0.001 (cos s))))))))
(define x 0.2) (define ybar 1)
""", "1.5\n0.5\n2\n0.25\n", None),
}


def records(data):
    """(offset, length) of the records of a spill file's bytes: a frame
    (VLADSPIL) 40 bytes before each state (VLADCKPT); without frames, as
    vlad wrote them before issue 31, the states alone."""
    recs = []
    k = data.find(b"VLADCKPT")
    while k >= 0:
        if k >= 40 and data[k - 40:k - 32] == b"VLADSPIL":
            rec = (k - 40, 40 + int.from_bytes(data[k - 16:k - 8], "little"))
        else:
            rec = (k, int.from_bytes(data[k + 24:k + 32], "little") + 36)
        if rec[0] + rec[1] <= len(data):
            recs.append(rec)
        k = data.find(b"VLADCKPT", k + 1)
    return recs


def damage(path, how):
    """Damage the spill file at path; the number of records it had."""
    with open(path, "r+b") as f:
        data = f.read()
        recs = records(data)
        if how == "trunc0":
            f.truncate(0)
        elif how == "trunchalf":
            f.truncate(len(data) // 2)
        elif how == "zero":
            f.seek(0)
            f.write(b"\0" * len(data))
        elif how == "flip":
            for o, n in recs:
                f.seek(o + n - 5)
                f.write(bytes([data[o + n - 5] ^ 1]))
        else:                           # swap: a cycle of each length
            bylen = {}
            for o, n in recs:
                bylen.setdefault(n, []).append(o)
            moved = 0
            for n, offs in bylen.items():
                for i, o in enumerate(offs if len(offs) > 1 else []):
                    src = offs[(i + 1) % len(offs)]
                    f.seek(o)
                    f.write(data[src:src + n])
                    moved += 1
            if moved < 2:
                return 0
    return len(recs)


DAMAGED = """
(define (build n x acc) (if (= n 0) acc (build (- n 1) x (cons (* x n) acc))))
(define (scale xs c) (if (null? xs) '() (cons (* c (car xs)) (scale (cdr xs) c))))
(define (f x)
  (let loop ((i 0) (xs (build 40 x '())))
    (if (= i 300) (fold-left + 0 xs)
        (loop (+ i 1)
              (if (= i 200)
                  (begin (write-real i) (scale xs (read-real)))
                  (scale xs (+ 1 (* 0.001 (sin (car xs))))))))))
(checkpoint-*j f 0.5 1)
"""


def damaged(path, d):
    """The spill file damaged each way while the run of DAMAGED waits for
    its input: an error, located, naming DIR, the offset, what."""
    env = dict(os.environ)
    env.pop("VLAD_CHECKPOINT", None)
    cut = (r"is cut short: the file ends at byte \d+"
           r"|is not a record: it reads as zeros")
    for how, what in (("trunc0", cut), ("trunchalf", cut),
                      ("zero", "is not a record: it reads as zeros"),
                      ("flip", "was changed after it was written: its "
                               "checksum does not match"),
                      ("swap", r"holds another record: the one written at "
                               r"offset \d+ \(records were moved\)")):
        p = subprocess.Popen([VLAD, spill_spec("24k", d), path],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
        first = p.stdout.readline()     # written just before read-real
        n = 0
        for fd in os.listdir("/proc/%d/fd" % p.pid):
            link = os.readlink("/proc/%d/fd/%s" % (p.pid, fd))
            if os.path.basename(link).startswith("vlad-spill-"):
                n = damage("/proc/%d/fd/%s" % (p.pid, fd), how)
        out, err = p.communicate(b"1.001\n", timeout=600)
        out, err = first.decode() + out.decode(), err.decode()
        check(n >= 2, "damaged %s: %d records in the file" % (how, n))
        want = (r"%s:11:1: error: checkpoint-\*j: spill=%s: the spill "
                r"file there is damaged: the record at offset \d+ \(\d+ "
                r"bytes\) (%s)\n  in checkpoint-\*j\n"
                % (re.escape(path), re.escape(d), what))
        check(p.returncode == 1 and out == "200\n"
              and re.match(want, err) is not None,
              "damaged %s: status %d, %r, %r" % (how, p.returncode, out, err))
        check(os.listdir(d) == [], "damaged %s: files left in DIR" % how)


def spill_spec(budget, d):
    return "--checkpoint=binomial,budget=%s,spill=%s" % (budget, d)


def main():
    if not VLAD or not os.access(VLAD, os.X_OK):
        print("spill: no vlad (set VLAD): skipped")
        return 77
    with tempfile.TemporaryDirectory() as d:
        with tempfile.TemporaryDirectory() as src:
            for name, (text, stdin, budgets) in PROGRAMS.items():
                path = os.path.join(src, "p.vlad")
                with open(path, "w") as f:
                    f.write(text + "(*j f x ybar)\n")
                st, ref, err = run([path], stdin)
                check(st == 0, "%s: *j: status %d: %s" % (name, st, err))
                with open(path, "w") as f:
                    f.write(text + "(checkpoint-*j f x ybar)\n")
                for budget in budgets or ("4k", "16k", "64k"):
                    st, out, err = run(["--stats", spill_spec(budget, d),
                                        path], stdin)
                    what = "%s, budget=%s" % (name, budget)
                    check(st == 0, "%s: status %d: %s" % (what, st, err))
                    check(close(out, ref), "%s: %r, *j gives %r"
                          % (what, out, ref))
                    st2, mem, _ = run(["--checkpoint=binomial,budget="
                                       + budget, path], stdin)
                    check(st2 == 0 and close(out, mem),
                          "%s: %r, without spill %r" % (what, out, mem))
                    m = re.search(r"spilled: (\d+) bytes written, (\d+) "
                                  r"bytes read", err)
                    if budgets and budget == budgets[0]:
                        check(m is not None and int(m.group(1)) > 0
                              and int(m.group(2)) > 0,
                              "%s: nothing spilled: %s" % (what, err))
                    check(os.listdir(d) == [],
                          "%s: files left in DIR: %s" % (what, os.listdir(d)))
            # f under j*: forward over a spilling checkpoint-*j
            path = os.path.join(src, "fwd.vlad")
            with open(path, "w") as f:
                f.write(PROGRAMS["deep recursion"][0]
                        + "(j* (lambda (x) (car (checkpoint-*j f x 1))) 0.3 1)\n"
                        + "(j* (lambda (x) (car (*j f x 1))) 0.3 1)\n")
            st, out, err = run([spill_spec("24k", d), path])
            lines = out.split("\n")
            check(st == 0 and len(lines) >= 2 and close(lines[0], lines[1]),
                  "j* over checkpoint-*j: %r %s" % (out, err))
            # a continuation captured in the middle of a spilling run,
            # resumed twice
            path = os.path.join(src, "twice.vlad")
            with open(path, "w") as f:
                f.write(PROGRAMS["lists and closures"][0] + """
(define (g x) (checkpoint-*j f x 1))
(define n (cadr (primops g x)))
(define c (checkpoint g x (floor (* 0.6 n))))
(resume c)
(resume c)
(*j f x 1)
""")
            st, out, err = run(["--stats", spill_spec("24k", d), path])
            lines = [l for l in out.split("\n") if l]
            check(st == 0 and len(lines) == 3 and close(lines[0], lines[2])
                  and close(lines[1], lines[2]),
                  "resumed twice: %r %s" % (out, err))
            m = re.search(r"spilled: (\d+) bytes written, (\d+) bytes read",
                          err)
            check(m is not None and int(m.group(2)) > 0,
                  "resumed twice: nothing read back: %s" % err)
            # a spill file that cannot grow: an error, not a crash
            path = os.path.join(src, "p.vlad")
            with open(path, "w") as f:
                f.write(PROGRAMS["lists and closures"][0]
                        + "(write-real 7)\n(checkpoint-*j f x ybar)\n")
            st, out, err = run([spill_spec("24k", d), path],
                               limit_fsize=512)
            check(st == 1 and out == "7\n7\n"
                  and re.search(r"p\.vlad:\d+:\d+: error: checkpoint-\*j: "
                                r"spill=.*: cannot write a state: ", err)
                  is not None,
                  "write failure: status %d, %r, %r" % (st, out, err))
            check(os.listdir(d) == [], "files left in DIR after a failure")
            # damaged while the run waits for its input (issue 31)
            path = os.path.join(src, "p.vlad")
            with open(path, "w") as f:
                f.write(DAMAGED)
            damaged(path, d)
    print("%d passed, %d failed" % (PASSES, len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
