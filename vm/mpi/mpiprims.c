/*
 * vm/mpi/mpiprims.c -- the primitives of parallel programs (see
 * vm/mpi/mpiprims.h)
 */
#include "config.h"
#include "vm/mpi/mpiprims.h"

#include <math.h>
#include <string.h>
#include "vm/core/except.h"
#include "vm/core/print.h"
#include "vm/mpi/comm.h"
#include "vm/mpi/message.h"

/* Collectives, as the agreement names them. */
enum { COLL_ALLREDUCE = 1, COLL_BCAST, COLL_BARRIER };
static const char *const coll_names[] = {
    "?", "mpi-allreduce", "mpi-bcast", "mpi-barrier"
};

/* Communication under checkpoint-*j would be repeated by its
   re-executions: it needs receive logging (issue 33's next phase). */
static void not_in_cpj(VladState *S, const char *who)
{
    if (S->nseg > 0)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "%s: communication inside checkpoint-*j needs "
                          "receive logging, which is not implemented yet "
                          "(use *j around code that communicates)", who);
}

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

/* Every rank is in the same collective 'kind', with the same a and b;
   else an error on every rank. */
static void agree(VladState *S, const char *who, int kind, int64_t a,
                  int64_t b, const char *differ)
{
    int64_t v[6] = {kind, -kind, a, -a, b, -b};
    vl_comm_max(S, who, v, 6);
    if (v[0] != -v[1]) {
        int lo = (int)-v[1], hi = (int)v[0];
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "%s: the ranks are not all in the same collective "
                          "operation: some called %s, others %s", who,
                          coll_names[lo >= 1 && lo <= 3 ? lo : 0],
                          coll_names[hi >= 1 && hi <= 3 ? hi : 0]);
    }
    if (v[2] != -v[3] || v[4] != -v[5])
        vl_except_runtime(S, VLAD_ERR_RUNTIME, "%s: %s", who, differ);
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
    not_in_cpj(S, who);
    VlMessage m = vl_message_encode(S, who, args[1]);
    vl_comm_send(S, who, dest, m.data, m.len);
    return args[1];
}

static Value p_mpi_recv(VladState *S, Value *args)
{
    const char *who = "mpi-recv";
    int src = rank_arg(S, who, "source rank", args[0]);
    not_in_cpj(S, who);
    vl_state_flush(S);              /* what was written shows before the wait */
    size_t len;
    unsigned char *data = vl_comm_recv(S, who, src, &len);
    return vl_message_decode(S, who, data, len);
}

static Value p_mpi_allreduce(VladState *S, Value *args)
{
    const char *who = "mpi-allreduce";
    not_in_cpj(S, who);
    VlMessage m = vl_message_encode(S, who, args[0]);
    /* the reals' values, and a hash of everything else (the shape) */
    const unsigned char *p = m.data, *end = m.data + m.len;
    size_t n = 0;
    uint64_t h = 14695981039346656037u;         /* FNV-1a */
    while (p < end) {
        size_t t = vl_message_token(p, end);
        if (p[0] == 'R')
            n++;
        else if (p[0] != 'P' && p[0] != 'N')
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "%s: expected a real or a list or tuple tree "
                              "of reals, got %s", who,
                              vl_print_to_string(S, args[0], 80));
        h = (h ^ p[0]) * 1099511628211u;
        p += t;
    }
    agree(S, who, COLL_ALLREDUCE, (int64_t)(h >> 1), (int64_t)n,
          "the ranks' values have different shapes (it must be a real, or "
          "a list or tuple tree of reals of one shape, on every rank)");
    double *x = vl_gc_alloc_atomic((n > 0 ? n : 1) * sizeof *x);
    size_t i = 0;
    for (p = m.data; p < end; p += vl_message_token(p, end))
        if (p[0] == 'R')
            memcpy(&x[i++], p + 1, sizeof *x);
    vl_comm_sum(S, who, x, n);
    i = 0;
    for (p = m.data; p < end; p += vl_message_token(p, end))
        if (p[0] == 'R')
            memcpy((unsigned char *)p + 1, &x[i++], sizeof *x);
    return vl_message_decode(S, who, m.data, m.len);
}

static Value p_mpi_bcast(VladState *S, Value *args)
{
    const char *who = "mpi-bcast";
    int root = rank_arg(S, who, "root rank", args[0]);
    not_in_cpj(S, who);
    agree(S, who, COLL_BCAST, root, 0,
          "the ranks name different roots");
    VlMessage m = {NULL, 0};
    if (root == vl_comm_rank(S))
        m = vl_message_encode(S, who, args[1]);
    uint64_t len = m.len;
    vl_comm_bcast(S, who, root, &len, sizeof len);
    if (root != vl_comm_rank(S)) {
        m.len = (size_t)len;
        m.data = vl_gc_alloc_atomic(m.len > 0 ? m.len : 1);
    }
    vl_comm_bcast(S, who, root, m.data, m.len);
    return vl_message_decode(S, who, m.data, m.len);
}

static Value p_mpi_barrier(VladState *S, Value *args)
{
    (void)args;
    const char *who = "mpi-barrier";
    not_in_cpj(S, who);
    vl_state_flush(S);
    agree(S, who, COLL_BARRIER, 0, 0, "");
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
}
