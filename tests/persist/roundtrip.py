#!/usr/bin/env python3
"""tests/persist/roundtrip.py -- saved checkpoints resume in a fresh process

For random programs (tests/fuzz/differential.py's generator: arithmetic,
loops, recursion, closures, lists, nested j* / *j / checkpoint-*j,
checkpoint/resume and write-real inside f) the computation

    (whole x) = (list (f x) (*j f x y`) (checkpoint-*j f x y`) (j* f x x))

is split at every step k (or at MAX steps spread over it, both ends
included): persist-helper (tests/persist/persist-helper.c) saves
(checkpoint whole x k) to a file and resumes it in the saving process;
then a second process loads each file into a fresh state and resumes it.
For every k the check is that the second process

  - prints exactly what the first printed when it resumed (no line lost
    or repeated: with what (checkpoint whole x k) printed before, it is
    the output of the uninterrupted run),
  - gets the same value, bit for bit, as the uninterrupted run,
  - takes the same number of steps as the resumption in the saving
    process ((cadr (primops resume u)), n - k + 1 for k <= n, 1 after),

and a few files are also finished by `vlad --resume FILE`, whose printed
value must be the same.

usage: roundtrip.py [--programs N] [--seed S] [--max K] [--outdir DIR]
Exit 0 when all agreed, 1 otherwise, 77 without the helper; the last line
is "N passed, N failed".
"""

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("srcdir", os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "tests", "fuzz"))
import differential  # noqa: E402


def sections(text):
    """The output split at marker lines: a list of (marker, body lines)."""
    out = []
    for line in text.split("\n"):
        if line.startswith("#"):
            out.append((line, []))
        elif out:
            out[-1][1].append(line)
    return out


def value_of(result):
    """The value in "(value steps)"."""
    return result[1:result.rindex(" ")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--programs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max", type=int, default=40)
    ap.add_argument("--outdir", default=None)
    args = ap.parse_args()
    build = os.environ.get("VLAD_BUILDDIR", os.path.join(HERE, "..", ".."))
    helper = os.path.join(build, "tests", "persist", "persist-helper")
    vlad = os.environ.get("VLAD", os.path.join(build, "vlad"))
    if not os.path.exists(helper):
        print("roundtrip: %s is missing: skipped" % helper)
        return 77
    rng = random.Random(args.seed)
    top = tempfile.mkdtemp(prefix="vlad-roundtrip-", dir=args.outdir)
    passed = failed = 0
    for p in range(args.programs):
        text = differential.make_program(rng, 0, True)
        prog = os.path.join(top, "p%d.vlad" % p)
        with open(prog, "w") as f:
            f.write(text)
            f.write("(define (whole x) (list (p0-f x) (*j p0-f x p0-ybar)"
                    " (checkpoint-*j p0-f x p0-ybar) (j* p0-f x x)))\n"
                    "(define point p0-x)\n")
        d = os.path.join(top, "d%d" % p)
        os.mkdir(d)
        s = subprocess.run([helper, "save", d, prog, str(args.max)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=600)
        if s.returncode != 0:
            failed += 1
            print("FAIL program %d: save failed:\n%s\n%s" % (p, text,
                                                             s.stderr))
            continue
        sec = sections(s.stdout)
        direct_out = sec[0][1]
        direct_res = sec[1][0].split(" ", 1)[1]
        saves = {}
        for j in range(2, len(sec), 3):
            k = int(sec[j][0].split()[1])
            saves[k] = (sec[j][1], sec[j + 1][1],
                        sec[j + 2][0].split(" ", 1)[1])
        ks = sorted(saves)
        files = [os.path.join(d, "%d.ckpt" % k) for k in ks]
        ld = subprocess.run([helper, "load"] + files,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            universal_newlines=True, timeout=600)
        lsec = sections(ld.stdout)
        for i, k in enumerate(ks):
            before, inproc, inres = saves[k]
            problems = []
            if 2 * i + 1 >= len(lsec) or ld.returncode != 0:
                problems.append("the loading process failed: %s"
                                % ld.stderr)
                body, res = [], "#none"
            else:
                body, res = lsec[2 * i][1], lsec[2 * i + 1][0]
            if not res.startswith("#RESULT "):
                problems.append("load/resume failed: %s %s"
                                % (res, " ".join(lsec[2 * i + 1][1])
                                   if 2 * i + 1 < len(lsec) else ""))
            else:
                got = res.split(" ", 1)[1]
                if got != inres:
                    problems.append("result %s, in the saving process %s"
                                    % (got, inres))
                if value_of(got) != value_of(direct_res):
                    problems.append("value %s, uninterrupted %s"
                                    % (got, direct_res))
            if body != inproc:
                problems.append("printed %r, in the saving process %r"
                                % (body, inproc))
            if before + inproc != direct_out:
                problems.append("printed %r + %r, uninterrupted %r"
                                % (before, inproc, direct_out))
            if problems:
                failed += 1
                print("FAIL program %d, k = %d:\n%s  %s" % (
                    p, k, text, "\n  ".join(problems)))
            else:
                passed += 1
        # the command line, on the first and the middle split
        for k in sorted(saves)[:1] + sorted(saves)[len(saves) // 2:][:1]:
            r = subprocess.run([vlad, "--resume",
                                os.path.join(d, "%d.ckpt" % k)],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE,
                               universal_newlines=True, timeout=600)
            inres = saves[k][2]
            value = value_of(inres)
            lines = r.stdout.rstrip("\n").split("\n")
            if r.returncode != 0 or lines[-1] != value:
                failed += 1
                print("FAIL program %d, vlad --resume at k = %d: %r, "
                      "expected %r (%s)" % (p, k, lines[-1:], value,
                                            r.stderr))
            else:
                passed += 1
    shutil.rmtree(top, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
