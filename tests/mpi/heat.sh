#!/bin/sh
# tests/mpi/heat.sh -- make check, when vlad is built with MPI:
# examples/mpi/heat.vlad's objective and gradients (by *j and by
# checkpoint-*j under three strategies) are the same on 1, 2 and 4 ranks,
# and equal to j*'s directional derivative (heat-check.py 1 2 4).  Skipped (77)
# without python3; an error (99) without mpiexec.
py=$(command -v python3) || { echo "mpi: python3 is missing: skipped"; exit 77; }
command -v mpiexec >/dev/null 2>&1 || {
    echo "mpi: vlad is built with MPI but mpiexec is missing (apt-get install mpich)"
    exit 99
}
exec "$py" "${srcdir:-.}/tests/mpi/heat-check.py" 1 2 4
