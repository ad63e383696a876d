"""tests/repl/commands.py -- every comma command of the REPL (,help ,load
,time ,stats ,checkpoint ,step-limit ,env ,disassemble ,resume ,drop
,quit; ,resume and
,drop are exercised further by interrupt.py and long.py, ,heap-limit
,describe ,apropos by familiar.py), abbreviations, and unknown,
ambiguous or malformed commands (a message; the REPL goes on)."""

import re

from vlpty import command as cmd, leave as bye
from vlpty import Checks, Vlad, expect_equal

t = Checks()

NUM = r"-?[0-9][0-9.e+-]*"
CPJ = ("(define (f x) (let loop ((i 0) (y x)) (if (= i 20000) y "
       "(loop (+ i 1) (sin (+ y 0.001))))))")


def session(*args):
    v = Vlad(["-q"] + list(args), history=t.path("history"))
    v.prompt()
    return v


def help_lists_everything():
    v = session()
    out = cmd(v, ",help", r"Type VLAD forms.*Ctrl-D leaves\.\n")
    for name in (",help", ",load FILE", ",time EXPR", ",stats",
                 ",checkpoint [SPEC]", ",step-limit [N]",
                 ",heap-limit [BYTES]", ",describe NAME", ",apropos TEXT",
                 ",env", ",disassemble NAME", ",resume",
                 ",drop", ",quit"):
        if "\n  " + name not in out:
            v.fail("%s is not in ,help" % name)
    cmd(v, ",h", r"Type VLAD forms.*")           # a unique prefix
    cmd(v, "   ,help", r"Type VLAD forms.*")      # leading blanks
    bye(v)


def load():
    prog = t.path("prog.vlad")
    with open(prog, "w") as f:
        f.write("(define (triple x) (* 3 x))\n(triple 5)\n"
                "(define loaded 1)\n")
    bad = t.path("bad.vlad")
    with open(bad, "w") as f:
        f.write("(define before 7)\n(car 1)\n(define after 8)\n")
    v = session()
    cmd(v, ",load " + prog, r"15\n")
    cmd(v, "(triple loaded)", r"3\n")
    cmd(v, ',load "%s"' % prog, r"15\n")             # quotes are allowed
    cmd(v, ",load " + bad,
        r".*bad\.vlad:2:1: error: .*\n(  in .*\n)*")
    cmd(v, "before", r"7\n")                          # kept
    cmd(v, ",load " + t.path("missing.vlad"),
        r"error: cannot read '.*missing\.vlad': No such file or "
        r"directory\n")
    cmd(v, ",load", r"usage: ,load FILE\n")
    cmd(v, "(triple 2)", r"6\n")                      # the REPL goes on
    bye(v)


def time_command():
    v = session()
    cmd(v, ",time (+ 1 2)", r"3\ntime: %s s, \d+ steps\n" % NUM)
    out = cmd(v, ",time (let loop ((i 0)) (if (= i 1000) i "
              "(loop (+ i 1))))", r"1000\ntime: %s s, (\d+) steps\n" % NUM)
    steps = int(re.search(r"(\d+) steps", out).group(1))
    if steps < 1000:
        v.fail("1000 iterations took only %d steps" % steps)
    # an expression over several lines
    v.line(",time (let loop ((i 0))")
    v.expect(r"\n\.\.\.1> ")
    v.line("(if (= i 10) i (loop (+ i 1))))")
    v.expect(r"\n10\ntime: %s s, \d+ steps\nvlad> " % NUM)
    # an error is reported, with the time it took
    cmd(v, ",time (car 1)", r"<repl>:1:7: error: .*\n(  in .*\n)*"
        r"time: %s s, \d+ steps\n" % NUM)
    cmd(v, ",time", r"usage: ,time EXPR\n")
    bye(v)


