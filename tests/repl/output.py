"""tests/repl/output.py -- the vlad program's standard output, without a
terminal (doc/hardening.md W5, W6): output written inside a long-running
form appears while it runs (at the latest 4096 steps later), and before
read-real waits for input; SIGINT, SIGTERM and SIGHUP end a script only
after all its output is written, and the program then dies of the signal
(SIGINT with the interrupt's message and backtrace); a failed write
(/dev/full, a closed standard output, a broken pipe when SIGPIPE is
ignored) says "vlad: write error: REASON" and exits 1, also stopping a
program that would print forever; with SIGPIPE at its default, a reader
that leaves kills vlad quietly, as it does cat.  In the REPL, Ctrl-C
stops a read-real waiting for input, every time (40 in a row), also one
sent the moment the REPL takes the line (issue 31).  Signals are sent at
arbitrary moments: the checks hold wherever the program stands."""

import os
import pty
import re
import select
import signal
import subprocess
import time

import vlpty
from vlpty import Checks, Failure, expect_equal, expect_in, run

t = Checks()

# loop prints i = 0, 1, 2, ... one per line, two steps per number
LOOP = ("(define (loop i n) (if (= i n) i"
        " (let ((x (write-real i))) (loop (+ i 1) n))))")


def start(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
          pipe_ignored=False, int_ignored=False):
    """vlad with SIGINT, SIGTERM and SIGHUP at their defaults (make may
    run the tests as a background job, which ignores SIGINT), or SIGPIPE
    or SIGINT ignored."""
    e = dict(os.environ)
    e.update(vlpty.VLAD_ENV)

    def pre():
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        if pipe_ignored:
            signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        if int_ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    return subprocess.Popen([vlpty.VLAD] + list(args), stdin=stdin,
                            stdout=stdout, stderr=subprocess.PIPE, env=e,
                            preexec_fn=pre)


def read_until(p, pattern, got=b""):
    """Read p's stdout until 'pattern' (bytes regex) matches what was read
    (a failure after vlpty.TIMEOUT seconds); returns all of it."""
    deadline = time.monotonic() + vlpty.TIMEOUT
    fd = p.stdout.fileno()
    while not re.search(pattern, got):
        left = deadline - time.monotonic()
        if left <= 0:
            p.kill()
            raise Failure("no %r in the output within %.0f s; got %r"
                          % (pattern, vlpty.TIMEOUT, got[-200:]))
        r, _, _ = select.select([fd], [], [], left)
        if r:
            chunk = os.read(fd, 65536)
            if not chunk:
                raise Failure("output ended without %r: %r"
                              % (pattern, got[-200:]))
            got += chunk
    return got


