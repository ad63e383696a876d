/*
 * vm/core/stdinwait.c -- read-real's wait for standard input, which
 * vlad_interrupt ends (see vm/core/stdinwait.h)
 *
 * The races this closes (doc/hardening.md S1): read-real looked at the
 * interrupt flag and then called read(2); a SIGINT whose handler ran
 * between the two (vlad_interrupt) set the flag for nobody, and the read
 * waited for the next line -- under load, where a process is often
 * preempted just there, now and then.  From another thread the flag
 * never ended the read at all, nor from a handler installed with
 * SA_RESTART (the read is restarted).  Now the wait is a poll(2) of
 * standard input and of the wake-up pipe the flag's setter writes to,
 * entered only after the pipe is emptied and the flag seen clear: a byte
 * written after that look ends the poll.  On a terminal, a Ctrl-C makes
 * the terminal discard the line it holds, perhaps between the poll that
 * saw it and the read: the read goes through a non-blocking description
 * of the terminal opened for the wait (its own: fd 0's flags, shared
 * with the shell, are left alone), which then answers EAGAIN, and the
 * wait goes on -- where the flag is seen.
 */
#include "config.h"
#include "vm/core/stdinwait.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

void vl_stdinwait_wake(VladState *S)
{
    S->interrupt = 1;
    int fd = (int)S->wake_wr - 1;
    if (fd >= 0) {
        int saved = errno;
        /* a full pipe (EAGAIN) has a byte waiting already */
        ssize_t w = write(fd, "!", 1);
        (void)w;
        errno = saved;
    }
}

static int set_flags(int fd)
{
    int fl = fcntl(fd, F_GETFL), fd_fl = fcntl(fd, F_GETFD);
    return fl >= 0 && fd_fl >= 0
           && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0
           && fcntl(fd, F_SETFD, fd_fl | FD_CLOEXEC) == 0;
}

/* The wake-up pipe, both ends non-blocking and closed on exec; its write
   end is published last (vl_stdinwait_wake may run at any moment). */
static void open_wake(VladState *S)
{
    int p[2];
    if (pipe(p) != 0)
        return;
    if (!set_flags(p[0]) || !set_flags(p[1])) {
        close(p[0]);
        close(p[1]);
        return;
    }
    S->wake_rd = p[0];
    S->wake_wr = p[1] + 1;
}

static void drain(VladState *S)
{
    char junk[64];
    while (read(S->wake_rd, junk, sizeof junk) > 0)
        ;
}

/* A non-blocking description of the terminal on standard input, or -1
   (not a terminal, or it cannot be opened: fd 0 is then read as it
   is). */
static int open_terminal(void)
{
    char name[256];
    if (!isatty(STDIN_FILENO) || ttyname_r(STDIN_FILENO, name, sizeof name))
        return -1;
    return open(name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

ssize_t vl_stdinwait_read(VladState *S, char *buf, size_t cap)
{
    if (S->wake_wr == 0)
        open_wake(S);
    int waking = S->wake_wr != 0;
    int tty = waking ? open_terminal() : -1;
    int fd = tty >= 0 ? tty : STDIN_FILENO;
    ssize_t n;
    for (;;) {
        if (waking)
            drain(S);
        if (S->interrupt) {
            n = -1;
            break;
        }
        if (waking) {
            struct pollfd p[2] = {{fd, POLLIN, 0}, {S->wake_rd, POLLIN, 0}};
            int r = poll(p, 2, -1);
            if (r < 0 && errno != EINTR)
                waking = 0;         /* (no memory): plain reads from now */
            if (r < 0 || (r > 0 && p[0].revents == 0))
                continue;           /* a signal, or the pipe: the flag */
            if (S->interrupt) {
                n = -1;
                break;
            }
        }
        n = read(fd, buf, cap);
        if (n >= 0)
            break;
        if (errno == EINTR || (waking && (errno == EAGAIN
                                          || errno == EWOULDBLOCK)))
            continue;
        if (fd == tty && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            fd = STDIN_FILENO;      /* poll failed: a blocking read */
            continue;
        }
        n = 0;                      /* an error: as the end of the input */
        break;
    }
    if (tty >= 0)
        close(tty);
    return n;
}

void vl_stdinwait_close(VladState *S)
{
    int wr = (int)S->wake_wr - 1;
    if (wr < 0)
        return;
    S->wake_wr = 0;
    close(wr);
    close(S->wake_rd);
}
