/*
 * vm/ad/admsg.c -- derivatives through messages (see vm/ad/admsg.h)
 *
 * A message is a header, then the value (vm/mpi/message.h) whose reals
 * this file writes and reads, one AD invocation at a time from the
 * innermost (S->ad, top down).  The header:
 *
 *     'H' flags(1) n(8) kinds(n)
 *
 * flags 1: the value holds a real; kinds: 'J' (j*) or 'R' (*j) for each
 * invocation active at the sender, outermost first.  A message holding a
 * real must arrive inside the same invocations (an error naming both
 * ranks, never a derivative silently lost); one without reals is data
 * anywhere.  Collectives send no header: their agreement (a hash of the
 * tokens, which name the j* levels) stands for it.
 */
#include "config.h"
#include "vm/ad/admsg.h"

#include <math.h>
#include <string.h>
#include "vm/ad/ad.h"
#include "vm/core/except.h"
#include "vm/core/object.h"
#include "vm/core/print.h"
#include "vm/core/strbuf.h"
#include "vm/mpi/comm.h"
#include "vm/mpi/message.h"

/* ===== One communication's walk over the AD invocations ===== */

typedef struct Walk {
    VladState *S;
    const char *who;
    int dense;              /* every j* level a dual (collectives) */
    int replay;             /* a re-execution: rp says which */
    MsgReplay rp;
    size_t nad;             /* S->ad's invocations when it began */
    uint32_t *count;        /* nodes made on each one's tape */
    size_t reals;           /* reals written */
    /* a replayed receive: the reals at the floor of the log's segment */
    const MsgLogged *logged;
    size_t next_floor;
    /* the segments that record: their floors and the reals at them */
    size_t nrec;
    size_t *rec_floor;
    Value **rec_vals;
    size_t *rec_n, *rec_cap;
} Walk;

static void walk_begin(Walk *w, VladState *S, const char *who, int dense)
{
    memset(w, 0, sizeof *w);
    w->S = S;
    w->who = who;
    w->dense = dense;
    w->nad = S->nad;
    w->count = vl_gc_alloc_atomic((S->nad + 1) * sizeof *w->count);
    memset(w->count, 0, (S->nad + 1) * sizeof *w->count);
    if (S->nseg == 0 || S->msglog_hooks.replaying == NULL)
        return;
    w->replay = S->msglog_hooks.replaying(S, &w->rp);
    if (w->replay && (w->rp.first > w->rp.floor || w->rp.floor > S->nad))
        vl_except_runtime(S, VLAD_ERR_RUNTIME, "%s: checkpoint-*j re-ran "
                          "a communication outside the derivatives it was "
                          "first run in", who);
}

/* The segments that record what is received (a receive). */
static void walk_recorders(Walk *w)
{
    VladState *S = w->S;
    if (S->nseg == 0 || S->msglog_hooks.recorders == NULL)
        return;
    size_t cap = S->nseg;
    w->rec_floor = vl_gc_alloc_atomic(cap * sizeof *w->rec_floor);
    w->nrec = S->msglog_hooks.recorders(S, w->rec_floor, cap);
    if (w->nrec > cap)
        w->nrec = cap;
    w->rec_vals = vl_gc_alloc((w->nrec + 1) * sizeof *w->rec_vals);
    w->rec_n = vl_gc_alloc_atomic((w->nrec + 1) * sizeof *w->rec_n);
    w->rec_cap = vl_gc_alloc_atomic((w->nrec + 1) * sizeof *w->rec_cap);
    for (size_t k = 0; k < w->nrec; k++)
        w->rec_n[k] = w->rec_cap[k] = 0;
}

static void check_depth(Walk *w)
{
    if (VL_UNLIKELY(vl_cstack_exhausted(&w->S->cstack)))
        vl_except_runtime(w->S, VLAD_ERR_MEMORY, "%s: derivatives nested "
                          "too deeply (the C stack is exhausted at depth "
                          "%zu)", w->who, w->S->nad);
}

/* Whether invocation k is one of the re-execution's own. */
static int own(const Walk *w, size_t k)
{
    return w->replay && k >= w->rp.first && k < w->rp.floor;
}

/* ===== Writing a real ===== */

