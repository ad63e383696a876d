#!/bin/sh
# tests/conformance.sh -- run the conformance suite against ./vlad
#
# The suite is vendored in tests/conformance/ (its README says where it
# comes from); VLAD_CONFORMANCE_DIR=DIR runs the copy in DIR instead (a
# directory holding `run` and tests/).  Skipped (77) only when python3 is
# missing; a missing suite is a hard error (99).  Fails when any
# conformance test fails.  $VLAD and $srcdir come from make check
# (tests/local.mk).

dir=${VLAD_CONFORMANCE_DIR:-${srcdir:-.}/tests/conformance}
if test ! -f "$dir/run"; then
    echo "conformance: no suite at $dir (no $dir/run)" >&2
    exit 99
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "conformance: python3 not found: skipped"
    exit 77
fi
if test -z "$VLAD" || test ! -x "$VLAD"; then
    echo "conformance: VLAD is not set to the built vlad (run through make check)" >&2
    exit 99
fi
echo "conformance: the suite in $dir"

# The tests this version implements (all of them).
claimed="01-basics 02-data 03-forward 04-reverse 05-nesting 06-interface
07-checkpoint-rev 08-effects 09-read-replay
10-error-unbound 11-error-pattern 12-error-syntax"
files=
for t in $claimed; do
    files="$files $dir/tests/$t.vlad"
done
python3 "$dir/run" "$VLAD" $files
status=$?
case $status in
0 | 1) exit $status ;;
*) echo "conformance: the runner failed (exit $status)" >&2; exit 99 ;;
esac
