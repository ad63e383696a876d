/*
 * tests/fuzz/fuzz-api.c -- libFuzzer harness: the API's value boundary
 *
 * The input is a program of API calls: each byte picks an operation and
 * the bytes after it its operands.  Two states (step limit FUZZ_API_STEPS
 * per form, heap limit FUZZ_API_HEAP, output discarded) and 16 value
 * slots (C locals: the collector sees them) are operated on through the
 * public interface only (include/vlad.h):
 *   - values: reals from 8 raw bytes (NaN payloads, infinities, denormals,
 *     huge), special reals, booleans, (), pairs, lists of numbers, long
 *     and deeply nested lists, and forged values: the zero VladValue,
 *     internal tags, tags out of range, a boolean of any int, a real with
 *     internal bits, pointer tags without a pointer (a forged non-NULL
 *     pointer cannot be checked and is not generated);
 *   - every function that takes a value: vlad_call, vlad_resume, the
 *     derivative conveniences, vlad_set_global, vlad_to_string, vlad_cons,
 *     the predicates and accessors, vlad_numbers_of_list, references;
 *   - globals looked up and bound, small programs evaluated (procedures,
 *     checkpoints, definitions), strategies and limits set, interrupts
 *     requested and resumed (twice), states closed and reopened;
 *   - host primitives that misbehave: return the zero value or a forged
 *     one, close their own state, change it while it runs (set_global,
 *     set_checkpoint, register), evaluate on it.
 * Values are used only as the API promises: a value belongs to the state
 * (and the generation of it) that made it, except data the harness built
 * itself from reals, booleans and () (vlad_cons and friends), which any
 * state may be given, also after its maker was closed; the accessors that
 * take no state read any value.
 * Properties checked besides the sanitizers: every status is one of
 * VladStatus and agrees with vlad_last_error, a failure has a message;
 * a forged value is always refused (VLAD_ERR_ARGUMENT, or the neutral
 * result); a state that was not closed still evaluates code at the end.
 */
#include "config.h"
#include "include/vlad.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_API_STEPS
#define FUZZ_API_STEPS 20000
#endif
#ifndef FUZZ_API_HEAP
#define FUZZ_API_HEAP ((size_t)64 << 20)
#endif
#define NSLOTS 16
#define MAX_OPS 300
#define PRINT_LIMIT 200000      /* slots printed only below this size */

/* Where a slot's value came from. */
typedef struct Origin {
    int state;          /* the state that made it; -1: host data */
    unsigned gen;       /* that state's generation when it was made */
    int forged;         /* not a value: must be refused */
    double size;        /* a bound on its printed size (shared pairs) */
} Origin;

typedef struct Fuzz {
    const uint8_t *p, *end;     /* the unread input */
    VladState *S[2];
    unsigned gen[2];            /* bumped when a state is closed */
    int host_closed;            /* a host primitive closed its state */
} Fuzz;

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz-api: property violated: %s%s%s\n", what,
            detail ? ": " : "", detail ? detail : "");
    abort();
}

static unsigned byte(Fuzz *f)
{
    return f->p < f->end ? *f->p++ : 0;
}

static uint64_t word(Fuzz *f)
{
    uint64_t w = 0;
    for (int k = 0; k < 8; k++)
        w = w << 8 | byte(f);
    return w;
}

static double real(Fuzz *f)
{
    uint64_t w = word(f);
    double d;
    memcpy(&d, &w, sizeof d);
    return d;
}

static void discard(void *ud, const char *text, size_t len)
{
    (void)ud;
    (void)text;
    (void)len;
}

static size_t no_input(void *ud, char *buf, size_t cap)
{
    (void)ud;
    (void)buf;
    (void)cap;
    return 0;
}

static void check_status(VladState *S, VladStatus st)
{
    if (st < VLAD_OK || st > VLAD_ERR_ARGUMENT)
        fail("status out of range", NULL);
    if (st == VLAD_OK)
        return;
    const VladError *e = vlad_last_error(S);
    if (e->status != st)
        fail("vlad_last_error has another status", e->text);
    if (e->message == NULL || e->message[0] == '\0' || e->text == NULL)
        fail("error without a message", NULL);
}

