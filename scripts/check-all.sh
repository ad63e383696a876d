#!/bin/sh
# scripts/check-all.sh -- install, build and run every test, then say how it went
#
# usage: sh scripts/check-all.sh [--no-deps] [--no-sanitize] [--distcheck]
#
# From a git checkout (run as root on a fresh Debian 12 machine, it first
# installs what is missing):
#   1. sh scripts/install-deps.sh                (skipped by --no-deps)
#   2. ./autogen.sh && ./configure $VLAD_CONFIGURE_FLAGS && make -j$VLAD_JOBS
#   3. make check                                (test-suite.log)
#   4. make sanitize-check                       (sanitize-build/test-suite.log;
#                                                 skipped by --no-sanitize)
#   5. make distcheck                            (only with --distcheck)
# then adds up the "# PASS:", "# FAIL:", "# ERROR:", "# XPASS:" lines of
# the test-suite.log summaries.  The last line printed is exactly
#   N passed, M failed
# with N the tests that passed over all runs and M those that failed
# (FAIL + ERROR + XPASS), plus one for each step that failed without a
# test to blame.  Exits 0 only when M is 0.  .ci/run runs this script.

set -u

cd "$(dirname "$0")/.." || exit 1

deps=yes
sanitize=yes
distcheck=no
for arg in "$@"; do
    case $arg in
    --no-deps) deps=no ;;
    --no-sanitize) sanitize=no ;;
    --distcheck) distcheck=yes ;;
    -h | --help)
        sed -n '2,19s/^# \{0,1\}//p' "$0"
        exit 0 ;;
    *)
        echo "check-all: unknown option $arg (try --help)" >&2
        exit 2 ;;
    esac
done

jobs=${VLAD_JOBS:-2}
make=${MAKE:-make}
passed=0
failed=0
skipped=0

now() { date +%s; }

# step NAME COMMAND...: run and time one step; its status is returned.
step() {
    step_name=$1
    shift
    echo "==> $step_name: $*"
    step_start=$(now)
    "$@"
    step_status=$?
    step_time=$(($(now) - step_start))
    if test $step_status -eq 0; then
        echo "==> $step_name: ok (${step_time} s)"
    else
        echo "==> $step_name: FAILED with exit status $step_status (${step_time} s)"
    fi
    return $step_status
}

# summary_field LOG FIELD: the number on the first "# FIELD: N" line of LOG.
summary_field() {
    n=$(sed -n "s/^# $2: *\([0-9][0-9]*\).*/\1/p" "$1" | sed -n 1p)
    echo "${n:-0}"
}

# count LABEL LOG MAKE-STATUS: add one run's test-suite.log to the totals.
count() {
    label=$1 log=$2 make_status=$3
    if test ! -f "$log"; then
        echo "check-all: $label: no $log: the tests did not run"
        failed=$((failed + 1))
        return
    fi
    p=$(summary_field "$log" PASS)
    f=$(($(summary_field "$log" FAIL) + $(summary_field "$log" ERROR) + $(summary_field "$log" XPASS)))
    s=$(summary_field "$log" SKIP)
    x=$(summary_field "$log" XFAIL)
    echo "check-all: $label: $p passed, $f failed, $s skipped, $x expected failures"
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
    if test "$make_status" -ne 0 && test "$f" -eq 0; then
        echo "check-all: $label: make failed although no test failed"
        failed=$((failed + 1))
    fi
}

finish() {
    echo "check-all: $skipped skipped in all"
    echo "$passed passed, $failed failed"
    if test $failed -eq 0; then exit 0; else exit 1; fi
}

# A step that must work for anything after it to make sense.
must() {
    if ! step "$@"; then
        failed=$((failed + 1))
        finish
    fi
}

if test $deps = yes; then
    must install-deps sh scripts/install-deps.sh
fi
must autogen ./autogen.sh
# shellcheck disable=SC2086
must configure ./configure ${VLAD_CONFIGURE_FLAGS:-}
must build "$make" -j"$jobs"

rm -f test-suite.log
step check "$make" -j"$jobs" check VERBOSE=yes
count "make check" test-suite.log $?

if test $sanitize = yes; then
    rm -f sanitize-build/test-suite.log
    step sanitize-check "$make" -j"$jobs" sanitize-check VERBOSE=yes
    count "make sanitize-check" sanitize-build/test-suite.log $?
fi

if test $distcheck = yes; then
    if ! step distcheck "$make" -j"$jobs" distcheck VERBOSE=yes; then
        failed=$((failed + 1))
    fi
fi

finish
