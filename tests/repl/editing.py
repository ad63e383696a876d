"""tests/repl/editing.py -- the REPL on a terminal: prompts, multi-line
input, errors, Ctrl-C and Ctrl-D at the prompt, a resized terminal, and
standard input that is not a terminal (read as a script)."""

from vlpty import (CTRL_C, CTRL_D, Checks, Failure, Vlad, expect_equal,
                   expect_in, expect_not_in, run)

t = Checks()
HIST = t.path("history")


def session(*args, **kw):
    kw.setdefault("history", HIST)
    return Vlad(args, **kw)


def banner_and_prompt():
    v = session()
    m = v.expect(r"vlad \d+\.\d+\.\d+ -- ,help lists the commands, "
                 r"Ctrl-D exits\n")
    v.prompt()
    v.line("(+ 1 2)")
    v.expect(r"\n3\n")
    v.prompt()
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)
    del m


def quiet_has_no_banner():
    for opt in ("-q", "--quiet"):
        v = session(opt)
        v.prompt()
        expect_not_in("output before the prompt", "Ctrl-D exits", v.out)
        v.send(CTRL_D)
        expect_equal("exit status", v.wait(), 0)


def multi_line_input():
    v = session("-q")
    v.prompt()
    v.line("(define (f x)")
    v.expect(r"\n\.\.\.1> ")
    v.line("  (let ((y (* x 2)))")
    v.expect(r"\n\.\.\.2> ")
    v.line("    (+ y 1)))")
    v.expect(r"\nvlad> ")
    v.line("(f 3)")
    v.expect(r"\n7\nvlad> ")
    # several forms on one line, and a form that ends mid-line
    v.line("(define a 1) (define b 2) (+ a")
    v.expect(r"\n\.\.\.1> ")
    v.line("b) (* 10 b)")
    v.expect(r"\n3\n20\nvlad> ")
    # an open block comment, then an open string
    v.line("#| a comment")
    v.expect(r"\n\.\.#\|> ")
    v.line("still |# (- 10 1)")
    v.expect(r"\n9\nvlad> ")
    v.line("(include \"no")
    v.expect(r'\n\.\.\."> ')
    v.send(CTRL_C)
    v.expect(r"\^C\nvlad> ")
    # blank lines and comments at the prompt
    v.line("")
    v.prompt()
    v.line("; nothing")
    v.prompt()
    v.line("(+ 1")
    v.expect(r"\.\.\.1> ")
    v.line("")
    v.expect(r"\.\.\.1> ")
    v.line("1)")
    v.expect(r"\n2\nvlad> ")
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)


def errors_keep_definitions():
    v = session("-q")
    v.prompt()
    v.line("(define k 42)")
    v.prompt()
    v.line("(define (g x) (car x))")
    v.prompt()
    v.line("(g 5)")
    v.expect(r"<repl>:1:\d+: error: .*\n(  in .*\n)*vlad> ")
    v.line("(+ k 1)")
    v.expect(r"\n43\nvlad> ")
    v.line("(define k (g 1))")            # a failed redefinition
    v.expect(r"error: .*\n(  in .*\n)*vlad> ")
    v.line("k")
    v.expect(r"\n42\nvlad> ")
    v.line("(1 . )")                      # a syntax error
    v.expect(r"<repl>:1:\d+: error: .*\n(.*\n)*?vlad> ")
    v.line("(undefined-thing 1)")
    v.expect(r"error: .*undefined-thing.*\n(.*\n)*?vlad> ")
    v.line("(g (list k))")
    v.expect(r"\n42\nvlad> ")
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)
    # running out of memory is an error like the others
    v = session("-q", "--heap-limit", "8M")
    v.prompt()
    v.line("(define small (iota 10))")
    v.prompt()
    v.line("(define big (iota 300000))")
    v.expect(r"error: out of memory \(heap limit 8388608 bytes\)\n"
             r"(  in .*\n)*vlad> ")
    v.line("(length small)")
    v.expect(r"\n10\nvlad> ")
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)


