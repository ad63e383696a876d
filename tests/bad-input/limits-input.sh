#!/bin/sh
# tests/bad-input/limits-input.sh -- the longest token, the largest input,
# the deepest include, the longest include name
#
# Finding C4 of issue 19: a single token longer than 2 GiB overflowed
# flex's int lengths and ended in SIGSEGV.  Now a token (symbol, number,
# '#' token, string literal) may be at most 16 MiB (VL_READ_MAX_TOKEN,
# 16,777,216 bytes) and a text at most 1 GiB (VL_READ_MAX_INPUT,
# 1,073,741,824 bytes), so no length reaches flex's limit.  Checked at the
# limits themselves: tokens of exactly 16 MiB are read, one byte more is
# the error "token too long" / "string too long" at the token's start;
# a file one byte over 1 GiB (sparse: no disk space, and vlad reads none of
# it, the size comes first) is refused by the CLI and by include.
#
# Findings C3 and U7.  C3: a chain of 3,000 files each including the next
# recursed on the C stack and ended in SIGSEGV; now includes nest no C
# frames and stop at VL_INCLUDE_MAX (1,000 files): a chain of exactly
# 1,000 includes works, also under a 256 KiB C stack, 1,001 and 3,000 are
# the error "include nested too deeply (more than 1000 files)" at the
# include that goes too deep.  U7: an include name of 10 MB was echoed
# whole in the error; now a name or path in a message is cut after 200
# bytes and ends with "...".  A 100 MB name is beyond the token limit.
# Prints "N passed, N failed".
#
# Environment: VLAD (the interpreter, absolute path) [required];
# VLAD_TEST_OUTDIR (scratch space) [./test-output].
set -u
: "${VLAD:?VLAD is not set (run through make check)}"
py=$(command -v python3) || { echo "limits-input: python3 is missing: skipped"; exit 77; }
dir=${VLAD_TEST_OUTDIR:-$(pwd)/test-output}/bad-input/limits-input
rm -rf "$dir"
mkdir -p "$dir" || exit 99
cd "$dir" || exit 99
trap 'rm -f "$dir"/*.vlad "$dir"/symbol-max.err' EXIT
passed=0
failed=0

pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1"; failed=$((failed + 1)); }

gen() {
    "$py" -c "import sys; sys.stdout.write($2)" >"$1" || exit 99
}

# run NAME STATUS OUT ERR [FILE]: run FILE (NAME.vlad); its status, its
# whole stdout and the first line of its stderr (a grep pattern; "" for an
# empty stderr) must match
run() {
    name=$1 want_status=$2 want_out=$3 want_err=$4 file=${5:-$1.vlad}
    "$VLAD" "$file" >"$name.out" 2>"$name.err" </dev/null
    status=$?
    first=$(sed -n 1p "$name.err")
    if test $status -ne "$want_status"; then
        fail "$name: exit status $status, not $want_status; stderr: $(head -c 300 "$name.err")"
    elif test "$(cat "$name.out")" != "$want_out"; then
        fail "$name: stdout $(head -c 200 "$name.out")"
    elif test -n "$want_err" && ! echo "$first" | grep -q "$want_err"; then
        fail "$name: stderr: $(head -c 300 "$name.err")"
    elif test -z "$want_err" && test -s "$name.err"; then
        fail "$name: unexpected stderr: $(head -c 300 "$name.err")"
    else
        pass "$name${first:+ ($(echo "$first" | head -c 160))}"
    fi
}

T=16777216
# a symbol of exactly 16 MiB is read (then unbound, after the first form
# ran); one byte more is not, and nothing runs
gen symbol-max.vlad "'(write-real 1)\n  ' + 'a' * $T + '\n'"
run symbol-max 1 "1
1" "^symbol-max\.vlad:2:3: error: unbound variable aaaa"
gen symbol-over.vlad "'(write-real 1)\n  ' + 'a' * ($T + 1) + '\n'"
run symbol-over 1 "" \
    "^symbol-over\.vlad:2:3: error: token too long (16777217 bytes; at most 16777216): 'a\{40\}\.\.\.'\$"
