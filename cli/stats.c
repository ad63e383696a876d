/*
 * cli/stats.c -- printing the statistics of a state (--stats, ,stats)
 */
#include "config.h"
#include "cli/stats.h"

static double ratio(int64_t a, int64_t b)
{
    return b > 0 ? (double)a / (double)b : 0.0;
}

void vl_stats_print_run(FILE *f, const VladStats *st, double seconds)
{
    fprintf(f, "steps: %lld\npeak heap: %zu bytes\npeak stack: %zu bytes\n",
            (long long)st->steps_total, st->peak_heap_bytes,
            st->peak_stack_bytes);
    if (st->tape_nodes > 0)
        fprintf(f, "ad tape nodes: %llu\nad tape bytes: %llu\n",
                (unsigned long long)st->tape_nodes,
                (unsigned long long)st->tape_bytes);
    const VladCpjStats *c = &st->checkpoint;
    if (c->calls > 0)
        fprintf(f, "checkpoint-*j runs: %lld\n"
                   "checkpoint-*j primal steps: %lld\n"
                   "checkpoint-*j re-executed steps: %lld (%.2f x primal)\n"
                   "checkpoint-*j base cases: %lld (%lld steps)\n"
                   "checkpoint-*j peak live checkpoints: %lld (%lld bytes)\n"
                   "peak tape nodes: %llu\n",
                (long long)c->calls, (long long)c->primal_steps,
                (long long)c->advanced_steps,
                ratio(c->advanced_steps, c->primal_steps),
                (long long)c->base_cases, (long long)c->base_steps,
                (long long)c->peak_live_checkpoints,
                (long long)c->peak_checkpoint_bytes,
                (unsigned long long)st->peak_tape_nodes);
    fprintf(f, "time: %.3f s\n", seconds);
}

void vl_stats_print_delta(FILE *f, const VladStats *b, const VladStats *a,
                          double seconds)
{
    fprintf(f, "steps: %lld\ntime: %.3f s\n",
            (long long)(a->steps_total - b->steps_total), seconds);
    fprintf(f, "heap: %zu bytes; peak %zu bytes%s\n", a->heap_bytes,
            a->peak_heap_bytes,
            a->peak_heap_bytes > b->peak_heap_bytes ? ""
            : ", reached before this evaluation");
    if (a->peak_stack_bytes > b->peak_stack_bytes)
        fprintf(f, "peak stack: %zu bytes\n", a->peak_stack_bytes);
    if (a->tape_nodes > b->tape_nodes)
        fprintf(f, "ad tape nodes: %llu\nad tape bytes: %llu\n",
                (unsigned long long)(a->tape_nodes - b->tape_nodes),
                (unsigned long long)(a->tape_bytes - b->tape_bytes));
    const VladCpjStats *cb = &b->checkpoint, *ca = &a->checkpoint;
    if (ca->calls == cb->calls)
        return;
    int64_t primal = ca->primal_steps - cb->primal_steps;
    int64_t advanced = ca->advanced_steps - cb->advanced_steps;
    fprintf(f, "checkpoint-*j runs: %lld\n"
               "checkpoint-*j primal steps: %lld\n"
               "checkpoint-*j re-executed steps: %lld (%.2f x primal)\n"
               "checkpoint-*j base cases: %lld (%lld steps)\n",
            (long long)(ca->calls - cb->calls), (long long)primal,
            (long long)advanced, ratio(advanced, primal),
            (long long)(ca->base_cases - cb->base_cases),
            (long long)(ca->base_steps - cb->base_steps));
    /* peaks are kept since the state was opened */
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
    if (a->peak_tape_nodes > b->peak_tape_nodes)
        fprintf(f, "peak tape nodes: %llu\n",
                (unsigned long long)a->peak_tape_nodes);
    else
        fprintf(f, "peak tape nodes: at most %llu (the session's peak)\n",
                (unsigned long long)a->peak_tape_nodes);
}
