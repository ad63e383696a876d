"""tests/repl/long.py -- long evaluations as a REPL user meets them
(issue 20): ,resume after Ctrl-C inside ,load finishes the file (,drop
says what was not run); resuming after redefining a global uses the new
definition (fix and continue), and a checkpoint resumed twice gives the
same value; --progress shows the counting phase of checkpoint-*j, keeps
a fixed width and is erased after Ctrl-C; Ctrl-C right after the first
progress report stops the chunked first run, in a script and in the
REPL, also when the test runner ignores SIGINT (issue 31).  Each Ctrl-C
is sent once the evaluation shows it runs (a tick of count, the progress
line), never after a fixed pause; an evaluation that ended before its
Ctrl-C (the test was not scheduled in time) is tried again, longer."""

import re
import signal

from vlpty import command as cmd, leave as bye
from vlpty import (CTRL_C, SCALE, Checks, Failure, Vlad,
                   expect_equal, expect_in)

t = Checks()
NUM = r"-?[0-9][0-9.e+-]*"
# (count n acc) is n plus acc; it writes 0.125 every 65536 steps of n (a
# tick, which adds 1 as the other steps do): the sign that it runs, after
# which a Ctrl-C is sent -- never after a fixed pause
COUNT = ("(define (count n acc) (if (zero? n) acc (count (- n 1) (+ acc "
         "(if (zero? (remainder n 65536)) (+ 0.875 (write-real 0.125)) "
         "1)))))")
TICK = r"0\.125\n"
TICKS = r"(?:0\.125\n)*"


def session(*args, **kw):
    v = Vlad(["-q"] + list(args), history=t.path("history"), **kw)
    v.prompt()
    return v


def calibrated_count(v, seconds):
    """An n for which (count n 0) takes about 'seconds' here, times
    SCALE (defines count)."""
    v.line(COUNT)
    v.prompt()
    seconds *= SCALE
    n0 = 1000000
    v.line(",time (count %d 0)" % n0)
    m = v.expect(r"time: (%s) s" % NUM)
    v.prompt()
    return max(int(n0 * seconds / max(float(m.group(1)), 1e-4)), 10 * n0)


class TooFast(Exception):
    """The evaluation ended before the Ctrl-C came (the test was not
    scheduled in time): not what is tested; tried again, longer."""


def interrupt(v):
    """Once the running count has ticked, Ctrl-C: the evaluation must be
    suspended (the next expect starts at "suspended as"); TooFast when
    it had ended first."""
    v.expect(TICK)
    v.send(CTRL_C)
    m = v.expect(r"(suspended as [^\n]*\n)|(^|\n)vlad> ")
    if m.group(1) is None:
        raise TooFast()
    v.pos = m.start(1)


def longer(body, seconds):
    """body(v, n) in a new session, n calibrated for 'seconds' of count;
    started again with n 8 times larger when an evaluation ended before
    its Ctrl-C."""
    for attempt in range(4):
        v = session()
        n = calibrated_count(v, seconds) * 8 ** attempt
        try:
            return body(v, n)
        except TooFast:
            v.kill()
    raise Failure("every evaluation ended before its Ctrl-C")


def resume_load(v, n):
    prog = t.path("long.vlad")
    with open(prog, "w") as f:
        f.write("(define a 1)\n(display 'before) (newline)\n"
                "(count %d 0)\n(define b 2)\n(list a b)\n(car 1)\n"
                "(define c 3)\n" % n)
    v.line(",load " + prog)
    v.expect(r"before\n")
    interrupt(v)
    v.expect(r"suspended as \*interrupted\*: ,resume continues it and then "
             r"runs the rest of .*long\.vlad \(from line 4\), ,drop "
             r"forgets both\n")
    v.prompt()
    cmd(v, "b", r".*unbound.*\n.*")             # not yet
    # the interrupted form's value, then the rest of the file, which
    # stops at its error as ,load does
    cmd(v, ",resume", TICKS + r"%d\n\(1 2\)\n.*long\.vlad:6:1: error: "
        r"car: .*\n(  .*\n)*" % n)
    cmd(v, "(list a b)", r"\(1 2\)\n")
    cmd(v, "c", r".*unbound.*\n.*")             # after the error: not run
    cmd(v, ",resume", r"nothing to resume.*\n")
    # ,drop says what is not run
    v.line(",load " + prog)
    v.expect(r"before\n")
    interrupt(v)
    v.expect(r"suspended as .*\n")
    v.prompt()
    cmd(v, ",drop", r".*the rest of .*long\.vlad \(from line 4\) was not "
        r"run\ndropped the suspended evaluation\n")
    bye(v)


