"""tests/repl/familiar.py -- what a Guile, Racket or Python user expects of
a REPL (issue 20): (exit), (exit N), ,quit, and a bare exit or quit that
says how to leave; ,describe and ,apropos from the prelude's comments and
the primitives' table of doc/reference.md; _ holds the last value;
matching parentheses blink, on continuation lines too; ,heap-limit;
,stats never calls a peak equal to the present value "reached before".
Long evaluations are in long.py."""

import os
import re

from vlpty import command as cmd, leave as bye
from vlpty import (Checks, Failure, Vlad,
                   expect_equal, expect_in, expect_not_in, have_readline)

t = Checks()
READLINE = have_readline()
SRCDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def session(*args, **kw):
    v = Vlad(["-q"] + list(args), history=t.path("history"), **kw)
    v.prompt()
    return v


def ending(lines, status):
    """A session given 'lines' must end with 'status', printing nothing
    after the last line."""
    v = session()
    for line in lines[:-1]:
        v.line(line)
    v.line(lines[-1])
    expect_equal("exit status of %r" % lines, v.wait(), status)
    rest = v.out[v.out.rfind(lines[-1]) + len(lines[-1]):]
    if rest.strip():
        raise Failure("%r printed %r" % (lines, rest))


def exit_and_quit():
    ending(["(exit)"], 0)
    ending(["(exit 3)"], 3)
    ending(["  ( exit   255 )  "], 255)
    ending(["(quit)"], 0)
    ending(["(exit", "  7)"], 7)            # over two lines
    ending([",quit"], 0)
    ending([",q"], 0)
    v = session()
    hint = r"Use \(exit\), ,quit or Ctrl-D to leave the REPL\.\n"
    cmd(v, "exit", hint)
    cmd(v, "quit", hint)
    cmd(v, "(exit 256)", r"\(exit N\): N is the exit status, a whole "
        r"number from 0 to 255, got '256'\n")
    cmd(v, "(exit -1)", r"\(exit N\): .*got '-1'\n")
    cmd(v, "(exit 1.5)", r"\(exit N\): .*got '1\.5'\n")
    # inside a larger input, exit is only a name: unbound
    cmd(v, "(list (exit))", r".*error: .*exit.*\n.*")
    cmd(v, "(+ 1 2)", r"3\n")               # still here
    # once the program defines exit, it is the program's
    cmd(v, "(define (exit n) (* n 2))", r"")
    cmd(v, "(exit 21)", r"42\n")
    cmd(v, "exit", r"#<procedure.*>\n")
    bye(v)


def entry(path, start):
    """The text of the comment block of stdlib/prelude.vlad that begins
    with the line ';; START' (its first line)."""
    with open(path) as f:
        for line in f:
            if line.startswith(";; " + start):
                return line[3:].rstrip("\n")
    raise Failure("%s: no line ';; %s'" % (path, start))


def row(path, name):
    """The meaning column of the row of doc/reference.md section 6 that
    names `NAME`, without backquotes."""
    in6 = False
    with open(path) as f:
        for line in f:
            if line.startswith("## "):
                in6 = line.startswith("## 6. ")
            if in6 and line.startswith("| ") and "`%s`" % name in \
                    line.split("|")[1]:
                return line.split("|")[3].strip().replace("`", "")
    raise Failure("%s: no row for %s" % (path, name))


def words(text):
    return " ".join(text.split())


