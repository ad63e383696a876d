/*
 * vm/mpi/comm.c -- the transport of messages: MPI, or a queue of one's
 * own (see vm/mpi/comm.h)
 *
 * The only file that includes mpi.h.  Point-to-point messages use one
 * tag on the state's own communicator; a receive probes for the next
 * message from its source (MPI_Iprobe), then receives exactly that one
 * (MPI_Mrecv of the MPI_Improbe'd message), so its size is known before
 * the buffer is made.  Waits poll: a few hundred polls that yield the
 * processor (ranks may outnumber cores), then sleeps growing to a
 * millisecond, the interrupt flag looked at between any two.
 */
#include "config.h"
#include "vm/mpi/comm.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "vm/core/except.h"
#ifdef HAVE_MPI
#include <mpi.h>
#endif
#ifdef VL_MPI_SONAME
#include <dlfcn.h>

/* MPI loaded at run time (configure: VL_MPI_SONAME): its functions, looked
   up by name when a state first joins; every call of this file goes
   through them (the macros below).  Process-wide, as MPI is. */
#define VL_MPI_FUNCTIONS(X)                                             \
    X(Abort) X(Comm_dup) X(Comm_free) X(Comm_rank)                     \
    X(Comm_set_errhandler) X(Comm_size) X(Error_string) X(Finalize)    \
    X(Finalized) X(Get_count) X(Iallreduce) X(Ibarrier) X(Ibcast)      \
    X(Improbe) X(Init_thread) X(Initialized) X(Iprobe) X(Isend)        \
    X(Mrecv) X(Recv) X(Request_free) X(Test)
static struct {
#define VL_MPI_FIELD_(NAME) __typeof__(MPI_##NAME) *NAME;
    VL_MPI_FUNCTIONS(VL_MPI_FIELD_)
#undef VL_MPI_FIELD_
    int loaded;
} mpi;
#define MPI_Abort (mpi.Abort)
#define MPI_Comm_dup (mpi.Comm_dup)
#define MPI_Comm_free (mpi.Comm_free)
#define MPI_Comm_rank (mpi.Comm_rank)
#define MPI_Comm_set_errhandler (mpi.Comm_set_errhandler)
#define MPI_Comm_size (mpi.Comm_size)
#define MPI_Error_string (mpi.Error_string)
#define MPI_Finalize (mpi.Finalize)
#define MPI_Finalized (mpi.Finalized)
#define MPI_Get_count (mpi.Get_count)
#define MPI_Iallreduce (mpi.Iallreduce)
#define MPI_Ibarrier (mpi.Ibarrier)
#define MPI_Ibcast (mpi.Ibcast)
#define MPI_Improbe (mpi.Improbe)
#define MPI_Init_thread (mpi.Init_thread)
#define MPI_Initialized (mpi.Initialized)
#define MPI_Iprobe (mpi.Iprobe)
#define MPI_Isend (mpi.Isend)
#define MPI_Mrecv (mpi.Mrecv)
#define MPI_Recv (mpi.Recv)
#define MPI_Request_free (mpi.Request_free)
#define MPI_Test (mpi.Test)

