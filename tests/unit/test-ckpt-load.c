/*
 * tests/unit/test-ckpt-load.c -- a checkpoint file is loaded, or
 * refused, with work and memory in proportion to its size (issue 31:
 * H1, H2, R1 and the tag check), counted by the loader itself
 * (CkptLoadStats, vm/persist/ckptload.h), never timed
 *
 * Each forged file is built at the size of the outside attack's
 * reproducer and at ten times it (the reproducers' ratio of work to
 * bytes was quadratic): the counts must not grow faster than the file.
 *   H1  a text of 100,000 forms and 10^4 / 10^5 units naming the last:
 *       one compilation (there was one per unit); a 20,000-deep form
 *       named 10^3 / 10^4 times: one; a unit per form: one per form;
 *       a form named twice with different inline decisions: refused.
 *   H2  a run of 10^6 frames and 2*10^4 / 2*10^5 sequences over all of
 *       it: the run indexed once, the same work for both (each sequence
 *       scanned the run).
 *   R1  10^4 / 10^5 closures of 5,000 captured values never filled:
 *       refused at once, the values waited for never more than the
 *       bytes left (each closure allocated 80 KB: 8 GB at 10^5).
 *   tags  a chain of sequences, each one j* frame deeper, a checkpoint
 *       on each: top down, each frame is looked at once; bottom up, the
 *       walks add up quadratically and the budget (16 steps a byte)
 *       refuses a large chain; two frames sharing a tag are refused.
 *   and an interrupt asked for before the load stops it, nothing
 *   defined.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "tests/unit/check.h"
#include "tests/unit/state.h"
#include "vm/persist/ckptload.h"
#include "vm/persist/ckptsave.h"
#include "parser/read.h"
#include "vm/core/unit.h"
#include "tests/api/forge.h"

/* ===== Loading, with the loader's counts ===== */

typedef struct Load {
    const unsigned char *data;
    size_t len;
    Value out;
    CkptLoadStats st;
} Load;

static void load_job(VladState *S, void *ud)
{
    Load *l = ud;
    CkptAccept accept = {NULL, NULL, &l->st};
    l->out = vl_ckptload_value(S, l->data, l->len, "<forged>", NULL, &accept);
}

static unsigned char header[32];

/* Load the payload 'pl' (framed with this build's header): its status,
   its counts in '*st', its value in '*out'. */
static VladStatus load(VladState *S, const Buf *pl, CkptLoadStats *st,
                       Value *out)
{
    size_t len;
    unsigned char *f = forge_frame(header, pl, &len);
    Load l = {f, len, NIL_VAL, {0, 0, 0, 0}};
    VladStatus status = vl_toplevel_job(S, load_job, &l);
    free(f);
    if (st != NULL)
        *st = l.st;
    if (out != NULL)
        *out = l.out;
    return status;
}

static const char *message(VladState *S)
{
    return S->err.message != NULL ? S->err.message : "";
}

typedef struct Save {
    Value u;
    CkptOut file;
} Save;

static void save_job(VladState *S, void *ud)
{
    Save *s = ud;
    vl_ckptsave_file(S, s->u, NULL, &s->file);
}

/* The file of checkpoint u (the global 'name'). */
static CkptOut saved(VladState *S, const char *name)
{
    Save s;
    memset(&s, 0, sizeof s);
    if (!vl_state_lookup(S, name, &s.u)
        || vl_toplevel_job(S, save_job, &s) != VLAD_OK) {
        printf("cannot save %s\n", name);
        exit(1);
    }
    return s.file;
}

/* The hash a unit of form 'form' of 'text' has (vm/core/unit.h). */
typedef struct Hash {
    const char *text;
    uint32_t form;
    uint64_t hash;
} Hash;

