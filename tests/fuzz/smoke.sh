#!/bin/sh
# tests/fuzz/smoke.sh -- make check: build the fuzz harnesses, replay every
# saved crasher, fuzz each harness briefly
#
# 1. Builds tests/fuzz/fuzz-{read,eval,ad,api,print,load} with clang (build.sh) into
#    $FUZZ_OUT; skips (77) when clang or its libFuzzer runtime is missing.
# 2. Replays each input of tests/fuzz/crashers/ (named HARNESS-ID-WHAT)
#    through its harness.  It must run clean -- unless its name is listed
#    in tests/fuzz/crashers/OPEN (a finding reported, not yet fixed): then
#    it must still fail, and a listed crasher that runs clean fails the
#    test with "fixed: remove it from OPEN" (as an XPASS would).  UBSan
#    reports are fatal; the suppressions of tests/fuzz/ubsan.supp apply,
#    except the crasher's own (the paragraph of ubsan.supp whose first
#    line is "# ID:").
# 3. Fuzzes each harness from its seeds with a fixed seed for at most
#    FUZZ_SMOKE_SECONDS (default 25) seconds or FUZZ_SMOKE_RUNS
#    executions, in a scratch corpus; any finding fails the test and is
#    left in $FUZZ_OUT/smoke/crashes.
# Prints "N passed, N failed" over the replays and harness runs.
#
# Environment: as build.sh (FUZZ_SRCDIR, FUZZ_BUILDDIR, ...), and
# FUZZ_OUT, where the harnesses go [required].

set -u
out=${FUZZ_OUT:?FUZZ_OUT is not set (run through make check)}
src=${FUZZ_SRCDIR:?FUZZ_SRCDIR is not set}/tests/fuzz
seconds=${FUZZ_SMOKE_SECONDS:-25}

sh "$src/build.sh" "$out"
status=$?
test $status -eq 0 || exit $status

ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export ASAN_OPTIONS
passed=0
failed=0

# --- 2. replay the crashers (fuzz-ad comparing everything)
open_list=$src/crashers/OPEN
unset FUZZ_AD_FINITE_ONLY
for f in "$src"/crashers/*-*; do
    test -f "$f" || continue
    name=$(basename "$f")
    h=${name%%-*}
    rest=${name#*-}
    id=$(echo "${rest%%-*}" | tr '[:lower:]' '[:upper:]')
    exe=$out/fuzz-$h
    if ! test -x "$exe"; then
        echo "FAIL: $name: no harness fuzz-$h"
        failed=$((failed + 1))
        continue
    fi
    supp=$out/ubsan-$name.supp
    awk -v RS= -v ORS='\n\n' -v id="$id" 'index($0, "# " id ":") != 1' \
        "$src/ubsan.supp" >"$supp"
    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$supp" \
        "$exe" -runs=1 -timeout=120 "$f" >"$out/replay-$name.log" 2>&1
    rc=$?
    expected_open=no
    grep -qx "$name" "$open_list" 2>/dev/null && expected_open=yes
    if test $rc -eq 0 && test $expected_open = no; then
        echo "PASS: replay $name"
        passed=$((passed + 1))
    elif test $rc -ne 0 && test $expected_open = yes; then
        echo "PASS: replay $name (open finding $id: still fails, as expected)"
        passed=$((passed + 1))
    elif test $rc -eq 0; then
        echo "FAIL: replay $name runs clean: finding $id is fixed -- remove it from" \
             "tests/fuzz/crashers/OPEN (and its suppression from ubsan.supp)"
        failed=$((failed + 1))
    else
        echo "FAIL: replay $name (status $rc):"
        grep -E 'ERROR|runtime error|FINDING|property violated|#[0-9] ' \
            "$out/replay-$name.log" | head -20
        failed=$((failed + 1))
    fi
done

# --- 3. a short fuzz run of each harness
work=$out/smoke
rm -rf "$work"
for h in read eval ad api print load; do
    case $h in
    read) runs=${FUZZ_SMOKE_RUNS:-20000} ;;
    eval) runs=${FUZZ_SMOKE_RUNS:-3000} ;;
    ad)   runs=${FUZZ_SMOKE_RUNS:-400} ;;
    api)  runs=${FUZZ_SMOKE_RUNS:-300} ;;
    print) runs=${FUZZ_SMOKE_RUNS:-1500} ;;
    load) runs=${FUZZ_SMOKE_RUNS:-2000} ;;
    esac
    if FUZZ_ARGS="-seed=1 -runs=$runs" \
        sh "$src/run.sh" "$out" "$work" "$seconds" "$h"; then
        echo "PASS: fuzz $h"
        passed=$((passed + 1))
    else
        echo "FAIL: fuzz $h (findings in $work/crashes; log $work/fuzz-$h.log)"
        failed=$((failed + 1))
    fi
done

echo "$passed passed, $failed failed"
test $failed -eq 0
