/*
 * cli/progress.c -- the progress bar of --progress
 *
 * One line on standard error, redrawn in place.  While a checkpoint-*j's
 * first run counts its steps (the library reports total 0):
 *
 *   checkpoint-*j counting steps (first run):      1234000 steps
 *
 * then during its reverse sweep:
 *
 *   checkpoint-*j [#########...........]  45%  1234000/2743210 steps  12.3 s left
 *
 * Every field has a fixed width for the whole run (the count of steps is
 * padded to the width of the total, the time left to its widest form),
 * so the line does not jitter as the numbers change.  The estimate of the
 * time left assumes the rest of the reverse sweep goes as fast as what
 * was done so far (measured from the first report of the sweep).  A
 * report with less done than the previous one, or a new total, starts a
 * new phase.  The bar fits the terminal's width (asked at every redraw,
 * so a resized terminal is followed) and is erased when the run is
 * complete, when the evaluation ends (an error, Ctrl-C in the REPL), and
 * when a Ctrl-C ends a script (vl_progress_catch_sigint).
 */
#include "config.h"
#include "cli/progress.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_SECONDS 0.1

/* a bar is on the screen (read by the SIGINT handler) */
static volatile sig_atomic_t drawn;

static struct {
    double start;           /* when the run's first report came */
    double last_draw;
    int64_t last_done, last_total;
} bar;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int vl_progress_available(void)
{
    return isatty(STDERR_FILENO);
}

static int terminal_width(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

static void format_seconds(char *buf, size_t cap, double s)
{
    if (s < 60)
        snprintf(buf, cap, "%.1f s left", s);
    else if (s < 3600)
        snprintf(buf, cap, "%d min %02d s left", (int)(s / 60),
                 (int)s % 60);
    else
        snprintf(buf, cap, "%d h %02d min left", (int)(s / 3600),
                 (int)(s / 60) % 60);
}

/* Put the 'n' bytes of 'line' on the screen in place of the bar. */
static void show(const char *line, size_t n, double now)
{
    drawn = 1;                  /* first: a SIGINT may come once it shows */
    fprintf(stderr, "\r%.*s\033[K", (int)n, line);
    fflush(stderr);
    bar.last_draw = now;
}

/* The first run: 'done' steps counted so far. */
static void draw_counting(int64_t done, double now)
{
    char line[128];
    int n = snprintf(line, sizeof line, "checkpoint-*j counting steps "
                     "(first run): %12lld steps", (long long)done);
    int width = terminal_width() - 1;
    if (n > width)              /* too narrow: the number alone */
        n = snprintf(line, sizeof line, "%lld", (long long)done);
    if (width > 0 && n > width)
        n = width;
    show(line, n > 0 ? (size_t)n : 0, now);
}

static void draw(int64_t done, int64_t total, double now)
{
    double frac = total > 0 ? (double)done / (double)total : 0.0;
    if (frac > 1)
        frac = 1;
    char tail[128], eta[48];
    double elapsed = now - bar.start;
    if (done > 0 && done < total && elapsed > 0.05)
        format_seconds(eta, sizeof eta,
                       elapsed * (double)(total - done) / (double)done);
    else
        snprintf(eta, sizeof eta, "estimating");
    int digits = snprintf(NULL, 0, "%lld", (long long)total);
    /* "99 h 59 min left" is the widest time left */
    snprintf(tail, sizeof tail, " %3d%%  %*lld/%lld steps  %-16s",
             (int)(frac * 100), digits, (long long)done, (long long)total,
             eta);
    const char *head = "checkpoint-*j ";
    int width = terminal_width() - 1;   /* never the last column */
    int room = width - (int)strlen(head) - (int)strlen(tail) - 2;
    char line[512];
    size_t n = 0;
    if (room >= 5) {
        if (room > 50)
            room = 50;
        int fill = (int)(frac * room);
        n += (size_t)snprintf(line, sizeof line, "%s[", head);
        for (int j = 0; j < room; j++)
            line[n++] = j < fill ? '#' : '.';
        n += (size_t)snprintf(line + n, sizeof line - n, "]%s", tail);
    } else {
        /* too narrow for a bar: the numbers, cut to the width */
        n = (size_t)snprintf(line, sizeof line, "%s", tail + 1);
        if (width > 0 && n > (size_t)width)
            n = (size_t)width;
    }
    show(line, n, now);
}

void vl_progress_update(void *userdata, int64_t done, int64_t total)
{
    (void)userdata;
    double now = now_seconds();
    if (done < bar.last_done || total != bar.last_total || bar.start == 0) {
        bar.start = now;
        bar.last_draw = 0;
    }
    bar.last_done = done;
    bar.last_total = total;
    if (total == 0) {
        if (now - bar.last_draw >= REDRAW_SECONDS)
            draw_counting(done, now);
    } else if (done >= total) {
        vl_progress_end();      /* the run is over: what follows is output */
    } else if (now - bar.last_draw >= REDRAW_SECONDS) {
        draw(done, total, now);
    }
}

void vl_progress_end(void)
{
    if (drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    drawn = 0;
    memset(&bar, 0, sizeof bar);
}

/* ===== Waits of a parallel program ===== */

/* The rank that prints, set once the state is a rank of its job (-1:
   one process). */
static int wait_rank = -1;

void vl_progress_rank(int rank)
{
    wait_rank = rank;
}

void vl_progress_waiting(void *userdata, const char *what, double seconds)
{
    (void)userdata;
    char prefix[32] = "";
    if (wait_rank >= 0)
        snprintf(prefix, sizeof prefix, "rank %d: ", wait_rank);
    char line[160];
    if (what != NULL)
        snprintf(line, sizeof line, "%swaiting for %s (%.1f s)\n", prefix,
                 what, seconds);
    else
        snprintf(line, sizeof line, "%sthe wait ended after %.1f s\n",
                 prefix, seconds);
    if (drawn) {                /* a line of its own, not over the bar */
        fputs("\r\033[K", stderr);
        drawn = 0;
    }
    fputs(line, stderr);        /* one write: stderr is unbuffered */
    fflush(stderr);
}

/* SIGINT in a script: erase the bar, then die of the signal as before. */
static void on_sigint(int sig)
{
    static const char erase[] = "\r\033[K";
    if (drawn) {
        ssize_t w = write(STDERR_FILENO, erase, sizeof erase - 1);
        (void)w;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void vl_progress_catch_sigint(void)
{
    struct sigaction sa, old;
    if (sigaction(SIGINT, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
        return;                 /* an ignored SIGINT stays ignored */
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
}
