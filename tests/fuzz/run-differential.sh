#!/bin/sh
# tests/fuzz/run-differential.sh -- make check: *j against checkpoint-*j on
# 4,000 random programs (differential.py, seed 1, under a random strategy
# per batch of 200).  Skipped (77) without python3.  Runs in the normal and
# in the sanitizer build.  A longer run by hand:
#   VLAD=./vlad python3 tests/fuzz/differential.py --programs 100000 --seed 7
# Every mismatch fails: --known-nonfinite (finding F3) and
# --known-suspended (limitation L1, a checkpoint taken inside a running
# *j), which tolerated them while they were open, are gone: both are
# fixed (doc/hardening.md section 6).
py=$(command -v python3) || { echo "differential: python3 is missing: skipped"; exit 77; }
exec "$py" "${srcdir:-.}/tests/fuzz/differential.py" --programs 4000 --seed 1 "$@"
