"""tests/repl/language.py -- the REPL side of issue 20: ,load NAME runs
NAME.vlad when NAME does not exist; a comma command typed inside an
unfinished form is refused with one line and the form is kept; display
and newline print labels and their value (#<void>) is not echoed; a
quoted symbol and a string are values."""

from vlpty import command as cmd, leave as bye
from vlpty import Checks, Vlad

t = Checks()


def session(*args):
    v = Vlad(["-q"] + list(args), history=t.path("history"))
    v.prompt()
    return v


def load_adds_extension():
    prog = t.path("lib.vlad")
    with open(prog, "w") as f:
        f.write("(define (triple x) (* 3 x))\n(triple 5)\n")
    v = session()
    cmd(v, ",load " + t.path("lib"), r"15\n")          # lib -> lib.vlad
    cmd(v, "(triple 2)", r"6\n")
    cmd(v, ",load " + t.path("nothing"),
        r"error: cannot read '.*nothing': No such file or directory\n")
    bye(v)


def command_inside_form():
    v = session()
    v.line("(define (f x)")
    v.expect(r"\n\.\.\.1> ")
    v.line(",quit")
    v.expect(r",quit\r?\na command cannot be given inside an unfinished "
             r"form \(1 open parenthesis\): finish the form, or Ctrl-C to "
             r"discard it\n\.\.\.1> ")
    v.line("(* 2 x))")                     # the form was kept
    v.expect(r"\nvlad> ")
    cmd(v, "(f 21)", r"42\n")
    # two levels open; inside a string a comma line is text
    v.line("(list (+ 1")
    v.expect(r"\n\.\.\.2> ")
    v.line("  ,env")
    v.expect(r"unfinished form \(2 open parentheses\).*\n\.\.\.2> ")
    v.line("2) \"a")
    v.expect(r'\n\.\.\."> ')
    v.line(',b")')
    v.expect(r'\n\(3 "a\\n,b"\)\nvlad> ')
    bye(v)


def labels():
    v = session()
    cmd(v, "(display 'loss)", r"loss")
    cmd(v, "(newline)", r"\n")
    cmd(v, "(begin (display \"iteration \") (display 5) (display \": loss "
        "= \") (display 0.25) (newline))", r"iteration 5: loss = 0.25\n")
    cmd(v, "(list 'a \"b\" (newline))", r"\n\(a \"b\" #<void>\)\n")
    cmd(v, "(write 'x)", r"x\nx\n")
    bye(v)


for name, fn in [(",load NAME finds NAME.vlad", load_adds_extension),
                 ("a command inside an unfinished form", command_inside_form),
                 ("display, newline, begin, symbols and strings", labels)]:
    t.check(name, fn)
t.finish()
