"""tests/repl/interrupt.py -- Ctrl-C during an evaluation suspends it as a
checkpoint: the REPL says after how many steps, ,resume finishes it with
the same value and the same output (each line printed exactly once) as an
uninterrupted run, and so does (resume *interrupted*); ,drop forgets it;
an interrupted definition is completed by ,resume; a resumed evaluation
can be interrupted again; a Ctrl-C that comes too late does not stop the
next evaluation; a Ctrl-C while a huge value prints stops the printing."""

import re

import workload
from vlpty import CTRL_C, CTRL_D, Checks, expect_equal, expect_in
from workload import MARK, NUM, calibrate, finish, interrupt, numbers

t = Checks()
start = workload.starter(t)
def resume_gives_the_same_result():
    v = start(keep_output=True)
    n, steps_per_i = calibrate(v)
    for _ in range(4):
        got = interrupt(v, "(work 0 %d 0)" % n)
        if got is not None:
            break
        n *= 4                          # it finished before the Ctrl-C
    else:
        v.fail("could not interrupt the evaluation")
    steps, before = got
    if not 0 < steps < steps_per_i * n + 10:
        v.fail("implausible step count %d" % steps)
    first = numbers(before)
    v.line(",stats")
    v.expect(r"steps: %d\n" % steps)
    v.prompt()
    rest = finish(v, ",resume")
    v.line(",stats")
    m = v.expect(r"steps: (\d+)\n")
    resumed_steps = int(m.group(1))
    v.prompt()
    whole = finish(v, "(work 0 %d 0)" % n)
    v.line(",stats")
    m = v.expect(r"steps: (\d+)\n")
    whole_steps = int(m.group(1))
    v.prompt()
    marks = [str(i) for i in range(0, n, MARK)]
    expect_equal("uninterrupted marks", whole[:-1], marks)
    expect_equal("marks before and after the interrupt", first + rest[:-1],
                 marks)
    expect_equal("resumed value", rest[-1], whole[-1])
    # the checkpoint is also bound, and can be resumed again from VLAD
    again = finish(v, "(resume *interrupted*)")
    expect_equal("(resume *interrupted*)", again, rest)
    if abs(steps + resumed_steps - whole_steps) > 2:
        v.fail("steps %d + %d resumed != %d uninterrupted"
               % (steps, resumed_steps, whole_steps))
    # nothing is left to resume or drop
    v.line(",resume")
    v.expect(r"nothing to resume \(Ctrl-C during an evaluation suspends "
             r"it\)\nvlad> ")
    v.line(",drop")
    v.expect(r"nothing to drop\nvlad> ")
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)


def drop_forgets():
    v = start()
    n, _ = calibrate(v)
    for _ in range(4):
        if interrupt(v, "(work 0 %d 0)" % n) is not None:
            break
        n *= 4
    v.line(",drop")
    v.expect(r"dropped the suspended evaluation\nvlad> ")
    v.line(",resume")
    v.expect(r"nothing to resume")
    v.prompt()
    v.line("(work 0 3 0)")                  # the REPL goes on as before
    v.expect(r"\n0\n2\.414[0-9]*\nvlad> ")
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)


def interrupted_definition_and_resume_again():
    v = start()
    n, _ = calibrate(v)
    # a new name at each attempt: one that finished before the Ctrl-C has
    # bound its name
    for attempt in range(4):
        big = "big%d" % attempt
        if interrupt(v, "(define %s (work 0 %d 0))" % (big, n)) is not None:
            break
        n *= 4
    v.line(big)
    v.expect(r"error: .*%s" % big)
    v.prompt()
    # resume, interrupt the resumed run, resume again: no value printed
    # (a definition), then the name is bound
    again = interrupt(v, ",resume")
    rest = finish(v, ",resume")
    expect_equal("a definition prints no value", rest[-1:] == [] or
                 int(float(rest[-1])) % MARK == 0, True)
    whole = finish(v, "(work 0 %d 0)" % n)
    v.line(big)
    m = v.expect(r"\n(%s)\nvlad> " % NUM)
    expect_equal(big, m.group(1), whole[-1])
    del again
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)


def late_ctrl_c_is_harmless():
    # a Ctrl-C that arrives as a short evaluation ends must not stop the
    # next one
    v = start()
    for _ in range(5):
        v.line("(work 0 5000 0)")
        v.send(CTRL_C)
        # (a Ctrl-C also discards output not yet read: no prompt to wait
        # for; the terminal may even drop the line before vlad reads it)
        v.drain(0.1)
    # then Ctrl-C until one lands at an idle prompt ("^C" and a prompt,
    # nothing between): it clears whatever part of a line the terminal
    # let through before a flushing Ctrl-C (under load readline may hold
    # "(w" of a line whose rest was dropped); one that still finds an
    # evaluation suspends it instead
    v.pos = v.ctrl_c_until(r"\^C\nvlad> ", latest=True).end()
    v.line("(+ 0 1)")
    v.expect(r"\n1\nvlad> ")
    v.line("(work 0 %d 0)" % (3 * MARK))
    v.expect(r"\n0\n100000\n200000\n%s\nvlad> " % NUM)
    expect_in("output", "vlad> ", v.out)
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)


def interrupted_printing():
    # Ctrl-C while a value is printed (H3 of issue 19): 40 levels of
    # (cons l l) print 2^40 leaves; the print stops ("interrupted while
    # printing"), nothing is suspended, and the REPL goes on
    v = start()
    v.line("(define (dbl l n) (if (= n 0) l (dbl (cons l l) (- n 1))))")
    v.prompt()
    line = "(dbl '() 40)"
    v.line(line)
    v.expect(re.escape(line) + r"\n")
    # not reading: the terminal's buffer fills and vlad waits in its
    # write; Ctrl-C until the print stops
    m = v.ctrl_c_until(r"error: interrupted while printing\n")
    v.pos = m.end()
    v.expect(r"vlad> ")
    if "suspended as" in v.out:
        v.fail("an interrupted print was suspended")
    v.line("(+ 1 2)")
    v.expect(r"\n3\nvlad> ")
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)


for name, fn in [(",resume gives the uninterrupted result",
                  resume_gives_the_same_result),
                 (",drop forgets", drop_forgets),
                 ("an interrupted definition, resumed twice",
                  interrupted_definition_and_resume_again),
                 ("a late Ctrl-C is harmless", late_ctrl_c_is_harmless),
                 ("Ctrl-C while printing", interrupted_printing)]:
    t.check(name, fn)
t.finish()