def stats():
    v = session()
    cmd(v, ",stats", r"no evaluation yet\n")
    cmd(v, "(let loop ((i 0)) (if (= i 500) i (loop (+ i 1))))", r"500\n")
    cmd(v, ",stats", r"steps: 50\d\ntime: %s s\nheap: \d+ bytes(; peak \d+ "
        r"bytes(, reached before this evaluation)?| \(the peak so far\))\n"
        % NUM)
    cmd(v, CPJ, r"")
    cmd(v, "(*j f 0.5 1)", r"\(.*\)\n")
    cmd(v, ",stats", r"steps: \d+\n.*ad tape nodes: [1-9]\d* \(recorded, all "
        r"tapes\)\nad tape bytes: [1-9]\d* \(recorded, all tapes\)\n"
        r"peak tape nodes: [1-9]\d* \(the longest tape\)\n")
    for _ in range(2):      # the figures are the last evaluation's
        cmd(v, "(checkpoint-*j f 0.5 1)", r"\(.*\)\n")
        cmd(v, ",stats",
            r"steps: \d+\n.*peak tape nodes: .*\d+.*\n"
            r"checkpoint-\*j runs: 1\n"
            r"checkpoint-\*j primal steps: 2000\d\n"
            r"checkpoint-\*j re-executed steps: \d+ \(%s x primal\)\n"
            r"checkpoint-\*j base cases: \d+ \(2000\d steps\)\n"
            r"checkpoint-\*j peak live checkpoints: .*\d+ .*bytes\)?\n"
            % NUM)
    cmd(v, ",stats now", r",stats takes no argument\n")
    bye(v)


def checkpoint_command():
    v = session()
    cmd(v, ",checkpoint", r"checkpoint-\*j strategy: default "
        r"\(binomial,budget=32M\)\n")
    cmd(v, CPJ, r"")
    cmd(v, "(checkpoint-*j f 0.5 1)", r"\(.*\)\n")
    out = cmd(v, ",stats", r".*base cases: (\d+) .*")
    default_cases = int(re.search(r"base cases: (\d+)", out).group(1))
    cmd(v, ",checkpoint bisection,base=50",
        r"checkpoint-\*j strategy: bisection,base=50\n")
    cmd(v, ",checkpoint", r"checkpoint-\*j strategy: bisection,base=50\n")
    cmd(v, "(checkpoint-*j f 0.5 1)", r"\(.*\)\n")
    out = cmd(v, ",stats", r".*base cases: (\d+) .*")
    cases = int(re.search(r"base cases: (\d+)", out).group(1))
    if cases < 400 or cases <= default_cases:
        v.fail("base=50 gave %d base cases (default: %d)"
               % (cases, default_cases))
    cmd(v, ",checkpoint sideways", r",checkpoint: .*sideways.*\n")
    cmd(v, ",checkpoint", r"checkpoint-\*j strategy: bisection,base=50\n")
    cmd(v, ",checkpoint default", r"checkpoint-\*j strategy: default\n")
    cmd(v, ",checkpoint", r"checkpoint-\*j strategy: default .*\n")
    bye(v)
    # the command line's strategy is the starting one
    v = session("--checkpoint=binomial,slots=4")
    cmd(v, ",checkpoint", r"checkpoint-\*j strategy: binomial,slots=4\n")
    bye(v)


def step_limit_command():
    v = session()
    cmd(v, ",step-limit", r"step limit: none\n")
    cmd(v, ",step-limit 1000", r"step limit: 1000 steps\n")
    cmd(v, "(let loop ((i 0)) (loop (+ i 1)))",
        r"<repl>:1:\d+: error: step limit exceeded \(1000 steps\)\n.*")
    cmd(v, "(let loop ((i 0)) (if (= i 10) i (loop (+ i 1))))", r"10\n")
    cmd(v, ",step-limit lots",
        r",step-limit needs a non-negative whole number \(0 or 'none': no "
        r"limit\), got 'lots'\n")
    cmd(v, ",step-limit -5", r",step-limit needs .*got '-5'\n")
    cmd(v, ",step-limit 1e3", r"step limit: 1000 steps\n")
    cmd(v, ",step-limit", r"step limit: 1000 steps\n")
    cmd(v, ",step-limit none", r"step limit: none\n")
    cmd(v, ",step-limit 20", r"step limit: 20 steps\n")
    cmd(v, ",step-limit 0", r"step limit: none\n")
    cmd(v, "(let loop ((i 0)) (if (= i 5000) i (loop (+ i 1))))", r"5000\n")
    bye(v)
    v = session("--step-limit=77")
    cmd(v, ",step-limit", r"step limit: 77 steps\n")
    bye(v)


