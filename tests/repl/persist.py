"""tests/repl/persist.py -- saved checkpoints in the REPL and on the
command line (issue 23): Ctrl-C, ,save FILE, quit; a new vlad, ,restore
FILE, ,resume finishes the evaluation with the same value, every line
printed exactly once across the two processes; `vlad --resume FILE` does
the same from the shell; ,save NAME FILE saves a checkpoint-valued
global and ,restore FILE NAME binds one; bad uses (nothing suspended, a
missing, damaged or foreign file, a name that is no checkpoint) say why
and the REPL keeps its state; a forged file refused (no checkpoint in
it, an internal value of vlad, a program text that does not read) has
defined nothing and, from the shell, run nothing (issue 31, W1); Ctrl-C
stops a long ,restore, SIGINT and SIGTERM a long vlad --resume (issue
31, H1)."""

import os
import re
import signal
import struct
import subprocess
import time
import zlib

import vlpty
import workload
from vlpty import (CTRL_C, CTRL_D, SCALE, Checks, Vlad, command,
                   expect_equal, leave, run)
from workload import MARK, calibrate, finish, interrupt, numbers

t = Checks()
start = workload.starter(t)


def save_quit_restore_resume():
    v = start(keep_output=True)
    n, _ = calibrate(v)
    for _ in range(4):
        got = interrupt(v, "(work 0 %d 0)" % n)
        if got is not None:
            break
        n *= 4
    else:
        v.fail("could not interrupt the evaluation")
    _, before = got
    first = numbers(before)
    path = t.path("work.ckpt")
    command(v, ",save %s" % path,
            r"saved \*interrupted\* to %s \(vlad --resume %s, or ,restore, "
            r"finishes it\)\n" % (path, path))
    leave(v)
    # a new process: nothing defined, the file restores everything
    w = Vlad(["-q"], history=t.path("history"))
    w.prompt()
    command(w, ",restore %s" % path,
            r"restored %s as \*interrupted\*: ,resume continues it\n"
            % path)
    rest = finish(w, ",resume")
    whole = finish(w, "(work 0 %d 0)" % n)   # work was restored, too
    marks = [str(i) for i in range(0, n, MARK)]
    expect_equal("uninterrupted marks", whole[:-1], marks)
    expect_equal("marks before the save and after the restore",
                 first + rest[:-1], marks)
    expect_equal("restored value", rest[-1], whole[-1])
    leave(w)
    # the command line: the same value, the rest of the marks
    st, out, err = run(["--resume", path])
    expect_equal("vlad --resume status", (st, err), (0, ""))
    lines = out.split()
    expect_equal("vlad --resume value", lines[-1], whole[-1])
    expect_equal("vlad --resume marks", first + lines[:-1], marks)


def named_checkpoints():
    v = Vlad(["-q"], history=t.path("history"))
    v.prompt()
    command(v, "(define (sum-to n) (let loop ((i 0) (a 0)) (if (> i n) a "
               "(loop (+ i 1) (+ a i)))))", r"")
    command(v, "(define u (checkpoint sum-to 100 40))", r"")
    path = t.path("u.ckpt")
    command(v, ",save u %s" % path,
            r"saved u to %s \(vlad --resume %s, or ,restore, finishes "
            r"it\)\n" % (path, path))
    command(v, ",restore %s w" % path,
            r"restored %s as w \(\(resume w\) continues it\)\n" % path)
    command(v, "(list (resume w) (resume u))", r"\(5050 5050\)\n")
    command(v, ",save sum-to %s" % path, r",save: sum-to is not a "
            r"checkpoint\n")
    command(v, ",save nothing-bound %s" % path,
            r",save: nothing-bound is not a checkpoint\n")
    leave(v)
    st, out, err = run(["--resume", path])
    expect_equal("vlad --resume", (st, out, err), (0, "5050\n", ""))


