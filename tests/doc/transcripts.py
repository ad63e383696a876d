"""tests/doc/transcripts.py -- the REPL sessions shown in README.md and
doc/repl.md are what vlad prints

Each fenced code block with a line starting "vlad> " is a session: it is
replayed on a pseudo-terminal (tests/repl/vlpty.py) and vlad's screen,
cleaned of escape sequences, must be the block line by line.

  * A block starting "$ vlad" or "$ ./vlad" shows the banner: vlad is
    started without -q; otherwise with -q.
  * Lines after a prompt ("vlad> ", "...N> ", '..."> ', "..#|> ") are
    typed; the other lines are vlad's output.
  * A line "^C" after an input is a Ctrl-C sent while that input runs
    (once the REPL has taken the line: vlpty's taken()); in "interrupted
    after N steps", N may differ.
  * "time: ..." lines, and the numbers of a ",stats" block (whose heap and
    tape figures depend on the collector), are compared as "LABEL: <n>":
    the same labels, in the same order, with some number.

Run by make check (tests/doc/local.mk, through tests/repl/run-pty); by
hand: VLAD=$PWD/vlad srcdir=. python3 tests/doc/transcripts.py
"""

import os
import re
import sys

SRCDIR = os.environ.get("srcdir", ".")
sys.path.insert(0, os.path.join(SRCDIR, "tests", "repl"))
import vlpty                                            # noqa: E402
from vlpty import Vlad, Checks, CTRL_C                  # noqa: E402

DOCS = ["README.md", "doc/repl.md"]
PROMPT = re.compile(r'^(vlad> |\.\.\.\d+> |\.\.\."> |\.\.#\|> )')
NEXT_PROMPT = r'(^|\n)(vlad> |\.\.\.\d+> |\.\.\."> |\.\.#\|> )'


def sessions(path):
    with open(os.path.join(SRCDIR, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, cur, start = [], None, 0
    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            if cur is None:
                cur, start = [], n + 1
            else:
                if any(l.startswith("vlad> ") for l in cur):
                    out.append((start, cur))
                cur = None
        elif cur is not None:
            cur.append(line)
    return out


def normal(line, numbers_free):
    line = re.sub(r"interrupted after \d+ steps", "interrupted after N steps",
                  line.rstrip())
    if numbers_free or line.startswith("time: "):
        line = re.sub(r"\d+(\.\d+)?", "<n>", line)
    return line


def replay(block):
    banner = block[0].startswith(("$ vlad", "$ ./vlad"))
    body = block[1:] if banner else block
    stats = any(l.startswith("vlad> ,stats") for l in body)
    v = Vlad(args=() if banner else ("-q",), env={"VLAD_HISTORY": ""})
    try:
        v.prompt()
        for i, line in enumerate(body):
            m = PROMPT.match(line)
            if not m:
                continue
            v.line(line[m.end():])
            if i + 1 < len(body) and body[i + 1] == "^C":
                if not v.taken():
                    v.fail("%r ended before its Ctrl-C" % line)
                v.send(CTRL_C)
            v.expect(NEXT_PROMPT)
        v.drain(0.3)
    finally:
        v.kill()
    got = v.out.split("\n")
    want = ([] if not banner else [l for l in block[:1]]) + body
    # the screen has the banner (no "$ vlad" line) and ends with a prompt
    if banner:
        want = want[1:]
    if got and got[-1].strip() in ("vlad>", ""):
        got = got[:-1]
    got = [normal(l, stats) for l in got]
    want = [normal(l, stats) for l in want]
    if got != want:
        raise vlpty.Failure("the session differs:\n--- documented:\n%s\n"
                            "--- vlad:\n%s" % ("\n".join(want),
                                               "\n".join(got)))


def main():
    t = Checks()
    total = 0
    for doc in DOCS:
        for start, block in sessions(doc):
            total += 1
            t.check("%s:%d" % (doc, start), lambda b=block: replay(b))
    if total < 5:
        t.check("sessions found", lambda: (_ for _ in ()).throw(
            vlpty.Failure("only %d sessions found" % total)))
    t.finish()


if __name__ == "__main__":
    main()
