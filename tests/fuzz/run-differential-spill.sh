#!/bin/sh
# tests/fuzz/run-differential-spill.sh -- make check: *j against
# checkpoint-*j under a small budget with spill=DIR (the held states of
# the outermost run in files) on 300 random programs, each computed 10
# times over so that the runs are long (differential.py --spill --repeat
# 10, seed 1).  Skipped (77) without python3.  A longer run by hand:
#   VLAD=./vlad python3 tests/fuzz/differential.py --spill --repeat 10 \
#       --programs 20000 --seed 7
py=$(command -v python3) || { echo "differential: python3 is missing: skipped"; exit 77; }
exec "$py" "${srcdir:-.}/tests/fuzz/differential.py" --programs 300 --seed 1 \
    --spill --repeat 10 "$@"
