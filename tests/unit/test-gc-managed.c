/*
 * tests/unit/test-gc-managed.c -- a *j's tape and collection scheduling
 *
 * A *j's tape chunks are allocated with vl_gc_alloc_managed: while the
 * *j runs they do not count toward the next collection (vm/core/gc.c).  The
 * count must come back when the *j ends.  Checked here: it is back where
 * it was after each kind of *j, repeated: freed with the tape when nothing
 * else can refer to it, handed to the collector when a checkpoint shares
 * it.  A *j captured by a checkpoint in the middle keeps its count until
 * a resume finishes it; and a long *j collects no more often than the
 * same computation without AD.
 */
#include "config.h"

#include "tests/unit/check.h"
#include "tests/unit/state.h"
#include "vm/core/gc.h"

/* The unscheduled count after src is what it was before. */
static void balanced(VladState *S, const char *src)
{
    size_t before = vl_gc_unscheduled_bytes();
    for (int k = 0; k < 3; k++)
        CHECK(run(S, src) == VLAD_OK);
    size_t after = vl_gc_unscheduled_bytes();
    CHECK(after == before);
    if (after != before)
        printf("  %s: %zu -> %zu bytes\n", src, before, after);
}

int main(void)
{
    VladState *S = open_state();
    CHECK(S != NULL);
    if (S == NULL)
        return CHECK_DONE();
    CHECK(run(S, "(define (g x) (let loop ((i 0) (a x))"
                 "  (if (= i 20000) a (loop (+ i 1) (sin a)))))")
          == VLAD_OK);

    /* a private tape, freed after its sweep */
    balanced(S, "(*j g 0.5 1)");
    /* a tape shared with a checkpoint taken and resumed inside the *j */
    balanced(S, "(*j (lambda (x) (resume (checkpoint g x 100))) 0.5 1)");
    /* a *j stopped by a checkpoint after 15000 of its 20000 operations:
       its nodes are not counted until a resume finishes it */
    size_t before = vl_gc_unscheduled_bytes();
    CHECK(run(S, "(define u (checkpoint (lambda (x) (*j g x 1)) 0.5 15000))")
          == VLAD_OK);
    size_t mid = vl_gc_unscheduled_bytes();
    CHECK(mid >= before + (size_t)10000 * 24);
    CHECK(run(S, "(resume u)") == VLAD_OK);
    CHECK(vl_gc_unscheduled_bytes() == before);
    balanced(S, "(resume u)");
    /* checkpoint-*j's base cases: tapes shared with checkpoints */
    balanced(S, "(checkpoint-*j g 0.5 1)");

    /* a *j of 400000 operations (a tape of about 10 MB) collects about
       as often as the computation itself */
    CHECK(run(S, "(define (h x) (let loop ((i 0) (a x))"
                 "  (if (= i 400000) a (loop (+ i 1) (sin a)))))")
          == VLAD_OK);
    vl_gc_collect();
    size_t n0 = vl_gc_collections();
    CHECK(run(S, "(h 0.5)") == VLAD_OK);
    size_t primal = vl_gc_collections() - n0;
    vl_gc_collect();
    n0 = vl_gc_collections();
    CHECK(run(S, "(*j h 0.5 1)") == VLAD_OK);
    size_t rev = vl_gc_collections() - n0;
    CHECK(rev <= primal + 1);
    if (rev > primal + 1)
        printf("  collections: primal %zu, *j %zu\n", primal, rev);

    vl_toplevel_close(S);
    return CHECK_DONE();
}