static void put_real_at(Walk *w, StrBuf *b, Value v, size_t a)
{
    VladState *S = w->S;
    check_depth(w);
    for (;;) {
        if (w->replay && a == w->rp.first)
            return;                 /* logged by the first run */
        if (a == 0) {
            double d = vl_object_primal(v);
            vl_strbuf_add(b, "R", 1);
            vl_strbuf_add(b, (const char *)&d, sizeof d);
            return;
        }
        AdFrame *f = &S->ad[a - 1];
        Value t;
        Value below = vl_ad_msg_below(S, f, v, &t);
        if (f->reverse) {
            if (!own(w, a - 1) || !w->rp.pilot) {
                (void)vl_ad_msg_node(S, f, v, below);
                w->count[a - 1]++;
            }
        } else if (own(w, a - 1)) {
            /* (a re-execution's own invocations are *j's) */
        } else if (t.tag != VT_UNDEF || w->dense) {
            vl_strbuf_add(b, "D", 1);
            put_real_at(w, b, below, a - 1);
            below = t.tag != VT_UNDEF ? t : vl_num(0);
        } else
            vl_strbuf_add(b, "K", 1);
        v = below;
        a--;
    }
}

static void put_real(VladState *S, void *ctx, StrBuf *b, Value v)
{
    (void)S;
    Walk *w = ctx;
    w->reals++;
    put_real_at(w, b, v, w->nad);
}

/* ===== Reading a real ===== */

static VL_NORETURN void malformed(Walk *w)
{
    vl_except_runtime(w->S, VLAD_ERR_RUNTIME, "%s: a malformed message "
                      "arrived (its reals do not match the derivatives "
                      "being computed)", w->who);
}

static unsigned char next_token(Walk *w, const unsigned char **p,
                                const unsigned char *end)
{
    if (*p >= end)
        malformed(w);
    return *(*p)++;
}

static double read_double(Walk *w, const unsigned char **p,
                          const unsigned char *end)
{
    double d;
    if ((size_t)(end - *p) < sizeof d)
        malformed(w);
    memcpy(&d, *p, sizeof d);
    *p += sizeof d;
    return d;
}

/* Step over a real's tokens (the levels below a replay's floor). */
static void skip_real(Walk *w, const unsigned char **p,
                      const unsigned char *end)
{
    check_depth(w);
    for (;;) {
        unsigned char c = next_token(w, p, end);
        if (c == 'R') {
            (void)read_double(w, p, end);
            return;
        }
        if (c == 'D')
            skip_real(w, p, end);
        else if (c != 'K')
            malformed(w);
    }
}

static void capture(Walk *w, size_t a, Value v)
{
    for (size_t k = 0; k < w->nrec; k++) {
        if (w->rec_floor[k] != a)
            continue;
        w->rec_vals[k] = vl_gc_reserve(w->rec_vals[k], w->rec_n[k],
                                       w->rec_n[k] + 1, &w->rec_cap[k],
                                       sizeof(Value), 0);
        w->rec_vals[k][w->rec_n[k]++] = v;
    }
}

static Value get_real_at(Walk *w, const unsigned char **p,
                         const unsigned char *end, size_t a)
{
    VladState *S = w->S;
    check_depth(w);
    Value v;
    if (w->replay && a == w->rp.first) {
        skip_real(w, p, end);
        if (w->logged == NULL || w->next_floor >= w->logged->nfloor)
            malformed(w);
        v = w->logged->floor[w->next_floor++];
    } else if (a == 0) {
        if (next_token(w, p, end) != 'R')
            malformed(w);
        v = vl_num(read_double(w, p, end));
    } else {
        AdFrame *f = &S->ad[a - 1];
        if (f->reverse) {
            v = get_real_at(w, p, end, a - 1);
            if (!own(w, a - 1) || !w->rp.pilot) {
                v = vl_ad_msg_node(S, f, v, v);
                w->count[a - 1]++;
            }
        } else if (own(w, a - 1)) {
            v = get_real_at(w, p, end, a - 1);
        } else {
            unsigned char c = next_token(w, p, end);
            if (c == 'D') {
                Value primal = get_real_at(w, p, end, a - 1);
                Value tangent = get_real_at(w, p, end, a - 1);
                v = vl_ad_msg_dual(S, f, primal, tangent);
            } else if (c == 'K')
                v = get_real_at(w, p, end, a - 1);
            else
                malformed(w);
        }
    }
    capture(w, a, v);
    return v;
}

static Value get_real(VladState *S, void *ctx, const unsigned char **p,
                      const unsigned char *end)
{
    Walk *w = ctx;
    Value v = get_real_at(w, p, end, w->nad);
    /* a real another rank sent may depend on its input: for
       checkpoint-*j's base cases, it is active (vm/core/value.h) */
    return S->nseg > 0 ? vl_real_mark(v, 1) : v;
}

