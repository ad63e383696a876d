#!/bin/sh
# tests/bad-input/limits-deep.sh -- nesting a million levels deep beyond
# the reader: in expressions (the expander and compiler), in quoted data,
# in data given to j*, *j and checkpoint-*j (the walker), and in nested
# derivatives (the arithmetic of vm/ad/ad.c).  Each case
# must either work (status 0 and the right output) or fail cleanly
# (status 1 and a first line FILE:LINE:COL: error: ...); never end in a
# signal.  Prints "N passed, N failed".
#
# Findings F4 and F5 of tests/fuzz/crashers/README.md (fixed): these used
# to end in SIGSEGV.  Quoted data and the walker are iterative, so those
# cases must work; code nested too deeply for the C stack stops at the C
# stack guard (parser/cstack.h) with "expression nested too deeply (the C
# stack is exhausted at depth N)" ("pattern ..." inside a pattern).  N depends on the frame sizes (a
# sanitizer build's are bigger), so only the message's start is compared.
# The last cases run with a 1 MiB stack (ulimit -s): the guard must hold
# there too, and the iterative paths must not depend on the stack's size.
#
# Environment: VLAD (the interpreter, absolute path) [required];
# VLAD_TEST_OUTDIR (scratch space) [./test-output].
set -u
: "${VLAD:?VLAD is not set (run through make check)}"
py=$(command -v python3) || { echo "limits-deep: python3 is missing: skipped"; exit 77; }
dir=${VLAD_TEST_OUTDIR:-$(pwd)/test-output}/bad-input/limits-deep
rm -rf "$dir"
mkdir -p "$dir" || exit 99
cd "$dir" || exit 99
passed=0
failed=0

gen() {
    "$py" -c "import sys; sys.stdout.write($2)" >"$1" || exit 99
}

# run_case NAME OUT [MODE]: run NAME.vlad; status 0 with stdout OUT, or
# status 1 with a located error.  MODE "works": only the first; "deep":
# only the second, and the error must be the C stack guard's.
run_case() {
    name=$1 want_out=$2 mode=${3:-any}
    "$VLAD" "$name.vlad" >"$name.out" 2>"$name.err" </dev/null
    status=$?
    deep="^$name\.vlad:[0-9][0-9]*:[0-9][0-9]*: error: [a-z]* nested too deeply (the C stack is exhausted at depth [0-9][0-9]*)\$"
    if test $mode = deep && ! sed -n 1p "$name.err" | grep -q "$deep"; then
        echo "FAIL: $name: exit status $status, not the C stack guard's error; stderr: $(head -c 200 "$name.err")"
        failed=$((failed + 1))
    elif test $mode != deep && test $status -eq 0 \
        && test "$(cat "$name.out")" = "$want_out"; then
        echo "PASS: $name (works)"
        passed=$((passed + 1))
    elif test $mode != works && test $status -eq 1 \
        && sed -n 1p "$name.err" | grep -q "^$name\.vlad:[0-9][0-9]*:[0-9][0-9]*: error: "; then
        echo "PASS: $name (a clean error: $(sed -n 1p "$name.err" | head -c 200))"
        passed=$((passed + 1))
    else
        case $status in
        13[0-9]) why=" (killed by signal $((status - 128)))" ;;
        *) why= ;;
        esac
        echo "FAIL: $name: exit status $status$why; stderr: $(head -c 200 "$name.err")"
        failed=$((failed + 1))
    fi
}

N=1000000

# The reader alone: a quoted list nested 10^6 deep, only its depth used.
gen read-only.vlad '"#;" + "(" * '$N' + ")" * '$N' + "\n(write-real 1)\n"'
run_case read-only "1
1"

# Expressions: (+ 1 (+ 1 ... 0)) 10^6 deep.
gen expr.vlad '"(+ 1 " * '$N' + "0" + ")" * '$N' + "\n"'
run_case expr $N

# Lets: (let ((x 1)) ... x) 10^6 deep.
gen let.vlad '"(let ((x 1)) " * '$N' + "x" + ")" * '$N' + "\n"'
run_case let 1

# Lambdas: ((lambda (x) ... x) 1) 10^5 deep (each level a closure).
gen lambda.vlad '"((lambda (x) " * 100000 + "x" + ") 1)" * 100000 + "\n"'
run_case lambda 1

# Quoted data 10^6 deep: (car (quote ((( ... ))))); the same as a
# constant pattern, matched against itself.
gen quote.vlad '"(define (depth l) (let loop ((l l) (k 0)) (if (null? l) k (loop (car l) (+ k 1)))))\n(depth (quote " + "(" * '$N' + ")" * '$N' + "))\n"'
run_case quote $((N - 1)) works
gen quote-pattern.vlad '"(let ((q (quote " + "(" * '$N' + "1" + ")" * '$N' + "))) (let (((quote " + "(" * '$N' + "1" + ")" * '$N' + ") q)) 7))\n"'
run_case quote-pattern 7 works

