#!/bin/sh
# tests/persist/roundtrip.sh -- make check: saved checkpoints of random
# programs, split at every step, resume in fresh processes with the same
# output, value and remaining steps (roundtrip.py; 60 programs, seed 1).
# Skipped (77) without python3.  A longer run by hand:
#   VLAD=./vlad python3 tests/persist/roundtrip.py --programs 1000 --seed 9
py=$(command -v python3) || { echo "roundtrip: python3 is missing: skipped"; exit 77; }
VLAD_BUILDDIR=${VLAD_BUILDDIR:-$(pwd)}
export VLAD_BUILDDIR
exec "$py" "${srcdir:-.}/tests/persist/roundtrip.py" --programs 60 --seed 1 "$@"