/* ===== host primitives that misbehave ===== */

static Fuzz *current;           /* the input being run (host callbacks) */

static VladStatus h_identity(VladState *S, void *ud, const VladValue *a,
                             VladValue *r)
{
    (void)S;
    (void)ud;
    *r = a[0];
    return VLAD_OK;
}

static VladStatus h_zero(VladState *S, void *ud, const VladValue *a,
                         VladValue *r)
{
    (void)S;
    (void)ud;
    (void)a;
    memset(r, 0, sizeof *r);
    return VLAD_OK;
}

static VladStatus h_forged(VladState *S, void *ud, const VladValue *a,
                           VladValue *r)
{
    (void)S;
    (void)ud;
    (void)a;
    r->opaque_[0] = 10;         /* VT_RAW */
    r->opaque_[1] = 1;
    return VLAD_OK;
}

static VladStatus h_close(VladState *S, void *ud, const VladValue *a,
                          VladValue *r)
{
    (void)ud;
    vlad_close(S);
    current->host_closed = 1;
    *r = a[0];
    return VLAD_OK;
}

static VladStatus h_change(VladState *S, void *ud, const VladValue *a,
                           VladValue *r)
{
    (void)ud;
    if (vlad_set_global(S, "changed", a[0]) != VLAD_ERR_ARGUMENT
        || vlad_set_checkpoint(S, "bisection") != VLAD_ERR_ARGUMENT
        || vlad_eval_string(S, "1", "in", NULL) != VLAD_ERR_ARGUMENT)
        fail("a running state accepted a change", NULL);
    VladHostPrim p;
    memset(&p, 0, sizeof p);
    p.name = "changed";
    p.arity = 1;
    p.fn = h_identity;
    if (vlad_register(S, &p) != VLAD_ERR_ARGUMENT)
        fail("a running state accepted a registration", NULL);
    *r = a[0];
    return VLAD_OK;
}

static const struct {
    const char *name;
    VladHostFn fn;
} hosts[] = {
    {"h-identity", h_identity}, {"h-zero", h_zero}, {"h-forged", h_forged},
    {"h-close", h_close}, {"h-change", h_change},
};

static VladState *open_state(void)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = discard;
    c.read = no_input;
    c.step_limit = FUZZ_API_STEPS;
    c.heap_limit = FUZZ_API_HEAP;
    VladState *S = vlad_open(&c);
    if (S == NULL)
        fail("vlad_open failed", NULL);
    for (size_t k = 0; k < sizeof hosts / sizeof *hosts; k++) {
        VladHostPrim p;
        memset(&p, 0, sizeof p);
        p.name = hosts[k].name;
        p.arity = 1;
        p.fn = hosts[k].fn;
        check_status(S, vlad_register(S, &p));
    }
    return S;
}

/* ===== the operations ===== */

static const char *const programs[] = {
    "(lambda (x) (* x x))",
    "(lambda (x) (if (pair? x) (length x) x))",
    "(checkpoint (lambda (x) (let loop ((i 0)) (if (= i 100) x "
    "(loop (+ i 1))))) 1 30)",
    "(define (f x) (+ (h-identity x) 1)) f",
    "(lambda (x) (h-zero x))",
    "(lambda (x) (h-forged x))",
    "(lambda (x) (+ 1 (h-close x)))",
    "(lambda (x) (h-change x))",
    "(lambda (x) (let loop ((i 0)) (loop (+ i 1))))",
    "(define (deep n) (if (= n 0) (car n) (+ 1 (deep (- n 1))))) deep",
    "(lambda (l) (map (lambda (x) (* 2 x)) l))",
    "(list 1 #t '() (lambda (y) y))",
    "(j* (lambda (x) (checkpoint (lambda (y) (* x y)) 2 3)) 1 1)",
};

static const char *const names[] = {
    "+", "length", "car", "list", "reverse", "sqrt", "j*", "*j",
    "checkpoint-*j", "resume", "map", "h-identity", "h-zero", "h-close",
    "h-change", "x", "", "%cpj-split", "no-such-name", "changed",
};