# Data nested 10^6 deep (built at run time) through j*, *j, checkpoint-*j.
prelude='(define (nest n) (let loop ((i 0) (l 1)) (if (< i n) (loop (+ i 1) (cons l 1)) l)))
(define (leftmost l) (if (pair? l) (leftmost (car l)) l))
(define d (nest '$N'))
'
gen jstar.vlad "'''$prelude''' + '(leftmost (cadr (j* (lambda (l) l) d d)))\n'"
run_case jstar 1 works
gen starj.vlad "'''$prelude''' + '(leftmost (cadr (*j (lambda (l) l) d d)))\n'"
run_case starj 1 works
# checkpoint-*j of leftmost re-executes it and walks its snapshots, in a
# time that grows faster than the depth: 10^5 levels (F5 crashed there).
gen cpj.vlad "'''$prelude'''.replace('$N', '100000') + '(leftmost (cadr (checkpoint-*j leftmost d 1)))\n'"
run_case cpj 1 works

# Derivatives nested 10^5 deep (j* inside j* ...): arithmetic on the real
# carrying all the perturbations recursed once per level (F5b); the C
# stack guard stops it cleanly.
gen ad-nested.vlad '"(define (f n x) (if (= n 0) (* x x) (car (j* (lambda (y) (f (- n 1) y)) x 1))))\n(f 100000 3)\n"'
run_case ad-nested 9

# A checkpoint holding 10^5 nested suspended j* (or *j): its reals carry
# 10^5 nested perturbations, through which the walks of an enclosing j*
# (vm/ad/ad.c through_dual, through_tape) and the fresh tags given on resume
# (relabel_real) recursed once per level: SIGSEGV.  The C stack guard
# stops them cleanly; 1,000 levels work.
deep_ckpt='(define (deep n x) (if (= n 0) (* x 1) (car (OP (lambda (y) (deep (- n 1) y)) x 1))))
(define (c n) (checkpoint (lambda (x) (deep n x)) 1 (* 2 n)))
'
walk_jstar='(checkpoint? (car (j* (lambda (t) (c N)) 1 1)))'
walk_resume='(checkpoint? (checkpoint resume (c N) 1))'
for n in 1000 100000; do
    gen walk-suspended-$n.vlad "'''$deep_ckpt'''.replace('OP', 'j*') + '''$walk_jstar
'''.replace('N', '$n')"
    gen walk-suspended-tape-$n.vlad "'''$deep_ckpt'''.replace('OP', '*j') + '''$walk_jstar
'''.replace('N', '$n')"
    gen resume-suspended-$n.vlad "'''$deep_ckpt'''.replace('OP', 'j*') + '''$walk_resume
'''.replace('N', '$n')"
done
run_case walk-suspended-1000 "#t" works
run_case walk-suspended-100000 "#t"
run_case walk-suspended-tape-1000 "#t" works
run_case walk-suspended-tape-100000 "#t"
run_case resume-suspended-1000 "#t" works
run_case resume-suspended-100000 "#t"
# A checkpoint taken 10^5 nested j* deep (at the bottom: 2 steps a level),
# given to an enclosing j*: its walk through the suspended duals recursed
# once per level (issue 19, C2); the guard stops it cleanly.
gen ad-suspended.vlad '"(define (nest n x) (if (= n 0) x (car (j* (lambda (y) (nest (- n 1) y)) x 1))))\n(define u (j* (lambda (x) (checkpoint (lambda (z) (nest 100000 z)) x 200001)) 3 1))\n(write-real 1)\n"'
run_case ad-suspended "1
1"

# A 1 MiB C stack.  Code 10^5 deep: the guard's error, in the expander
# (expr), in the compiler (cond: 10^5 clauses are nested ifs after
# expansion) and in patterns; 1,000 levels still work; quoted data and
# the walker do not use the C stack.
small() {
    (ulimit -s 1024 2>/dev/null || exit 77; failed=0; run_case "$@"; exit $failed)
    case $? in
    0) passed=$((passed + 1)) ;;
    77) echo "SKIP: $1 (ulimit -s 1024 refused)" ;;
    *) failed=$((failed + 1)) ;;
    esac
}
gen small-expr.vlad '"(+ 1 " * 100000 + "0" + ")" * 100000 + "\n"'
small small-expr "" deep
gen small-cond.vlad '"(cond " + "(#f 1) " * 100000 + "(else 2))\n"'
small small-cond "" deep
gen small-pattern.vlad '"(let ((" + "(cons " * 100000 + "x" + " 1)" * 100000 + " 1)) x)\n"'
small small-pattern "" deep
gen small-lambda.vlad '"(define (f x) " + "(lambda (x) " * 100000 + "x" + ")" * 100000 + ")\n"'
small small-lambda "" deep
gen small-shallow.vlad '"(+ 1 " * 1000 + "0" + ")" * 1000 + "\n"'
small small-shallow 1000 works
cp quote.vlad small-quote.vlad
small small-quote $((N - 1)) works
cp jstar.vlad small-jstar.vlad
small small-jstar 1 works
cp ad-nested.vlad small-ad-nested.vlad
small small-ad-nested 9
cp walk-suspended-100000.vlad small-walk-suspended.vlad
small small-walk-suspended "#t"
cp ad-suspended.vlad small-ad-suspended.vlad
small small-ad-suspended "1
1"

echo "$passed passed, $failed failed"
test $failed -eq 0
