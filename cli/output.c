/*
 * cli/output.c -- the vlad program's standard output and its write errors
 *
 * libvlad hands VLAD's output over in whole lines (a line over 4 KB may
 * come in pieces), at the latest every
 * 4096 steps while a program runs (its flush policy, doc/embedding.md);
 * this writes each piece at once with write(2), with no second buffer,
 * whatever standard output is (terminal, pipe or file).  The cost is one
 * system call per piece (at most one per 8 KB or per 4096 steps), not per
 * line.
 *
 * A failed write -- a full disk (ENOSPC), a closed standard output
 * (EBADF), a pipe whose reader left when SIGPIPE is ignored (EPIPE) --
 * is remembered, stops the running evaluation (vlad_interrupt: within
 * 4096 steps) and drops all later output; the program then says
 * "vlad: write error: REASON" and exits with status 1, like the
 * coreutils.  SIGPIPE keeps its default action, so `vlad prog | head -1`
 * ends quietly, killed by SIGPIPE, as `seq` or `cat` do.  A write
 * interrupted by a signal is retried, unless the signal is one that ends
 * the program (cli/signals.h): a reader that does not read must not keep
 * it alive.
 */
#include "config.h"
#include "cli/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/signals.h"

static VladState *attached;     /* stopped by a failed write */
static int write_errno;         /* the first failure, 0 if none */
static int reported;            /* vl_output_finish has said so */
static uint64_t skipping;       /* bytes still to drop (vl_output_skip) */

void vl_output_reserve_fds(void)
{
    static const int modes[3] = {O_RDONLY, O_RDONLY, O_WRONLY};
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int r = open("/dev/null", modes[fd]);
        if (r >= 0 && r != fd)      /* a lower one was closed too: later */
            close(r);
    }
}

void vl_output_attach(VladState *S)
{
    attached = S;
}

static void fail(int err)
{
    if (write_errno == 0)
        write_errno = err ? err : EIO;
    if (attached != NULL)
        vlad_interrupt(attached);
}

void vl_output_skip(uint64_t bytes)
{
    skipping = bytes;
}

/* Flush stdio's stdout, again after a signal interrupted it (a resize of
   the terminal in the REPL: SIGWINCH): 1, or 0 with the failure kept. */
static int flush_stdout(void)
{
    while (fflush(stdout) != 0) {
        if (errno == EINTR && !vl_signals_caught()) {
            clearerr(stdout);
            continue;
        }
        fail(errno);
        return 0;
    }
    return 1;
}

void vl_output_write(const char *text, size_t len)
{
    if (write_errno != 0)
        return;
    if (skipping > 0) {         /* already written by a killed run */
        size_t drop = skipping < len ? (size_t)skipping : len;
        skipping -= drop;
        text += drop;
        len -= drop;
    }
    if (!flush_stdout())
        return;
    while (len > 0) {
        ssize_t r = write(STDOUT_FILENO, text, len);
        if (r < 0 && errno == EINTR && !vl_signals_caught())
            continue;
        if (r < 0 && errno == EINTR)
            return;                 /* the program is ending */
        if (r <= 0) {
            fail(r < 0 ? errno : EIO);
            return;
        }
        text += r;
        len -= (size_t)r;
    }
}

int vl_output_error(void)
{
    return write_errno;
}

int vl_output_finish(void)
{
    /* stdout's error flag may come from a write a signal interrupted
       (readline redrawing the line on SIGWINCH): what such a write left
       is still in the buffer, and the flush says whether it goes */
    if (ferror(stdout))
        clearerr(stdout);
    (void)flush_stdout();
    if (write_errno == 0)
        return 0;
    if (!reported)
        fprintf(stderr, "vlad: write error: %s\n", strerror(write_errno));
    reported = 1;
    return 1;
}