static void hash_job(VladState *S, void *ud)
{
    Hash *h = ud;
    uint32_t n;
    Datum **forms = vl_unit_read(S, h->text, strlen(h->text), "t.vlad",
                                 "<test>", &n);
    VlUnit *u = vl_unit_recompile(S, forms[h->form], h->text,
                                  strlen(h->text), "t.vlad", h->form, 0);
    h->hash = vl_unit_hash(u);
}

static uint64_t unit_hash(VladState *S, const char *text, uint32_t form)
{
    Hash h = {text, form, 0};
    if (vl_toplevel_job(S, hash_job, &h) != VLAD_OK) {
        printf("cannot compile form %u: %s\n", form, message(S));
        exit(1);
    }
    return h.hash;
}

/* ===== H1 ===== */

/* A text of 'nforms' forms (define (g x) x) and 'reps' units of its last
   form, or (each) a unit of each form; resumed. */
static void units(VladState *S, size_t nforms, size_t reps, int each)
{
    char *text = forge_repeat("(define (g x) x)\n", nforms, "", "");
    Buf b = {0};
    forge_units(&b, text, nforms - 1, each ? nforms : reps, each,
                unit_hash(S, text, 0));         /* every form's */
    CkptLoadStats st;
    Value u, r;
    CHECK(load(S, &b, &st, &u) == VLAD_OK);
    size_t nunits = each ? nforms : reps;
    printf("  %zu forms, %zu units: %llu compilations, %llu records, "
           "%zu bytes\n", nforms, nunits, (unsigned long long)st.compiles,
           (unsigned long long)st.records, b.n);
    CHECK(st.compiles == (each ? nforms : 1));
    CHECK(st.records == nunits + 5);
    CHECK(vl_toplevel_apply(S, S->resume_value, u, &r) == VLAD_OK
          && IS_REAL(r) && vl_object_primal(r) == 7.0);
    free(b.d);
    free(text);
}

/* One form nested 'depth' deep, named 'reps' times.  A sanitizer build's
   frames are larger: where the compiler's C stack guard stops the form,
   one a quarter as deep. */
static void deep_units(VladState *S, size_t depth, size_t reps)
{
    char *open, *text;
    Hash h;
    for (;; depth /= 4) {
        open = forge_repeat("(+ x ", depth, "(define (g x) ", "1");
        text = forge_repeat(")", depth + 1, open, "\n");
        h = (Hash){text, 0, 0};
        if (vl_toplevel_job(S, hash_job, &h) == VLAD_OK)
            break;
        CHECK(strstr(message(S), "nested too deeply") != NULL);
        free(open);
        free(text);
    }
    Buf b = {0};
    forge_units(&b, text, 0, reps, 0, h.hash);
    CkptLoadStats st;
    CHECK(load(S, &b, &st, NULL) == VLAD_OK);
    printf("  a form %zu deep named %zu times: %llu compilations\n", depth,
           reps, (unsigned long long)st.compiles);
    CHECK(st.compiles == 1);
    free(b.d);
    free(open);
    free(text);
}

/* A form named twice with different inline decisions: refused. */
static void two_decisions(VladState *S)
{
    const char *text = "(define (g x) (car x))\n";
    uint64_t h = unit_hash(S, text, 0);
    Buf b = {0};
    b_byte(&b, R_TEXT); b_str(&b, "t.vlad"); b_str(&b, text);
    for (int k = 0; k < 2; k++) {
        b_byte(&b, R_UNIT); b_byte(&b, 0); b_u(&b, 0); b_u(&b, (uint64_t)k);
        b_u(&b, 0); b_u(&b, h);
    }
    b_byte(&b, R_END); b_byte(&b, VT_NIL);
    CHECK(load(S, &b, NULL, NULL) == VLAD_ERR_IO);
    CHECK(strstr(message(S), "form 1 of t.vlad is compiled twice") != NULL);
    free(b.d);
}

/* ===== H2 ===== */