/* Load MPI (once): 1, or 0 with the reason in *why. */
static int load_mpi(const char **why)
{
    if (mpi.loaded)
        return 1;
    void *h = dlopen(VL_MPI_SONAME, RTLD_NOW | RTLD_GLOBAL);
    if (h == NULL) {
        const char *e = dlerror();
        *why = e != NULL ? e : "cannot load " VL_MPI_SONAME;
        return 0;
    }
#define VL_MPI_LOOKUP_(NAME)                                            \
    *(void **)&mpi.NAME = dlsym(h, "MPI_" #NAME);                      \
    if (mpi.NAME == NULL) {                                             \
        *why = "MPI_" #NAME " is missing from " VL_MPI_SONAME;         \
        return 0;                                                       \
    }
    VL_MPI_FUNCTIONS(VL_MPI_LOOKUP_)
#undef VL_MPI_LOOKUP_
    mpi.loaded = 1;             /* (the library stays: MPI is for good) */
    return 1;
}
#else
static int load_mpi(const char **why)
{
    (void)why;
    return 1;                   /* linked */
}
#endif

/* A message a rank sent itself (malloc'd). */
typedef struct SelfMsg {
    struct SelfMsg *next;
    size_t len;
    unsigned char data[];
} SelfMsg;

struct VlComm {
    int rank, size;
    SelfMsg *head[VL_COMM_CHANNELS];   /* messages to oneself, oldest */
    SelfMsg *tail[VL_COMM_CHANNELS];   /* first, by channel */
#ifdef HAVE_MPI
    int joined;                     /* 'comm' is ours (MPI_Comm_dup) */
    int owns_init;                  /* vlad called MPI_Init_thread */
    int broken;                     /* a collective was interrupted */
    int stopped_by;                 /* the rank whose failure ended a wait
                                       here (its notice), or -1 */
    unsigned char *finished;        /* by rank: which of its end's empty
                                       messages arrived (bit ch: channel
                                       ch's; FIN_BIT: FIN_TAG's) */
    int any_finished;               /* a FIN_TAG message came: its rank + 1 */
    MPI_Comm comm;
    MPI_Comm end;                   /* the end's barrier only: no program's
                                       collective can match it */
    MPI_Request *req;               /* sends not known to be complete */
    void **buf;                     /* and their bytes (malloc'd) */
    size_t npending, cap;
    MPI_Request parked;             /* the interrupted collective */
    void *parked_buf;
#endif
};

/* vlad's messages between ranks (the communicator is vlad's own): the
   tag of channel ch is MSG_TAG + ch */
#define MSG_TAG 1

static VL_NORETURN void no_memory(VladState *S, const char *who)
{
    vl_except_runtime(S, VLAD_ERR_MEMORY, "%s: out of memory", who);
}

/* The state's VlComm, made (rank 0 of 1) at the first use. */
static VlComm *get(VladState *S, const char *who)
{
    if (S->comm == NULL) {
        S->comm = calloc(1, sizeof *S->comm);
        if (S->comm == NULL) {
            if (who == NULL)
                return NULL;
            no_memory(S, who);
        }
        S->comm->size = 1;
    }
    return S->comm;
}

int vl_comm_rank(VladState *S)
{
    return S->comm == NULL ? 0 : S->comm->rank;
}

int vl_comm_size(VladState *S)
{
    return S->comm == NULL ? 1 : S->comm->size;
}

#ifdef HAVE_MPI           /* the waits of messages between ranks */
static VL_NORETURN void interrupted(VladState *S, const char *who,
                                    const char *what)
{
    S->interrupt = 0;
    vl_except_runtime(S, VLAD_ERR_INTERRUPTED, "%s: interrupted while %s",
                      who, what);
}

/* One more turn of a wait: yield (on an idle core that returns at once:
   a message a few hundred microseconds away, as in the lockstep of two
   ranks' reverse sweeps, is met without oversleeping it), then sleep up
   to 1 ms. */
#define YIELD_TURNS 4096u
static void pause_turn(unsigned turn)
{
    if (turn < YIELD_TURNS) {
        sched_yield();
        return;
    }
    turn -= YIELD_TURNS;
    long ns = 10000L << (turn < 7 ? turn : 7);
    if (ns > 1000000L)
        ns = 1000000L;
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}
#endif

static void send_self(VladState *S, VlComm *c, const char *who, int ch,
                      const unsigned char *data, size_t len)
{
    SelfMsg *m = malloc(sizeof *m + len);
    if (m == NULL)
        no_memory(S, who);
    m->next = NULL;
    m->len = len;
    memcpy(m->data, data, len);
    if (c->tail[ch] != NULL)
        c->tail[ch]->next = m;
    else
        c->head[ch] = m;
    c->tail[ch] = m;
}

static unsigned char *recv_self(VladState *S, VlComm *c, const char *who,
                                int ch, size_t *len)
{
    SelfMsg *m = c->head[ch];
    if (m == NULL)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "%s: no message from rank %d (this rank itself) "
                          "is waiting, and none could arrive: the receive "
                          "would wait forever", who, c->rank);
    unsigned char *out = vl_gc_alloc_atomic(m->len > 0 ? m->len : 1);
    memcpy(out, m->data, m->len);
    *len = m->len;
    c->head[ch] = m->next;
    if (c->head[ch] == NULL)
        c->tail[ch] = NULL;
    free(m);
    return out;
}

