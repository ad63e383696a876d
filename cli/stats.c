/*
 * cli/stats.c -- printing the statistics of a state (--stats, ,stats)
 *
 * Each line is "LABEL: NUMBER ..." (bench/ and tests/ad/tape-nodes.sh read
 * the number after the label); what a figure covers is said after it: the
 * tape totals are of every tape recorded, "peak tape nodes" is the longest
 * single tape, printed beside them.  Peaks are kept since the state was
 * opened, so ,stats says when the last evaluation did not raise one, and
 * says nothing of "before" when the peak is where the value is now.
 */
#include "config.h"
#include "cli/stats.h"

static double ratio(int64_t a, int64_t b)
{
    return b > 0 ? (double)a / (double)b : 0.0;
}

/* The three tape lines: totals of 'nodes' and 'bytes', and the longest
   tape ('raised': this evaluation made it; otherwise an upper bound). */
static void print_tape(FILE *f, uint64_t nodes, uint64_t bytes,
                       uint64_t longest, int raised)
{
    fprintf(f, "ad tape nodes: %llu (recorded, all tapes)\n"
               "ad tape bytes: %llu (recorded, all tapes)\n",
            (unsigned long long)nodes, (unsigned long long)bytes);
    if (raised)
        fprintf(f, "peak tape nodes: %llu (the longest tape)\n",
                (unsigned long long)longest);
    else
        fprintf(f, "peak tape nodes: at most %llu (the session's longest "
                   "tape)\n", (unsigned long long)longest);
}

/* The checkpoint-*j lines common to both reports. */
static void print_cpj(FILE *f, int64_t calls, int64_t primal,
                      int64_t advanced, int64_t base_cases,
                      int64_t base_steps)
{
    fprintf(f, "checkpoint-*j runs: %lld\n"
               "checkpoint-*j primal steps: %lld\n"
               "checkpoint-*j re-executed steps: %lld (%.2f x primal)\n"
               "checkpoint-*j base cases: %lld (%lld steps)\n",
            (long long)calls, (long long)primal, (long long)advanced,
            ratio(advanced, primal), (long long)base_cases,
            (long long)base_steps);
}

/* The held states of all runs that went to spill files (spill=DIR), if
   any did. */
static void print_spilled(FILE *f, int64_t written, int64_t read)
{
    if (written > 0 || read > 0)
        fprintf(f, "checkpoint-*j spilled: %lld bytes written, %lld bytes "
                   "read\n", (long long)written, (long long)read);
}

/* The plan of the last outermost checkpoint-*j run beside what happened
   in it. */
static void print_plan(FILE *f, const VladCpjStats *c)
{
    if (c->plan_base == 0)
        return;
    /* the strategy by its name (a plan without slots: bisection and the
       like; with slots: binomial's forms) */
    const char *name = vlad_checkpoint_strategy((int)c->plan_kind);
    if (name == NULL)
        name = "?";
    if (c->plan_slots == 0)
        fprintf(f, "checkpoint-*j plan: %s, base %lld steps\n", name,
                (long long)c->plan_base);
    else if (c->plan_budget > 0 && c->plan_kept > 0)
        fprintf(f, "checkpoint-*j plan: %s, budget %lld bytes: %lld "
                   "slots, base %lld steps, states kept from the first "
                   "run: %lld\n", name, (long long)c->plan_budget,
                (long long)c->plan_slots, (long long)c->plan_base,
                (long long)c->plan_kept);
    else if (c->plan_budget > 0)
        fprintf(f, "checkpoint-*j plan: %s, budget %lld bytes: %lld "
                   "slots, base %lld steps\n", name,
                (long long)c->plan_budget, (long long)c->plan_slots,
                (long long)c->plan_base);
    else
        fprintf(f, "checkpoint-*j plan: %s, %lld slots, base %lld "
                   "steps\n", name, (long long)c->plan_slots,
                (long long)c->plan_base);
    if (c->plan_snapshot_bytes > 0)
        fprintf(f, "checkpoint-*j plan measured: %lld bytes a snapshot, "
                   "%lld tape bytes a step (pilots: %lld steps in all)\n",
                (long long)c->plan_snapshot_bytes,
                (long long)c->plan_step_bytes, (long long)c->pilot_steps);
    if (c->plan_slots > 0 && c->plan_peak_bytes > 0)
        fprintf(f, "checkpoint-*j plan predicted: %lld re-executed steps, "
                   "peak %lld bytes\n", (long long)c->plan_reexec_steps,
                (long long)c->plan_peak_bytes);
    else if (c->plan_slots > 0)
        fprintf(f, "checkpoint-*j plan predicted: %lld re-executed steps\n",
                (long long)c->plan_reexec_steps);
    fprintf(f, "checkpoint-*j plan actual: %lld re-executed steps, peak "
               "%lld bytes\n", (long long)c->last_reexec_steps,
            (long long)c->last_peak_bytes);
    if (c->plan_spill)
        fprintf(f, "checkpoint-*j plan spilled: %lld bytes written, %lld "
                   "bytes read\n", (long long)c->last_spill_bytes_written,
                (long long)c->last_spill_bytes_read);
}