def env_command():
    v = session()
    cmd(v, ",env", r"no definitions yet\n")
    cmd(v, "(define zeta 3)", r"")
    cmd(v, "(define (alpha x) x)", r"")
    cmd(v, "(define long (iota 200))", r"")
    cmd(v, "(define (map f l) l)", r"")              # a prelude name
    out = cmd(v, ",env", r"alpha = #<procedure alpha>\n"
              r"long = \(0 1 2 3 [0-9 ]*\.\.\.\n"
              r"map = #<procedure map>\n"
              r"zeta = 3\n")
    if max(len(x) for x in out.split("\n")) > 80:
        v.fail("a line of ,env is longer than 80 columns")
    bye(v)


def disassemble_command():
    v = session()
    cmd(v, "(define (add1 x) (+ x 1))", r"")
    cmd(v, ",disassemble add1",
        r"procedure add1: add1 at <repl>:1:1\n"
        r"  1 register, 1 param, 1 constant, 0 captured, 0 children, "
        r"2 instructions\n"
        r"  K\[0\] = 1\n"
        r"  index  line:col  step   opcode .*\n"
        r"      0  1:18      step\?  ADDK .*; 1\n"
        r"      1  1:18             RETURN .*\n")
    cmd(v, "(define (make-adder n) (lambda (x) (+ x n)))", r"")
    cmd(v, ",di make-adder",                        # a prefix; the lambda
        r"procedure make-adder: .*\n(  .*\n)+\n"
        r"procedure make-adder\.0: \(lambda\) at <repl>:1:24\n"
        r"(  .*\n)+")
    cmd(v, ",disassemble nothing-here", r",disassemble: nothing-here is "
        r"not bound\n")
    cmd(v, ",disassemble display", r",disassemble: display is a primitive, "
        r"built in C: it has no bytecode\n")
    cmd(v, "(define seven 7)", r"")
    cmd(v, ",disassemble seven", r",disassemble: seven is not a "
        r"procedure\n")
    cmd(v, ",disassemble", r"usage: ,disassemble NAME\n")
    cmd(v, "(add1 2)", r"3\n")                       # the REPL goes on
    bye(v)


def resume_and_drop_without_suspension():
    v = session()
    cmd(v, ",resume", r"nothing to resume \(Ctrl-C during an evaluation "
        r"suspends it\)\n")
    cmd(v, ",drop", r"nothing to drop\n")
    cmd(v, ",resume now", r",resume takes no argument\n")
    bye(v)


def quit_command():
    for line in (",quit", ",q", ",qu"):
        v = session()
        v.line(line)
        expect_equal("exit status of " + line, v.wait(), 0)


def bad_commands():
    v = session()
    cmd(v, ",frobnicate", r"unknown command ',frobnicate' \(,help lists the "
        r"commands\)\n")
    cmd(v, ",", r"a command name must follow ',' \(,help lists the "
        r"commands\)\n")
    cmd(v, ",s", r"ambiguous command ',s' \(,help lists the commands\)\n")
    cmd(v, ",help me", r",help takes no argument\n")
    cmd(v, "(+ 1 1)", r"2\n")                         # the REPL goes on
    bye(v)


for name, fn in [(",help", help_lists_everything),
                 (",load", load),
                 (",time", time_command),
                 (",stats", stats),
                 (",checkpoint", checkpoint_command),
                 (",step-limit", step_limit_command),
                 (",env", env_command),
                 (",disassemble", disassemble_command),
                 (",resume and ,drop with nothing suspended",
                  resume_and_drop_without_suspension),
                 (",quit", quit_command),
                 ("unknown, ambiguous and malformed commands",
                  bad_commands)]:
    t.check(name, fn)
t.finish()