def ctrl_c_clears_the_line():
    v = session("-q")
    v.prompt()
    v.send("(+ 1 2")
    # readline echoes what it has read: then it is reading, and the
    # interrupt is its (a SIGINT that comes while the prompt is printed
    # but before readline reads discards the typed text with it; the test
    # is about clearing a line, not that race)
    v.expect(r"\(\+ 1 2")
    v.send(CTRL_C)
    v.expect(r"\^C\nvlad> ")
    v.line("(+ 3 4)")
    v.expect(r"\n7\nvlad> ")
    # an unfinished form over several lines is dropped as a whole
    v.line("(define (h x)")
    v.expect(r"\.\.\.1> ")
    v.send(CTRL_C)
    v.expect(r"\^C\nvlad> ")
    v.line("(* 6 7)")
    v.expect(r"\n42\nvlad> ")
    # Ctrl-C at an empty prompt, twice (the prompt is shown once readline
    # reads: a Ctrl-C from then on is the prompt's)
    v.send(CTRL_C)
    v.expect(r"\^C\nvlad> ")
    v.send(CTRL_C)
    v.expect(r"\^C\nvlad> ")
    v.line("h")                            # never defined
    v.expect(r"error: .*\bh\b")
    v.prompt()
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)


def ctrl_d_exits():
    v = session("-q")
    v.prompt()
    v.send(CTRL_D)
    expect_equal("exit status at the prompt", v.wait(), 0)
    # inside an unfinished form: the form is reported, then vlad leaves
    v = session("-q")
    v.prompt()
    v.line("(+ 1")
    v.expect(r"\.\.\.1> ")
    v.send(CTRL_D)
    v.expect(r"error: unexpected end of input")
    expect_equal("exit status in a form", v.wait(), 0)


def quit_command_exits():
    v = session("-q")
    v.prompt()
    v.line(",quit")
    expect_equal("exit status", v.wait(), 0)


def resize_mid_line():
    v = session("-q", rows=24, cols=80)
    v.prompt()
    v.send("(+ 40")
    v.expect(r"\(\+ 40")
    v.resize(10, 30)
    v.send(" 2)")
    v.send("\r")
    v.expect(r"\n42\nvlad> ")
    # a line longer than the terminal is wide, resized while it wraps
    expr = "(+ " + " ".join(["1"] * 30) + ")"
    v.send(expr)
    v.resize(24, 20)
    v.resize(40, 132)
    v.send("\r")
    v.expect(r"\n30\nvlad> ")
    # resized while an evaluation runs: the next prompt still works
    v.line("(let loop ((i 0)) (if (= i 200000) i (loop (+ i 1))))")
    v.resize(30, 60)
    v.expect(r"\n200000\nvlad> ")
    v.line("(* 2 3)")
    v.expect(r"\n6\nvlad> ")
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), 0)


def piped_input_is_a_script():
    st, out, err = run([], stdin="(define x 2)\n(* x 21)\n(map (lambda (y) (* y x)) '(1 2))\n")
    expect_equal("status", st, 0)
    expect_equal("stdout", out, "42\n(2 4)\n")
    expect_equal("stderr", err, "")
    # no banner, no prompt, and an error stops the script (exit 1)
    st, out, err = run([], stdin="(+ 1 1)\n(car 1)\n(+ 2 2)\n")
    expect_equal("status", st, 1)
    expect_equal("stdout", out, "2\n")
    expect_in("stderr", "<stdin>:2:1: error:", err)
    # "-" as FILE reads standard input too
    st, out, err = run(["-"], stdin="(sqrt 16)\n")
    expect_equal("status with -", st, 0)
    expect_equal("stdout with -", out, "4\n")
    # an unfinished form at the end of the input
    st, out, err = run([], stdin="(+ 1\n")
    expect_equal("status", st, 1)
    expect_in("stderr", "unexpected end of input", err)


for name, fn in [("banner and prompt", banner_and_prompt),
                 ("-q has no banner", quiet_has_no_banner),
                 ("multi-line input", multi_line_input),
                 ("errors keep definitions", errors_keep_definitions),
                 ("Ctrl-C clears the line", ctrl_c_clears_the_line),
                 ("Ctrl-D exits", ctrl_d_exits),
                 (",quit exits", quit_command_exits),
                 ("terminal resized mid-line", resize_mid_line),
                 ("piped input is a script", piped_input_is_a_script)]:
    t.check(name, fn)
t.finish()
