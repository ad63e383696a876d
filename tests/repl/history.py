"""tests/repl/history.py -- the REPL's history: recall with the arrow keys,
kept across sessions in $VLAD_HISTORY or ~/.vlad_history, bounded, one
entry per input, and history files that cannot be read or written."""

import os

from vlpty import (CTRL_D, DOWN, ENTER, UP, Checks, Vlad, expect_equal,
                   expect_in, expect_not_in, have_readline, skip)

if not have_readline():
    skip("vlad was built without readline")

t = Checks()


def lines(path):
    with open(path) as f:
        return f.read().splitlines()


def recall_in_session():
    v = Vlad(["-q"], history=t.path("recall"))
    v.prompt()
    v.line("(define n 5)")
    v.prompt()
    v.line("(* n 10)")
    v.expect(r"\n50\nvlad> ")
    v.line("(+ n 1)")
    v.expect(r"\n6\nvlad> ")
    v.send(UP + UP + ENTER)                 # (* n 10) again
    v.expect(r"\n50\nvlad> ")
    v.send(UP + UP + UP + DOWN + ENTER)     # (+ n 1)
    v.expect(r"\n6\nvlad> ")
    v.send(UP)                              # edit the recalled line
    v.send("\x7f\x7f2)" + ENTER)            # (+ n 1) -> (+ n 2)
    v.expect(r"\n7\nvlad> ")
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)


def kept_across_sessions():
    path = t.path("across")
    v = Vlad(["-q"], history=path)
    v.prompt()
    v.line("(+ 100 1)")
    v.expect(r"\n101\nvlad> ")
    v.line(",help")
    v.prompt()
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)
    expect_equal("history file", lines(path), ["(+ 100 1)", ",help"])
    v = Vlad(["-q"], history=path)
    v.prompt()
    v.send(UP + UP + ENTER)
    v.expect(r"\n101\nvlad> ")
    v.send(CTRL_D)
    v.wait()
    expect_equal("history file", lines(path),
                 ["(+ 100 1)", ",help", "(+ 100 1)"])


def home_and_environment():
    home = t.path("home")
    os.mkdir(home)
    v = Vlad(["-q"], home=home, env={"VLAD_HISTORY": None})
    v.prompt()
    v.line("(+ 2 3)")
    v.expect(r"\n5\nvlad> ")
    v.send(CTRL_D)
    v.wait()
    expect_equal("~/.vlad_history", lines(os.path.join(home,
                                                       ".vlad_history")),
                 ["(+ 2 3)"])
    # VLAD_HISTORY overrides HOME; set but empty, it turns history off
    other = t.path("other")
    v = Vlad(["-q"], home=home, history=other)
    v.prompt()
    v.line("(+ 3 3)")
    v.expect(r"\n6\nvlad> ")
    v.send(CTRL_D)
    v.wait()
    expect_equal("$VLAD_HISTORY", lines(other), ["(+ 3 3)"])
    expect_equal("~/.vlad_history untouched",
                 lines(os.path.join(home, ".vlad_history")), ["(+ 2 3)"])
    v = Vlad(["-q"], home=home, history="")
    v.prompt()
    v.line("(+ 4 4)")
    v.expect(r"\n8\nvlad> ")
    v.send(UP + ENTER)                      # still recalled in the session
    v.expect(r"\n8\nvlad> ")
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)
    expect_equal("~/.vlad_history untouched",
                 lines(os.path.join(home, ".vlad_history")), ["(+ 2 3)"])
    # no HOME and no VLAD_HISTORY: no history file, no complaint
    v = Vlad(["-q"], env={"HOME": None, "VLAD_HISTORY": None})
    v.prompt()
    v.line("(+ 5 5)")
    v.expect(r"\n10\nvlad> ")
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)
    expect_not_in("output", "warning", v.out)