def refusals():
    v = Vlad(["-q"], history=t.path("history"))
    v.prompt()
    command(v, "(define x 42)", r"")
    command(v, ",save %s" % t.path("none.ckpt"),
            r"nothing to save: Ctrl-C during an evaluation suspends it "
            r"\(,save NAME FILE saves the checkpoint NAME\)\n")
    command(v, ",restore %s" % t.path("missing.ckpt"),
            r"error: cannot read '.*missing\.ckpt': No such file or "
            r"directory\n")
    prog = t.path("prog.vlad")
    with open(prog, "w") as f:
        f.write("(define y 1)\n")
    command(v, ",restore %s" % prog,
            r".*prog\.vlad: error: not a valid checkpoint file: no "
            r"VLADCKPT at its start\n")
    command(v, "(define u (checkpoint (lambda (z) (* z z)) 7 0))", r"")
    good = t.path("good.ckpt")
    command(v, ",save u %s" % good, r"saved u .*\n")
    with open(good, "rb") as f:
        data = bytearray(f.read())
    data[len(data) // 2] ^= 0x10
    bad = t.path("bad.ckpt")
    with open(bad, "wb") as f:
        f.write(bytes(data))
    command(v, ",restore %s" % bad,
            r".*bad\.ckpt: error: not a valid checkpoint file: it is "
            r"damaged \(its checksum does not match\)\n")
    data = bytearray(open(good, "rb").read())
    data[12] = 4                        # 4-byte words
    with open(bad, "wb") as f:
        f.write(bytes(data))
    command(v, ",restore %s" % bad, r".*saved on another architecture.*\n")
    command(v, ",resume", r"nothing to resume .*\n")
    command(v, "x", r"42\n")            # the state is kept
    leave(v)
    st, out, err = run(["--resume", bad])
    expect_equal("vlad --resume of a foreign file", (st, out), (1, ""))
    if "another architecture" not in err:
        v.fail("vlad --resume: %r" % err)
    st, out, err = run(["--resume", good, t.path("prog.vlad")])
    expect_equal("--resume with a program", st, 2)
    save = t.path("auto.ckpt")
    for args, says in [([], "saves a program as it runs"),
                       (["-e", "1", prog], "give -e or FILE, not both"),
                       ([prog + "x"], None)]:
        st, out, err = run(["--autosave", save] + args)
        if says is not None:
            expect_equal("--autosave %r" % args, st, 2)
            if says not in err:
                v.fail("--autosave %r: %r" % (args, err))
    st, out, err = run(["--autosave", save + ",every=soon", prog])
    expect_equal("--autosave every=soon", st, 2)
    # a program that ends without error leaves no file
    st, out, err = run(["--autosave", save + ",every=0", prog])
    expect_equal("--autosave of a short program", (st, out, err),
                 (0, "", ""))
    if os.path.exists(save):
        v.fail("the autosave file of a finished program is left")


def leb(x):
    out = bytearray()
    while True:
        c = x & 0x7f
        x >>= 7
        out.append(c | (0x80 if x else 0))
        if not x:
            return bytes(out)


def string(b):
    return leb(len(b)) + b


def forged(header, payload):
    """A file of this build (header: a saved file's first 32 bytes)."""
    body = header[:24] + struct.pack("<Q", len(payload)) + payload
    return body + struct.pack("<I", zlib.crc32(body) & 0xffffffff)


# record kinds and value tags (vm/persist/ckptfile.h, vm/core/value.h)
R_END, R_UNIT, R_CLOSURE, R_FILL, R_CKPT = 0, 1, 3, 4, 11
R_GLOBAL, R_INFO, R_PROGRAM, R_TEXT = 12, 13, 14, 15
VT_NUM, VT_CLOSURE, VT_PRIM, VT_CKPT, VT_STR = 3, 5, 6, 7, 12
PLANT = (bytes([R_GLOBAL]) + string(b"car") + bytes([VT_NUM, 0])
         + struct.pack("<d", 42.0)
         + bytes([R_GLOBAL]) + string(b"secret") + bytes([VT_STR])
         + string(b"planted by a refused file"))
# object 2: the checkpoint of the pending (write-real 5)
WRITE_FIVE = (bytes([R_CKPT, 0, VT_PRIM, 0]) + string(b"write-real")
              + bytes([VT_NUM, 0]) + struct.pack("<d", 5.0)
              + bytes([0, 0, 0, 0, 0]))


def refused_change_nothing():
    v = Vlad(["-q"], history=t.path("history"))
    v.prompt()
    command(v, "(define secret 1)", r"")
    command(v, "(define u (checkpoint (lambda (z) z) 7 0))", r"")
    good = t.path("good.ckpt")
    command(v, ",save u %s" % good, r"saved u .*\n")
    header = open(good, "rb").read()[:32]
    files = [
        ("not a checkpoint", PLANT + bytes([R_END, VT_NUM, 0])
         + struct.pack("<d", 1.0), r"does not hold a checkpoint"),
        ("an internal value", PLANT + bytes([R_GLOBAL]) + string(b"p")
         + bytes([VT_PRIM, 0]) + string(b"%cpj-split") + WRITE_FIVE
         + bytes([R_END, VT_CKPT, 3]),
         r"it gives a program an internal value of vlad \(%cpj-split\)")]
    path = t.path("forged.ckpt")
    for what, payload, says in files:
        with open(path, "wb") as f:
            f.write(forged(header, payload))
        command(v, ",restore %s" % path,
                r".*forged\.ckpt: error: .*%s.*\n" % says)
        command(v, "secret", r"1\n")
        command(v, "(car (list 5 6))", r"5\n")
    leave(v)
    # --resume: a program text that does not read is refused before the
    # checkpoint runs (it printed 5, then the syntax error)
    # R_INFO: output bytes, input bytes, the interval, the note
    payload = (bytes([R_INFO, 0, 0]) + struct.pack("<d", 0.0) + string(b"")
               + PLANT + WRITE_FIVE
               + bytes([R_PROGRAM, 0, 1, 1, 1]) + string(b"p.vlad")
               + string(b"(define (f x) x") + bytes([1])
               + bytes([R_END, VT_CKPT, 2]))
    with open(path, "wb") as f:
        f.write(forged(header, payload))
    st, out, err = run(["--resume", path])
    expect_equal("vlad --resume of a program that does not read",
                 (st, out), (1, ""))
    if "p.vlad:1:1: error: unexpected end of input" not in err:
        v.fail("vlad --resume: %r" % err)


def units_file(header, unit, n):
    """A file of n forms (define (g x) x), a unit of each (R_UNIT: unit,
    the bytes after its form index), a checkpoint of (g 7), and a global
    secret = 2: loading it takes time in proportion to n."""
    text = b"(define (g x) x)\n" * n
    recs = [bytes([R_GLOBAL]) + string(b"secret") + bytes([VT_NUM, 0])
            + struct.pack("<d", 2.0),
            bytes([R_TEXT]) + string(b"t.vlad") + string(text)]
    recs += [bytes([R_UNIT, 0, 1, 0]) + leb(k) + unit for k in range(n)]
    g = n + 2                                   # the closure's object
    recs.append(bytes([R_CLOSURE]) + leb(n + 1) + bytes([1]))
    recs.append(bytes([R_FILL]) + leb(g))
    recs.append(bytes([R_CKPT, 0, VT_CLOSURE]) + leb(g)
                + bytes([VT_NUM, 0]) + struct.pack("<d", 7.0)
                + bytes([0, 0, 0, 0, 0]))
    recs.append(bytes([R_END, VT_CKPT]) + leb(g + 1))
    return forged(header, b"".join(recs))


def g_unit(v):
    """In REPL v: save (checkpoint g 1 0), g = (lambda (x) x); the header
    of its file and the bytes of its unit after the form index (its
    hash): what units_file needs."""
    command(v, "(define (g x) x)", r"")
    command(v, "(define u (checkpoint g 1 0))", r"")
    good = t.path("g.ckpt")
    command(v, ",save u %s" % good, r"saved u .*\n")
    data = open(good, "rb").read()
    # its records: R_TEXT name text, R_UNIT 0 text rebound form hash ...
    p = 32
    assert data[p] == R_TEXT
    p += 1
    for _ in range(2):
        n, k = 0, 0
        while True:
            c = data[p]
            p += 1
            n |= (c & 0x7f) << k
            k += 7
            if not c & 0x80:
                break
        p += n
    assert data[p:p + 4] == bytes([R_UNIT, 0, 0, 0])  # text 0, rebound 0
    unit = data[p + 5:]                 # (form 0: one byte) its hash ...
    return data[:32], unit[:next(i for i, c in enumerate(unit)
                                 if not c & 0x80) + 1]


def ctrl_c_restore():
    v = Vlad(["-q"], history=t.path("history"))
    v.prompt()
    command(v, "(define secret 1)", r"")
    header, unit = g_unit(v)
    path = t.path("long.ckpt")
    n = 200000
    while True:
        with open(path, "wb") as f:
            f.write(units_file(header, unit, n))
        line = ",restore %s" % path
        v.line(line)
        v.expect(re.escape(line) + r"\n")
        start = v.pos
        deadline = time.monotonic() + 60 * SCALE
        result = None
        while result is None and time.monotonic() < deadline:
            v.send(CTRL_C)
            pause = time.monotonic() + 0.3 * SCALE
            while result is None and time.monotonic() < pause:
                v._read(0.02)
                if "interrupted while loading it" in v.out[start:]:
                    result = "interrupted"
                elif "restored" in v.out[start:]:
                    result = "restored"
        v.expect(r"vlad> ")
        if result == "interrupted" or n >= 1600000:
            break
        n *= 2
        command(v, "(define secret 1)", r"")
    expect_equal("Ctrl-C during ,restore of %d units" % n, result,
                 "interrupted")
    command(v, "secret", r"1\n")
    command(v, ",resume", r"nothing to resume .*\n")
    command(v, "(+ 1 2)", r"3\n")
    # vlad --resume of such a file: SIGINT and SIGTERM end it while it
    # loads (the file grows until the signal comes first)
    for sig in (signal.SIGINT, signal.SIGTERM):
        n = 200000
        while True:
            with open(path, "wb") as f:
                f.write(units_file(header, unit, n))
            p = subprocess.Popen([vlpty.VLAD, "--resume", path],
                                 env=dict(os.environ, **vlpty.VLAD_ENV),
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
            time.sleep(0.2 * SCALE)
            p.send_signal(sig)
            out, err = p.communicate(timeout=60 * SCALE)
            if p.returncode == -sig or n >= 1600000:
                break
            n *= 2
        expect_equal("vlad --resume of %d units, signal %d" % (n, sig),
                     (p.returncode, out), (-sig, b""))
    leave(v)


for name, fn in [(",save, quit, ,restore, ,resume; vlad --resume",
                  save_quit_restore_resume),
                 (",save NAME FILE and ,restore FILE NAME",
                  named_checkpoints),
                 ("refused files and uses", refusals),
                 ("forged files refused change nothing",
                  refused_change_nothing),
                 ("Ctrl-C stops a long ,restore, signals a long "
                  "--resume", ctrl_c_restore)]:
    t.check(name, fn)
t.finish()
