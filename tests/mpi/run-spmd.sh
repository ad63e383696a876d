#!/bin/sh
# tests/mpi/run-spmd.sh -- make check, when vlad is built with MPI: the SPMD
# differential tester (spmd.py, seed 1, 8 random programs): values, j*,
# *j, checkpoint-*j under every strategy of tests/cpj/runner.py and spill,
# j* of *j and of checkpoint-*j, *j of checkpoint-*j, *j and checkpoint-*j
# of j*, on 1, 2 and 4 ranks, against the serial program doing the same
# arithmetic.  Skipped (77) without python3; an
# error (99) without mpiexec, which install-deps.sh installs with MPI.
# A longer run by hand:
#   VLAD=./vlad python3 tests/mpi/spmd.py -n 40 --seed 7
py=$(command -v python3) || {
    echo "spmd: python3 is missing: skipped"; exit 77; }
command -v mpiexec >/dev/null 2>&1 || {
    echo "spmd: vlad is built with MPI but mpiexec is missing" \
         "(apt-get install mpich)"
    exit 99
}
exec "$py" "${srcdir:-.}/tests/mpi/spmd.py" -n 8 --seed 1 "$@"