/* A parallel program's communication, when it communicated. */
static void print_messages(FILE *f, int64_t sent, int64_t bytes,
                           int64_t adj, int64_t adj_bytes,
                           int64_t collectives)
{
    if (sent > 0 || adj > 0)
        fprintf(f, "messages sent: %lld (%lld bytes); adjoint messages "
                   "sent: %lld (%lld bytes)\n", (long long)sent,
                (long long)bytes, (long long)adj, (long long)adj_bytes);
    if (collectives > 0)
        fprintf(f, "collective operations: %lld\n", (long long)collectives);
}

/* What checkpoint-*j's first runs logged for their re-executions. */
static void print_log(FILE *f, int64_t messages, int64_t bytes)
{
    if (messages > 0)
        fprintf(f, "checkpoint-*j message log: %lld messages (%lld "
                   "bytes)\n", (long long)messages, (long long)bytes);
}

void vl_stats_print_run(FILE *f, const VladStats *st, double seconds)
{
    fprintf(f, "steps: %lld\npeak heap: %zu bytes\npeak stack: %zu bytes\n",
            (long long)st->steps_total, st->peak_heap_bytes,
            st->peak_stack_bytes);
    if (st->tape_nodes > 0)
        print_tape(f, st->tape_nodes, st->tape_bytes, st->peak_tape_nodes,
                   1);
    const VladCpjStats *c = &st->checkpoint;
    if (c->calls > 0) {
        print_cpj(f, c->calls, c->primal_steps, c->advanced_steps,
                  c->base_cases, c->base_steps);
        fprintf(f, "checkpoint-*j peak live checkpoints: %lld (%lld "
                   "bytes)\n", (long long)c->peak_live_checkpoints,
                (long long)c->peak_checkpoint_bytes);
        print_spilled(f, c->spill_bytes_written, c->spill_bytes_read);
        print_log(f, c->messages_logged, c->message_log_bytes);
        print_plan(f, c);
    }
    print_messages(f, st->messages_sent, st->message_bytes_sent,
                   st->adjoint_messages_sent, st->adjoint_message_bytes_sent,
                   st->collectives);
    fprintf(f, "time: %.3f s\n", seconds);
}

void vl_stats_print_delta(FILE *f, const VladStats *b, const VladStats *a,
                          double seconds)
{
    fprintf(f, "steps: %lld\ntime: %.3f s\n",
            (long long)(a->steps_total - b->steps_total), seconds);
    if (a->peak_heap_bytes <= a->heap_bytes)
        fprintf(f, "heap: %zu bytes (the peak so far)\n", a->heap_bytes);
    else
        fprintf(f, "heap: %zu bytes; peak %zu bytes%s\n", a->heap_bytes,
                a->peak_heap_bytes,
                a->peak_heap_bytes > b->peak_heap_bytes ? ""
                : ", reached before this evaluation");
    if (a->peak_stack_bytes > b->peak_stack_bytes)
        fprintf(f, "peak stack: %zu bytes\n", a->peak_stack_bytes);
    if (a->tape_nodes > b->tape_nodes)
        print_tape(f, a->tape_nodes - b->tape_nodes,
                   a->tape_bytes - b->tape_bytes, a->peak_tape_nodes,
                   a->peak_tape_nodes > b->peak_tape_nodes);
    print_messages(f, a->messages_sent - b->messages_sent,
                   a->message_bytes_sent - b->message_bytes_sent,
                   a->adjoint_messages_sent - b->adjoint_messages_sent,
                   a->adjoint_message_bytes_sent
                   - b->adjoint_message_bytes_sent,
                   a->collectives - b->collectives);
    const VladCpjStats *cb = &b->checkpoint, *ca = &a->checkpoint;
    if (ca->calls == cb->calls)
        return;
    print_cpj(f, ca->calls - cb->calls, ca->primal_steps - cb->primal_steps,
              ca->advanced_steps - cb->advanced_steps,
              ca->base_cases - cb->base_cases,
              ca->base_steps - cb->base_steps);
    if (ca->peak_live_checkpoints > cb->peak_live_checkpoints
        || ca->peak_checkpoint_bytes > cb->peak_checkpoint_bytes)
        fprintf(f, "checkpoint-*j peak live checkpoints: %lld "
                   "(%lld bytes)\n",
                (long long)ca->peak_live_checkpoints,
                (long long)ca->peak_checkpoint_bytes);
    else
        fprintf(f, "checkpoint-*j peak live checkpoints: at most %lld "
                   "(the session's peak, %lld bytes)\n",
                (long long)ca->peak_live_checkpoints,
                (long long)ca->peak_checkpoint_bytes);
    print_spilled(f, ca->spill_bytes_written - cb->spill_bytes_written,
                  ca->spill_bytes_read - cb->spill_bytes_read);
    print_log(f, ca->messages_logged - cb->messages_logged,
              ca->message_log_bytes - cb->message_log_bytes);
    print_plan(f, ca);
}
