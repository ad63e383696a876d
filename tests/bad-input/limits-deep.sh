#!/bin/sh
# tests/bad-input/limits-deep.sh -- nesting a million levels deep beyond
# the reader: in expressions (the expander and compiler), in quoted data,
# and in data given to j*, *j and checkpoint-*j (the walker).  Each case
# must either work (status 0 and the right output) or fail cleanly
# (status 1 and a first line FILE:LINE:COL: error: ...); never end in a
# signal.  Prints "N passed, N failed".
#
# EXPECTED FAILURE (XFAIL_TESTS in tests/bad-input/local.mk) until findings
# F4 and F5 of tests/fuzz/crashers/README.md are fixed: today every case
# but the first ends in SIGSEGV (C recursion in parser/expand.c and
# vm/walk.c overflows the stack).
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

# case NAME OUT: run NAME.vlad; status 0 with stdout OUT, or status 1
# with a located error
run_case() {
    name=$1 want_out=$2
    "$VLAD" "$name.vlad" >"$name.out" 2>"$name.err" </dev/null
    status=$?
    if test $status -eq 0 && test "$(cat "$name.out")" = "$want_out"; then
        echo "PASS: $name (works)"
        passed=$((passed + 1))
    elif test $status -eq 1 \
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

# Quoted data 10^6 deep: (car (quote ((( ... ))))).
gen quote.vlad '"(define (depth l) (let loop ((l l) (k 0)) (if (null? l) k (loop (car l) (+ k 1)))))\n(depth (quote " + "(" * '$N' + ")" * '$N' + "))\n"'
run_case quote $((N - 1))

# Data nested 10^6 deep (built at run time) through j*, *j, checkpoint-*j.
prelude='(define (nest n) (let loop ((i 0) (l 1)) (if (< i n) (loop (+ i 1) (cons l 1)) l)))
(define (leftmost l) (if (pair? l) (leftmost (car l)) l))
(define d (nest '$N'))
'
gen jstar.vlad "'''$prelude''' + '(leftmost (cadr (j* (lambda (l) l) d d)))\n'"
run_case jstar 1
gen starj.vlad "'''$prelude''' + '(leftmost (cadr (*j (lambda (l) l) d d)))\n'"
run_case starj 1
gen cpj.vlad "'''$prelude''' + '(leftmost (cadr (checkpoint-*j leftmost d 1)))\n'"
run_case cpj 1

echo "$passed passed, $failed failed"
test $failed -eq 0
