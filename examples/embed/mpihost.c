/*
 * examples/embed/mpihost.c -- a host that uses MPI itself hands vlad its
 * communicator
 *
 * The host initialises MPI, splits its ranks into two groups (even and
 * odd ranks of MPI_COMM_WORLD), and gives each group's communicator to a
 * state with vlad_mpi_attach (include/vlad-mpi.h): the state is then one
 * rank of that group, and VLAD code in it exchanges messages with the
 * group only, on a duplicate of the communicator, so that the host's own
 * messages on it never meet vlad's.  It differentiates a ring through the
 * messages (*j, j*, checkpoint-*j), checks the results on every rank,
 * closes the state and finalises MPI itself (vlad never finalises an MPI
 * it did not initialise).
 *
 * Build (installed libvlad):
 *     mpicc mpihost.c $(pkg-config --cflags --libs vlad)
 * Run:  mpiexec -n 4 ./mpihost      (any number of ranks)
 * make check runs it under mpiexec -n 1, 2 and 3; each rank checks what
 * it computed and the program exits nonzero if any rank saw a mismatch.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <vlad.h>
#include <vlad-mpi.h>

static int failures;

static void expect(int rank, const char *what, const char *got,
                   const char *want)
{
    if (strcmp(got, want) != 0) {
        printf("rank %d: MISMATCH in %s:\n  got:  %s\n  want: %s\n", rank,
               what, got, want);
        failures++;
    }
}

/* Evaluate 'src' in S and return its printed value ("ERROR: ..." when it
   fails). */
static const char *eval(VladState *S, const char *src)
{
    VladValue v;
    if (vlad_eval_string(S, src, "<host>", &v) != VLAD_OK)
        return vlad_last_error(S)->text;
    return vlad_to_string(S, v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int world_rank, world_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    /* the host's groups: even and odd ranks */
    MPI_Comm group;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &group);
    int rank, size;
    MPI_Comm_rank(group, &rank);
    MPI_Comm_size(group, &size);

    VladConfig config;
    vlad_config_init(&config);
    VladState *S = vlad_open(&config);
    if (S == NULL) {
        fprintf(stderr, "vlad_open failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (vlad_mpi_attach(S, group) != VLAD_OK) {
        printf("rank %d: vlad_mpi_attach: %s\n", world_rank,
               vlad_last_error(S)->text);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* a second attach is refused: the state is a rank already */
    if (vlad_mpi_attach(S, MPI_COMM_WORLD) != VLAD_ERR_ARGUMENT) {
        printf("rank %d: a second vlad_mpi_attach was accepted\n",
               world_rank);
        failures++;
    }
    if (vlad_mpi_rank(S) != rank || vlad_mpi_size(S) != size) {
        printf("rank %d: vlad says rank %d of %d, the group %d of %d\n",
               world_rank, vlad_mpi_rank(S), vlad_mpi_size(S), rank, size);
        failures++;
    }

    /* the host sends its own message round its group before vlad runs:
       vlad's messages are on a duplicate, they do not take it */
    int token = 100 + rank, got = -1;
    MPI_Request req;
    MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 0, group, &req);

    char want[160];
    int xl = (rank + size - 1) % size + 1, x = rank + 1;
    expect(world_rank, "the definitions", eval(S,
        "(define r (mpi-rank))\n"
        "(define p (mpi-size))\n"
        "(define (ring x)\n"
        "  (begin (mpi-send (modulo (+ r 1) p) (* x x))\n"
        "         (* 3 (mpi-recv (modulo (+ r p -1) p)))))"), "()");
    /* y_r = 3 x_{r-1}^2: its tangent 6 x_{r-1}; the gradient of the
       sum over the group, 6 x_r */
    snprintf(want, sizeof want, "(%d %d)", 3 * xl * xl, 6 * xl);
    expect(world_rank, "j*", eval(S, "(j* ring (+ r 1) 1)"), want);
    snprintf(want, sizeof want, "(%d %d)", 3 * xl * xl, 6 * x);
    expect(world_rank, "*j", eval(S, "(*j ring (+ r 1) 1)"), want);
    expect(world_rank, "checkpoint-*j",
           eval(S, "(checkpoint-*j ring (+ r 1) 1)"), want);
    /* the group's sum: 1 + 2 + ... + size */
    snprintf(want, sizeof want, "%d", size * (size + 1) / 2);
    expect(world_rank, "mpi-allreduce", eval(S, "(mpi-allreduce (+ r 1))"),
           want);

    /* the host's message is still there for the host */
    MPI_Recv(&got, 1, MPI_INT, (rank + size - 1) % size, 0, group,
             MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (got != 100 + (rank + size - 1) % size) {
        printf("rank %d: the host's own message was %d\n", world_rank, got);
        failures++;
    }

    vlad_close(S);
    /* vlad did not finalise the host's MPI */
    int finalized = 1;
    MPI_Finalized(&finalized);
    if (finalized) {
        printf("rank %d: vlad_close finalised the host's MPI\n",
               world_rank);
        return 1;
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("%s (%d ranks, in groups of even and odd ranks)\n",
               all == 0 ? "ok" : "FAILED", world_size);
    MPI_Comm_free(&group);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
