"""tests/repl/options.py -- the command line: every option, FILE and ARGS,
"--" and "-", a missing file, and bad usage (exit status 2 with a usage
line); --progress draws on a terminal only."""

import os
import re

from vlpty import (Checks, Failure, Vlad, expect_equal, expect_in,
                   expect_not_in, run)

t = Checks()
USAGE = ("usage: vlad [OPTIONS] [FILE [ARGS...]] (try 'vlad --help')\n")
CPJ = ("(define (f x) (let loop ((i 0) (y x)) (if (= i %d) y "
       "(loop (+ i 1) (sin (+ y 0.001))))))\n(checkpoint-*j f 0.5 1)\n")


def write(name, text):
    path = t.path(name)
    with open(path, "w") as f:
        f.write(text)
    return path


def ok(args, stdout, stdin=None, env=None, cwd=None):
    """vlad ARGS must print exactly 'stdout', nothing on stderr, exit 0."""
    st, out, err = run(args, stdin=stdin, env=env, cwd=cwd)
    what = "vlad " + " ".join(args)
    expect_equal(what + ": stderr", err, "")
    expect_equal(what + ": stdout", out, stdout)
    expect_equal(what + ": status", st, 0)


def usage(args, message, env=None):
    """vlad ARGS is bad usage: exit 2, 'message' (a regex) and the usage
    line on stderr, nothing on stdout."""
    st, out, err = run(args, env=env)
    what = "vlad " + " ".join(args)
    expect_equal(what + ": status", st, 2)
    expect_equal(what + ": stdout", out, "")
    if not re.fullmatch(r"vlad: " + message + r"\n" + re.escape(USAGE),
                        err):
        raise Failure("%s: stderr %r does not match %r + the usage line"
                      % (what, err, message))


def help_and_version():
    for opt in ("--help", "-h"):
        st, out, err = run([opt])
        expect_equal(opt + " status", st, 0)
        expect_equal(opt + " stderr", err, "")
        if not out.startswith("usage: vlad [OPTIONS] [FILE [ARGS...]]\n"):
            raise Failure("%s does not start with the usage line" % opt)
        for o in ("-e EXPR", "-I DIR", "--step-limit N", "--heap-limit BYTES",
                  "--checkpoint=SPEC", "--stats", "--progress", "-q, --quiet",
                  "--version", "-h, --help"):
            expect_in(opt + " output", "  " + o, out)
        # "--" and "-" (as FILE) on lines of their own
        for o in ("--", "-"):
            if not re.search(r"^  " + o + r" +\S", out, re.M):
                raise Failure("%s does not explain %r: %r" % (opt, o, out))
    st, out, err = run(["--version"])
    expect_equal("--version status", st, 0)
    if not re.fullmatch(r"vlad \d+\.\d+\.\d+\nREPL line editing: "
                        r"(GNU readline \d+\.\d+|none \(built without "
                        r"readline\))\n", out):
        raise Failure("--version printed %r" % out)


def expressions():
    ok(["-e", "(+ 1 2)"], "3\n")
    ok(["-e", "(define x 4)", "-e", "(* x x)", "-e(- x 1)"], "16\n3\n")
    ok(["-e", "(define a 1) (+ a 1) (+ a 2)"], "2\n3\n")
    # with -e every word after the options is a program argument
    ok(["-e", "(fold-left + 0 arguments)", "1", "2", "3.5"], "6.5\n")
    # the first error stops vlad
    st, out, err = run(["-e", "(+ 1 1)", "-e", "(car 5)", "-e", "(+ 2 2)"])
    expect_equal("status", st, 1)
    expect_equal("stdout", out, "2\n")
    expect_in("stderr", "<-e#2>:1:1: error: ", err)     # the second -e


def include_dirs():
    d1 = t.path("lib1")
    d2 = t.path("lib2")
    os.mkdir(d1)
    os.mkdir(d2)
    write("lib1/first.vlad", "(define from-first 1)\n")
    write("lib2/second.vlad", "(define from-second 2)\n")
    prog = write("inc.vlad", '(include "first")\n(include "second.vlad")\n'
                 "(+ from-first from-second)\n")
    ok(["-I", d1, "-I" + d2, prog], "3\n")
    st, out, err = run(["-I", d1, prog])
    expect_equal("status without lib2", st, 1)
    expect_in("stderr", "second", err)


