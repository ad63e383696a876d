/*
 * bench/ad/fresh.c -- what first touching fresh memory costs on this
 * machine, for the "floor" column of bench/ad/run.
 *
 *   fresh BYTES      prints fresh_cpu=SECONDS
 *
 * Maps BYTES of anonymous memory, has the kernel populate it for writing
 * as vlad does for its tape chunks (MADV_POPULATE_WRITE, vm/core/gc.c), writes
 * every byte once, and prints the CPU time (user + system) of the three.
 * A *j whose tape takes BYTES of memory the process never had must do at
 * least that besides the primal computation.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    unsigned long long n = argc == 2 ? strtoull(argv[1], &end, 10) : 0;
    if (argc != 2 || end == argv[1] || *end != '\0' || n == 0) {
        fprintf(stderr, "usage: fresh BYTES (a positive integer)\n");
        return 2;
    }
    size_t bytes = (size_t)n;
    double t0 = cpu_now();
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("fresh: mmap");
        return 1;
    }
#if defined(MADV_POPULATE_WRITE)
    (void)madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
    memset(p, 1, bytes);
    double t1 = cpu_now();
    /* read back, so that the writes are not optimised away */
    volatile char sink = p[bytes / 2];
    (void)sink;
    printf("fresh_cpu=%.6f\n", t1 - t0);
    return 0;
}