static void free_self(VlComm *c)
{
    for (int ch = 0; ch < VL_COMM_CHANNELS; ch++) {
        while (c->head[ch] != NULL) {
            SelfMsg *m = c->head[ch];
            c->head[ch] = m->next;
            free(m);
        }
        c->tail[ch] = NULL;
    }
}

#ifdef HAVE_MPI

static void check(VladState *S, const char *who, int rc)
{
    if (rc == MPI_SUCCESS)
        return;
    char text[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(rc, text, &n) != MPI_SUCCESS)
        n = 0;
    text[n] = '\0';
    vl_except_runtime(S, VLAD_ERR_IO, "%s: MPI failed: %s", who,
                      n > 0 ? text : "(no description)");
}

/* The state's communicator, for a communication of more than one rank. */
static VlComm *usable(VladState *S, const char *who)
{
    VlComm *c = get(S, who);
    if (c->broken)
        vl_except_runtime(S, VLAD_ERR_RUNTIME,
                          "%s: an interrupted collective operation left "
                          "the ranks out of step: no more communication",
                          who);
    return c;
}

/* A launcher's variables: MPICH's hydra (PMI), Open MPI, PMIx. */
static int launched(void)
{
    return getenv("PMI_SIZE") != NULL || getenv("PMI_RANK") != NULL
           || getenv("PMIX_RANK") != NULL
           || getenv("OMPI_COMM_WORLD_SIZE") != NULL;
}

VladStatus vl_comm_join(VladState *S, const void *host_comm,
                        const char **why)
{
    if (S->comm != NULL && S->comm->joined) {
        *why = "the state has joined its ranks already";
        return VLAD_ERR_ARGUMENT;
    }
    if (host_comm == NULL && !launched())
        return VLAD_OK;             /* one process: rank 0 of 1 (a host
                                       that initialised MPI hands its
                                       communicator over) */
    if (!load_mpi(why))
        return VLAD_ERR_IO;
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (down) {
        *why = "MPI has been finalised";
        return VLAD_ERR_IO;
    }
    if (host_comm != NULL && !up) {
        *why = "the host's communicator: MPI is not initialised";
        return VLAD_ERR_ARGUMENT;
    }
    if (!up && !launched())
        return VLAD_OK;             /* one process: rank 0 of 1 */
    VlComm *c = get(S, NULL);
    if (c == NULL) {
        *why = "out of memory";
        return VLAD_ERR_MEMORY;
    }
    if (!up) {
        int provided;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided)
            != MPI_SUCCESS) {
            *why = "MPI_Init_thread failed";
            return VLAD_ERR_IO;
        }
        c->owns_init = 1;
    }
    MPI_Comm base = host_comm != NULL ? *(const MPI_Comm *)host_comm
                                      : MPI_COMM_WORLD;
    if (MPI_Comm_dup(base, &c->comm) != MPI_SUCCESS) {
        *why = "MPI_Comm_dup failed";
        return VLAD_ERR_IO;
    }
    if (MPI_Comm_dup(base, &c->end) != MPI_SUCCESS) {
        MPI_Comm_free(&c->comm);
        *why = "MPI_Comm_dup failed";
        return VLAD_ERR_IO;
    }
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(c->end, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c->comm, &c->rank);
    MPI_Comm_size(c->comm, &c->size);
    c->joined = 1;
    c->parked = MPI_REQUEST_NULL;
    c->stopped_by = -1;
    c->finished = calloc((size_t)c->size, 1);
    if (c->finished == NULL) {
        *why = "out of memory";
        return VLAD_ERR_MEMORY;
    }
    return VLAD_OK;
}

/* ===== A rank's failure, told to the others =====

   A rank that stops with an error (vl_comm_abort) first sends each other
   rank a notice, its error's first line, on a tag of its own; a rank
   waiting for a message or in a collective looks for one at each turn
   of its wait and stops with the error "stopped: rank R failed: ...",
   which it reports as its own, then acknowledges (its own
   vl_comm_abort).  The failed rank calls MPI_Abort once every other rank
   has acknowledged, or after ABORT_WAIT seconds (a rank busy computing
   never looks): so every rank that waits says why it stops, and none is
   left running. */
