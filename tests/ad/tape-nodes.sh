#!/bin/sh
# tests/ad/tape-nodes.sh -- how many tape nodes *j records: only the
# operations whose derivatives can be seen (vm/core/compile.c's primal-only
# analysis, doc/internals.md "Primal-only results").
#
# `vlad --stats` prints "ad tape nodes: N" (deterministic).  Newton's
# square root as bench/ad/newton.vlad, under *j, at N = 100 roots: 659
# Newton steps in all.  Each step records 3 nodes, x / y, y + _ and
# 0.5 * _; its stopping test d = y*y - x, |d| and 1e-10 x are only
# compared, with no step while it is live, and records nothing.  Each
# root adds a * i and s + _, and the input a is one more node:
# 1 + 2*100 + 3*659 = 2178.  The same program whose d goes through a pair
# (a use of the value: it keeps its derivative) records y*y and d at each
# stopping test too.  j* makes no tape node.  Prints "N passed, N failed".
#
# Environment: VLAD (the interpreter, absolute path) [required];
# VLAD_TEST_OUTDIR (scratch space) [./test-output].
set -u
: "${VLAD:?VLAD is not set (run through make check)}"
dir=${VLAD_TEST_OUTDIR:-$(pwd)/test-output}/ad/tape-nodes
rm -rf "$dir"
mkdir -p "$dir" || exit 99
cd "$dir" || exit 99
passed=0
failed=0

newton() {    # newton STOP-TEST-OF-d MODE: the program, (mode f 1 1)
    cat <<EOV
(define (nsqrt x y)
  (let ((d $1))
    (if (<= (if (< d 0) (- 0 d) d) (* 1e-10 x))
        y
        (nsqrt x (* 0.5 (+ y (/ x y)))))))
(define (f a)
  (let loop ((i 1) (s 0))
    (if (> i 100) s (loop (+ i 1) (+ s (let ((x (* a i))) (nsqrt x x)))))))
($2 f 1 1)
EOV
}

# check NAME WANT-NODES PROGRAM-ARGS...: the tape node count of the program
check() {
    name=$1 want=$2
    shift 2
    newton "$@" >"$name.vlad"
    "$VLAD" --stats "$name.vlad" >"$name.out" 2>"$name.err" </dev/null
    got=$(sed -n 's/^ad tape nodes: \([0-9]*\).*/\1/p' "$name.err")
    test -n "$got" || got=0     # no tape: no line
    if test "$got" = "$want"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $name: ad tape nodes '$got', expected $want"
        cat "$name.err"
    fi
}

check newton-rev 2178 '(- (* y y) x)' '*j'
check newton-fwd 0 '(- (* y y) x)' 'j*'
# kept: y*y and d at each of the 659 + 100 stopping tests (d >= 0 there:
# no -d), 2 * 759 nodes more; the output is the same
check newton-kept 3696 '(car (cons (- (* y y) x) 0))' '*j'
if cmp -s newton-kept.out newton-rev.out; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAIL: newton-kept: not the same output as newton-rev"
fi
echo "$passed passed, $failed failed"
test "$failed" -eq 0