static VlMessageReals reals_of(Walk *w)
{
    return (VlMessageReals){put_real, get_real, w};
}

/* ===== Headers ===== */

/* The kinds of the active invocations, outermost first. */
static char *kinds(VladState *S)
{
    char *k = vl_gc_alloc_atomic(S->nad + 1);
    for (size_t i = 0; i < S->nad; i++)
        k[i] = S->ad[i].reverse ? 'R' : 'J';
    k[S->nad] = 0;
    return k;
}

static const char *kinds_text(VladState *S, const char *k, size_t n)
{
    if (n == 0)
        return "outside j* and *j";
    StrBuf b;
    vl_strbuf_init(&b);
    vl_strbuf_add(&b, "inside ", 7);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            vl_strbuf_add(&b, ", ", 2);
        vl_strbuf_add(&b, k[i] == 'R' ? "*j" : "j*", 2);
    }
    vl_strbuf_add(&b, " (outermost first)", 18);
    (void)S;
    return b.data;
}

/* The message: header, then v's encoding. */
static VlMessage with_header(Walk *w, Value v)
{
    VladState *S = w->S;
    StrBuf b;
    vl_strbuf_init(&b);
    uint64_t n = S->nad;
    vl_strbuf_add(&b, "H?", 2);             /* flags: below, once known */
    vl_strbuf_add(&b, (const char *)&n, sizeof n);
    vl_strbuf_add(&b, kinds(S), S->nad);
    VlMessageReals r = reals_of(w);
    vl_message_encode_into(S, w->who, v, &r, &b);
    b.data[1] = w->reals > 0;
    return (VlMessage){(unsigned char *)b.data, b.len};
}

/* Check the header of a message from rank 'from' against this rank's
   invocations: the body. */
static const unsigned char *body_of(Walk *w, int from,
                                    const unsigned char *data, size_t *len)
{
    VladState *S = w->S;
    uint64_t n;
    if (*len < 2 + sizeof n || data[0] != 'H')
        malformed(w);
    memcpy(&n, data + 2, sizeof n);
    if (n > *len - 2 - sizeof n)
        malformed(w);
    const char *k = (const char *)data + 2 + sizeof n;
    if (data[1] && (n != S->nad || memcmp(k, kinds(S), n) != 0))
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "%s: rank %d sent a value with reals %s; it "
                          "arrived at rank %d %s: the ranks must enter "
                          "the same j* and *j around their communication",
                          w->who, from, kinds_text(S, k, (size_t)n),
                          vl_comm_rank(S), kinds_text(S, kinds(S), S->nad));
    size_t h = 2 + sizeof n + (size_t)n;
    *len -= h;
    return data + h;
}

/* ===== Records, and the log ===== */

/* A record of 'kind' on every tape that got nodes (in: the nodes of an
   input, which a collective's record counts too). */
static void records(Walk *w, int kind, int peer, const uint32_t *in)
{
    VladState *S = w->S;
    for (size_t k = 0; k < w->nad; k++) {
        uint32_t m = w->count[k];
        if (in != NULL && kind != VL_MSG_BCAST) {
            if (in[k] != m)
                vl_except_runtime(S, VLAD_ERR_RUNTIME,
                                  "%s: its result has %u reals on a tape "
                                  "where its input has %u", w->who,
                                  (unsigned)m, (unsigned)in[k]);
        }
        if (m == 0)
            continue;
        if (m > VL_MSG_COUNT_MAX)
            vl_except_runtime(S, VLAD_ERR_MEMORY, "%s: a message of more "
                              "than %u reals under *j", w->who,
                              VL_MSG_COUNT_MAX);
        vl_ad_msg_record(S, &S->ad[k], kind, peer, m);
    }
}

static void log_received(Walk *w, const unsigned char *data, size_t len)
{
    VladState *S = w->S;
    for (size_t k = 0; k < w->nrec; k++) {
        MsgLogged m = {data, len, w->rec_vals[k], w->rec_n[k]};
        S->msglog_hooks.record(S, k, &m);
    }
}

/* The message the first run logged here (its bytes; their number in
   *len), whose floor reals the decoding takes. */
static const unsigned char *replayed(Walk *w, size_t *len)
{
    const MsgLogged *m = w->S->msglog_hooks.replay(w->S, w->who);
    w->logged = m;
    w->next_floor = 0;
    *len = m->len;
    return m->data;
}

/* ===== Point to point ===== */