#define ABORT_TAG (MSG_TAG + VL_COMM_CHANNELS)
#define ACK_TAG (ABORT_TAG + 1)
/* A rank whose program is over says so to every other (vl_comm_close):
   an empty message on each channel's tag (a message of the program is
   never empty), which arrives after all it sent there, and one on
   FIN_TAG for the collectives.  A receive from it that meets the empty
   message, or a collective that sees a FIN_TAG one, waits in vain: an
   error, not a wait for ever. */
#define FIN_TAG (ACK_TAG + 1)
#define FIN_BIT (1u << VL_COMM_CHANNELS)
#define FIN_GRACE 2.0           /* seconds (a collective it took part in
                                   completes well before) */
#define ABORT_WAIT 5.0
#define NOTICE_MAX 400

/* A notice that has come: 1, its sender in *from and its text (GC) in
   *text; else 0. */
static int pending_notice(VlComm *c, int *from, char **text)
{
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, ABORT_TAG, c->comm, &flag, &st)
        != MPI_SUCCESS || !flag)
        return 0;
    int n = 0;
    if (MPI_Get_count(&st, MPI_CHAR, &n) != MPI_SUCCESS || n < 0)
        n = 0;
    char *t = vl_gc_alloc_atomic((size_t)n + 1);
    if (MPI_Recv(t, n, MPI_CHAR, st.MPI_SOURCE, ABORT_TAG, c->comm,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS)
        n = 0;
    t[n] = '\0';
    *from = st.MPI_SOURCE;
    *text = t;
    return 1;
}

static VL_NORETURN void stopped(VladState *S, VlComm *c, const char *who,
                                int from, const char *text)
{
    c->stopped_by = from;
    vl_except_runtime(S, VLAD_ERR_RUNTIME, "%s: stopped: rank %d failed: "
                      "%s", who, from, text);
}

/* The end's empty messages, by tag, and the bits of VlComm.finished
   that say each one arrived. */
#define FIN_MESSAGES 3
static const int fin_tags[FIN_MESSAGES] = {MSG_TAG + VL_COMM_PROGRAM,
                                           MSG_TAG + VL_COMM_ADJOINT,
                                           FIN_TAG};
static const unsigned fin_bits[FIN_MESSAGES] = {1u << VL_COMM_PROGRAM,
                                                1u << VL_COMM_ADJOINT,
                                                FIN_BIT};

/* Tell rank 'to' that this one has said why it stops (or that, finished,
   it has nothing to say): vl_comm_abort of the rank that failed waits
   for it. */
static void acknowledge(VlComm *c, int to)
{
    static const int one = 1;
    MPI_Request r;
    if (MPI_Isend(&one, 1, MPI_INT, to, ACK_TAG, c->comm, &r)
        == MPI_SUCCESS)
        MPI_Request_free(&r);
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static VL_NORETURN void ended(VladState *S, const char *who, int src)
{
    vl_except_runtime(S, VLAD_ERR_RUNTIME, "%s: rank %d has finished its "
                      "program: the message it waits for can never come",
                      who, src);
}

/* Whether a rank's FIN_TAG message has come (c->any_finished). */
static int any_over(VlComm *c)
{
    if (c->any_finished)
        return 1;
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, FIN_TAG, c->comm, &flag, &st)
        != MPI_SUCCESS || !flag)
        return 0;
    MPI_Recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, FIN_TAG, c->comm,
             MPI_STATUS_IGNORE);
    c->any_finished = st.MPI_SOURCE + 1;
    c->finished[st.MPI_SOURCE] |= FIN_BIT;
    return 1;
}

/* Every rank is at the end: take in what they sent and nobody received,
   up to their end's empty messages (MPI wants no message left unmatched
   at MPI_Finalize: UCX would say so on standard output).  Each wait is
   bounded (about two seconds). */
