/*
 * bench/persist/savebench.c -- what saving and loading a checkpoint costs
 * (issue 23), run by bench/persist/run
 *
 *   savebench ROTATION.vlad L N...
 *
 * For each N: the rotation benchmark (bench/cpj/rotation.vlad, mode 3:
 * definitions only) with N reals, and two checkpoints of it a quarter of
 * the way through the first outer iteration, (checkpoint f x0 K) and the
 * same inside (*j f x0 1) (a tape then), K = 4 N steps.  Prints one line
 * per case:
 *
 *   CASE N BYTES SAVE_MS LOAD_MS RESUMED
 *
 * BYTES the file's size, SAVE_MS the best of 9 (CPU time) vlad_checkpoint_save_buffer
 * calls, LOAD_MS the best of 9 vlad_checkpoint_load_buffer calls into a
 * fresh state, RESUMED "ok" when the loaded checkpoint resumes to the
 * original's value.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vlad.h>

/* CPU time of the process: what a save costs, not what other processes
   on a shared machine take meanwhile */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static VladValue eval(VladState *S, const char *src)
{
    VladValue v;
    if (vlad_eval_string(S, src, "savebench", &v) != VLAD_OK) {
        fprintf(stderr, "savebench: %s: %s", src, vlad_last_error(S)->text);
        exit(1);
    }
    return v;
}

static void measure(const char *name, VladState *S, const char *make,
                    long n)
{
    VladValue u = eval(S, make);
    void *data = NULL;
    size_t len = 0;
    double save = 1e30, load = 1e30;
    for (int r = 0; r < 9; r++) {
        free(data);
        double t0 = now_ms();
        if (vlad_checkpoint_save_buffer(S, u, &data, &len) != VLAD_OK) {
            fprintf(stderr, "savebench: %s", vlad_last_error(S)->text);
            exit(1);
        }
        double t = now_ms() - t0;
        if (t < save)
            save = t;
    }
    VladValue v;
    VladState *T = NULL;
    for (int r = 0; r < 9; r++) {
        if (T != NULL)
            vlad_close(T);
        T = vlad_open(NULL);
        double t0 = now_ms();
        if (vlad_checkpoint_load_buffer(T, data, len, &v) != VLAD_OK) {
            fprintf(stderr, "savebench: %s", vlad_last_error(T)->text);
            exit(1);
        }
        double t = now_ms() - t0;
        if (t < load)
            load = t;
    }
    VladValue a, b;
    int ok = vlad_resume(S, u, &a) == VLAD_OK
             && vlad_resume(T, v, &b) == VLAD_OK
             && strcmp(vlad_to_string(S, a), vlad_to_string(T, b)) == 0;
    printf("%s %ld %zu %.3f %.3f %s\n", name, n, len, save, load,
           ok ? "ok" : "DIFFERENT");
    fflush(stdout);
    vlad_close(T);
    free(data);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: savebench ROTATION.vlad L N...\n");
        return 2;
    }
    for (int a = 3; a < argc; a++) {
        long n = strtol(argv[a], NULL, 10);
        VladState *S = vlad_open(NULL);
        char src[256];
        snprintf(src, sizeof src, "(define arguments (list 3 %s %ld))",
                 argv[2], n);
        eval(S, src);
        VladValue v;
        if (vlad_eval_file(S, argv[1], &v) != VLAD_OK) {
            fprintf(stderr, "savebench: %s", vlad_last_error(S)->text);
            return 1;
        }
        snprintf(src, sizeof src, "(checkpoint f x0 %ld)", 4 * n);
        measure("primal", S, src, n);
        snprintf(src, sizeof src,
                 "(checkpoint (lambda (x) (*j f x 1)) x0 %ld)", 4 * n);
        measure("in-*j", S, src, n);
        vlad_close(S);
    }
    return 0;
}
