/*
 * vm/exec/mpiprims.c -- the primitives of parallel programs (see
 * vm/exec/mpiprims.h)
 */
#include "config.h"
#include "vm/exec/mpiprims.h"

#include <math.h>
#include "vm/ad/admsg.h"
#include "vm/core/except.h"
#include "vm/core/object.h"
#include "vm/core/print.h"
#include "vm/mpi/comm.h"

/* A rank argument: a whole number from 0 to size - 1. */
static int rank_arg(VladState *S, const char *who, const char *what,
                    Value v)
{
    int size = vl_comm_size(S);
    double x = IS_NUM(v) ? v.as.num : IS_REAL(v) ? vl_object_primal(v) : NAN;
    if (!IS_REAL(v) || !(x >= 0 && x < size) || x != floor(x))
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "%s: the %s must be a whole number from 0 to %d "
                          "(the ranks of this job), got %s", who, what,
                          size - 1, vl_print_to_string(S, v, 80));
    return (int)x;
}

static Value p_mpi_rank(VladState *S, Value *args)
{
    (void)args;
    return vl_num(vl_comm_rank(S));
}

static Value p_mpi_size(VladState *S, Value *args)
{
    (void)args;
    return vl_num(vl_comm_size(S));
}

static Value p_mpi_send(VladState *S, Value *args)
{
    const char *who = "mpi-send";
    int dest = rank_arg(S, who, "destination rank", args[0]);
    return vl_admsg_send(S, who, VL_COMM_PROGRAM, dest, args[1]);
}

static Value p_mpi_recv(VladState *S, Value *args)
{
    const char *who = "mpi-recv";
    int src = rank_arg(S, who, "source rank", args[0]);
    return vl_admsg_recv(S, who, VL_COMM_PROGRAM, src);
}

static Value p_mpi_allreduce(VladState *S, Value *args)
{
    return vl_admsg_allreduce(S, "mpi-allreduce", args[0]);
}

static Value p_mpi_bcast(VladState *S, Value *args)
{
    const char *who = "mpi-bcast";
    int root = rank_arg(S, who, "root rank", args[0]);
    return vl_admsg_bcast(S, who, root, args[1]);
}

static Value p_mpi_barrier(VladState *S, Value *args)
{
    (void)args;
    vl_admsg_barrier(S, "mpi-barrier");
    return NIL_VAL;
}

static const PrimInfo mpi_table[] = {
    {"mpi-rank", p_mpi_rank, 1, -1},
    {"mpi-size", p_mpi_size, 1, -1},
    {"mpi-send", p_mpi_send, 2, -1},
    {"mpi-recv", p_mpi_recv, 1, -1},
    {"mpi-allreduce", p_mpi_allreduce, 1, -1},
    {"mpi-bcast", p_mpi_bcast, 2, -1},
    {"mpi-barrier", p_mpi_barrier, 1, -1},
};

void vl_mpiprims_install(VladState *S)
{
    vl_state_install_prims(S, mpi_table,
                           sizeof mpi_table / sizeof mpi_table[0]);
    vl_admsg_install(S);
}
