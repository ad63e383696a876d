#!/bin/sh
# tests/api/mpihost.sh -- make check, when vlad is built with MPI: the
# host of examples/embed/mpihost.c (it initialises MPI, hands each state
# a communicator of its own with vlad_mpi_attach, differentiates through
# the messages, finalises MPI itself) under mpiexec with 1, 2 and 3
# ranks: each rank checks what it computed; the program exits 0 only
# when every rank agreed.  A hang is turned into a failure by timeout.
command -v mpiexec >/dev/null 2>&1 || {
    echo "mpihost: vlad is built with MPI but mpiexec is missing (apt-get install mpich)"
    exit 99
}
scale=${VLAD_TEST_TIME_SCALE:-1}
limit=$(awk "BEGIN { print int(120 * $scale) }")
status=0
for n in 1 2 3; do
    out=$(timeout "$limit" mpiexec -n "$n" ./examples/embed/mpihost 2>&1)
    rc=$?
    echo "$out"
    case $out in
    *"ok ($n ranks, in groups of even and odd ranks)"*) ;;
    *) echo "FAIL: mpihost with $n rank(s): no ok line"; status=1 ;;
    esac
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: mpihost with $n rank(s): status $rc"
        status=1
    fi
done
exit $status
