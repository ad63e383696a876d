"""tests/repl/persist.py -- saved checkpoints in the REPL and on the
command line (issue 23): Ctrl-C, ,save FILE, quit; a new vlad, ,restore
FILE, ,resume finishes the evaluation with the same value, every line
printed exactly once across the two processes; `vlad --resume FILE` does
the same from the shell; ,save NAME FILE saves a checkpoint-valued
global and ,restore FILE NAME binds one; bad uses (nothing suspended, a
missing, damaged or foreign file, a name that is no checkpoint) say why
and the REPL keeps its state."""

import os

import workload
from vlpty import CTRL_D, Checks, Vlad, command, expect_equal, leave, run
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


for name, fn in [(",save, quit, ,restore, ,resume; vlad --resume",
                  save_quit_restore_resume),
                 (",save NAME FILE and ,restore FILE NAME",
                  named_checkpoints),
                 ("refused files and uses", refusals)]:
    t.check(name, fn)
t.finish()
