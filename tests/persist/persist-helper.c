/*
 * tests/persist/persist-helper.c -- saves split checkpoints of a program
 * in one process and resumes them in another (tests/persist/roundtrip.py)
 *
 *   persist-helper save DIR PROGRAM MAX
 *       PROGRAM defines 'whole' and 'point'.  Prints "#DIRECT", what
 *       (primops whole point) writes, "#DIRECT-RESULT (value steps)";
 *       then for up to MAX split points k (all of 0 .. n+1 when they are
 *       few, else spread over them, the ends included): "#SAVE k", what
 *       (checkpoint whole point k) writes, then "#INPROC k", what
 *       (primops resume u) writes here, "#INPROC-RESULT (value steps)",
 *       and saves u to DIR/k.ckpt.
 *   persist-helper load FILE...
 *       For each FILE, in a fresh state: "#LOAD FILE", what (primops
 *       resume u) writes, "#RESULT (value steps)"; or "#ERROR message".
 *
 * Output of VLAD code goes to standard output through the state's write
 * callback; markers are printed after vlad_flush, so the two never mix.
 * Exit status 0, or 1 on an unexpected failure of the API.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vlad.h>

static void out(void *ud, const char *text, size_t len)
{
    (void)ud;
    fwrite(text, 1, len, stdout);
}

static VladState *open_state(void)
{
    VladConfig c;
    vlad_config_init(&c);
    c.write = out;
    VladState *S = vlad_open(&c);
    if (S == NULL) {
        fprintf(stderr, "persist-helper: vlad_open failed\n");
        exit(1);
    }
    return S;
}

static void mark(VladState *S, const char *fmt, const char *arg)
{
    vlad_flush(S);
    printf(fmt, arg);
    fflush(stdout);
}

static VladValue eval(VladState *S, const char *src)
{
    VladValue v;
    if (vlad_eval_string(S, src, "<helper>", &v) != VLAD_OK) {
        fprintf(stderr, "persist-helper: %s: %s", src,
                vlad_last_error(S)->text);
        exit(1);
    }
    return v;
}

static int save(const char *dir, const char *program, long max)
{
    VladState *S = open_state();
    if (vlad_eval_file(S, program, NULL) != VLAD_OK) {
        fprintf(stderr, "persist-helper: %s", vlad_last_error(S)->text);
        return 1;
    }
    mark(S, "#DIRECT\n", "");
    VladValue r = eval(S, "(primops whole point)");
    mark(S, "#DIRECT-RESULT %s\n", vlad_to_string(S, r));
    long n = (long)vlad_to_number(vlad_car(vlad_cdr(r)));
    long count = n + 2 <= max ? n + 2 : max;
    for (long j = 0; j < count; j++) {
        long k = count == n + 2 ? j
                 : j == count - 1 ? n + 1
                 : j * (n + 1) / (count - 1);
        char src[128], path[4096], ks[32];
        snprintf(ks, sizeof ks, "%ld", k);
        mark(S, "#SAVE %s\n", ks);
        snprintf(src, sizeof src, "(checkpoint whole point %ld)", k);
        VladValue u = eval(S, src);
        mark(S, "#INPROC %s\n", ks);
        vlad_set_global(S, "u", u);
        r = eval(S, "(primops resume u)");
        mark(S, "#INPROC-RESULT %s\n", vlad_to_string(S, r));
        snprintf(path, sizeof path, "%s/%ld.ckpt", dir, k);
        if (vlad_checkpoint_save(S, u, path) != VLAD_OK) {
            fprintf(stderr, "persist-helper: save %s: %s", path,
                    vlad_last_error(S)->text);
            return 1;
        }
    }
    vlad_close(S);
    return 0;
}

static int load(char **files, int n)
{
    for (int j = 0; j < n; j++) {
        VladState *S = open_state();
        VladValue u;
        mark(S, "#LOAD %s\n", files[j]);
        if (vlad_checkpoint_load(S, files[j], &u) != VLAD_OK) {
            mark(S, "#ERROR %s", vlad_last_error(S)->text);
            vlad_close(S);
            continue;
        }
        vlad_set_global(S, "u", u);
        VladValue r;
        if (vlad_eval_string(S, "(primops resume u)", "<helper>", &r)
            != VLAD_OK)
            mark(S, "#ERROR %s", vlad_last_error(S)->text);
        else
            mark(S, "#RESULT %s\n", vlad_to_string(S, r));
        vlad_close(S);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "save") == 0)
        return save(argv[2], argv[3], strtol(argv[4], NULL, 10));
    if (argc >= 2 && strcmp(argv[1], "load") == 0)
        return load(argv + 2, argc - 2);
    fprintf(stderr, "usage: persist-helper save DIR PROGRAM MAX | "
                    "load FILE...\n");
    return 2;
}