static void drain(VlComm *c)
{
    for (int k = 0; k < c->size; k++)
        for (size_t t = 0; k != c->rank && t < FIN_MESSAGES; t++) {
            double end = seconds_now() + FIN_GRACE;
            for (unsigned turn = 0; !(c->finished[k] & fin_bits[t])
                                    && seconds_now() < end; turn++) {
                int found = 0, n = 0;
                MPI_Message msg;
                MPI_Status st;
                if (MPI_Improbe(k, fin_tags[t], c->comm, &found, &msg, &st)
                    != MPI_SUCCESS)
                    break;
                if (!found) {
                    pause_turn(turn);
                    continue;
                }
                if (MPI_Get_count(&st, MPI_BYTE, &n) != MPI_SUCCESS)
                    break;
                void *buf = malloc(n > 0 ? (size_t)n : 1);
                if (buf == NULL)
                    break;
                int rc = MPI_Mrecv(buf, n, MPI_BYTE, &msg,
                                   MPI_STATUS_IGNORE);
                free(buf);
                if (rc != MPI_SUCCESS)
                    break;
                if (n == 0)
                    c->finished[k] |= fin_bits[t];
            }
        }
}

/* Tell every other rank that this one's program is over. */
static void say_finished(VlComm *c)
{
    for (int k = 0; k < c->size; k++)
        for (size_t t = 0; t < FIN_MESSAGES; t++) {
            MPI_Request r;
            if (k != c->rank && MPI_Isend(NULL, 0, MPI_BYTE, k, fin_tags[t],
                                          c->comm, &r) == MPI_SUCCESS)
                MPI_Request_free(&r);
        }
}

/* ===== Long waits, for the host's waiting callback ===== */

/* A wait: when it began, and whether the callback was told. */
typedef struct Wait {
    double start;
    int told;
} Wait;

#define WAIT_TELL_SECONDS 1.0

/* At a turn of a wait for 'what': tell the host once it has lasted a
   second (the clock is read every 64 turns). */
static void wait_turn(VladState *S, Wait *w, unsigned turn,
                      const char *what)
{
    if (S->config.waiting == NULL || w->told || (turn & 63) != 63)
        return;
    if (w->start == 0) {
        w->start = seconds_now();
        return;
    }
    if (seconds_now() - w->start >= WAIT_TELL_SECONDS) {
        w->told = 1;
        S->config.waiting(S->config.userdata, what, seconds_now() - w->start);
    }
}

/* The wait has ended (or was interrupted). */
static void wait_end(VladState *S, const Wait *w)
{
    if (w->told && S->config.waiting != NULL)
        S->config.waiting(S->config.userdata, NULL,
                          seconds_now() - w->start);
}

/* Free the bytes of the sends MPI has completed (or failed: the first
   failure's code is returned, else MPI_SUCCESS). */
static int reap(VlComm *c)
{
    size_t j = 0;
    int failed = MPI_SUCCESS;
    for (size_t i = 0; i < c->npending; i++) {
        int done = 0;
        int rc = MPI_Test(&c->req[i], &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS && failed == MPI_SUCCESS)
            failed = rc;
        if (done || rc != MPI_SUCCESS) {
            free(c->buf[i]);
        } else {
            c->req[j] = c->req[i];
            c->buf[j++] = c->buf[i];
        }
    }
    c->npending = j;
    return failed;
}

void vl_comm_send(VladState *S, const char *who, int ch, int dest,
                  const unsigned char *data, size_t len)
{
    VlComm *c = usable(S, who);
    S->msg_sent[ch]++;
    S->msg_bytes[ch] += (int64_t)len;
    if (dest == c->rank) {
        send_self(S, c, who, ch, data, len);
        return;
    }
    if (len > (size_t)INT32_MAX)
        vl_except_runtime(S, VLAD_ERR_RUNTIME, "%s: a message of %zu bytes "
                          "is too long (at most %d)", who, len, INT32_MAX);
    check(S, who, reap(c));
    if (c->npending == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        MPI_Request *req = realloc(c->req, cap * sizeof *req);
        if (req == NULL)
            no_memory(S, who);
        c->req = req;
        void **buf = realloc(c->buf, cap * sizeof *buf);
        if (buf == NULL)
            no_memory(S, who);
        c->buf = buf;
        c->cap = cap;
    }
    void *copy = malloc(len > 0 ? len : 1);
    if (copy == NULL)
        no_memory(S, who);
    memcpy(copy, data, len);
    MPI_Request r;
    int rc = MPI_Isend(copy, (int)len, MPI_BYTE, dest, MSG_TAG + ch, c->comm,
                       &r);
    if (rc != MPI_SUCCESS)
        free(copy);
    check(S, who, rc);
    c->req[c->npending] = r;
    c->buf[c->npending++] = copy;
}