Value vl_admsg_send(VladState *S, const char *who, int ch, int dest,
                    Value v)
{
    Walk w;
    walk_begin(&w, S, who, 0);
    VlMessage m = with_header(&w, v);
    if (!w.replay)
        vl_comm_send(S, who, ch, dest, m.data, m.len);
    records(&w, VL_MSG_SEND, dest, NULL);
    return v;
}

Value vl_admsg_recv(VladState *S, const char *who, int ch, int src)
{
    Walk w;
    walk_begin(&w, S, who, 0);
    walk_recorders(&w);
    const unsigned char *data;
    size_t len;
    if (w.replay) {
        data = replayed(&w, &len);
    } else {
        if (ch == VL_COMM_PROGRAM)
            vl_state_flush_lines(S);    /* what was written shows before */
        data = vl_comm_recv(S, who, ch, src, &len);
        data = body_of(&w, src, data, &len);
    }
    VlMessageReals r = reals_of(&w);
    Value v = vl_message_decode(S, who, data, len, &r);
    records(&w, VL_MSG_RECV, src, NULL);
    log_received(&w, data, len);
    return v;
}

/* ===== Collectives ===== */

enum { COLL_ALLREDUCE = 1, COLL_BCAST, COLL_BARRIER };
static const char *const coll_names[] = {
    "?", "mpi-allreduce", "mpi-bcast", "mpi-barrier"
};

/* Every rank is in the same collective 'kind', with the same a and b;
   else an error on every rank. */
static void agree(VladState *S, const char *who, int kind, int64_t a,
                  int64_t b, const char *differ)
{
    int64_t v[6] = {kind, -kind, a, -a, b, -b};
    S->collectives++;
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

/* The nodes made so far (the inputs' copies), and a fresh count. */
static uint32_t *take_count(Walk *w)
{
    uint32_t *in = w->count;
    w->count = vl_gc_alloc_atomic((w->nad + 1) * sizeof *w->count);
    memset(w->count, 0, (w->nad + 1) * sizeof *w->count);
    return in;
}

Value vl_admsg_allreduce(VladState *S, const char *who, Value v)
{
    Walk w;
    walk_begin(&w, S, who, 1);
    walk_recorders(&w);
    VlMessageReals r = reals_of(&w);
    VlMessage m = vl_message_encode(S, who, v, &r);
    uint32_t *in = take_count(&w);
    const unsigned char *data = m.data;
    size_t len = m.len;
    if (w.replay) {
        data = replayed(&w, &len);
    } else {
        /* the reals' values, and a hash of everything else (the shape) */
        const unsigned char *p = m.data, *end = m.data + m.len;
        size_t n = 0;
        uint64_t h = 14695981039346656037u;         /* FNV-1a */
        while (p < end) {
            size_t t = vl_message_token(p, end);
            if (p[0] == 'R')
                n++;
            else if (p[0] != 'P' && p[0] != 'N' && p[0] != 'D')
                vl_except_runtime(S, VLAD_ERR_RUNTIME,
                                  "%s: expected a real or a list or tuple "
                                  "tree of reals, got %s", who,
                                  vl_print_to_string(S, v, 80));
            h = (h ^ p[0]) * 1099511628211u;
            p += t;
        }
        /* and the invocations around it: a *j (which puts no token in
           the message) entered by some ranks and not others would
           otherwise wait for an adjoint the others never send */
        for (const char *k = kinds(S); *k; k++)
            h = (h ^ (unsigned char)*k) * 1099511628211u;
        agree(S, who, COLL_ALLREDUCE, (int64_t)(h >> 1), (int64_t)n,
              "the ranks' values have different shapes (it must be a "
              "real, or a list or tuple tree of reals of one shape, on "
              "every rank, inside the same j* and *j)");
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
    }
    Value out = vl_message_decode(S, who, data, len, &r);
    records(&w, VL_MSG_ALLREDUCE, 0, in);
    log_received(&w, data, len);
    return out;
}

Value vl_admsg_bcast(VladState *S, const char *who, int root, Value v)
{
    Walk w;
    walk_begin(&w, S, who, 0);
    walk_recorders(&w);
    int me = vl_comm_rank(S);
    VlMessage m = {NULL, 0};
    if (me == root)
        m = with_header(&w, v);
    uint32_t *in = take_count(&w);
    const unsigned char *data;
    size_t len;
    if (w.replay) {
        data = replayed(&w, &len);
    } else {
        agree(S, who, COLL_BCAST, root, 0, "the ranks name different roots");
        uint64_t n = m.len;
        vl_comm_bcast(S, who, root, &n, sizeof n);
        if (me != root) {
            m.len = (size_t)n;
            m.data = vl_gc_alloc_atomic(m.len > 0 ? m.len : 1);
        }
        vl_comm_bcast(S, who, root, m.data, m.len);
        len = m.len;
        data = body_of(&w, root, m.data, &len);
    }
    VlMessageReals r = reals_of(&w);
    Value out = vl_message_decode(S, who, data, len, &r);
    records(&w, me == root ? VL_MSG_BCAST_ROOT : VL_MSG_BCAST, root,
            me == root ? in : NULL);
    log_received(&w, data, len);
    return out;
}

void vl_admsg_barrier(VladState *S, const char *who)
{
    MsgReplay rp;
    if (S->nseg > 0 && S->msglog_hooks.replaying != NULL
        && S->msglog_hooks.replaying(S, &rp))
        return;                     /* the first run met the others */
    vl_state_flush_lines(S);
    agree(S, who, COLL_BARRIER, 0, 0, "");
}

/* ===== Adjoint communication (the reverse sweeps) ===== */

static VL_NORETURN void bad_record(VladState *S)
{
    vl_except_runtime(S, VLAD_ERR_RUNTIME, "*j: a damaged communication "
                      "record on the tape");
}

/* The sensitivities of nodes [from, from + m), as a list. */
static Value sens_list(VladState *S, const VlAdjointIO *io, uint32_t from,
                       uint32_t m)
{
    Value list = NIL_VAL;
    for (uint32_t i = m; i-- > 0;) {
        Value items[2] = {io->get(S, io->ctx, from + i), list};
        list = vl_object_tuple(items, 2);
    }
    return list;
}

/* Add the reals of list l (m of them) to nodes [from, from + m). */
static void add_list(VladState *S, const char *who, const VlAdjointIO *io,
                     uint32_t from, uint32_t m, Value l, int peer)
{
    for (uint32_t i = 0; i < m; i++) {
        if (l.tag != VT_PAIR || !IS_REAL(AS_PAIR(l)->car))
            vl_except_runtime(S, VLAD_ERR_RUNTIME,
                              "%s: the cotangents from rank %d do not match "
                              "the %u reals sent", who, peer, (unsigned)m);
        io->add(S, io->ctx, from + i, AS_PAIR(l)->car);
        l = AS_PAIR(l)->cdr;
    }
    if (l.tag != VT_NIL)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "%s: the cotangents from rank %d do not match "
                          "the %u reals sent", who, peer, (unsigned)m);
}

