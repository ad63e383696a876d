#!/bin/sh
# tests/cpj/run-spill.sh -- make check: checkpoint-*j with spill=DIR (spill.py:
# results, output and input, states written and read back, a continuation
# resumed twice, no file left, a write that fails, a file damaged under a
# run).  Skipped (77) without python3.
py=$(command -v python3) || { echo "spill: python3 is missing: skipped"; exit 77; }
exec "$py" "${srcdir:-.}/tests/cpj/spill.py" "$@"