unsigned char *vl_comm_recv(VladState *S, const char *who, int ch, int src,
                            size_t *len)
{
    VlComm *c = usable(S, who);
    if (src == c->rank)
        return recv_self(S, c, who, ch, len);
    if (c->finished[src] & (1u << ch))
        ended(S, who, src);
    MPI_Message msg;
    MPI_Status st;
    Wait w = {0, 0};
    char what[64];
    snprintf(what, sizeof what, "a message from rank %d", src);
    for (unsigned turn = 0;; turn++) {
        int found = 0;
        check(S, who, MPI_Improbe(src, MSG_TAG + ch, c->comm, &found, &msg,
                                      &st));
        if (found)
            break;
        int from;
        char *text;
        if (pending_notice(c, &from, &text)) {
            wait_end(S, &w);
            stopped(S, c, who, from, text);
        }
        if (S->interrupt) {
            char waiting[80];
            snprintf(waiting, sizeof waiting, "waiting for %s", what);
            wait_end(S, &w);
            interrupted(S, who, vl_gc_strdup(waiting));
        }
        wait_turn(S, &w, turn, what);
        pause_turn(turn);
    }
    wait_end(S, &w);
    int n = 0;
    check(S, who, MPI_Get_count(&st, MPI_BYTE, &n));
    unsigned char *out = vl_gc_alloc_atomic(n > 0 ? (size_t)n : 1);
    check(S, who, MPI_Mrecv(out, n, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
    if (n == 0) {                   /* src's program is over */
        c->finished[src] |= 1u << ch;
        ended(S, who, src);
    }
    *len = (size_t)n;
    return out;
}

/* Wait for the collective 'r' on 'buf' (malloc'd, 'size' bytes), then
   copy it to 'out'.  Interrupted: the request and the buffer are parked
   (MPI may still write to it) and the communicator is broken. */
static void finish(VladState *S, VlComm *c, const char *who, MPI_Request r,
                   void *buf, void *out, size_t size)
{
    Wait w = {0, 0};
    double over_since = 0;
    char what[80];
    snprintf(what, sizeof what, "the other ranks in %s", who);
    for (unsigned turn = 0;; turn++) {
        int done = 0;
        int rc = MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            free(buf);
        check(S, who, rc);
        if (done)
            break;
        int from;
        char *text;
        int notice = pending_notice(c, &from, &text);
        /* a rank that has finished may have taken its part in this one
           before: it fails only if it does not complete in a while */
        int over = 0;
        if (any_over(c)) {
            if (over_since == 0)
                over_since = seconds_now();
            over = seconds_now() - over_since > FIN_GRACE;
        }
        if (notice || over || S->interrupt) {
            c->broken = 1;
            c->parked = r;
            c->parked_buf = buf;
            wait_end(S, &w);
            if (notice)
                stopped(S, c, who, from, text);
            if (over)
                vl_except_runtime(S, VLAD_ERR_RUNTIME, "%s: rank %d has "
                                  "finished its program: it will never "
                                  "take part in this collective operation",
                                  who, c->any_finished - 1);
            interrupted(S, who, "in a collective operation");
        }
        wait_turn(S, &w, turn, what);
        pause_turn(turn);
    }
    wait_end(S, &w);
    memcpy(out, buf, size);
    free(buf);
}

static void *copy_of(VladState *S, const char *who, const void *data,
                     size_t size)
{
    void *buf = malloc(size > 0 ? size : 1);
    if (buf == NULL)
        no_memory(S, who);
    memcpy(buf, data, size);
    return buf;
}

void vl_comm_max(VladState *S, const char *who, int64_t *v, int n)
{
    VlComm *c = usable(S, who);
    if (c->size == 1)
        return;
    void *buf = copy_of(S, who, v, (size_t)n * sizeof *v);
    MPI_Request r;
    int rc = MPI_Iallreduce(MPI_IN_PLACE, buf, n, MPI_INT64_T, MPI_MAX,
                            c->comm, &r);
    if (rc != MPI_SUCCESS)
        free(buf);
    check(S, who, rc);
    finish(S, c, who, r, buf, v, (size_t)n * sizeof *v);
}

void vl_comm_sum(VladState *S, const char *who, double *v, size_t n)
{
    VlComm *c = usable(S, who);
    if (c->size == 1 || n == 0)
        return;
    if (n > (size_t)INT32_MAX)
        vl_except_runtime(S, VLAD_ERR_RUNTIME, "%s: %zu reals are too many "
                          "for one reduction", who, n);
    void *buf = copy_of(S, who, v, n * sizeof *v);
    MPI_Request r;
    int rc = MPI_Iallreduce(MPI_IN_PLACE, buf, (int)n, MPI_DOUBLE, MPI_SUM,
                            c->comm, &r);
    if (rc != MPI_SUCCESS)
        free(buf);
    check(S, who, rc);
    finish(S, c, who, r, buf, v, n * sizeof *v);
}

void vl_comm_bcast(VladState *S, const char *who, int root, void *data,
                   size_t len)
{
    VlComm *c = usable(S, who);
    if (c->size == 1 || len == 0)
        return;
    if (len > (size_t)INT32_MAX)
        vl_except_runtime(S, VLAD_ERR_RUNTIME, "%s: a value of %zu bytes is "
                          "too long (at most %d)", who, len, INT32_MAX);
    void *buf = copy_of(S, who, data, len);
    MPI_Request r;
    int rc = MPI_Ibcast(buf, (int)len, MPI_BYTE, root, c->comm, &r);
    if (rc != MPI_SUCCESS)
        free(buf);
    check(S, who, rc);
    finish(S, c, who, r, buf, data, len);
}

void vl_comm_abort(VladState *S, int status, const char *why)
{
    VlComm *c = S->comm;
    if (c == NULL || !c->joined || c->size <= 1)
        return;
    MPI_Request r;
    int expected = 0, got = 0;
    if (c->stopped_by >= 0) {
        /* another rank failed first: say so, and wait for its abort,
           which comes once every waiting rank has said why it stops (an
           abort from here would end those that have not yet); should it
           not come (that rank died), end the job from here */
        acknowledge(c, c->stopped_by);
        double end = seconds_now() + ABORT_WAIT + 1;
        for (unsigned turn = 0; seconds_now() < end; turn++)
            pause_turn(turn);
        MPI_Abort(c->comm, status);
    } else {
        /* tell the others, and wait until they have said why they stop */
        size_t n = strcspn(why != NULL ? why : "", "\n");
        char text[NOTICE_MAX + 1];
        if (n > NOTICE_MAX)
            n = NOTICE_MAX;
        memcpy(text, why != NULL ? why : "", n);
        text[n] = '\0';
        for (int k = 0; k < c->size; k++)
            if (k != c->rank
                && MPI_Isend(text, (int)n, MPI_CHAR, k, ABORT_TAG, c->comm,
                             &r) == MPI_SUCCESS) {
                MPI_Request_free(&r);
                expected++;
            }
    }
    double end = seconds_now() + ABORT_WAIT;
    for (unsigned turn = 0; got < expected && seconds_now() < end; turn++) {
        int flag = 0, from;
        char *text;
        MPI_Status st;
        int ack;
        if (MPI_Iprobe(MPI_ANY_SOURCE, ACK_TAG, c->comm, &flag, &st)
                == MPI_SUCCESS && flag
            && MPI_Recv(&ack, 1, MPI_INT, st.MPI_SOURCE, ACK_TAG, c->comm,
                        MPI_STATUS_IGNORE) == MPI_SUCCESS)
            got++;
        else if (pending_notice(c, &from, &text))
            got++;              /* it failed too: it says so itself */
        else
            pause_turn(turn);
    }
    MPI_Abort(c->comm, status);
}

/* Turns of pause_turn the end gives sends to complete once every program
   is over (the first ones only yield; then about a second in all). */
#define END_TURNS (YIELD_TURNS + 1000)

/* The barrier of the end (vl_comm_close), polled as a receive is, reaping
   completed sends meanwhile: 1 when every rank has reached it, 0 when an
   interrupt or a failure ended the wait. */
static int end_together(VladState *S, VlComm *c)
{
    MPI_Request end;
    if (S->interrupt || MPI_Ibarrier(c->end, &end) != MPI_SUCCESS)
        return 0;
    for (unsigned turn = 0;; turn++) {
        int done = 0;
        (void)reap(c);
        if (MPI_Test(&end, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return 0;
        if (done)
            return 1;
        if (S->interrupt)
            return 0;               /* the barrier stays with MPI */
        int from;
        char *text;
        if (pending_notice(c, &from, &text))    /* this one has finished: */
            acknowledge(c, from);               /* nothing to say */
        pause_turn(turn);
    }
}

void vl_comm_close(VladState *S)
{
    VlComm *c = S->comm;
    if (c == NULL)
        return;
    S->comm = NULL;
    free_self(c);
    int clean = 1;
    if (c->joined) {
        /* The end is agreed on: no rank enters MPI_Finalize before every
           rank has finished its program.  A rank that stops with an error
           after another has finished then finds it here, in a wait that
           its MPI_Abort ends (inside MPI_Finalize MPICH's abort never
           returns, and the job would hang).  A vlad_interrupt (Ctrl-C,
           SIGTERM) ends the wait too. */
        if (c->size > 1 && c->parked == MPI_REQUEST_NULL) {
            say_finished(c);
            clean = end_together(S, c);
            if (clean)
                drain(c);
        }
        /* Every program is over: a send received has completed or soon
           will (its data is out); one still pending after about a second
           was never received, and never will be (an erroneous program,
           MPI): the end does not wait for it for ever. */
        for (unsigned turn = 0; c->npending > 0 && turn < END_TURNS;
             turn++) {
            (void)reap(c);          /* a failed send is over too */
            if (c->npending > 0)
                pause_turn(turn);
        }
        /* never received: let go of; their bytes stay with MPI until it
           is finalized */
        for (size_t i = 0; i < c->npending; i++)
            MPI_Request_free(&c->req[i]);
        if (c->parked != MPI_REQUEST_NULL) {
            int done = 0;
            if (MPI_Test(&c->parked, &done, MPI_STATUS_IGNORE)
                == MPI_SUCCESS && done)
                free(c->parked_buf);
            else
                clean = 0;
        }
        if (clean) {
            MPI_Comm_free(&c->comm);
            MPI_Comm_free(&c->end);
        }
        if (clean && c->owns_init) {
            MPI_Finalize();
            for (size_t i = 0; i < c->npending; i++)
                free(c->buf[i]);
        }
    }
    free(c->req);
    free(c->buf);
    free(c->finished);
    free(c);
}

#else   /* !HAVE_MPI: one rank; only messages to oneself */

VladStatus vl_comm_join(VladState *S, const void *host_comm,
                        const char **why)
{
    (void)S;
    if (host_comm != NULL) {
        *why = "vlad was built without MPI (configure --without-mpi)";
        return VLAD_ERR_ARGUMENT;
    }
    return VLAD_OK;                 /* rank 0 of 1 */
}

void vl_comm_send(VladState *S, const char *who, int ch, int dest,
                  const unsigned char *data, size_t len)
{
    (void)dest;                     /* 0: checked by the caller */
    S->msg_sent[ch]++;
    S->msg_bytes[ch] += (int64_t)len;
    send_self(S, get(S, who), who, ch, data, len);
}

unsigned char *vl_comm_recv(VladState *S, const char *who, int ch, int src,
                            size_t *len)
{
    (void)src;
    return recv_self(S, get(S, who), who, ch, len);
}

void vl_comm_max(VladState *S, const char *who, int64_t *v, int n)
{
    (void)S, (void)who, (void)v, (void)n;
}

void vl_comm_sum(VladState *S, const char *who, double *v, size_t n)
{
    (void)S, (void)who, (void)v, (void)n;
}

void vl_comm_bcast(VladState *S, const char *who, int root, void *data,
                   size_t len)
{
    (void)S, (void)who, (void)root, (void)data, (void)len;
}

void vl_comm_abort(VladState *S, int status, const char *why)
{
    (void)S, (void)status, (void)why;
}

void vl_comm_close(VladState *S)
{
    VlComm *c = S->comm;
    if (c == NULL)
        return;
    S->comm = NULL;
    free_self(c);
    free(c);
}

#endif
