/*
 * tests/fuzz/fuzz-load.c -- libFuzzer harness: the checkpoint loader
 *
 * The input's first byte picks the mode:
 *   even: the rest is the PAYLOAD of a checkpoint file (its records,
 *         vm/persist/ckptfile.h); the harness puts a valid header and checksum
 *         around it, so that the structure -- not the checksum -- is what
 *         the fuzzer works on;
 *   odd:  the rest is a whole file, checked as it is.
 * A load that succeeds must give a checkpoint, which is then resumed
 * with a step limit (FUZZ_LOAD_STEPS) and a heap limit (64 MB): any
 * status is fine, a crash or sanitizer report is not.  Afterwards the
 * state must still evaluate (+ 1 2) to 3.  The seeds (corpus-load/) are
 * saved checkpoints of loops, recursion, closures, j*, *j and
 * checkpoint-*j, suspended mid-way, in both modes, and (payload-8 to
 * payload-12) the files of issue 31's attack, small: units of one form
 * repeated, sequences repeated over one run, closures never filled,
 * internal values bound to globals, globals beside a value that is no
 * checkpoint.
 */
#include "config.h"
#include "include/vlad.h"
#include "vm/persist/ckptfile.h"     /* vl_ckptfile_crc32 (linked with the library's objects) */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_LOAD_STEPS
#define FUZZ_LOAD_STEPS 20000
#endif

static void discard(void *ud, const char *text, size_t len)
{
    (void)ud, (void)text, (void)len;
}

/* A valid header of this build: from a checkpoint saved once. */
static unsigned char header[32];

static void make_header(VladState *S)
{
    VladValue u;
    void *data;
    size_t len;
    if (vlad_eval_string(S, "(checkpoint (lambda (x) x) 1 0)", "h", &u)
            != VLAD_OK
        || vlad_checkpoint_save_buffer(S, u, &data, &len) != VLAD_OK
        || len < 36)
        abort();
    memcpy(header, data, 32);
    free(data);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
    if (n < 1)
        return 0;
    VladConfig c;
    vlad_config_init(&c);
    c.write = discard;
    c.step_limit = FUZZ_LOAD_STEPS;
    VladState *S = vlad_open(&c);
    if (S == NULL)
        abort();
    if (header[0] == 0)
        make_header(S);
    vlad_set_heap_limit(S, (size_t)64 << 20);
    unsigned char *file;
    size_t len;
    if (in[0] & 1) {
        len = n - 1;
        file = malloc(len ? len : 1);
        memcpy(file, in + 1, len);
    } else {
        size_t p = n - 1;
        len = 32 + p + 4;
        file = malloc(len);
        memcpy(file, header, 32);
        for (int k = 0; k < 8; k++)
            file[24 + k] = (unsigned char)((uint64_t)p >> (8 * k));
        memcpy(file + 32, in + 1, p);
        uint32_t crc = vl_ckptfile_crc32(file, 32 + p);
        for (int k = 0; k < 4; k++)
            file[32 + p + k] = (unsigned char)(crc >> (8 * k));
    }
    VladValue u, r;
    VladStatus st = vlad_checkpoint_load_buffer(S, file, len, &u);
    free(file);
    if (st == VLAD_OK) {
        if (!vlad_is_checkpoint(u))
            abort();
        (void)vlad_resume(S, u, &r);
        (void)vlad_to_string(S, r);
    } else if (vlad_last_error(S)->message[0] == '\0') {
        abort();                /* a failure always says why */
    }
    VladValue three;
    if (vlad_eval_string(S, "(+ 1 2)", "check", &three) != VLAD_OK
        || vlad_to_number(three) != 3)
        abort();
    vlad_close(S);
    return 0;
}
