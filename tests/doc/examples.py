"""tests/doc/examples.py -- every `EXPR => VALUE` of the documents is what
vlad prints

Reads doc/reference.md, doc/repl.md and README.md and checks, against the
built $VLAD, each example of these forms:

  * inline, inside one pair of backticks (in prose or a table, possibly
    wrapped over lines of one paragraph):  `(car '(1 2 3)) => 1`
  * a line of a fenced code block:          (j* f 3 1)   => (9 6)  ; why
    or, as a Scheme comment:                (j* f 3 1)   ; => (9 6)
    The expression may begin on earlier lines of the block (the `=>` then
    follows its closing parenthesis).  The block's definitions -- forms
    starting "(define" -- that come before the example are evaluated
    first, so an example may use them; other forms of the block without
    `=>` are left alone.
  * a transcript of a script in a code block: "$ cat NAME.vlad", the
    file's lines, "$ ./vlad NAME.vlad" (or "$ vlad NAME.vlad"), then the
    exact output up to the next "$ " line or the end of the block.

VALUE is compared with what `vlad -e EXPR` prints on standard output
(after the output of the definitions), as text with runs of blanks made
one.  In a code block, VALUE ends at a `;` or at two blanks: what follows
is a comment.  An example whose
expression fails, prints more or less than one line, or prints another
value fails the test, with the document's name and line.  Text between
`=>` and the closing backtick that is not a value (a schematic
`(primops f x)` => `(list y n)` has its `=>` outside the backticks) is
not an example.

Run by make check (tests/doc/local.mk, through tests/repl/run-pty);
by hand: VLAD=$PWD/vlad srcdir=. python3 tests/doc/examples.py
"""

import os
import re
import subprocess
import sys
import tempfile

VLAD = os.environ.get("VLAD")
SRCDIR = os.environ.get("srcdir", ".")
DOCS = ["doc/reference.md", "doc/repl.md", "README.md"]
MIN_EXAMPLES = {"doc/reference.md": 60}    # a broken extractor finds none

INLINE = re.compile(r"`([^`]+?)\s=>\s([^`]+?)`")
ARROW = re.compile(r"(;\s*)?=>\s")


def squash(text):
    return " ".join(text.split())


# a deadline for a run that must end, which only a failing one reaches
TIMEOUT = 120 * float(os.environ.get("VLAD_TEST_TIME_SCALE", "1"))