def resume_load_twice_and_last_form(v, n):
    """Interrupted again while resuming, then the last form of a file:
    nothing follows it."""
    prog = t.path("twice.vlad")
    with open(prog, "w") as f:
        f.write("(define z 9)\n(count %d 0)\n" % n)
    v.line(",load " + prog)
    interrupt(v)
    v.expect(r"suspended as \*interrupted\*: ,resume continues it, ,drop "
             r"forgets it\n")
    v.prompt()
    v.line(",resume")
    interrupt(v)
    v.expect(r"suspended as \*interrupted\*: ,resume continues it, ,drop "
             r"forgets it\n")
    v.prompt()
    cmd(v, ",resume", TICKS + r"%d\n" % n)
    cmd(v, "z", r"9\n")
    bye(v)


def resume_load_include(v, n):
    """Interrupted inside a file the loaded one includes: ,resume finishes
    that form, and the message said the rest is not run."""
    with open(t.path("inner.vlad"), "w") as f:
        f.write("(count %d 0)\n" % n)
    outer = t.path("outer.vlad")
    with open(outer, "w") as f:
        f.write('(include "inner.vlad")\n(define after 1)\n')
    v.line(",load " + outer)
    interrupt(v)
    v.expect(r"suspended as \*interrupted\*: ,resume continues the "
             r"interrupted form only \(it is not a form of .*outer\.vlad "
             r"itself: the rest of .*outer\.vlad is not run\), ,drop "
             r"forgets it\n")
    v.prompt()
    cmd(v, ",resume", TICKS + r"%d\n" % n)
    cmd(v, "after", r".*unbound.*\n.*")
    bye(v)


def value(v, line):
    """The number (run ...) gives, after its ticks."""
    return int(cmd(v, line, TICKS + r"\d+\n").split("\n")[-2])


def fix_and_continue(v, n):
    """A suspended evaluation resumed after a global it calls was
    redefined uses the new definition; with the globals unchanged, the
    same checkpoint resumed twice gives the same value."""
    cmd(v, "(define (step acc) (+ acc 1))", r"")
    cmd(v, "(define (run n acc) (if (zero? n) acc (run (- n 1) (+ (step "
        "acc) (if (zero? (remainder n 65536)) (- (write-real 0.125) 0.125) "
        "0)))))", r"")
    v.line("(run %d 0)" % n)
    interrupt(v)
    v.expect(r"suspended as .*\n")
    v.prompt()
    a = value(v, "(resume *interrupted*)")
    b = value(v, "(resume *interrupted*)")
    expect_equal("the same checkpoint resumed twice", b, a)
    expect_equal("the value", a, n)
    cmd(v, "(define (step acc) (+ acc 2))", r"")
    c = value(v, "(resume *interrupted*)")
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
    v.expect(r"\(%s %s\)\n" % (NUM, NUM))
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
    expect_equal("status", v.wait(), -signal.SIGINT)
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


def first_report_script(runner_ignores_sigint):
    """Ctrl-C right after the first progress report of checkpoint-*j's
    first run (in chunks, under the default budget: the report of its
    first chunk's end), 8 times: each run stops and dies of SIGINT.  With
    'runner_ignores_sigint' the test itself ignores SIGINT, as make does
    when run as a background job: vlad, started as from a terminal's
    shell, still gets Ctrl-C (issue 31: it inherited the runner's
    SIG_IGN, and a script keeps an ignored SIGINT ignored)."""
    def check():
        prog = progress_runs(300000000)
        old = signal.getsignal(signal.SIGINT)
        if runner_ignores_sigint:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            for _ in range(8):
                v = Vlad(["--progress", prog])
                v.expect(r"counting steps \(first run\): +\d+ steps")
                v.send(CTRL_C)
                v.expect(r"error: interrupted after \d+ steps\n")
                expect_equal("status", v.wait(), -signal.SIGINT)
        finally:
            signal.signal(signal.SIGINT, old)
    return check


def first_report_repl():
    """The same in the REPL, 8 times in one session: suspended, dropped."""
    v = session("--progress")
    prog = progress_runs(300000000)
    for _ in range(8):
        v.line(",load " + prog)
        v.expect(r"counting steps \(first run\): +\d+ steps")
        v.send(CTRL_C)
        v.expect(r"error: interrupted after \d+ steps\n(.*\n)*suspended as "
                 r"\*interrupted\*")
        v.prompt()
        cmd(v, ",drop", r"dropped the suspended evaluation\n")
    bye(v)


t.check(",resume after Ctrl-C in ,load finishes the file",
        lambda: longer(resume_load, 0.8))
t.check(",resume of a ,load interrupted twice, at its last form",
        lambda: longer(resume_load_twice_and_last_form, 1.0))
t.check(",resume of a ,load interrupted in an included file",
        lambda: longer(resume_load_include, 0.8))
t.check("fix and continue; a checkpoint resumed twice",
        lambda: longer(fix_and_continue, 0.8))
t.check("--progress: counting phase, fixed width, erased", progress)
t.check("Ctrl-C at the first progress report of a script, 8 times",
        first_report_script(False))
t.check("the same while the test runner ignores SIGINT",
        first_report_script(True))
t.check("Ctrl-C at the first progress report in the REPL, 8 times",
        first_report_repl)
t.finish()