def bounded():
    path = t.path("bounded")
    with open(path, "w") as f:
        for i in range(1200):
            f.write("(+ 0 %d)\n" % i)
    v = Vlad(["-q"], history=path)
    v.prompt()
    v.send(UP + ENTER)
    v.expect(r"\n1199\nvlad> ")
    v.line("(+ 1 1)")
    v.expect(r"\n2\nvlad> ")
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)
    got = lines(path)
    if len(got) > 1000:
        v.fail("the history file has %d lines (at most 1000)" % len(got))
    expect_equal("the newest entries", got[-2:], ["(+ 0 1199)", "(+ 1 1)"])


def one_entry_per_input():
    path = t.path("entries")
    v = Vlad(["-q"], history=path)
    v.prompt()
    v.line("(define (sq x) ; the square")
    v.expect(r"\.\.\.1> ")
    v.line("   (* x x))")
    v.prompt()
    v.line("(sq 5)")
    v.expect(r"\n25\nvlad> ")
    v.line("(sq 5)")                        # a repeat is not stored again
    v.expect(r"\n25\nvlad> ")
    v.send(UP + UP + ENTER)                 # the whole definition, joined
    v.prompt()
    v.line("(sq 6)")
    v.expect(r"\n36\nvlad> ")
    v.line("(+ 1")                          # dropped by Ctrl-C: not stored
    # Ctrl-C once readline reads the continuation line (its prompt shows
    # then; tests/repl/editing.py says why: a SIGINT before that flushes
    # the typed text with it)
    v.expect(r"\.\.\.1> ")
    v.send("\x03")
    v.expect(r"\^C\nvlad> ")
    v.send(CTRL_D)
    v.wait()
    expect_equal("history file", lines(path),
                 ["(define (sq x) (* x x))", "(sq 5)",
                  "(define (sq x) (* x x))", "(sq 6)"])


def unreadable_file():
    # a directory stands for a file that cannot be read (even by root)
    path = t.path("a-directory")
    os.mkdir(path)
    v = Vlad(["-q"], history=path)
    v.expect(r"vlad: warning: cannot read the history file .*a-directory: "
             r".*; this session's history will not be saved\n")
    v.prompt()
    v.line("(+ 20 22)")
    v.expect(r"\n42\nvlad> ")
    v.send(UP + ENTER)
    v.expect(r"\n42\nvlad> ")
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)
    expect_not_in("output at the end", "cannot save", v.out)
    if os.geteuid() != 0:
        path = t.path("no-permission")
        with open(path, "w") as f:
            f.write("(+ 1 1)\n")
        os.chmod(path, 0)
        v = Vlad(["-q"], history=path)
        v.expect(r"warning: cannot read the history file .*no-permission: "
                 r"Permission denied")
        v.prompt()
        v.line("(+ 1 2)")
        v.expect(r"\n3\nvlad> ")
        v.send(CTRL_D)
        expect_equal("exit status", v.wait(), 0)
        os.chmod(path, 0o600)
        expect_equal("file untouched", lines(path), ["(+ 1 1)"])


def unwritable_file():
    path = t.path("no-such-dir/history")
    v = Vlad(["-q"], history=path)
    v.prompt()
    expect_not_in("output at the start", "warning", v.out)
    v.line("(+ 1 2)")
    v.expect(r"\n3\nvlad> ")
    v.send(CTRL_D)
    v.expect(r"vlad: warning: cannot save the history to "
             r".*no-such-dir/history: No such file or directory")
    expect_equal("exit status", v.wait(), 0)


for name, fn in [("recall in a session", recall_in_session),
                 ("kept across sessions", kept_across_sessions),
                 ("HOME and VLAD_HISTORY", home_and_environment),
                 ("bounded to 1000 entries", bounded),
                 ("one entry per input", one_entry_per_input),
                 ("an unreadable history file", unreadable_file),
                 ("an unwritable history file", unwritable_file)]:
    t.check(name, fn)
t.finish()
