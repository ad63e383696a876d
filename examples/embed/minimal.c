/*
 * examples/embed/minimal.c -- the smallest useful host of libvlad
 *
 * Opens a state whose output goes to a callback, evaluates a string,
 * prints a value, calls a VLAD procedure from C, reports errors with
 * vlad_last_error()->text, and closes the state.
 *
 * Build (installed libvlad):  cc minimal.c $(pkg-config --cflags --libs vlad)
 * make check builds and runs it; it checks what it printed and exits
 * nonzero if anything differs.
 */
#include <stdio.h>
#include <string.h>
#include <vlad.h>

/* Everything VLAD code writes arrives here (libvlad never prints).  We
   echo it to our stdout and keep a copy, to check it at the end. */
static char captured[1024];

static void on_write(void *userdata, const char *text, size_t len)
{
    size_t *used = userdata;
    fwrite(text, 1, len, stdout);
    if (*used + len < sizeof captured) {
        memcpy(captured + *used, text, len);
        *used += len;
        captured[*used] = '\0';
    }
}

static int failures;

static void expect(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        printf("MISMATCH in %s:\n  got:  %s\n  want: %s\n", what, got, want);
        failures++;
    }
}

int main(void)
{
    size_t used = 0;

    /* 1. Open: a configuration with defaults, then what we change. */
    VladConfig config;
    vlad_config_init(&config);
    config.write = on_write;
    config.userdata = &used;
    VladState *S = vlad_open(&config);
    if (S == NULL) {
        fprintf(stderr, "vlad_open failed\n");
        return 1;
    }

    /* 2. Evaluate a string: definitions, then an expression whose value
       comes back in 'v'.  write-real prints through on_write. */
    VladValue v;
    VladStatus status = vlad_eval_string(S,
        "(define (sq x) (* x x))\n"
        "(define (hyp a b) (sqrt (+ (sq a) (sq b))))\n"
        "(write-real (hyp 3 4))\n"
        "(map sq (list 1 2 3))\n",
        "minimal", &v);
    if (status != VLAD_OK) {
        fputs(vlad_last_error(S)->text, stderr);
        vlad_close(S);
        return 1;
    }
    /* 3. Print the value as VLAD prints it (the string belongs to S and
       is valid until the next call on S: copy it if you keep it). */
    printf("value: %s\n", vlad_to_string(S, v));
    expect("value", vlad_to_string(S, v), "(1 4 9)");

    /* 4. Walk the list from C. */
    double sum = 0;
    for (VladValue l = v; vlad_is_pair(l); l = vlad_cdr(l))
        sum += vlad_to_number(vlad_car(l));
    printf("sum: %g\n", sum);

    /* 5. Call a VLAD procedure from C.  Every procedure takes one
       argument; two arguments are a pair (a tuple). */
    VladValue hyp, r;
    if (!vlad_get_global(S, "hyp", &hyp)) {
        fprintf(stderr, "hyp is not defined\n");
        return 1;
    }
    status = vlad_call(S, hyp, vlad_cons(S, vlad_number(5), vlad_number(12)),
                       &r);
    if (status == VLAD_OK)
        printf("(hyp 5 12) = %g\n", vlad_to_number(r));
    expect("hyp", vlad_to_string(S, r), "13");

    /* 6. Errors: a status, and the details in vlad_last_error(). */
    status = vlad_eval_string(S, "(define (first l) (car l))\n(first 42)",
                              "minimal", NULL);
    const VladError *err = vlad_last_error(S);
    printf("status %d (VLAD_ERR_RUNTIME is %d)\n", status, VLAD_ERR_RUNTIME);
    printf("error text:\n%s", err->text);
    printf("at line %d, column %d of %s: %s\n", err->line, err->column,
           err->file, err->message);
    expect("error text", err->text,
           "minimal:1:19: error: car: expected a pair, got 42\n"
           "  in car\n"
           "  in first at minimal:1:19\n"
           "  in top level at minimal:2:1\n");

    /* A syntax error, and text that stops inside a form (a REPL would
       read another line): different statuses. */
    status = vlad_eval_string(S, "(+ 1 2))", "minimal", NULL);
    printf("syntax: status %d: %s", status, vlad_last_error(S)->text);
    if (status != VLAD_ERR_SYNTAX)
        failures++;
    status = vlad_eval_string(S, "(+ 1", "minimal", NULL);
    printf("incomplete: status %d\n", status);
    if (status != VLAD_ERR_INCOMPLETE)
        failures++;

    /* 7. After an error the state is as it was: go on using it. */
    status = vlad_eval_string(S, "(write-real (sq 9))", "minimal", NULL);
    if (status != VLAD_OK)
        failures++;
    expect("captured output", captured, "5\n81\n");

    /* 8. Close: every value obtained from S becomes invalid. */
    vlad_close(S);

    printf(failures ? "minimal: FAILED\n" : "minimal: ok\n");
    return failures ? 1 : 0;
}