def describe():
    prelude = os.path.join(SRCDIR, "stdlib", "prelude.vlad")
    reference = os.path.join(SRCDIR, "doc", "reference.md")
    v = session()
    out = cmd(v, ",describe map", r"map -- prelude, stdlib/prelude\.vlad\n"
              r"(  .*\n)+")
    expect_in(",describe map", words(entry(prelude, "(map f l)")),
              words(out))
    expect_in(",describe map", "(map sqr '(1 2 3)) => (1 4 9)", out)
    out = cmd(v, ",describe sqrt", r"sqrt -- primitive, doc/reference\.md "
              r"section 6\n(  .*\n)+")
    expect_in(",describe sqrt", words(row(reference, "sqrt")), words(out))
    out = cmd(v, ",describe +", r"\+ -- primitive.*\n(  .*\n)+")
    expect_in(",describe +", words(row(reference, "+")), words(out))
    for line in out.splitlines():
        if len(line) > 76:
            raise Failure("a line longer than 76 columns: %r" % line)
    # min shares max's block
    out = cmd(v, ",describe min", r"min -- prelude.*\n(  .*\n)+")
    expect_in(",describe min", "(min 4 2 8 3) => 2", out)
    cmd(v, ",describe if", r"if -- a special form .*\n")
    cmd(v, ",describe no-such-name", r"no-such-name is not bound "
        r"\(,apropos no-such-name searches the documentation\)\n")
    cmd(v, "(define (sq x) (* x x))", r"")
    cmd(v, ",describe sq", r"sq is your definition: #<procedure.*>\n")
    cmd(v, "(define (map f l) l)", r"")     # a redefinition of the prelude's
    cmd(v, ",describe map", r"map is your definition: .*\nIt replaces the "
        r"map of the prelude:\nmap -- prelude.*")
    cmd(v, ",describe", r"usage: ,describe NAME\n")
    cmd(v, ",describe a b", r"usage: ,describe NAME \(one name\)\n")
    cmd(v, ",desc car", r"car -- prelude.*")        # a prefix
    bye(v)


def apropos():
    v = session()
    out = cmd(v, ",apropos gradient", r"(\S+ +.*\n)+\(,describe NAME shows "
              r"one in full\)\n")
    names = [line.split()[0] for line in out.splitlines()[:-1]]
    for name in ("gradient", "gradient-forward", "gradient-reverse"):
        if name not in names:
            raise Failure(",apropos gradient lacks %s:\n%s" % (name, out))
    if len(names) != len(set(names)):
        raise Failure(",apropos lists a name twice:\n%s" % out)
    out = cmd(v, ",apropos SQRT", r".*\n")         # case does not matter
    if not re.search(r"^sqrt ", out, re.M):
        raise Failure(",apropos SQRT lacks sqrt:\n%s" % out)
    cmd(v, "(define my-gradient-step 1)", r"")
    cmd(v, ",apropos gradient-step", r"my-gradient-step +your definition\n"
        r"\(,describe NAME shows one in full\)\n")
    out = cmd(v, ",apropos lamb", r".*\n")
    if not re.search(r"^lambda +a special form$", out, re.M):
        raise Failure(",apropos lamb lacks lambda:\n%s" % out)
    cmd(v, ",apropos zzqqxx", r"nothing matches 'zzqqxx'\n")
    cmd(v, ",apropos", r"usage: ,apropos TEXT\n")
    bye(v)


def last_value():
    v = session()
    cmd(v, "_", r".*error: .*unbound.*\n.*")    # nothing printed yet
    cmd(v, "(+ 1 2)", r"3\n")
    cmd(v, "_", r"3\n")
    cmd(v, "(* _ 10)", r"30\n")
    cmd(v, "(define x 5)", r"")                 # a definition: no value
    cmd(v, "_", r"30\n")
    cmd(v, "(display 'hi)", r"hi")              # void: nothing printed
    cmd(v, "_", r"30\n")
    cmd(v, "(car 1)", r".*error.*\n.*")         # an error: no value
    cmd(v, "_", r"30\n")
    cmd(v, "(list 1 2) (define y 2)", r"\(1 2\)\n")
    cmd(v, "(map (lambda (_) _) '(7 8))", r"\(7 8\)\n")  # a local _ wins
    cmd(v, "_", r"\(7 8\)\n")
    cmd(v, ",time (+ 40 2)", r"42\ntime: .*\n")
    cmd(v, "_", r"42\n")
    cmd(v, ",describe _", r"_: the value the REPL printed last: 42\n")
    cmd(v, ",env", r"x = 5\ny = 2\n")           # _ is not yours
    # once the program defines _, the REPL leaves it alone
    cmd(v, "(define _ 'mine)", r"")
    cmd(v, "(+ 1 1)", r"2\n")
    cmd(v, "_", r"mine\n")
    cmd(v, ",env", r"_ = mine\nx = 5\ny = 2\n")
    bye(v)