static const char *const specs[] = {
    NULL, "", "bisection", "binomial,slots=2", "bisection,base=1",
    "nonsense", "binomial,slots=0", "binomial,base=3",
};

/* Whether slot 'o' may be given to state 's'. */
static int usable(const Fuzz *f, const Origin *o, int s)
{
    return o->forged || o->state < 0
           || (o->state == s && o->gen == f->gen[s] && f->S[s] != NULL);
}

static VladValue forge(Fuzz *f)
{
    VladValue v;
    unsigned kind = byte(f) % 6;
    uint64_t junk = word(f);
    switch (kind) {
    case 0: memset(&v, 0, sizeof v); return v;          /* VT_UNDEF */
    case 1: v.opaque_[0] = 10; break;                   /* VT_RAW */
    case 2:                                             /* no such tag: */
        v.opaque_[0] = 14 + (junk >> 40);               /* past VT_VOID */
        break;
    case 3: v.opaque_[0] = 2; junk |= 2; break;         /* boolean 2+ */
    case 4: v.opaque_[0] = 3 | (uint64_t)(1 + (junk & 0x7F)) << 32; break;
    default:                                            /* NULL pointer */
        v.opaque_[0] = 4 + junk % 6;
        junk = 0;
        break;
    }
    v.opaque_[1] = junk;
    return v;
}

/* Build a list of n numbers (n up to 20,000) or nested n deep. */
static VladValue long_list(VladState *S, unsigned n, int nested)
{
    VladValue l = vlad_nil();
    for (unsigned k = 0; k < n; k++)
        l = nested ? vlad_cons(S, l, vlad_nil())
                   : vlad_cons(S, vlad_number(k), l);
    return l;
}

static void check_forged_refused(VladState *S, VladValue v)
{
    if (vlad_is_number(v) || vlad_is_pair(v) || vlad_is_boolean(v)
        || vlad_is_procedure(v) || vlad_is_checkpoint(v)
        || vlad_to_boolean(v) || vlad_numbers_of_list(v, NULL, 0) != -1
        || !vlad_is_nil(vlad_cons(S, v, vlad_nil())))
        fail("a forged value was accepted by a value function", NULL);
}

