"""tests/repl/workload.py -- a long evaluation to suspend with Ctrl-C

Shared by tests/repl/interrupt.py and tests/repl/persist.py: PROGRAM
defines (work 0 n 0), a loop that prints every MARK-th i (write-real
returns it), so each part of the computation shows in the output exactly
once; calibrate() finds an n that takes about 0.6 s here; interrupt()
types an evaluation and sends Ctrl-C until it is suspended; finish() runs
a command and returns the numbers it printed."""

import re
import time

from vlpty import SCALE, Vlad, have_readline

READLINE = have_readline()
MARK = 100000

PROGRAM = [
    "(define (mark i) (if (= (modulo i %d) 0) (write-real i) i))" % MARK,
    "(define (work i n acc) (if (= i n) acc"
    " (work (+ i 1) n (+ acc (sqrt (mark i))))))",
]

NUM = r"-?[0-9][0-9.e+-]*"


def starter(t):
    """start(keep_output=False): vlad with PROGRAM defined, its history in
    the scratch directory of the Checks t.  'keep_output': the terminal
    keeps the output not yet read when a Ctrl-C comes (NOFLSH), for the
    checks that compare every line printed (on a loaded machine the test
    may not have read "0" when its Ctrl-C arrives)."""
    def start(keep_output=False):
        v = Vlad(["-q"], history=t.path("history"),
                 keep_output_on_ctrl_c=keep_output)
        v.prompt()
        for line in PROGRAM:
            v.line(line)
            v.prompt()
        return v
    return start


def calibrate(v):
    """An n for which (work 0 n 0) takes about 0.6 s here."""
    n0 = 2 * MARK
    v.line(",time (work 0 %d 0)" % n0)
    m = v.expect(r"time: (%s) s, (\d+) steps\nvlad> " % NUM)
    secs = max(float(m.group(1)), 1e-4)
    n = int(n0 * 0.6 / secs) // MARK * MARK
    return max(n, 4 * MARK), int(m.group(2)) / n0


def numbers(text):
    """The lines of 'text' that are numbers (the terminal's echo of the
    Ctrl-Cs sent, "^C", removed)."""
    return [x for x in text.replace("^C", "").split("\n")
            if re.fullmatch(NUM, x)]


def interrupt(v, line):
    """Type 'line', then Ctrl-C until the evaluation is suspended.  Returns
    (steps it had run, the output before the message), or None when it
    finished first.  A Ctrl-C also makes the terminal discard output not
    yet read, so the next one is sent only after a pause."""
    v.line(line)
    # once readline has the whole line: a Ctrl-C sent earlier would also
    # throw away the typed characters still in the terminal's queue
    v.expect(re.escape(line) + r"\n")
    if not READLINE:
        # the terminal itself echoed the line: no sign of when vlad reads it
        time.sleep(0.2 * SCALE)
    start = v.pos
    m = v.ctrl_c_until(r"interrupted after (\d+) steps|\n(%s)\n(\^C\n)*"
                       r"vlad> " % NUM)
    if m.group(1) is None:
        v.expect(r"vlad> ")             # it finished first
        return None
    v.pos = m.start()
    v.expect(r"suspended as \*interrupted\*: ,resume continues it, ,drop "
             r"forgets it\n")
    v.expect(r"vlad> ")
    return int(m.group(1)), v.out[start:m.start()]


def finish(v, command):
    """Run 'command' (,resume or the uninterrupted evaluation); returns
    the number lines it printed."""
    v.line(command)
    start = v.pos
    v.expect(r"\nvlad> ")
    return numbers(v.out[start:v.pos])
