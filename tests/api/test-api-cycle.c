/*
 * tests/api/test-api-cycle.c -- create/use/destroy cycles
 *
 * Each cycle opens a state (with callbacks, limits and a strategy), uses
 * most of the API on it -- evaluation, errors, vlad_call, globals,
 * values, references, host primitives with derivatives and effects,
 * the derivative conveniences, checkpoint-*j, an interrupted evaluation
 * resumed -- and closes it.  Checks: every cycle gives the same results,
 * and the collector's heap stops growing (states, and what they
 * allocated, are collected after vlad_close).
 *
 * tests/api/valgrind-leaks.sh runs this program under valgrind
 * --leak-check=full (few cycles: valgrind is slow); make check also runs
 * it natively with more cycles.
 *
 *   test-api-cycle [CYCLES]      default 200
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>
#include "apitest.h"

static size_t written;

/* references that outlive their states, released a few cycles later */
#define NKEPT 8
static VladRef *kept[NKEPT];

static VladRef *swap_kept(VladRef *old, VladRef *new_)
{
    if (old != NULL) {
        CHECK_NEAR(vlad_to_number(vlad_ref_get(old)), 5, 0);
        vlad_unref(old);
    }
    return new_;
}

static void count_write(void *ud, const char *text, size_t len)
{
    (void)ud;
    (void)text;
    written += len;
}

static VladStatus h_cube(VladState *S, void *ud, const VladValue *a,
                         VladValue *r)
{
    (void)S;
    (void)ud;
    double x = vlad_to_number(a[0]);
    *r = vlad_number(x * x * x);
    return VLAD_OK;
}

static VladStatus h_cube1(VladState *S, void *ud, const VladValue *a,
                          VladValue *r)
{
    (void)S;
    (void)ud;
    double x = vlad_to_number(a[0]);
    *r = vlad_number(3 * x * x);
    return VLAD_OK;
}

static int effects;

static VladStatus h_tick(VladState *S, void *ud, const VladValue *a,
                         VladValue *r)
{
    (void)ud;
    effects++;
    if (vlad_to_number(a[0]) < 0)
        return vlad_host_error(S, "negative tick");
    *r = a[0];
    return VLAD_OK;
}

static VladStatus reg(VladState *S, const char *name, VladHostFn fn,
                      const char *partial, int effect)
{
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.arity = 1;
    p.fn = fn;
    p.partial[0] = partial;
    p.effect = effect;
    return vlad_register(S, &p);
}

static void one_cycle(int k)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = count_write;
    c.step_limit = 10000000;
    c.checkpoint = "binomial,slots=4,base=50";
    VladState *S = vlad_open(&c);
    if (S == NULL) {
        CHECK(S != NULL);
        return;
    }
    VladValue v, f, u;
    char src[256];
    snprintf(src, sizeof src, "(define n %d) (define (sq x) (* x x)) "
                              "(write-real n) (map sq (iota 5))", k);
    CHECK_STATUS(S, vlad_eval_string(S, src, "cycle", &v), VLAD_OK);
    CHECK_STR(vlad_to_string(S, v), "(0 1 4 9 16)");
    CHECK_STATUS(S, vlad_eval_string(S, "(car n)", "cycle", NULL),
                 VLAD_ERR_RUNTIME);
    CHECK_STATUS(S, vlad_eval_string(S, "(car", "cycle", NULL),
                 VLAD_ERR_INCOMPLETE);
    CHECK_STATUS(S, vlad_eval_file(S, "/nonexistent.vlad", NULL),
                 VLAD_ERR_IO);
    CHECK(vlad_get_global(S, "sq", &f));
    CHECK_STATUS(S, vlad_call(S, f, vlad_number(k), &v), VLAD_OK);
    CHECK_NEAR(vlad_to_number(v), (double)k * k, 0);
    vlad_set_global(S, "m", vlad_number(2));

    /* references and values */
    double xs[3] = {1, 2, 3}, out[3];
    VladRef *r = vlad_ref(S, vlad_list_of_numbers(S, xs, 3));
    VladRef *r2 = vlad_ref(S, vlad_cons(S, vlad_boolean(1), vlad_nil()));
    CHECK_INT(vlad_numbers_of_list(vlad_ref_get(r), out, 3), 3);
    vlad_ref_set(r2, vlad_number(5));
    vlad_unref(r);
    if (k % 2)
        vlad_unref(r2);
    else
        kept[(k / 2) % NKEPT] = swap_kept(kept[(k / 2) % NKEPT], r2);

    /* host primitives */
    CHECK_STATUS(S, reg(S, "cube'", h_cube1, NULL, 0), VLAD_OK);
    CHECK_STATUS(S, reg(S, "cube", h_cube, "cube'", 0), VLAD_OK);
    CHECK_STATUS(S, reg(S, "tick!", h_tick, NULL, 1), VLAD_OK);
    CHECK_STATUS(S, reg(S, "bad", h_cube, "nope", 0), VLAD_ERR_ARGUMENT);
    CHECK_STATUS(S, vlad_eval_string(S, "(tick! -1)", "cycle", NULL),
                 VLAD_ERR_RUNTIME);
    effects = 0;
    CHECK_STATUS(S, vlad_eval_string(S,
        "(define (g x) (let loop ((i 0) (y x)) (if (= i 300) y "
        "(loop (+ (tick! i) 1) (+ (* 0.99 y) (* 0.001 (cube y)))))))"
        "(checkpoint-*j g 0.5 1)", "cycle", &v), VLAD_OK);
    CHECK_INT(effects, 300);
    double a[2], b[2];
    CHECK_INT(vlad_numbers_of_list(v, a, 2), 2);
    CHECK_STATUS(S, vlad_eval_string(S, "(*j g 0.5 1)", "cycle", &v),
                 VLAD_OK);
    CHECK_INT(vlad_numbers_of_list(v, b, 2), 2);
    CHECK(a[0] == b[0]);
    CHECK_NEAR(a[1], b[1], 1e-12);

    /* derivative conveniences */
    double y, d, g[2], p[2] = {1, 2}, dir[2] = {1, 0};
    CHECK_STATUS(S, vlad_derivative(S, f, 3, &y, &d), VLAD_OK);
    CHECK_NEAR(d, 6, 0);
    CHECK_STATUS(S, vlad_eval_string(S, "(lambda ((list a b)) (* a (cube b)))",
                                     "cycle", &f), VLAD_OK);
    CHECK_STATUS(S, vlad_gradient(S, f, p, 2, &y, g), VLAD_OK);
    CHECK_NEAR(g[0], 8, 0);
    CHECK_NEAR(g[1], 12, 0);
    CHECK_STATUS(S, vlad_directional_derivative(S, f, p, dir, 2, &y, &d),
                 VLAD_OK);
    CHECK_NEAR(d, 8, 0);

    /* an interrupt (requested before the run: it stops the run at its
       first poll) turned into a checkpoint, resumed */
    CHECK_STATUS(S, vlad_eval_string(S, "(define (count i) (if (= i 0) 0 "
                                        "(+ 1 (count (- i 1)))))", "cycle",
                                     NULL), VLAD_OK);
    vlad_interrupt(S);
    VladStatus st = vlad_eval_string(S, "(count 20000)", "cycle", &v);
    CHECK_INT(st, VLAD_ERR_INTERRUPTED);
    if (st == VLAD_ERR_INTERRUPTED && vlad_interrupted(S, &u)) {
        CHECK_STATUS(S, vlad_resume(S, u, &v), VLAD_OK);
        CHECK_NEAR(vlad_to_number(v), 20000, 0);
    }
    /* the step limit */
    vlad_set_step_limit(S, 100);
    CHECK_STATUS(S, vlad_eval_string(S, "(count 20000)", "cycle", NULL),
                 VLAD_ERR_LIMIT);
    CHECK_STATUS(S, vlad_set_checkpoint(S, "bisection"), VLAD_OK);
    CHECK_STATUS(S, vlad_set_checkpoint(S, "x"), VLAD_ERR_ARGUMENT);
    VladStats stats;
    vlad_get_stats(S, &stats);
    CHECK(stats.checkpoint.calls >= 1);
    vlad_close(S);
}