def blink():
    """readline's blink-matching-paren, on by default: a ) closing a ( of
    the same line moves the cursor there for a moment; one closing a ( of
    an earlier line of the form shows that line in place of the prompt."""
    if not READLINE:
        return
    v = session(env={"INPUTRC": "/dev/null"})
    v.send("(+ 1 2")
    v.expect(r"\(\+ 1 2")
    start = len(v.raw)
    v.send(")")
    v.expect_raw(")" + "\b" * 7, start)      # the cursor back to (
    v.send("\r")
    v.expect(r"\n3\nvlad> ")
    v.send("(define (f x)\r")
    v.expect(r"\.\.\.1> ")
    v.send("(* 2 x)")
    v.expect(r"\(\* 2 x\)")
    v.send(")")
    v.expect(r"\[1: \(define \(f x\)\] ")
    v.send("\r")
    v.prompt()
    v.send("(f 21)\r")         # (a blink: its ) is not typed by cmd())
    v.expect(r"\n42\nvlad> ")
    bye(v)
    # "set blink-matching-paren off" in ~/.inputrc turns both off
    v = session()               # tests/repl/inputrc
    v.send("(define (g x)\r")
    v.expect(r"\.\.\.1> ")
    start = len(v.raw)
    v.send("x)")
    v.send("\r")
    v.prompt()
    # all readline drew for "x)" came before the prompt of the next line
    drawn = v.raw[start:v.raw.rfind("vlad> ")]
    expect_not_in("no blink", "\b", drawn)
    expect_not_in("no blink", "[1:", drawn)
    bye(v)


def heap_limit():
    v = session()
    cmd(v, ",heap-limit", r"heap limit: none\n")
    cmd(v, ",heap-limit 8M", r"heap limit: 8388608 bytes\n")
    cmd(v, ",heap-limit", r"heap limit: 8388608 bytes\n")
    cmd(v, "(length (iota 1000000))", r".*error: .*heap.*\n.*")
    cmd(v, ",heap-limit none", r"heap limit: none\n")
    cmd(v, "(length (iota 1000000))", r"1000000\n")
    cmd(v, ",heap-limit lots", r",heap-limit needs a size in bytes .*"
        r"got 'lots'\n")
    cmd(v, ",heap-limit -5", r",heap-limit needs .*got '-5'\n")
    cmd(v, ",heap-limit", r"heap limit: none\n")      # unchanged
    cmd(v, ",h", r"Type VLAD forms.*")               # ,h is still ,help
    bye(v)
    v = session("--heap-limit", "1G")
    cmd(v, ",heap-limit", r"heap limit: 1073741824 bytes\n")
    bye(v)


def stats_peak():
    v = session()
    for line in ("(+ 1 2)", "(length (iota 200000))", "(+ 1 2)"):
        cmd(v, line, r".*\n")
        out = cmd(v, ",stats", r"steps: .*")
        m = re.search(r"^heap: (\d+) bytes; peak (\d+) bytes", out, re.M)
        if m and m.group(1) == m.group(2):
            raise Failure("a peak equal to now, as if it were another:\n"
                          + out)
        if not re.search(r"^heap: \d+ bytes(; peak \d+ bytes.*| \(the peak "
                         r"so far\))$", out, re.M):
            raise Failure("no heap line:\n" + out)
    bye(v)


t.check("(exit), (exit N), ,quit; exit and quit say how to leave",
        exit_and_quit)
t.check(",describe from the prelude and the primitives' table", describe)
t.check(",apropos", apropos)
t.check("_ is the last value", last_value)
t.check("matching parentheses blink, on continuation lines too", blink)
t.check(",heap-limit", heap_limit)
t.check(",stats: no peak 'reached before' equal to now", stats_peak)
t.finish()