# a number: the same limit (the digits are read as a real)
gen number-over.vlad "'(write-real ' + '1' * ($T + 1) + ')\n'"
run number-over 1 "" \
    "^number-over\.vlad:1:13: error: token too long (16777217 bytes; at most 16777216): '1\{40\}\.\.\.'\$"
gen hash-over.vlad "'#' + 't' * $T + '\n'"
run hash-over 1 "" \
    "^hash-over\.vlad:1:1: error: token too long (16777217 bytes; at most 16777216): '#t\{39\}\.\.\.'\$"
# a string literal counts its bytes after escapes
gen string-max.vlad "'(include \"' + 'b' * ($T - 1) + '\\\\n\")\n'"
run string-max 1 "" \
    "^string-max\.vlad:1:1: error: include: cannot find 'b\{200\}\.\.\.' "
gen string-over.vlad "'(write-real 1)\n\"' + 'b' * $T + '\\\\n\"\n'"
run string-over 1 "" \
    "^string-over\.vlad:2:1: error: string too long (16777217 bytes; at most 16777216)\$"

# a file one byte over 1 GiB: refused before it is read
if truncate -s 1073741825 big.vlad 2>/dev/null; then
    run big 1 "" \
        "^error: cannot read 'big\.vlad': the file is larger than 1073741824 bytes\$"
    printf '(write-real 1)\n(include "big")\n' >include-big.vlad
    run include-big 1 "1
1" "^include-big\.vlad:2:1: error: include: cannot read '\./big\.vlad': the file is larger than 1073741824 bytes\$"
    rm -f big.vlad
else
    echo "SKIP: big, include-big (truncate failed)"
fi

# chain N: files cN-0.vlad ... cN-N.vlad, each including the next; the
# last writes 42.
chain() {
    "$py" -c "
n = $1
for i in range(n):
    open('c%d-%d.vlad' % (n, i), 'w').write('(include \"c%d-%d\")\n' % (n, i + 1))
open('c%d-%d.vlad' % (n, n), 'w').write('(write-real 42)\n')
" || exit 99
}

deep='error: include nested too deeply (more than 1000 files)$'
chain 1000
run include-1000 0 "42
42" "" c1000-0.vlad
chain 1001
run include-1001 1 "" "^\./c1001-1000\.vlad:1:1: $deep" c1001-0.vlad
chain 3000
run include-3000 1 "" "^\./c3000-1000\.vlad:1:1: $deep" c3000-0.vlad
# the chain that works needs no C stack per level (it needed 4.5 MB)
(ulimit -s 256 2>/dev/null || exit 77
 failed=0
 run include-1000-small-stack 0 "42
42" "" c1000-0.vlad
 exit $failed)
case $? in
0) passed=$((passed + 1)) ;;
77) echo "SKIP: include-1000-small-stack (ulimit -s 256 refused)" ;;
*) failed=$((failed + 1)) ;;
esac

# U7: a 10 MB include name, not found: the message holds its first 200
# bytes and "..."; the whole of stderr stays small.
"$py" -c "open('long-name.vlad', 'w').write('(include \"' + 'a' * 10000000 + '\")\n')" || exit 99
run long-name 1 "" \
    "^long-name\.vlad:1:1: error: include: cannot find 'a\{200\}\.\.\.' (searched the including file's directory, the -I directories, VLAD_PATH and the library directory)\$"
size=$(wc -c <long-name.err)
if test "$size" -lt 1000; then
    pass "long-name: stderr is $size bytes"
else
    fail "long-name: stderr is $size bytes"
fi
# control bytes in a name are shown as \xNN
printf '(include "tab\there\\nnl")\n' >control-name.vlad
run control-name 1 "" \
    "^control-name\.vlad:1:1: error: include: cannot find 'tab\\\\x09here\\\\x0anl' "
# a 100 MB name is longer than a token may be
"$py" -c "open('huge-name.vlad', 'w').write('(include \"' + 'a' * 100000000 + '\")\n')" || exit 99
run huge-name 1 "" \
    "^huge-name\.vlad:1:10: error: string too long (100000000 bytes; at most 16777216)\$"

echo "$passed passed, $failed failed"
test $failed -eq 0
