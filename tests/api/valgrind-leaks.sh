#!/bin/sh
# tests/api/valgrind-leaks.sh -- create/use/destroy cycles of VladStates
# under valgrind --leak-check=full: no memory lost outside Boehm's heap
#
# Runs tests/api/test-api-cycle (each cycle opens a state, uses most of the
# API on it and closes it) under memcheck and fails when valgrind reports
# any "definitely lost" bytes, or any memcheck error outside libgc.
#
# The criterion, calibrated on a program that only opens and closes a
# state (see doc/embedding.md, "Memory"):
# * Objects in Boehm's heap are not malloc blocks: valgrind does not track
#   them, so "lost" can only mean malloc'ed memory that libvlad, or the
#   libraries under it, forgot.  A trivial open/close shows 0 bytes in use
#   at exit ("All heap blocks were freed"); so must the cycles, at least
#   for "definitely lost" (--errors-for-leak-kinds=definite).
# * Boehm's conservative scanning reads uninitialised words by design:
#   thousands of "uninitialised value" reports whose reading frame is in
#   libgc.  tests/api/boehm.supp suppresses exactly those (and any block
#   libgc itself malloc'ed); every other memcheck error fails the test.
#
# Exit status: 0 pass, 1 fail, 77 skipped (no valgrind, or an
# AddressSanitizer build: valgrind cannot run those), 99 hard error.
# VLAD_VALGRIND_CYCLES sets the number of cycles (default 10).

srcdir=${srcdir:-.}
prog=${VLAD_API_CYCLE:-tests/api/test-api-cycle}
supp=$srcdir/tests/api/boehm.supp
cycles=${VLAD_VALGRIND_CYCLES:-10}

if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind-leaks: SKIP: valgrind is not installed (apt-get install valgrind)"
    exit 77
fi
if test ! -x "$prog"; then
    echo "valgrind-leaks: $prog is not built"
    exit 99
fi
if test ! -f "$supp"; then
    echo "valgrind-leaks: $supp is missing"
    exit 99
fi
if "$prog" --sanitized >/dev/null 2>&1; then
    echo "valgrind-leaks: SKIP: $prog is built with AddressSanitizer"
    exit 77
fi

log=${TMPDIR:-/tmp}/vlad-valgrind-leaks.$$
trap 'rm -f "$log" "$log.1"' 0

run() {
    # $1: cycles; the log goes to $log
    valgrind --tool=memcheck --leak-check=full \
        --errors-for-leak-kinds=definite --show-leak-kinds=definite,indirect \
        --suppressions="$supp" --error-exitcode=42 \
        --log-file="$log" "$prog" "$1"
}

# Calibration: one cycle, printed for the record.
run 1 >"$log.1" 2>&1
st1=$?
echo "calibration (1 cycle): exit $st1"
grep -E 'in use at exit|definitely lost|ERROR SUMMARY' "$log" | sed 's/^==[0-9]*== /  /'

run "$cycles" >"$log.1" 2>&1
st=$?
echo "$cycles cycles: exit $st"
cat "$log.1"
grep -E 'in use at exit|total heap usage|definitely lost|indirectly lost|ERROR SUMMARY' "$log" \
    | sed 's/^==[0-9]*== /  /'

lost=`sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tr -d ,`
errors=`sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$log" | tr -d ,`
if test "$st" -eq 42 || test "${lost:-0}" -ne 0 || test "${errors:-0}" -ne 0; then
    echo "valgrind-leaks: FAIL: definitely lost ${lost:-0} bytes, ${errors:-0} errors outside libgc"
    echo "--- valgrind log"
    cat "$log"
    exit 1
fi
if test "$st" -ne 0; then
    echo "valgrind-leaks: FAIL: the program failed (exit $st) under valgrind"
    cat "$log"
    exit 1
fi
echo "valgrind-leaks: PASS: definitely lost ${lost:-0} bytes, no memcheck errors outside libgc"
exit 0
