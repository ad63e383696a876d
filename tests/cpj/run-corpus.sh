#!/bin/sh
# tests/cpj/run-corpus.sh -- make check's entry to tests/cpj/runner.py:
# every checkpoint-*j corpus and count program under many strategies,
# with golden output and --stats invariants (see runner.py).  The two
# files have different stems so that Automake never takes runner.py
# for the test (.py is a test extension too).  Skipped (77) when python3
# is missing.  $VLAD and $srcdir come from make check (tests/local.mk).

if ! command -v python3 >/dev/null 2>&1; then
    echo "run-corpus: python3 not found: skipped"
    exit 77
fi
if test -z "$VLAD" || test ! -x "$VLAD"; then
    echo "run-corpus: VLAD is not set to the built vlad (run through make check)" >&2
    exit 99
fi
python3 "${srcdir:-.}/tests/cpj/runner.py" "$@"
status=$?
case $status in
0 | 1 | 77) exit $status ;;
*) echo "run-corpus: the runner failed (exit $status)" >&2; exit 99 ;;
esac