def step_limit():
    loop = "(let loop ((i 0)) (loop (+ i 1)))"
    for args in (["--step-limit", "500"], ["--step-limit=500"]):
        st, out, err = run(args + ["-e", loop])
        expect_equal("status", st, 1)
        expect_in("stderr", "error: step limit exceeded (500 steps)", err)
    ok(["--step-limit", "0", "-e",
        "(let loop ((i 0)) (if (= i 9999) i (loop (+ i 1))))"], "9999\n")
    for bad in ("x", "-1", "", "2.5", "1e30", "10k", "99999999999999999999"):
        usage(["--step-limit", bad, "-e", "1"],
              r"--step-limit needs a non-negative whole number \(such as "
              r"1000000 or 1e9\), got '%s'" % re.escape(bad))
    for args in (["--step-limit", "5e2"], ["--step=5e2"]):
        st, out, err = run(args + ["-e", loop])
        expect_in("stderr", "error: step limit exceeded (500 steps)", err)
    usage(["--step-limit"], r"option '--step-limit' needs an argument")


def heap_limit():
    big = "(length (iota 1000000))"
    for args in (["--heap-limit", "0"], ["--heap-limit=200M"]):
        ok(args + ["-e", big], "1000000\n")
    for good in ("100000000", "200m", "1G", "1g", "999999k", "64K"):
        for args in (["--heap-limit", good], ["--heap-limit=" + good])[
                :1 if good[-1] in "mgkK" else 2]:
            ok(args + ["-e", "(+ 1 2)"], "3\n")
    for small in ("8M", "8388608"):
        st, out, err = run(["--heap-limit", small, "-e", "(+ 1 2)", "-e",
                            "(length (iota 300000))"])
        expect_equal("status under " + small, st, 1)
        expect_equal("stdout under " + small, out, "3\n")
        if not re.search(r"error: out of memory \(heap limit 8388608 "
                         r"bytes\)\n", err):
            raise Failure("--heap-limit %s: stderr %r" % (small, err))
    for bad in ("", "abc", "10Q", "-5", "1.5M", "k", "M1",
                "99999999999G", "99999999999999999999"):
        usage(["--heap-limit", bad, "-e", "1"],
              r"--heap-limit needs a size in bytes \(a non-negative integer, "
              r"optionally with a suffix k, M or G\), got '%s'"
              % re.escape(bad))
    usage(["--heap-limit"], r"option '--heap-limit' needs an argument")


def checkpoint_spec():
    prog = write("cpj.vlad", CPJ % 3000)
    st, expected, err = run([prog])
    expect_equal("default status", st, 0)
    for args in (["--checkpoint=bisection,base=10"],
                 ["--checkpoint", "binomial,slots=3"],
                 ["--checkpoint=binomial"]):
        ok(args + [prog], expected)
    ok([prog], expected, env={"VLAD_CHECKPOINT": "bisection,base=7"})
    # the option wins over the environment
    ok(["--checkpoint=bisection", prog], expected,
       env={"VLAD_CHECKPOINT": "nonsense"})
    usage(["--checkpoint=sideways", prog],
          r"--checkpoint: .*sideways.*")
    usage(["--checkpoint", "bisection,slots=x", prog], r"--checkpoint: .*")
    usage(["--checkpoint="], r"--checkpoint needs a strategy \(bisection "
          r"or binomial\), got ''")
    usage(["--checkpoint"], r"option '--checkpoint' needs an argument")
    # a malformed environment variable: exit 2, one line, no usage line
    st, out, err = run([prog], env={"VLAD_CHECKPOINT": "nonsense"})
    expect_equal("status", st, 2)
    expect_equal("stdout", out, "")
    if not re.fullmatch(r"vlad: VLAD_CHECKPOINT: .*nonsense.*\n", err):
        raise Failure("VLAD_CHECKPOINT=nonsense: stderr %r" % err)


def stats():
    st, out, err = run(["--stats", "-e",
                        "(let loop ((i 0)) (if (= i 100) i (loop (+ i 1))))"])
    expect_equal("status", st, 0)
    expect_equal("stdout", out, "100\n")
    if not re.fullmatch(r"steps: \d+\npeak heap: \d+ bytes\npeak stack: \d+ "
                        r"bytes\ntime: [0-9.]+ s\n", err):
        raise Failure("--stats printed %r" % err)
    prog = write("cpj-stats.vlad", CPJ % 3000)
    st, out, err = run(["--stats", prog])
    expect_equal("status", st, 0)
    for line in (r"ad tape nodes: \d+ \(recorded, all tapes\)",
                 r"ad tape bytes: \d+ \(recorded, all tapes\)",
                 r"checkpoint-\*j runs: 1",
                 r"checkpoint-\*j primal steps: 300\d",
                 r"checkpoint-\*j re-executed steps: \d+ \([0-9.]+ x primal\)",
                 r"checkpoint-\*j base cases: \d+ \(300\d steps\)",
                 r"checkpoint-\*j peak live checkpoints: \d+ \(\d+ bytes\)",
                 r"peak tape nodes: \d+ \(the longest tape\)"):
        if not re.search("^" + line + "$", err, re.M):
            raise Failure("--stats lacks %r:\n%s" % (line, err))
    # after an error too
    st, out, err = run(["--stats", "-e", "(car 1)"])
    expect_equal("status", st, 1)
    expect_in("stderr", "\nsteps: ", err)


