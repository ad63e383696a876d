"""tests/repl/long.py -- long evaluations as a REPL user meets them
(issue 20): ,resume after Ctrl-C inside ,load finishes the file (,drop
says what was not run); resuming after redefining a global uses the new
definition (fix and continue), and a checkpoint resumed twice gives the
same value; --progress shows the counting phase of checkpoint-*j, keeps
a fixed width and is erased after Ctrl-C."""

import re
import time

from vlpty import command as cmd, leave as bye
from vlpty import (CTRL_C, SCALE, Checks, Failure, Vlad,
                   expect_equal, expect_in)

t = Checks()
NUM = r"-?[0-9][0-9.e+-]*"
COUNT = "(define (count n acc) (if (zero? n) acc (count (- n 1) (+ acc 1))))"


def session(*args, **kw):
    v = Vlad(["-q"] + list(args), history=t.path("history"), **kw)
    v.prompt()
    return v


def calibrated_count(v, seconds):
    """An n for which (count n 0) takes about 'seconds' here, times
    SCALE: the Ctrl-C that interrupts it comes after 0.2 s times SCALE
    (under the sanitizers, SCALE 4, an unscaled run ended before it)."""
    v.line(COUNT)
    v.prompt()
    seconds *= SCALE
    n0 = 1000000
    v.line(",time (count %d 0)" % n0)
    m = v.expect(r"time: (%s) s" % NUM)
    v.prompt()
    return max(int(n0 * seconds / max(float(m.group(1)), 1e-4)), 10 * n0)


def resume_load():
    v = session()
    n = calibrated_count(v, 0.8)
    prog = t.path("long.vlad")
    with open(prog, "w") as f:
        f.write("(define a 1)\n(display 'before) (newline)\n"
                "(count %d 0)\n(define b 2)\n(list a b)\n(car 1)\n"
                "(define c 3)\n" % n)
    v.line(",load " + prog)
    v.expect(r"before\n")
    time.sleep(0.2 * SCALE)
    v.send(CTRL_C)
    v.expect(r"suspended as \*interrupted\*: ,resume continues it and then "
             r"runs the rest of .*long\.vlad \(from line 4\), ,drop "
             r"forgets both\n")
    v.prompt()
    cmd(v, "b", r".*unbound.*\n.*")             # not yet
    # the interrupted form's value, then the rest of the file, which
    # stops at its error as ,load does
    cmd(v, ",resume", r"%d\n\(1 2\)\n.*long\.vlad:6:1: error: car: .*\n"
        r"(  .*\n)*" % n)
    cmd(v, "(list a b)", r"\(1 2\)\n")
    cmd(v, "c", r".*unbound.*\n.*")             # after the error: not run
    cmd(v, ",resume", r"nothing to resume.*\n")
    # ,drop says what is not run
    v.line(",load " + prog)
    v.expect(r"before\n")
    time.sleep(0.2 * SCALE)
    v.send(CTRL_C)
    v.expect(r"suspended as .*\n")
    v.prompt()
    cmd(v, ",drop", r".*the rest of .*long\.vlad \(from line 4\) was not "
        r"run\ndropped the suspended evaluation\n")
    bye(v)


def resume_load_twice_and_last_form():
    """Interrupted again while resuming, then the last form of a file:
    nothing follows it."""
    v = session()
    n = calibrated_count(v, 1.5)
    prog = t.path("twice.vlad")
    with open(prog, "w") as f:
        f.write("(define z 9)\n(count %d 0)\n" % n)
    v.line(",load " + prog)
    time.sleep(0.2 * SCALE)
    v.send(CTRL_C)
    v.expect(r"suspended as \*interrupted\*: ,resume continues it, ,drop "
             r"forgets it\n")
    v.prompt()
    v.line(",resume")
    time.sleep(0.2 * SCALE)
    v.send(CTRL_C)
    v.expect(r"suspended as \*interrupted\*: ,resume continues it, ,drop "
             r"forgets it\n")
    v.prompt()
    cmd(v, ",resume", r"%d\n" % n)
    cmd(v, "z", r"9\n")
    bye(v)