def vlad(args, cwd=None):
    env = dict(os.environ)
    env.pop("VLAD_CHECKPOINT", None)
    try:
        p = subprocess.run([VLAD] + args, capture_output=True, text=True,
                           timeout=TIMEOUT, env=env, cwd=cwd,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return 124, "", "timed out after %.0f s" % TIMEOUT
    return p.returncode, p.stdout, p.stderr


def depth_of(text):
    """Parenthesis depth at the end of 'text' (comments and strings
    skipped)."""
    d = 0
    in_str = False
    i = 0
    while i < len(text):
        c = text[i]
        if in_str:
            if c == "\\":
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == ";":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif c in "([":
            d += 1
        elif c in ")]":
            d -= 1
        i += 1
    return d


def blocks(lines):
    """(first line number, [(line number, line)]) of each fenced code
    block, and the paragraphs of prose as [(line number, line)] (a table
    row is a paragraph of its own)."""
    code, prose = [], []
    fence = None
    para = []
    for n, line in enumerate(lines, 1):
        if fence is not None:
            if line.strip().startswith("```"):
                code.append((fence, cur))
                fence = None
            else:
                cur.append((n, line))
            continue
        if line.strip().startswith("```") or line.strip() == "" \
                or line.startswith("|"):
            if para:
                prose.append(para)
                para = []
            if line.strip().startswith("```"):
                fence, cur = n, []
            elif line.startswith("|"):
                prose.append([(n, line)])
            continue
        para.append((n, line.strip()))
    if para:
        prose.append(para)
    return code, prose


def joined(para):
    """The paragraph's lines joined by spaces, and the line number of each
    character offset where a line starts."""
    text, starts = "", []
    for n, line in para:
        if text:
            text += " "
        starts.append((len(text), n))
        text += line
    return text, starts


def line_at(starts, offset):
    n = starts[0][1]
    for start, line in starts:
        if start > offset:
            break
        n = line
    return n


def examples_of(path):
    """Examples (line, definitions, expression, value) and transcripts
    (line, file name, program, output) of one document."""
    with open(os.path.join(SRCDIR, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    code, prose = blocks(lines)
    examples, transcripts = [], []
    for para in prose:
        text, starts = joined(para)
        for m in INLINE.finditer(text):
            examples.append((line_at(starts, m.start()), [], m.group(1),
                             m.group(2)))
    for start, body in code:
        if any(l.startswith("$ ") for _, l in body):
            transcripts += transcripts_of(body)
            continue
        if any(l.startswith(("vlad>", "...")) for _, l in body):
            continue                    # a REPL session, not examples
        defs = []
        pending, pending_line = "", 0
        for n, line in body:
            m = None
            for cand in ARROW.finditer(line):
                if depth_of(pending + line[:cand.start()]) == 0 and \
                        (pending + line[:cand.start()]).strip():
                    m = cand
                    break
            if m:
                expr = pending + line[:m.start()]
                value = re.split(r";|\s\s", line[m.end():].strip())[0]
                examples.append((pending_line or n, list(defs), expr.strip(),
                                 value))
                pending, pending_line = "", 0
                continue
            if not pending and not line.strip():
                continue
            if not pending:
                pending_line = n
            pending += line + "\n"
            if depth_of(pending) <= 0:
                form = pending.strip()
                if form.startswith("(define"):
                    defs.append(form)
                pending, pending_line = "", 0
    return examples, transcripts


def transcripts_of(body):
    out = []
    i = 0
    while i < len(body):
        n, line = body[i]
        m = re.match(r"\$ cat (\S+\.vlad)$", line)
        if not m:
            i += 1
            continue
        name = m.group(1)
        program = []
        i += 1
        while i < len(body) and not body[i][1].startswith("$ "):
            program.append(body[i][1])
            i += 1
        if i == len(body) or not re.match(
                r"\$ (\./)?vlad " + re.escape(name) + r"$", body[i][1]):
            out.append((n, name, None, None))
            continue
        i += 1
        output = []
        while i < len(body) and not body[i][1].startswith("$ "):
            output.append(body[i][1])
            i += 1
        out.append((n, name, "\n".join(program) + "\n",
                    "\n".join(output) + "\n"))
    return out


def main():
    if not VLAD or not os.access(VLAD, os.X_OK):
        print("examples: VLAD is not set to the built vlad (run through "
              "make check)")
        return 99
    passed = failed = 0

    def report(ok, what, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL: %s%s" % (what, detail))

    for doc in DOCS:
        examples, transcripts = examples_of(doc)
        count = 0
        for n, defs, expr, value in examples:
            count += 1
            base = ""
            args = []
            if defs:
                args = ["-e", "\n".join(defs)]
                st, base, err = vlad(args)
                if st != 0:
                    report(False, "%s:%d: the definitions before %s fail"
                           % (doc, n, expr), ":\n  " + err.strip())
                    continue
            st, out, err = vlad(args + ["-e", expr])
            got = out[len(base):] if out.startswith(base) else out
            ok = st == 0 and got.count("\n") == 1 and \
                squash(got) == squash(value)
            report(ok, "%s:%d: %s" % (doc, n, expr),
                   "\n  documented: %s\n  vlad says:  %s%s"
                   % (value, got.strip() or "(nothing)",
                      ("\n  stderr: " + err.strip()) if err.strip() else ""))
        for n, name, program, output in transcripts:
            count += 1
            if program is None:
                report(False, "%s:%d: $ cat %s is not followed by $ vlad %s"
                       % (doc, n, name, name))
                continue
            with tempfile.TemporaryDirectory() as d:
                with open(os.path.join(d, name), "w") as f:
                    f.write(program)
                st, out, err = vlad([name], cwd=d)
            ok = st == 0 and out == output
            report(ok, "%s:%d: the transcript of %s" % (doc, n, name),
                   "\n  documented:\n%s  vlad prints:\n%s%s"
                   % (output, out, ("  stderr: " + err) if err else ""))
        want = MIN_EXAMPLES.get(doc, 0)
        if count < want:
            report(False, "%s: only %d examples found (at least %d expected)"
                   % (doc, count, want))
        print("%s: %d examples" % (doc, count))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
