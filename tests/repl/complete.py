"""tests/repl/complete.py -- Tab completion in the REPL: prelude names,
primitives, special-form keywords, the user's own definitions, comma
commands and their arguments (strategies, file names)."""

import os

from vlpty import (CTRL_C, CTRL_D, TAB, Checks, Vlad, expect_equal,
                   have_readline, skip)

if not have_readline():
    skip("vlad was built without readline")

t = Checks()


def session():
    v = Vlad(["-q"], history=t.path("history"), cwd=t.tmp)
    v.prompt()
    return v


def bye(v):
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)


def unique_names():
    v = session()
    v.send("(io" + TAB)                     # prelude: iota
    v.expect(r"\(iota ")
    v.send("4)\r")
    v.expect(r"\n\(0 1 2 3\)\nvlad> ")
    v.send("(sqr" + "t" + TAB)              # primitive: sqrt
    v.expect(r"\(sqrt ")
    v.send("81)\r")
    v.expect(r"\n9\nvlad> ")
    v.send("(lamb" + TAB)                   # special form
    v.expect(r"\(lambda ")
    v.send(CTRL_C)
    v.expect(r"\^C\nvlad> ")
    v.send("(beg" + TAB)                    # begin is a keyword too
    v.expect(r"\(begin ")
    v.send("(disp" + TAB)                   # display: a primitive
    v.expect(r"\(display ")
    v.send("'ok))\r")
    v.expect(r"\nokvlad> ")
    v.send("((lambda (x) (magn" + TAB)      # inside a form
    v.expect(r"magnitude ")
    v.send("x)) '(3 4))\r")
    v.expect(r"\n5\nvlad> ")
    bye(v)


def several_candidates():
    v = session()
    v.send("(checkpoint" + TAB + TAB)
    v.expect(r"checkpoint\s+checkpoint-\*j\s+checkpoint\?\s*\n")
    v.expect(r"vlad> \(checkpoint")          # the line is redrawn
    v.send(CTRL_C)
    v.expect(r"\^C\nvlad> ")
    v.send("(hess" + TAB)                   # the common prefix
    v.expect(r"\(hessian")
    v.send(TAB + TAB)                       # (readline lists on the
    v.expect(r"hessian\s+hessian-vector-product\s*\n")  # second Tab
                                            # that changes nothing)
    v.send(CTRL_C)
    v.expect(r"\^C\nvlad> ")
    bye(v)


def user_definitions():
    v = session()
    v.line("(define (my-special-fn x) (* x 2))")
    v.prompt()
    v.line("(define my-special-value 21)")
    v.prompt()
    v.send("(my-sp" + TAB)
    v.expect(r"\(my-special-")
    v.send(TAB + TAB)
    v.expect(r"my-special-fn\s+my-special-value\s*\n")
    v.send("f" + TAB)
    v.expect(r"my-special-fn ")
    v.send("my-special-v" + TAB + ")\r")
    v.expect(r"\n42\nvlad> ")
    # a redefined prelude name is offered once
    v.line("(define (sqr x) (* x x x))")
    v.prompt()
    v.send("(sq" + TAB)
    v.expect(r"\(sqr")
    v.send(TAB + TAB)
    v.expect(r"\nsqr\s+sqrt\s*\n")
    v.send(CTRL_C)
    v.expect(r"\^C\nvlad> ")
    bye(v)


def commands():
    v = session()
    v.send(",he" + TAB + TAB)            # ,help and ,heap-limit
    v.expect(r",heap-limit\s+,help\s*\n")
    v.send("l" + TAB)
    v.expect(r",help ")
    v.send("\r")
    v.expect(r"Commands")
    v.prompt()
    v.send(",st" + TAB + TAB)
    v.expect(r",stats\s+,step-limit\s*\n")
    v.send("e" + TAB + "\r")
    v.expect(r"step limit: none\nvlad> ")
    v.send(",checkpoint bis" + TAB)
    v.expect(r",checkpoint bisection ")
    v.send("\r")
    v.expect(r"strategy: bisection\nvlad> ")
    v.send(",ti" + TAB + "(io" + TAB + "3)\r")   # names after ,time
    v.expect(r"\(0 1 2\)\ntime: ")
    v.prompt()
    bye(v)


def file_names_after_load():
    with open(os.path.join(t.tmp, "unique-prog-name.vlad"), "w") as f:
        f.write("(* 6 7)\n")
    v = session()
    v.send(",load unique-prog" + TAB)
    v.expect(r"unique-prog-name\.vlad ")
    v.send("\r")
    v.expect(r"\n42\nvlad> ")
    bye(v)


for name, fn in [("unique names", unique_names),
                 ("several candidates", several_candidates),
                 ("the user's definitions", user_definitions),
                 ("commands and their arguments", commands),
                 ("file names after ,load", file_names_after_load)]:
    t.check(name, fn)
t.finish()