def resume_load_include():
    """Interrupted inside a file the loaded one includes: ,resume finishes
    that form, and the message said the rest is not run."""
    v = session()
    n = calibrated_count(v, 1.0)
    with open(t.path("inner.vlad"), "w") as f:
        f.write("(count %d 0)\n" % n)
    outer = t.path("outer.vlad")
    with open(outer, "w") as f:
        f.write('(include "inner.vlad")\n(define after 1)\n')
    v.line(",load " + outer)
    time.sleep(0.2 * SCALE)
    v.send(CTRL_C)
    v.expect(r"suspended as \*interrupted\*: ,resume continues the "
             r"interrupted form only \(it is not a form of .*outer\.vlad "
             r"itself: the rest of .*outer\.vlad is not run\), ,drop "
             r"forgets it\n")
    v.prompt()
    cmd(v, ",resume", r"%d\n" % n)
    cmd(v, "after", r".*unbound.*\n.*")
    bye(v)


def fix_and_continue():
    """A suspended evaluation resumed after a global it calls was
    redefined uses the new definition; with the globals unchanged, the
    same checkpoint resumed twice gives the same value."""
    v = session()
    n = calibrated_count(v, 0.8)
    cmd(v, "(define (step acc) (+ acc 1))", r"")
    cmd(v, "(define (run n acc) (if (zero? n) acc (run (- n 1) (step acc))))",
        r"")
    v.line("(run %d 0)" % n)
    time.sleep(0.2 * SCALE)
    v.send(CTRL_C)
    v.expect(r"suspended as .*\n")
    v.prompt()
    a = int(cmd(v, "(resume *interrupted*)", r"\d+\n"))
    b = int(cmd(v, "(resume *interrupted*)", r"\d+\n"))
    expect_equal("the same checkpoint resumed twice", b, a)
    expect_equal("the value", a, n)
    cmd(v, "(define (step acc) (+ acc 2))", r"")
    c = int(cmd(v, "(resume *interrupted*)", r"\d+\n"))
    if not a < c < 2 * n:
        raise Failure("after the redefinition: %d (before: %d)" % (c, a))
    bye(v)


def progress_runs(n):
    prog = t.path("cpj%d.vlad" % n)
    with open(prog, "w") as f:
        f.write("(define (f x) (let loop ((i 0) (y x)) (if (= i %d) y "
                "(loop (+ i 1) (sin (+ y 0.001))))))\n"
                "(checkpoint-*j f 0.5 1)\n" % n)
    return prog


def bars(raw, head):
    """The drawings of the bar that start with 'head'."""
    return re.findall(r"\r(" + re.escape(head) + r"[^\r\x1b]*)\x1b\[K", raw)


def progress():
    v = Vlad(["--progress", progress_runs(3000000)])
    v.expect(r"\(%s %s\)\n" % (NUM, NUM), timeout=60)
    expect_equal("status", v.wait(), 0)
    counting = bars(v.raw, "checkpoint-*j counting steps")
    sweep = bars(v.raw, "checkpoint-*j [")
    if not counting or not sweep:
        raise Failure("no counting or no sweep phase:\n%r" % v.raw)
    for phase in (counting, sweep):
        if len(set(len(x) for x in phase)) != 1:
            raise Failure("the width changes:\n" + "\n".join(phase))
    if not re.fullmatch(r"checkpoint-\*j counting steps \(first run\): +\d+ "
                        r"steps", counting[-1]):
        raise Failure("counting: %r" % counting[-1])
    # erased before the value is printed
    expect_in("erased", "\r\x1b[K(", v.raw)
    # Ctrl-C ends a script: the bar is erased first
    v = Vlad(["--progress", progress_runs(300000000)])
    v.expect(r"counting steps")
    v.send(CTRL_C)
    v.wait()
    tail = v.raw[v.raw.rfind("\rcheckpoint-*j"):]
    expect_in("erased after Ctrl-C", "\r\x1b[K", tail[tail.find("^C"):])
    # in the REPL too
    v = session("--progress")
    v.line(",load " + progress_runs(300000000))
    v.expect(r"counting steps")
    v.send(CTRL_C)
    v.expect(r"suspended as")
    v.prompt()
    tail = v.raw[v.raw.rfind("\rcheckpoint-*j"):]
    expect_in("erased after Ctrl-C", "\r\x1b[K", tail[1:])
    bye(v)


t.check(",resume after Ctrl-C in ,load finishes the file", resume_load)
t.check(",resume of a ,load interrupted twice, at its last form",
        resume_load_twice_and_last_form)
t.check(",resume of a ,load interrupted in an included file",
        resume_load_include)
t.check("fix and continue; a checkpoint resumed twice", fix_and_continue)
t.check("--progress: counting phase, fixed width, erased", progress)
t.finish()