static void run(Fuzz *f)
{
    VladValue slot[NSLOTS];
    Origin org[NSLOTS];
    VladRef *ref[2] = {NULL, NULL};
    Origin ref_org[2];
    for (int k = 0; k < NSLOTS; k++) {
        slot[k] = vlad_nil();
        org[k] = (Origin){-1, 0, 0, 1};
    }
    int collects = 0;
    for (int op = 0; op < MAX_OPS && f->p < f->end; op++) {
        unsigned code = byte(f);
        int s = (code >> 7) & 1;        /* the state operated on */
        code &= 0x7F;
        int a = byte(f) % NSLOTS, b = byte(f) % NSLOTS;
        int d = byte(f) % NSLOTS;       /* the destination */
        if (f->S[s] == NULL) {
            f->S[s] = open_state();
            f->gen[s]++;
        }
        VladState *S = f->S[s];
        VladValue out = vlad_nil();
        VladStatus st;
        double x = 0, y = 0, xs[4], vs[4];
        switch (code % 26) {
        case 0:
            slot[d] = vlad_number(real(f));
            org[d] = (Origin){-1, 0, 0, 32};
            break;
        case 1: {
            static const double sp[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0,
                                        1e308, 5e-324, 0x1p62, -1e-300};
            slot[d] = vlad_number(sp[byte(f) % 9]);
            org[d] = (Origin){-1, 0, 0, 32};
            break;
        }
        case 2:
            slot[d] = byte(f) & 1 ? vlad_boolean((int)word(f)) : vlad_nil();
            org[d] = (Origin){-1, 0, 0, 4};
            break;
        case 3:
            slot[d] = forge(f);
            org[d] = (Origin){-1, 0, 1, 20};
            check_forged_refused(S, slot[d]);
            break;
        case 4:                 /* a pair: refused if either is forged */
            if (!usable(f, &org[a], s) || !usable(f, &org[b], s))
                break;
            slot[d] = vlad_cons(S, slot[a], slot[b]);
            if (org[a].forged || org[b].forged) {
                if (!vlad_is_nil(slot[d]))
                    fail("vlad_cons accepted a forged value", NULL);
                org[d] = (Origin){-1, 0, 0, 2};
            } else {
                int owner = org[a].state >= 0 ? org[a].state : org[b].state;
                org[d] = (Origin){owner, owner >= 0 ? f->gen[owner] : 0, 0,
                                  3 + org[a].size + org[b].size};
            }
            break;
        case 5: {
            unsigned n = (byte(f) << 8 | byte(f)) % 20001;
            slot[d] = long_list(S, n, byte(f) & 1);
            org[d] = (Origin){-1, 0, 0, 24.0 * n + 2};
            break;
        }
        case 6: {
            unsigned n = byte(f) % 5;
            for (unsigned k = 0; k < n; k++)
                xs[k] = real(f);
            slot[d] = vlad_list_of_numbers(S, xs, n);
            org[d] = (Origin){-1, 0, 0, 32.0 * n + 2};
            break;
        }
        case 7:                 /* the accessors read any value */
            slot[d] = byte(f) & 1 ? vlad_car(slot[a]) : vlad_cdr(slot[a]);
            org[d] = org[a];
            if (org[a].forged) {
                if (!vlad_is_nil(slot[d]))
                    fail("vlad_car/cdr of a forged value", NULL);
                org[d] = (Origin){-1, 0, 0, 2};
            }
            (void)vlad_to_number(slot[a]);
            (void)vlad_to_boolean(slot[a]);
            (void)vlad_numbers_of_list(slot[a], xs, 4);
            break;
        case 8:
            if (usable(f, &org[a], s) && org[a].size < PRINT_LIMIT) {
                const char *t = vlad_to_string(S, slot[a]);
                if (t == NULL
                    || (org[a].forged && strcmp(t, "#<invalid value>")))
                    fail("vlad_to_string of a forged value", t);
            }
            break;
        case 9: {
            const char *name = names[byte(f) % (sizeof names / sizeof *names)];
            if (vlad_get_global(S, name, &slot[d]))
                org[d] = (Origin){s, f->gen[s], 0, 1e9};   /* unknown */
            break;
        }
        case 10: {
            if (!usable(f, &org[a], s))
                break;
            const char *name = names[byte(f) % (sizeof names / sizeof *names)];
            st = vlad_set_global(S, name, slot[a]);
            check_status(S, st);
            if (org[a].forged && st != VLAD_ERR_ARGUMENT)
                fail("vlad_set_global accepted a forged value", NULL);
            break;
        }
        case 11:
        case 12:
            if (!usable(f, &org[a], s) || !usable(f, &org[b], s))
                break;
            st = vlad_call(S, slot[a], slot[b], &out);
            goto evaluated;
        case 13:
            st = vlad_eval_string(S, programs[byte(f) % (sizeof programs
                                                       / sizeof *programs)],
                                  "fuzz", &out);
            goto evaluated;
        case 14:
            if (!usable(f, &org[a], s))
                break;
            st = vlad_resume(S, slot[a], &out);
            goto evaluated;
        case 15:
            if (!usable(f, &org[a], s))
                break;
            vlad_interrupt(S);
            st = vlad_call(S, slot[a], slot[a], &out);
            if (st == VLAD_ERR_INTERRUPTED && !f->host_closed
                && vlad_interrupted(S, &out)) {
                VladValue u = out;
                st = vlad_resume(S, u, &out);
                if (!f->host_closed) {
                    check_status(S, st);
                    st = vlad_resume(S, u, &out);   /* twice */
                }
            }
            goto evaluated;
        case 16:
            if (!usable(f, &org[a], s))
                break;
            x = real(f);
            st = vlad_derivative(S, slot[a], x, &x, &y);
            goto evaluated_number;
        case 17: {
            if (!usable(f, &org[a], s))
                break;
            unsigned n = byte(f) % 5;
            for (unsigned k = 0; k < n; k++) {
                xs[k] = real(f);
                vs[k] = real(f);
            }
            if (byte(f) & 1)
                st = vlad_gradient(S, slot[a], xs, n, &x, vs);
            else
                st = vlad_directional_derivative(S, slot[a], xs, vs, n, &x,
                                                 &y);
            goto evaluated_number;
        }
        case 18: {
            int r = byte(f) & 1;
            switch (byte(f) % 3) {
            case 0:
                vlad_unref(ref[r]);
                ref[r] = usable(f, &org[a], s) ? vlad_ref(S, slot[a]) : NULL;
                ref_org[r] = org[a];
                if (org[a].forged && ref[r] != NULL)
                    fail("vlad_ref accepted a forged value", NULL);
                break;
            case 1:
                if (ref[r] != NULL) {
                    slot[d] = vlad_ref_get(ref[r]);
                    org[d] = ref_org[r];
                }
                break;
            default:
                if (ref[r] != NULL && !org[a].forged) {
                    vlad_ref_set(ref[r], slot[a]);
                    ref_org[r] = org[a];
                } else {
                    vlad_ref_set(ref[r], slot[a]);   /* refused */
                }
            }
            break;
        }
        case 19:
            check_status(S, vlad_set_checkpoint(
                                S, specs[byte(f) % (sizeof specs
                                                    / sizeof *specs)]));
            break;
        case 20:
            /* never 0 (no limit): the programs include an endless loop
               (F9 in crashers/README.md) */
            vlad_set_step_limit(S, byte(f) % 2 ? FUZZ_API_STEPS
                                               : ((int64_t)byte(f) + 1) * 50);
            break;
        case 21:
            vlad_close(S);
            f->S[s] = NULL;
            break;
        case 22:
            if (collects++ < 2)
                vlad_collect(S);
            {
                VladStats stats;
                vlad_get_stats(S, &stats);
            }
            break;
        case 23:
            if (vlad_interrupted(S, &slot[d]))
                org[d] = (Origin){s, f->gen[s], 0, 1e9};
            break;
        case 24:
            vlad_interrupt(S);
            break;
        default:
            slot[d] = byte(f) & 1 ? vlad_boolean(1) : vlad_number(byte(f));
            org[d] = (Origin){-1, 0, 0, 8};
            break;
        }
        continue;
    evaluated_number:
        if (f->host_closed) {
            f->host_closed = 0;
            f->S[s] = NULL;
            break;
        }
        check_status(S, st);
        if (org[a].forged && st != VLAD_ERR_ARGUMENT)
            fail("a derivative accepted a forged procedure", NULL);
        continue;
    evaluated:
        if (f->host_closed) {
            /* a host primitive closed the state: the call failed and
               the state is gone */
            if (st != VLAD_ERR_ARGUMENT)
                fail("a call that closed its state did not fail", NULL);
            f->host_closed = 0;
            f->S[s] = NULL;
            continue;
        }
        check_status(S, st);
        if ((org[a].forged || org[b].forged) && (code % 26 == 11
                                                 || code % 26 == 12)
            && st != VLAD_ERR_ARGUMENT)
            fail("vlad_call accepted a forged value", NULL);
        slot[d] = out;
        /* a result may hold its arguments several times */
        org[d] = (Origin){s, f->gen[s], 0,
                          4 * (org[a].size + org[b].size) + 1000};
    }
    vlad_unref(ref[0]);
    vlad_unref(ref[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Fuzz f;
    memset(&f, 0, sizeof f);
    f.p = data;
    f.end = data + size;
    current = &f;
    run(&f);
    for (int s = 0; s < 2; s++) {
        if (f.S[s] == NULL)
            continue;
        /* the state survives whatever happened (the code uses no
           global: the input may have rebound any) */
        VladValue r;
        vlad_set_step_limit(f.S[s], FUZZ_API_STEPS);
        VladStatus st = vlad_eval_string(f.S[s], "((lambda (x y) (if x y 0))"
                                         " #t 3)", "after", &r);
        if (st != VLAD_OK || vlad_to_number(r) != 3)
            fail("the state is unusable after the calls",
                 st != VLAD_OK ? vlad_last_error(f.S[s])->text : NULL);
        vlad_close(f.S[s]);
    }
    return 0;
}
