#!/bin/sh
# tests/mpi/ranks.sh -- make check, when vlad is built with MPI: the
# parallel programs of tests/mpi/ under mpiexec -n 2 and -n 4 (runner.py
# 2 4; the machine may have fewer cores: MPICH oversubscribes), bad
# input, an error while others wait, kill -9 of a rank.  Skipped (77)
# without python3; an error (99) without mpiexec, which install-deps.sh
# installs with MPI.
py=$(command -v python3) || { echo "mpi: python3 is missing: skipped"; exit 77; }
command -v mpiexec >/dev/null 2>&1 || {
    echo "mpi: vlad is built with MPI but mpiexec is missing (apt-get install mpich)"
    exit 99
}
exec "$py" "${srcdir:-.}/tests/mpi/runner.py" 2 4