def finish(p, got):
    """The rest of the output, stderr and the exit status."""
    try:
        rest, err = p.communicate(timeout=vlpty.TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        raise Failure("vlad did not end within %.0f s" % vlpty.TIMEOUT)
    return (got + rest).decode(), err.decode(), p.returncode


def numbers(out):
    """The lines of 'out' as integers: they must be 0, 1, 2, ... and the
    last one complete (nothing lost, nothing cut)."""
    if out and not out.endswith("\n"):
        raise Failure("a cut line at the end: %r" % out[-40:])
    lines = out.split("\n")[:-1]
    for i, x in enumerate(lines):
        if x != str(i):
            raise Failure("line %d is %r, not %d" % (i, x, i))
    return len(lines)


def steps_per_number():
    """The steps of one more number, from --stats (2 today)."""
    s = []
    for n in (1000, 2000):
        st, _, err = run(["--stats", "-e", LOOP, "-e", "(loop 0 %d)" % n])
        expect_equal("--stats status", st, 0)
        s.append(int(re.search(r"steps: (\d+)", err).group(1)))
    return (s[1] - s[0]) / 1000.0


def live():
    # one form: before W6 the line waited for the form to end
    p = start(["-e", "(define (spin i) (spin (+ i 1)))",
               "-e", "(let ((a (write-real 42))) (spin 0))"])
    got = read_until(p, rb"42\n")
    p.kill()
    p.wait()
    expect_equal("output before the endless loop", got, b"42\n")


def prompt_before_read():
    # write-real's line must be out before read-real waits; then a signal
    # stops the wait (10 times each: issue 31's lost wake-up)
    for sig, message in ((signal.SIGTERM, ""),
                         (signal.SIGINT, "read-real: interrupted while "
                                         "reading input")) * 10:
        p = start(["-e", "(let ((a (write-real 7))) (+ 1 (read-real 0)))"],
                  stdin=subprocess.PIPE)
        got = read_until(p, rb"7\n")
        p.send_signal(sig)
        out, err, st = finish(p, got)
        p.stdin.close()
        expect_equal("stdout", out, "7\n")
        expect_equal("status after %s" % sig.name, st, -sig)
        if message:
            expect_in("stderr", message, err)
        else:
            expect_equal("stderr", err, "")


def signal_ends_script(sig):
    def check():
        per = steps_per_number()
        p = start(["-e", LOOP, "-e", "(loop 0 -1)"])
        got = read_until(p, rb"\n1000\n")
        p.send_signal(sig)
        out, err, st = finish(p, got)
        n = numbers(out)
        expect_equal("status", st, -sig)
        if sig == signal.SIGINT:
            m = re.search(r"error: interrupted after (\d+) steps\n  in loop",
                          err)
            if m is None:
                raise Failure("no interrupt message: %r" % err)
            # every number written before the interrupt is in the output
            want = int(m.group(1)) / per
            if abs(n - want) > 2:
                raise Failure("%d numbers printed, %.1f written before the "
                              "interrupt" % (n, want))
        else:
            expect_equal("stderr", err, "")
        if n <= 1000:
            raise Failure("only %d numbers" % n)
    return check


def sigint_ignored():
    # started with SIGINT ignored (a background job): it stays ignored
    p = start(["-e", LOOP, "-e", "(loop 0 -1)"], int_ignored=True)
    got = read_until(p, rb"\n1000\n")
    p.send_signal(signal.SIGINT)
    got = read_until(p, rb"\n%d\n" % (int(got.split(b"\n")[-2]) + 5000),
                     got)
    p.send_signal(signal.SIGTERM)
    out, err, st = finish(p, got)
    numbers(out)
    expect_equal("status", st, -signal.SIGTERM)
    expect_equal("stderr", err, "")


def sighup_script_file():
    path = t.path("hup.vlad")
    with open(path, "w") as f:
        f.write(LOOP + "\n(loop 0 -1)\n")
    p = start([path])
    got = read_until(p, rb"\n100\n")
    p.send_signal(signal.SIGHUP)
    out, err, st = finish(p, got)
    numbers(out)
    expect_equal("status", st, -signal.SIGHUP)
    expect_equal("stderr", err, "")


def write_error(args, stdin=None, reason="No space left on device",
                closed=False):
    def check():
        e = dict(os.environ)
        e.update(vlpty.VLAD_ENV)
        try:
            p = vlad_run(args, stdin, e, closed)
        except subprocess.TimeoutExpired:
            raise Failure("vlad did not stop within %.0f s" % vlpty.TIMEOUT)
        expect_equal("stderr", p.stderr, "vlad: write error: %s\n" % reason)
        expect_equal("status", p.returncode, 1)
    return check


def vlad_run(args, stdin, e, closed):
    """Run vlad with stdout closed or /dev/full."""
    if closed:
        return subprocess.run([vlpty.VLAD] + args, input=stdin, env=e,
                              stdout=None, stderr=subprocess.PIPE,
                              text=True, timeout=vlpty.TIMEOUT,
                              preexec_fn=lambda: os.close(1))
    with open("/dev/full", "w") as full:
        return subprocess.run([vlpty.VLAD] + args, input=stdin, env=e,
                              stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=vlpty.TIMEOUT)


def nothing_written_closed_stdout():
    e = dict(os.environ)
    e.update(vlpty.VLAD_ENV)
    p = subprocess.run([vlpty.VLAD, "-e", "(define x 1)"], env=e,
                       stderr=subprocess.PIPE, text=True,
                       timeout=vlpty.TIMEOUT,
                       preexec_fn=lambda: os.close(1))
    expect_equal("stderr", p.stderr, "")
    expect_equal("status", p.returncode, 0)


def closed_stdin():
    e = dict(os.environ)
    e.update(vlpty.VLAD_ENV)
    p = subprocess.run([vlpty.VLAD, "-e", "(read-real 0)"], env=e,
                       capture_output=True, text=True,
                       timeout=vlpty.TIMEOUT,
                       preexec_fn=lambda: os.close(0))
    expect_in("stderr", "read-real: end of input", p.stderr)
    expect_equal("status", p.returncode, 1)


def broken_pipe(ignored):
    def check():
        p = start(["-e", LOOP, "-e", "(loop 0 -1)"], pipe_ignored=ignored)
        read_until(p, rb"\n10\n")
        p.stdout.close()
        p.stdout = None
        try:
            err = p.communicate(timeout=vlpty.TIMEOUT)[1].decode()
        except subprocess.TimeoutExpired:
            p.kill()
            raise Failure("vlad kept running after its reader left")
        st = p.returncode
        if ignored:
            expect_equal("stderr", err, "vlad: write error: Broken pipe\n")
            expect_equal("status", st, 1)
        else:
            expect_equal("stderr", err, "")
            expect_equal("status", st, -signal.SIGPIPE)
    return check


READ = "(let ((a (write-real 6))) (read-real 0))"
STOPPED = (r"error: read-real: interrupted while reading input\n"
           r"  in top level at <repl>:1:\d+\nvlad> ")


def repl_read_real_ctrl_c():
    # the REPL: the line before read-real is out while it waits, and
    # Ctrl-C stops the wait (before, the REPL hung until a line came),
    # 40 times: a Ctrl-C whose handler ran between read-real's look at the
    # interrupt flag and its read was lost (issue 31)
    v = vlpty.Vlad(["-q"], history=t.path("history"))
    v.prompt()
    v.line("(define keep 5)")
    v.prompt()
    for _ in range(40):
        v.line(READ)
        v.expect(r"\n6\n")
        v.send(vlpty.CTRL_C)
        v.expect(STOPPED)
    v.line("(+ keep 1)")
    v.expect(r"6\nvlad> ")
    v.line(READ)
    v.expect(r"\n6\n")
    v.line("2.5")                       # the wait still reads a line
    v.expect(r"\n2\.5\nvlad> ")
    v.send(vlpty.CTRL_D)
    expect_equal("status", v.wait(), 0)


def repl_read_real_ctrl_c_at_once():
    # Ctrl-C as soon as the REPL has taken the line: before read-real
    # waits, or while it does, or even before the evaluation began (a
    # Ctrl-C after Enter was dropped when it came before the REPL armed
    # its handler, issue 31): read-real is stopped every time
    v = vlpty.Vlad(["-q"], history=t.path("history"))
    v.prompt()
    for _ in range(40):
        v.line(READ)
        if not v.taken():
            v.fail("read-real did not wait")
        v.send(vlpty.CTRL_C)
        v.expect(STOPPED)
    v.line("(+ 1 2)")
    v.expect(r"\n3\nvlad> ")
    v.send(vlpty.CTRL_D)
    expect_equal("status", v.wait(), 0)


def repl_write_error():
    # the REPL on a terminal, its standard output /dev/full: the first
    # value ends the session with the write error on stderr (a pty)
    m, s = pty.openpty()
    e = dict(os.environ)
    e.update(vlpty.VLAD_ENV)
    e["HOME"] = t.tmp
    with open("/dev/full", "w") as full:
        p = subprocess.Popen([vlpty.VLAD, "-q"], stdin=s, stdout=full,
                             stderr=s, env=e)
    os.close(s)
    os.write(m, b"(+ 1 2)\r")
    err = b""
    deadline = time.monotonic() + vlpty.TIMEOUT
    while (not re.search(rb"write error.*\n", err)
           and time.monotonic() < deadline):
        r, _, _ = select.select([m], [], [], 0.1)
        if r:
            try:
                err += os.read(m, 4096)
            except OSError:
                break
    try:
        st = p.wait(timeout=vlpty.TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        raise Failure("the REPL went on after the write error: %r" % err)
    finally:
        os.close(m)
    # the message, on a line of its own (after the terminal's echo of the
    # input, unless the input came before vlad had set the terminal up:
    # readline's echo then goes to stdout, /dev/full)
    text = err.decode().replace("\r", "")
    if not re.search(r"(^|\n)vlad: write error: No space left on device\n",
                     text):
        raise Failure("no write error on a line of its own in: %r" % text)
    expect_equal("status", st, 1)


t.check("output inside a long form appears while it runs", live)
t.check("REPL with standard output /dev/full", repl_write_error)
t.check("REPL: Ctrl-C while read-real waits, 40 times",
        repl_read_real_ctrl_c)
t.check("REPL: Ctrl-C at once after Enter stops read-real, 40 times",
        repl_read_real_ctrl_c_at_once)
t.check("output appears before read-real waits; a signal ends the wait",
        prompt_before_read)
t.check("SIGINT: all output written, the interrupt shown, killed by SIGINT",
        signal_ends_script(signal.SIGINT))
t.check("SIGTERM: all output written, nothing said, killed by SIGTERM",
        signal_ends_script(signal.SIGTERM))
t.check("SIGHUP ends a script file the same way", sighup_script_file)
t.check("SIGINT ignored when vlad starts stays ignored", sigint_ignored)
t.check("-e to /dev/full", write_error(["-e", "(+ 1 2)"]))
t.check("-e with standard output closed",
        write_error(["-e", "(+ 1 2)"], reason="Bad file descriptor",
                    closed=True))
t.check("a program on standard input to /dev/full",
        write_error(["-"], stdin="(write-real 1)\n"))
t.check("--version to /dev/full", write_error(["--version"]))
t.check("a program printing forever to /dev/full is stopped",
        write_error(["-e", LOOP, "-e", "(loop 0 -1)"]))
t.check("nothing written, standard output closed: success",
        nothing_written_closed_stdout)
t.check("standard input closed: read-real sees its end", closed_stdin)
def dev_zero():
    # endless NUL bytes: before W2 read-real looped forever in one step
    e = dict(os.environ)
    e.update(vlpty.VLAD_ENV)
    with open("/dev/zero", "rb") as zero:
        try:
            p = subprocess.run([vlpty.VLAD, "-e", "(read-real 0)"],
                               stdin=zero, env=e, capture_output=True,
                               text=True, timeout=vlpty.TIMEOUT)
        except subprocess.TimeoutExpired:
            raise Failure("read-real of /dev/zero did not stop")
    expect_in("stderr", "error: read-real: a token longer than 4096 bytes "
              "in the input, starting '\\x00\\x00", p.stderr)
    expect_equal("status", p.returncode, 1)


t.check("read-real of /dev/zero stops with an error", dev_zero)
t.check("reader gone, SIGPIPE default: killed quietly", broken_pipe(False))
t.check("reader gone, SIGPIPE ignored: write error", broken_pipe(True))
t.finish()
