"""tests/repl/vlpty.py -- drive vlad through a real pseudo-terminal

A tiny "expect": Vlad(args) starts $VLAD on a new pty (its stdin, stdout
and stderr, so readline, job control and Ctrl-C behave as for a user),
send() types bytes, expect(regex) waits until the output since the last
match contains regex.  Output is matched with terminal escape sequences
and carriage returns removed.  vlad starts as from a terminal's shell:
every signal at its default action and none blocked, whatever the test
runner inherited (make run as a background job ignores SIGINT, and Python
ignores SIGPIPE).

Tests judge behaviour, not speed: a wait for something that must come
has a deadline of minutes (TIMEOUT: 120 s, times $VLAD_TEST_TIME_SCALE,
e.g. 4 under sanitizers), which only a failing test reaches, and then the
failure prints the whole transcript; a Ctrl-C meant for an evaluation is
sent once a sign shows that the evaluation has begun (taken(): the REPL
has handed the terminal back after reading the line), never after a
fixed pause.  Each test gets a scratch directory (HOME, history) that is
removed at the end.

Used by the tests/repl/*.py scripts; run through tests/repl/run-pty.
"""

import errno
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

VLAD = os.environ.get("VLAD")
VLAD_ENV = {}


def _unwrap(path):
    """The program behind a libtool wrapper script (what the wrapper would
    exec, with the library path it would set), to save a shell per run."""
    try:
        with open(path, "rb") as f:
            head = f.read(8192)
    except OSError:
        return path, {}
    if not head.startswith(b"#!") or b'relink_command=""' not in head:
        return path, {}
    d, name = os.path.split(path)
    real = os.path.join(d, ".libs", name)
    if not os.access(real, os.X_OK):
        return path, {}
    libs = os.path.join(d, ".libs")
    old = os.environ.get("LD_LIBRARY_PATH")
    return real, {"LD_LIBRARY_PATH": libs + (":" + old if old else "")}


if VLAD:
    VLAD, VLAD_ENV = _unwrap(VLAD)
SCALE = float(os.environ.get("VLAD_TEST_TIME_SCALE", "1"))
TIMEOUT = 120.0 * SCALE

CTRL_C = "\x03"
CTRL_D = "\x04"
TAB = "\t"
UP = "\x1b[A"
DOWN = "\x1b[B"
ENTER = "\r"

# CSI and other escape sequences, and bare carriage returns
_ESC = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\x07|\r")


def clean(text):
    return _ESC.sub("", text)


class Failure(Exception):
    pass


def default_signals():
    """In a child about to exec vlad: every signal at its default action
    and none blocked, as a shell's foreground job starts."""
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM,
                signal.SIGHUP, signal.SIGPIPE, signal.SIGXFSZ,
                signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


_live = []      # Vlad processes not waited for (killed after each check)