void vl_admsg_install(VladState *S)
{
    S->adjoint_comm = vl_admsg_adjoint;
}

void vl_admsg_adjoint(VladState *S, const TapeSlot *t, uint32_t r,
                      const VlAdjointIO *io)
{
    int kind = (int)(t->parent1 >> VL_MSG_KIND_SHIFT);
    uint32_t m = t->parent1 & VL_MSG_COUNT_MAX;
    double pd = t->primal;
    if (!(pd >= 0 && pd < vl_comm_size(S)) || pd != floor(pd))
        bad_record(S);
    int peer = (int)pd;
    uint32_t nodes = kind == VL_MSG_ALLREDUCE || kind == VL_MSG_BCAST_ROOT
                     ? 2 * m : m;
    if (nodes > r)
        bad_record(S);
    switch (kind) {
    case VL_MSG_RECV:
        (void)vl_admsg_send(S, "*j (the adjoint of mpi-recv)",
                            VL_COMM_ADJOINT, peer, sens_list(S, io, r - m, m));
        break;
    case VL_MSG_SEND: {
        const char *who = "*j (the adjoint of mpi-send)";
        Value l = vl_admsg_recv(S, who, VL_COMM_ADJOINT, peer);
        add_list(S, who, io, r - m, m, l, peer);
        break;
    }
    case VL_MSG_ALLREDUCE: case VL_MSG_BCAST_ROOT: case VL_MSG_BCAST: {
        const char *who = kind == VL_MSG_ALLREDUCE
                          ? "*j (the adjoint of mpi-allreduce)"
                          : "*j (the adjoint of mpi-bcast)";
        Value l = vl_admsg_allreduce(S, who, sens_list(S, io, r - m, m));
        if (kind != VL_MSG_BCAST)
            add_list(S, who, io, r - 2 * m, m, l, peer);
        break;
    }
    default:
        bad_record(S);
    }
}
