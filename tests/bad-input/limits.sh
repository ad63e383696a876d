#!/bin/sh
# tests/bad-input/limits.sh -- resource limits on inputs too big to keep
# as golden files: each case is generated into a scratch directory, run,
# and checked for its exit status, the exact first line of standard error
# (message and location) and, where it matters, standard output.  Nothing
# may end in a signal.  Prints "N passed, N failed".
#
# Environment: VLAD (the interpreter, absolute path) [required];
# VLAD_TEST_OUTDIR (scratch space) [./test-output].
set -u
: "${VLAD:?VLAD is not set (run through make check)}"
py=$(command -v python3) || { echo "limits: python3 is missing: skipped"; exit 77; }
dir=${VLAD_TEST_OUTDIR:-$(pwd)/test-output}/bad-input/limits
rm -rf "$dir"
mkdir -p "$dir" || exit 99
cd "$dir" || exit 99
passed=0
failed=0

# gen FILE PYTHON-EXPRESSION: write the string the expression makes
gen() {
    "$py" -c "import sys; sys.stdout.write($2)" >"$1" || exit 99
}

# check NAME STATUS ERR-FIRST-LINE OUT [VLAD ARGS...]: run vlad ARGS and
# compare ("-" for ERR: stderr must be empty; "*" for OUT: not checked)
check() {
    name=$1 want_status=$2 want_err=$3 want_out=$4
    shift 4
    "$VLAD" "$@" >"$name.out" 2>"$name.err" </dev/null
    status=$?
    err=$(sed -n 1p "$name.err")
    ok=yes
    if test "$status" -ne "$want_status"; then
        echo "FAIL: $name: exit status $status, expected $want_status"
        ok=no
    fi
    if test "$want_err" = -; then
        if test -s "$name.err"; then
            echo "FAIL: $name: unexpected stderr: $(head -c 300 "$name.err")"
            ok=no
        fi
    elif test "$err" != "$want_err"; then
        echo "FAIL: $name: stderr starts [$(echo "$err" | head -c 300)]"
        echo "      expected [$(echo "$want_err" | head -c 300)]"
        ok=no
    fi
    if test "$want_out" != "*" && test "$(cat "$name.out")" != "$want_out"; then
        echo "FAIL: $name: stdout [$(head -c 300 "$name.out")], expected" \
             "[$(echo "$want_out" | head -c 300)]"
        ok=no
    fi
    if test $ok = yes; then
        echo "PASS: $name"
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
}

# Deep non-tail recursion beyond the heap limit (the depth it reaches,
# hence the backtrace, depends on the collector: only the first line).
gen deep-recursion.vlad '"(write-real 1)\n(define (deep n) (if (= n 0) 0 (+ 1 (deep (- n 1)))))\n(deep 100000000)\n(write-real 2)\n"'
check deep-recursion 1 \
    "deep-recursion.vlad:2:37: error: out of memory (heap limit 16777216 bytes)" \
    "1
1" --heap-limit 16M deep-recursion.vlad

# An application of 70,000 arguments: too large to compile, a clean error.
gen wide-application.vlad '"(+" + " 1" * 70000 + ")\n"'
check wide-application 1 \
    "wide-application.vlad:1:1: error: procedure too large to compile (more than 60000 registers)" \
    "" wide-application.vlad

# Liveness and register use of long forms (R2): the compiler's liveness
# analysis took memory O(instructions x registers) (1.26 GB for a list
# form of 29,000 numbers, 607 MB for a call of 20,000 calls); it is
# linear now, so these fit in a 64 MB heap.  A long list form takes two
# registers, so 100,000 elements work; 100,000 script arguments are
# bound as a list directly (31,000 failed: "procedure too large").
gen long-list-form.vlad '"(length (list " + " ".join(str(i) for i in range(29000)) + "))\n"'
check long-list-form 0 - 29000 --heap-limit 64M long-list-form.vlad
gen longer-list-form.vlad '"(let ((y 2)) (reduce + 0 (cons* " + "y " * 100000 + "(list 1))))\n"'
check longer-list-form 0 - 200001 --heap-limit 64M longer-list-form.vlad
gen wide-calls.vlad '"(define (g x) x)\n(define (f l) (car l))\n(f " + " ".join("(g %d)" % i for i in range(1, 20001)) + ")\n"'
check wide-calls 0 - 1 --heap-limit 64M wide-calls.vlad
gen many-arguments.vlad '"(length arguments)\n(reduce + 0 arguments)\n"'
check many-arguments 0 - "100000
5000050000" --heap-limit 64M many-arguments.vlad $(seq 1 100000)

# A quoted list of 1,000,000 elements on one 2 MB line.
gen long-line.vlad '"(length (quote (" + "1 " * 1000000 + ")))\n"'
check long-line 0 - 1000000 long-line.vlad

# Block comments nested 1,000,000 deep (the reader only counts them).
gen deep-comment.vlad '"#|" * 1000000 + "|#" * 1000000 + "\n(write-real 7)\n"'
check deep-comment 0 - "7
7" deep-comment.vlad

# A list nested 1,000,000 deep built at run time (around the innermost
# (), so 1,000,001 pairs of parentheses), printed.
gen deep-print.vlad '"(let loop ((i 0) (l (quote ()))) (if (< i 1000000) (loop (+ i 1) (list l)) l))\n"'
check deep-print 0 - "$("$py" -c 'print("(" * 1000001 + ")" * 1000001)')" deep-print.vlad

# 100,000 top-level definitions and a sum over them.
gen many-forms.vlad '"".join("(define x%d %d)\n" % (i, i) for i in range(100000)) + "(+ x0 x99999)\n"'
check many-forms 0 - 99999 many-forms.vlad

# An include name of 100,000 bytes: not found, a clean error (the
# message names it; only its start is compared).
gen long-include.vlad '"(include \"" + "a" * 100000 + "\")\n"'
"$VLAD" long-include.vlad >long-include.out 2>long-include.err </dev/null
status=$?
if test $status -eq 1 && head -c 60 long-include.err | grep -q "^long-include.vlad:1:1: error: include: cannot find 'aaaa"; then
    echo "PASS: long-include"
    passed=$((passed + 1))
else
    echo "FAIL: long-include: status $status, stderr $(head -c 200 long-include.err)"
    failed=$((failed + 1))
fi

# A 100,000-digit number literal and one with an exponent of 20 digits.
gen huge-literals.vlad '"1" * 100000 + "\n1e99999999999999999999\n-1e-99999999999999999999\n"'
check huge-literals 0 - "+inf.0
+inf.0
-0" huge-literals.vlad

echo "$passed passed, $failed failed"
test $failed -eq 0