/* The live data after a full collection (the size of the heap itself
   depends on how fragmented it became, more so under the sanitizers). */
static size_t heap_now(void)
{
    VladState *S = vlad_open(NULL);
    VladStats st;
    vlad_collect(S);
    vlad_get_stats(S, &st);
    vlad_close(S);
    return st.heap_used_bytes;
}

int main(int argc, char **argv)
{
    /* for valgrind-leaks.sh: exit 0 when built with AddressSanitizer */
    if (argc > 1 && strcmp(argv[1], "--sanitized") == 0) {
#if defined(__SANITIZE_ADDRESS__)
        return 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
        return 0;
#endif
#endif
        return 1;
    }
    int cycles = argc > 1 ? atoi(argv[1]) : 200;
    if (cycles < 1)
        cycles = 1;
    /* the largest heap seen in the second quarter of the cycles, and in
       the last quarter */
    size_t warm = 0, end = 0;
    for (int k = 0; k < cycles; k++) {
        one_cycle(k);
        if (k >= cycles / 4 && k < cycles / 2) {
            size_t h = heap_now();
            warm = h > warm ? h : warm;
        } else if (k >= cycles - cycles / 4) {
            size_t h = heap_now();
            end = h > end ? h : end;
        }
    }
    for (int k = 0; k < NKEPT; k++)
        kept[k] = swap_kept(kept[k], NULL);
    printf("%d cycles; largest live heap %zu bytes in the second quarter, %zu "
           "in the last; %zu bytes written\n", cycles, warm, end, written);
    /* the heap does not keep growing with the cycles (a leak of a few KB
       per cycle would show over many cycles) */
    if (cycles >= 100)
        CHECK(end <= warm + (2u << 20));

    /* a registration is garbage-collected memory: one replaced by
       registering the name again is collected, and so are a closed
       state's (vm/api/apihost.c) */
    if (cycles >= 100) {
        VladState *S = vlad_open(NULL);
        VladStats s0, s1;
        for (int k = 0; k < 2000; k++)
            reg(S, "cube", h_cube, NULL, 0);
        vlad_collect(S);
        vlad_get_stats(S, &s0);
        for (int k = 0; k < 200000; k++)
            reg(S, "cube", h_cube, NULL, 0);
        vlad_collect(S);
        vlad_get_stats(S, &s1);
        CHECK_STR(apitest_eval(S, "(cube 2)"), "8");
        vlad_close(S);
        /* 200000 leaked records of ~60 bytes would be ~12 MB of live
           data after a full collection; none: the live data stays as it
           was (the heap's size itself follows the garbage made, which
           varies) */
        size_t grew = s1.heap_used_bytes > s0.heap_used_bytes
                      ? s1.heap_used_bytes - s0.heap_used_bytes : 0;
        printf("re-registering one name 200000 times: live data grew by "
               "%zu bytes (heap %zu -> %zu)\n", grew, s0.heap_bytes,
               s1.heap_bytes);
        CHECK(grew <= (2u << 20));
    }
    return CHECK_DONE();
}