/* A saved run of 10^6 frames, then 'nseg' sequences over all of it. */
static void sequences(VladState *S, const CkptOut *file, size_t nseg,
                      CkptLoadStats *st)
{
    Buf b = {0};
    CHECK(forge_sequences(&b, file->data + 32, file->len - 36, nseg,
                          1000000));
    CHECK(load(S, &b, st, NULL) == VLAD_OK);
    printf("  a run of 10^6 frames, %zu sequences over it: %llu steps of "
           "checks for %zu bytes\n", nseg, (unsigned long long)st->work,
           b.n);
    CHECK(st->work <= 16 * b.n);
    free(b.d);
}

/* ===== R1 ===== */

/* Closures of a procedure capturing 5,000 values: 'k' of them unfilled
   (refused), or each filled at once (loaded). */
static void closures(VladState *S, size_t k, int filled)
{
    char *text = forge_mk_text(5000);
    Buf b = {0};
    forge_closures(&b, text, unit_hash(S, text, 0), k, 5000, filled);
    CkptLoadStats st;
    VladStatus status = load(S, &b, &st, NULL);
    printf("  %zu closures of 5,000 values%s: status %d, at most %llu "
           "values waited for, %zu bytes\n", k, filled ? ", filled" : "",
           (int)status, (unsigned long long)st.owed_max, b.n);
    if (filled) {
        CHECK(status == VLAD_OK);
        CHECK(st.owed_max == 5000);
    } else {
        CHECK(status == VLAD_ERR_IO);
        CHECK(strstr(message(S), "wait for more captured values") != NULL);
        CHECK(st.owed_max <= b.n);
        CHECK(st.records < 100);        /* refused at once */
    }
    free(b.d);
    free(text);
}

/* ===== Tags ===== */

/* A run of n *j frames (tags 1..n, or 'dup' twice), a chain of n
   sequences (sequence k: frame k over sequence k - 1), a checkpoint on
   each, from the top or from the bottom. */
static VladStatus tag_chain(VladState *S, size_t n, int top_down, int dup,
                            CkptLoadStats *st)
{
    Buf b = {0};
    b_byte(&b, R_CLOSURE); b_u(&b, 0); b_u(&b, CTL_STARJ);    /* obj 0 */
    b_byte(&b, R_FILL); b_u(&b, 0);
    b_byte(&b, R_RUN); b_u(&b, n);                             /* obj 1 */
    for (size_t f = 0; f < n; f++) {
        b_u(&b, 0); b_u(&b, 4); b_u(&b, 8);
        b_byte(&b, VT_NUM); b_u(&b, 0); b_real(&b, 1.0);
        b_byte(&b, X_RAW_INT); b_i(&b, dup && f == n - 1 ? 1 : (int64_t)f + 1);
        b_byte(&b, VT_NUM); b_u(&b, 0); b_real(&b, 2.0);
        b_byte(&b, X_RAW_TAPE_END); b_u(&b, 0); b_u(&b, 0);
    }
    for (size_t k = 0; k < n; k++) {                           /* 2 + k */
        b_byte(&b, R_SEG); b_u(&b, k == 0 ? 0 : 2 + k); b_u(&b, 0);
        b_u(&b, 2); b_u(&b, k); b_u(&b, 1);
    }
    for (size_t j = 0; j < n; j++) {
        size_t k = top_down ? n - 1 - j : j;
        b_byte(&b, R_CKPT); b_byte(&b, 0);
        b_byte(&b, VT_PRIM); b_byte(&b, 0); b_str(&b, "real");
        b_byte(&b, VT_NUM); b_u(&b, 0); b_real(&b, 1.0);
        b_u(&b, 2 + k + 1); b_i(&b, 0); b_i(&b, 0); b_i(&b, 0);
        b_byte(&b, 0);
    }
    b_byte(&b, R_END); b_byte(&b, VT_CKPT); b_u(&b, 2 + n);
    VladStatus status = load(S, &b, st, NULL);
    printf("  a chain of %zu sequences, checked %s%s: status %d, %llu "
           "steps for %zu bytes\n", n, top_down ? "top down" : "bottom up",
           dup ? ", a tag twice" : "", (int)status,
           (unsigned long long)st->work, b.n);
    CHECK(st->work <= 16 * b.n + ((uint64_t)1 << 20));
    free(b.d);
    return status;
}

