/*
 * cli/progress.c -- the progress bar of --progress
 *
 * One line on standard error, redrawn in place:
 *
 *   checkpoint-*j [#########...........]  45%  1234000/2743210  12.3 s left
 *
 * The estimate of the time left assumes the rest of the reverse sweep goes
 * as fast as what was done so far (measured from the first report of the
 * run).  A report with less done than the previous one starts a new run.
 * The bar fits the terminal's width (asked at every redraw, so a resized
 * terminal is followed) and is erased when the run is complete, or when
 * the evaluation ends (an error, Ctrl-C).
 */
#include "config.h"
#include "cli/progress.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_SECONDS 0.1

static struct {
    int drawn;              /* a bar is on the screen */
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
    snprintf(tail, sizeof tail, " %3d%%  %lld/%lld steps  %s",
             (int)(frac * 100), (long long)done, (long long)total, eta);
    const char *head = "checkpoint-*j ";
    int width = terminal_width() - 1;   /* never the last column */
    int room = width - (int)strlen(head) - (int)strlen(tail) - 2;
    char line[512];
    size_t n = 0;
    if (room >= 10) {
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
    fprintf(stderr, "\r%.*s\033[K", (int)n, line);
    fflush(stderr);
    bar.drawn = 1;
    bar.last_draw = now;
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
    if (done >= total)
        vl_progress_end();      /* the run is over: what follows is output */
    else if (now - bar.last_draw >= REDRAW_SECONDS)
        draw(done, total, now);
}

void vl_progress_end(void)
{
    if (bar.drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    memset(&bar, 0, sizeof bar);
}