class Vlad:
    """One vlad process on a pseudo-terminal."""

    def __init__(self, args=(), env=None, rows=24, cols=80, home=None,
                 history=None, cwd=None, keep_output_on_ctrl_c=False):
        if not VLAD:
            raise Failure("VLAD is not set (run through make check)")
        e = dict(os.environ)
        e.update(VLAD_ENV)
        e["TERM"] = "xterm"
        # no user key bindings; no paren blinking (see the file)
        e["INPUTRC"] = os.path.join(os.path.dirname(os.path.abspath(
            __file__)), "inputrc")
        e.pop("VLAD_CHECKPOINT", None)
        if home is not None:
            e["HOME"] = home
        if history is not None:
            e["VLAD_HISTORY"] = history
        elif "VLAD_HISTORY" not in (env or {}):
            e.pop("VLAD_HISTORY", None)
        if env:
            for k, v in env.items():
                if v is None:
                    e.pop(k, None)
                else:
                    e[k] = v
        self.argv = [VLAD] + list(args)
        pid, fd = pty.fork()
        if pid == 0:
            try:
                if keep_output_on_ctrl_c:
                    # NOFLSH: a Ctrl-C no longer makes the terminal discard
                    # the output not yet read (nor the typed input)
                    mode = termios.tcgetattr(0)
                    mode[3] |= termios.NOFLSH
                    termios.tcsetattr(0, termios.TCSANOW, mode)
                if cwd:
                    os.chdir(cwd)
                default_signals()
                os.execve(VLAD, self.argv, e)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        _live.append(self)
        self.resize(rows, cols, signal_it=False)
        self.raw = ""           # everything read
        self.out = ""           # the same, cleaned
        self.pos = 0            # where the next expect starts in self.out
        self.status = None

    # ----- terminal

    def resize(self, rows, cols, signal_it=True):
        """Set the window size; the kernel sends SIGWINCH to the
        foreground process group (sent explicitly too, to be sure)."""
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ,
                    struct.pack("HHHH", rows, cols, 0, 0))
        if signal_it:
            try:
                os.kill(self.pid, signal.SIGWINCH)
            except ProcessLookupError:
                pass

    # ----- input and output

    def send(self, text):
        os.write(self.fd, text.encode())

    def line(self, text):
        """Type a line and press Enter."""
        self.send(text + ENTER)

    def _read(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError as ex:           # EIO: the child closed the pty
            if ex.errno != errno.EIO:
                raise
            data = b""
        if not data:
            raise EOFError
        self.raw += data.decode("utf-8", "replace")
        self.out = clean(self.raw)
        return True

    def expect(self, pattern, timeout=None):
        """Wait for regex 'pattern' in the output after the last match;
        returns the match (the next search starts after it)."""
        timeout = TIMEOUT if timeout is None else timeout * SCALE
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            m = rx.search(self.out, self.pos)
            if m:
                self.pos = m.end()
                return m
            left = deadline - time.monotonic()
            if left <= 0:
                self.fail("timed out after %.0f s waiting for %r"
                          % (timeout, pattern))
            try:
                self._read(min(left, 0.5))
            except EOFError:
                m = rx.search(self.out, self.pos)
                if m:
                    self.pos = m.end()
                    return m
                self.fail("vlad ended while waiting for %r" % pattern)

    def ctrl_c_until(self, pattern, latest=False):
        """Ctrl-C, and again after each pause of 0.3 s (times SCALE),
        until regex 'pattern' shows in the output after the last match
        (with 'latest': in the output after the latest Ctrl-C); returns
        its match (the next search still starts after the last match).
        For a target whose moment cannot be seen (a print blocked on the
        terminal, a REPL after a burst of input and Ctrl-Cs): each Ctrl-C
        only paces the next, none decides the verdict."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + TIMEOUT
        while True:
            start = len(self.out) if latest else self.pos
            self.send(CTRL_C)
            pause = time.monotonic() + 0.3 * SCALE
            while True:
                m = rx.search(self.out, start)
                if m:
                    return m
                if time.monotonic() > pause:
                    break
                try:
                    self._read(0.02)
                except EOFError:
                    self.fail("vlad ended while waiting for %r" % pattern)
            if time.monotonic() > deadline:
                self.fail("no %r after %.0f s of Ctrl-C" % (pattern,
                                                            TIMEOUT))

    def expect_raw(self, text, start=0):
        """Wait for 'text' in the output as written, escape sequences and
        all, from index 'start' of it."""
        deadline = time.monotonic() + TIMEOUT
        while text not in self.raw[start:]:
            if time.monotonic() > deadline:
                self.fail("timed out after %.0f s waiting for %r"
                          % (TIMEOUT, text))
            try:
                self._read(0.5)
            except EOFError:
                if text not in self.raw[start:]:
                    self.fail("vlad ended while waiting for %r" % text)

    def taken(self):
        """Wait until the REPL has taken the line typed last: readline has
        handed the terminal back (its own line mode, ICANON, is on again),
        so a Ctrl-C now is for the evaluation of that line (no typed text
        is left in the terminal for it to discard).  Returns True then, or
        False when the next prompt shows first (the evaluation is over).
        Built without readline the terminal never leaves that mode: no
        wait."""
        deadline = time.monotonic() + TIMEOUT
        rx = re.compile(r"(^|\n)(vlad> |\.\.\.\d+> )")
        while not termios.tcgetattr(self.fd)[3] & termios.ICANON:
            if rx.search(self.out, self.pos):
                return False
            if time.monotonic() > deadline:
                self.fail("the REPL did not take the line within %.0f s"
                          % TIMEOUT)
            try:
                self._read(0.005)
            except EOFError:
                self.fail("vlad ended while a line was read")
        return True

    def prompt(self):
        """Wait for the first prompt ("vlad> ")."""
        return self.expect(r"vlad> ")

    def since(self):
        """The output after the last match, as far as read."""
        return self.out[self.pos:]

    def drain(self, seconds=0.2):
        """Read whatever comes within 'seconds' of quiet."""
        try:
            while self._read(seconds * SCALE):
                pass
        except EOFError:
            pass

    def fail(self, message):
        raise Failure("%s\n--- command: %s\n--- transcript (cleaned):\n%s\n"
                      "--- end\n" % (message, " ".join(self.argv), self.out))

    # ----- the end

    def wait(self, timeout=None):
        """Wait for the process to exit (reading its output); returns the
        exit status."""
        timeout = TIMEOUT if timeout is None else timeout * SCALE
        deadline = time.monotonic() + timeout
        while True:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid == self.pid:
                self.drain(0.05)
                os.close(self.fd)
                _live.remove(self)
                self.status = os.waitstatus_to_exitcode(st)
                return self.status
            if time.monotonic() > deadline:
                self.kill()
                self.fail("vlad did not exit within %.0f s" % timeout)
            try:
                self._read(0.05)
            except EOFError:
                time.sleep(0.01)

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        if self in _live:
            _live.remove(self)
            os.close(self.fd)


def run(args, stdin=None, env=None, cwd=None, timeout=None):
    """Run vlad without a terminal; returns (status, stdout, stderr)."""
    e = dict(os.environ)
    e.update(VLAD_ENV)
    e.pop("VLAD_CHECKPOINT", None)
    if env:
        for k, v in env.items():
            if v is None:
                e.pop(k, None)
            else:
                e[k] = v
    p = subprocess.run([VLAD] + list(args), input=stdin, env=e, cwd=cwd,
                       capture_output=True, text=True,
                       preexec_fn=default_signals,
                       timeout=TIMEOUT if timeout is None else timeout)
    return p.returncode, p.stdout, p.stderr


class Checks:
    """Named checks of one test script: each prints ok/FAIL; the script
    exits 1 if any failed, 77 if the features it needs are missing."""

    def __init__(self):
        self.failed = 0
        self.passed = 0
        self.tmp = tempfile.mkdtemp(prefix="vlad-repl-")

    def path(self, name):
        return os.path.join(self.tmp, name)

    def check(self, name, fn):
        start = time.monotonic()
        try:
            fn()
        except Failure as ex:
            self.failed += 1
            print("FAIL: %s\n%s" % (name, ex))
        except Exception as ex:                 # a bug in the test itself
            self.failed += 1
            print("FAIL: %s: %s: %s" % (name, type(ex).__name__, ex))
            import traceback
            traceback.print_exc(file=sys.stdout)
        else:
            self.passed += 1
            print("ok: %s (%.2f s)" % (name, time.monotonic() - start))
        for v in list(_live):
            v.kill()
        sys.stdout.flush()

    def finish(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
        print("%d passed, %d failed" % (self.passed, self.failed))
        sys.exit(1 if self.failed else 0)


def have_readline():
    """Whether vlad was built with readline (vlad --version says)."""
    st, out, _ = run(["--version"])
    return st == 0 and "readline" in out and "none" not in out


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(77)


def command(v, line, pattern):
    """Type 'line' into the REPL 'v'; its output up to the next prompt
    must match 'pattern' (a regex, anchored at both ends).  Returns the
    output."""
    v.line(line)
    v.expect(re.escape(line) + r"\n")
    start = v.pos
    v.expect(r"vlad> ")
    out = v.out[start:v.pos - len("vlad> ")]
    if not re.fullmatch(pattern, out, re.S):
        v.fail("output of %r:\n%s\ndoes not match:\n%s" % (line, out,
                                                          pattern))
    return out


def leave(v, status=0):
    """Ctrl-D: the REPL 'v' must end with 'status'."""
    v.send(CTRL_D)
    expect_equal("exit status", v.wait(), status)


def expect_equal(what, actual, expected):
    if actual != expected:
        raise Failure("%s: expected %r, got %r" % (what, expected, actual))


def expect_in(what, needle, haystack):
    if needle not in haystack:
        raise Failure("%s: %r not found in:\n%s" % (what, needle, haystack))


def expect_not_in(what, needle, haystack):
    if needle in haystack:
        raise Failure("%s: %r unexpectedly found in:\n%s"
                      % (what, needle, haystack))
