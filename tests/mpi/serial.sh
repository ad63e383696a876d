#!/bin/sh
# tests/mpi/serial.sh -- make check: the parallel programs of tests/mpi/
# as one rank, plain ./vlad (runner.py 1): messages to itself, collectives
# over one rank, the bad-input cases.  Always run, with or without MPI.
# Skipped (77) without python3.
py=$(command -v python3) || { echo "mpi: python3 is missing: skipped"; exit 77; }
exec "$py" "${srcdir:-.}/tests/mpi/runner.py" 1