/* ===== Interrupts ===== */

static void interrupted(VladState *S)
{
    CHECK(run(S, "(define kept 1)") == VLAD_OK);
    Buf b = {0};
    b_byte(&b, R_GLOBAL); b_str(&b, "kept"); b_byte(&b, VT_NUM); b_u(&b, 0);
    b_real(&b, 2.0);
    forge_pending(&b, 0);
    b_byte(&b, R_END); b_byte(&b, VT_NIL);
    S->interrupt = 1;           /* what vlad_interrupt does */
    CHECK(load(S, &b, NULL, NULL) == VLAD_ERR_INTERRUPTED);
    CHECK(strstr(message(S), "interrupted while loading") != NULL);
    Value v;
    CHECK(vl_state_lookup(S, "kept", &v) && vl_object_primal(v) == 1.0);
    free(b.d);
    /* and the reader of a saved text looks at the flag at every token */
    Datum *out;
    VlDiag *diags;
    volatile sig_atomic_t stop = 1;
    CHECK(vl_read_string_stop(S->syms, "(a b) (c d)", 11, "t", &stop, &out,
                              &diags) == VL_READ_STOPPED && out == NULL);
    stop = 0;
    CHECK(vl_read_string_stop(S->syms, "(a b) (c d)", 11, "t", &stop, &out,
                              &diags) == VL_READ_OK && out != NULL);
}

int main(void)
{
    VladState *S = open_state();
    if (S == NULL)
        return 1;
    CHECK(run(S, "(define id (checkpoint (lambda (x) x) 1 0))") == VLAD_OK);
    CkptOut id = saved(S, "id");
    memcpy(header, id.data, 32);

    printf("H1: repeated units\n");
    units(S, 100000, 10000, 0);
    units(S, 100000, 100000, 0);
    units(S, 100000, 0, 1);      /* each walked the forms before its own */
    deep_units(S, 20000, 1000);
    deep_units(S, 20000, 10000);
    two_decisions(S);

    printf("H2: sequences over one run\n");
    CHECK(run(S, "(define (r n) (if (= n 0) 0 (+ 1 (r (- n 1)))))\n"
                 "(define deep (checkpoint r 1000000 1000000))") == VLAD_OK);
    CkptOut deep = saved(S, "deep");
    CkptLoadStats one, ten;
    sequences(S, &deep, 20000, &one);
    sequences(S, &deep, 200000, &ten);
    CHECK(one.work == ten.work);        /* the run, indexed once */
    CHECK(run(S, "(define deep 0)") == VLAD_OK);

    printf("R1: closures waiting for their values\n");
    closures(S, 10000, 0);
    closures(S, 100000, 0);
    closures(S, 20, 1);

    printf("tags of the j* and *j suspended in a checkpoint\n");
    CkptLoadStats st;
    CHECK(tag_chain(S, 300, 0, 0, &st) == VLAD_OK);
    CHECK(st.work == 300 + 300 * 301 / 2 - 1);
    CHECK(tag_chain(S, 3000, 1, 0, &st) == VLAD_OK);
    CHECK(st.work == 3000 + 3000);
    CHECK(tag_chain(S, 3000, 0, 0, &st) == VLAD_ERR_IO);
    CHECK(strstr(message(S), "beyond what its size warrants") != NULL);
    CHECK(tag_chain(S, 300, 1, 1, &st) == VLAD_ERR_IO);
    CHECK(strstr(message(S), "share a tag") != NULL);

    printf("interrupts\n");
    interrupted(S);
    vl_toplevel_close(S);
    return CHECK_DONE();
}