def progress():
    # (a strategy that splits the run: under the default budget it would
    # be one base case, one *j, with nothing to report until its end)
    split = "--checkpoint=binomial,slots=20"
    prog = write("cpj-progress.vlad", CPJ % 400000)
    st, expected, err = run([split, prog])
    expect_equal("status", st, 0)
    # stderr is not a terminal: no bar
    ok([split, "--progress", prog], expected)
    # on a terminal: a bar, redrawn in place, erased before the result
    v = Vlad([split, "--progress", prog], cols=70)
    expect_equal("status on a terminal", v.wait(), 0)
    if not re.search(r"checkpoint-\*j \[[#.]+\] +\d+% +\d+/400\d\d\d steps +"
                     r"(estimating|[0-9.]+ s left|\d+ min \d+ s left)",
                     v.raw):
        v.fail("no progress bar")
    if not v.raw.endswith("\r\x1b[K" + expected.replace("\n", "\r\n")):
        v.fail("the bar is not erased before the result: %r"
               % v.raw[-200:])
    if any(len(x) > 69 for x in re.split(r"[\r\n]", clean_bar(v.raw))):
        v.fail("a bar is wider than the terminal")
    # without --progress, nothing but the result
    v = Vlad([split, prog], cols=70)
    expect_equal("status", v.wait(), 0)
    expect_equal("output", v.raw, expected.replace("\n", "\r\n"))


def clean_bar(raw):
    return raw.replace("\x1b[K", "")


def files_and_arguments():
    prog = write("sum.vlad", "(fold-left + 0 arguments)\n")
    ok([prog, "1", "2", "3.5", "-4", "1e2"], "102.5\n")
    ok(["-q", prog, "1"], "1\n")
    ok(["--quiet", prog], "0\n")
    # words after FILE belong to the program, even if they look like options
    usage([prog, "--stats"], r"program arguments must be decimal reals, got "
          r"'--stats'")
    usage([prog, "x"], r"program arguments must be decimal reals, got 'x'")
    # "--" ends the options; "-" is standard input
    write("-dash.vlad", "(+ 40 2)\n")
    ok(["--", "-dash.vlad"], "42\n", cwd=t.tmp)
    ok(["-", "5"], "5\n", stdin="(car arguments)\n")
    # a file that does not exist
    st, out, err = run([t.path("missing.vlad")])
    expect_equal("status", st, 1)
    expect_equal("stdout", out, "")
    expect_in("stderr", "cannot read '%s': No such file or directory"
              % t.path("missing.vlad"), err)


def bad_usage():
    usage(["--frobnicate"], r"unknown option '--frobnicate'")
    usage(["-z"], r"unknown option '-z'")
    usage(["--step-limits=5"], r"unknown option '--step-limits=5'")
    usage(["--stats=yes"], r"option '--stats' takes no argument")
    usage(["--progress=1"], r"option '--progress' takes no argument")
    usage(["--quiet=1"], r"option '--quiet' takes no argument")
    usage(["--help=me"], r"option '--help' takes no argument")
    usage(["-e"], r"option '-e' needs an argument")
    usage(["-I"], r"option '-I' needs an argument")
    usage(["-I", ""], r"option '-I' needs a directory, got ''")


for name, fn in [("--help and --version", help_and_version),
                 ("-e", expressions),
                 ("-I", include_dirs),
                 ("--step-limit", step_limit),
                 ("--heap-limit", heap_limit),
                 ("--checkpoint and VLAD_CHECKPOINT", checkpoint_spec),
                 ("--stats", stats),
                 ("--progress", progress),
                 ("FILE, ARGS, --, - and a missing file",
                  files_and_arguments),
                 ("bad usage", bad_usage)]:
    t.check(name, fn)
t.finish()
