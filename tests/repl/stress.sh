#!/bin/sh
# tests/repl/stress.sh -- the pty tests on a busy machine (issue 31)
#
# usage: tests/repl/stress.sh [ROUNDS [BUSY [TEST...]]]
#
# Runs `make check TESTS="TEST..."` ROUNDS times in a row (default 20;
# tests default: tests/repl/long.py tests/repl/output.py) while BUSY
# processes (default 4) spin beside it, and stops at the first failing
# round (its logs are kept).  Not run by make check: it is the evidence
# that the REPL tests judge behaviour, not speed -- a Ctrl-C that is lost
# under load is a bug, not a timing.  Run it from the build directory.
# The busy processes are killed by their ids at the end.

rounds=${1:-20}
busy=${2:-4}
test $# -gt 0 && shift
test $# -gt 0 && shift
tests=${*:-"tests/repl/long.py tests/repl/output.py"}

out=$(mktemp "${TMPDIR:-/tmp}/vlad-stress.XXXXXX") || exit 99
pids=
cleanup() {
    for p in $pids; do
        kill "$p" 2>/dev/null
    done
    for p in $pids; do
        wait "$p" 2>/dev/null
    done
    pids=
}
trap cleanup EXIT
trap 'exit 130' INT TERM

i=0
while [ "$i" -lt "$busy" ]; do
    sh -c 'while :; do :; done' &
    pids="$pids $!"
    i=$((i + 1))
done

echo "stress: $rounds rounds of: $tests; $busy busy processes ($pids );" \
     "load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
r=1
while [ "$r" -le "$rounds" ]; do
    start=$(date +%s)
    if make check TESTS="$tests" >"$out" 2>&1; then
        echo "round $r: pass ($(( $(date +%s) - start )) s," \
             "load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null))"
    else
        echo "round $r: FAIL (make check's output: $out; the logs:" \
             "tests/repl/*.log)"
        grep -h -A40 '^FAIL' $(for t in $tests; do
            echo "${t%.py}.log"; done) 2>/dev/null | head -80
        exit 1
    fi
    r=$((r + 1))
done
rm -f "$out"
echo "stress: $rounds of $rounds rounds passed"
