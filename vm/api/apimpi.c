/*
 * vm/api/apimpi.c -- the public interface to parallel programs:
 * vlad_mpi_init, vlad_mpi_rank, vlad_mpi_size, vlad_mpi_abort
 * (include/vlad.h) and vlad_mpi_attach (include/vlad-mpi.h)
 *
 * The transport and MPI's life cycle are vm/mpi/comm.c's.
 */
#include "config.h"
#include "include/vlad.h"

#include "vm/exec/toplevel.h"
#include "vm/mpi/comm.h"
#ifdef HAVE_MPI
#include "include/vlad-mpi.h"
#endif

/* Join, then stop echoing on ranks other than 0. */
static VladStatus join(VladState *S, const void *comm)
{
    const char *why = "";
    VladStatus st = vl_comm_join(S, comm, &why);
    if (st != VLAD_OK)
        return vl_toplevel_fail(S, st, "cannot join the ranks of MPI: %s",
                                why);
    if (vl_comm_rank(S) != 0)
        S->config.echo_results = 0;
    return VLAD_OK;
}

VladStatus vlad_mpi_init(VladState *S)
{
    if (S == NULL)
        return VLAD_ERR_ARGUMENT;
    return join(S, NULL);
}

#ifdef HAVE_MPI
VladStatus vlad_mpi_attach(VladState *S, MPI_Comm comm)
{
    if (S == NULL)
        return VLAD_ERR_ARGUMENT;
    return join(S, &comm);
}
#endif

int vlad_mpi_rank(VladState *S)
{
    return S == NULL ? 0 : vl_comm_rank(S);
}

int vlad_mpi_size(VladState *S)
{
    return S == NULL ? 1 : vl_comm_size(S);
}

void vlad_mpi_abort(VladState *S, int status)
{
    if (S != NULL)              /* the others are told its last error */
        vl_comm_abort(S, status, S->err.text != NULL ? S->err.text
                                                     : "stopped");
}
