/*
 * cli/saving.c -- --autosave and --resume of the vlad program (see
 * cli/saving.h)
 *
 * The library decides what a save may replace (nothing, an empty file,
 * a file vlad saved; symbolic links followed; a lock on FILE.vlad-lock:
 * include/vlad.h, vlad_set_autosave).  A program that starts with
 * --autosave FILE asks more of FILE (issue 31, L1): it must not exist,
 * or be empty -- a file vlad saved there is the state of a run that did
 * not finish (or a ,save), which only --resume may take over -- and it
 * must not be the program, nor where standard input, output or error
 * are.  Every refusal comes before the program starts, with the reason.
 */
#include "config.h"
#include "cli/saving.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/signals.h"

/* The library's warnings (a save that failed: the program goes on). */
static void warn(void *userdata, const char *text)
{
    (void)userdata;
    vl_progress_end();
    fflush(stdout);
    fprintf(stderr, "vlad: warning: %s\n", text);
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static int refuse(const char *file, const char *why)
{
    fflush(stdout);
    fprintf(stderr, "error: cannot autosave to '%s': %s\n", file, why);
    return 1;
}

/* FILE of --autosave for a program that starts now (or of a resumed one
   that saves to another file than 'resumed' came from): 0 when it may
   become the program's save file; else 1, said.  'locked': the autosave
   has started (its lock is held): what FILE holds is checked; else only
   whether it is the program or a standard stream.  What is not a
   regular file is left to the library, which refuses it with the
   reason. */
static int check_target(VladState *S, const char *file, const char *program,
                        const char *resumed, int locked)
{
    struct stat st, other;
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    if (resumed != NULL && stat(resumed, &other) == 0
        && same_file(&st, &other))
        return 0;                       /* it goes on saving there */
    if (!locked) {
        if (program != NULL && stat(program, &other) == 0
            && same_file(&st, &other))
            return refuse(file, "it is the program being run");
        static const char *const stream[] = {
            "it is where standard input comes from",
            "it is where standard output goes",
            "it is where standard error goes"
        };
        for (int fd = 0; fd < 3; fd++)
            if (fstat(fd, &other) == 0 && same_file(&st, &other))
                return refuse(file, stream[fd]);
        return 0;
    }
    if (st.st_size == 0)
        return 0;
    VladSavedInfo info;
    if (vlad_saved_info(S, file, &info) != VLAD_OK)
        return refuse(file, "it exists and is not a file vlad saved "
                            "(remove it, or autosave to another file)");
    if (!info.program)
        return refuse(file, "it holds a checkpoint saved by ,save "
                            "(remove it, or autosave to another file)");
    fflush(stdout);
    fprintf(stderr, "error: cannot autosave to '%s': it holds the saved "
                    "state of a run that did not finish: 'vlad --resume "
                    "%s' finishes it; remove the file to start again\n",
            file, file);
    return 1;
}

/* Start autosaving to 'file' (a lock, the library's checks, then ours
   of what it holds). */
static int start(VladState *S, const char *file, double every,
                 const char *note, const char *resumed)
{
    vlad_set_warning(S, warn, NULL);
    if (vlad_set_autosave(S, file, every, note) != VLAD_OK) {
        fputs(vlad_last_error(S)->text, stderr);
        return 1;
    }
    return check_target(S, file, NULL, resumed, 1);
}

/* The note an autosave keeps about standard output (vlad_set_autosave):
   "stdout DEV INO START" when it is a regular file, START the offset at
   which this program's output begins there; else "stdout other". */
static void stdout_note(char *buf, size_t n)
{
    struct stat st;
    snprintf(buf, n, "stdout other");
    if (fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    int fl = fcntl(STDOUT_FILENO, F_GETFL);
    off_t start = fl >= 0 && (fl & O_APPEND)
                  ? st.st_size : lseek(STDOUT_FILENO, 0, SEEK_CUR);
    if (start < 0)
        start = st.st_size;
    snprintf(buf, n, "stdout %ju %ju %jd", (uintmax_t)st.st_dev,
             (uintmax_t)st.st_ino, (intmax_t)start);
}

int vl_saving_start(VladState *S, const VlOptions *o)
{
    char full[4096];
    const char *program = o->file != NULL && strcmp(o->file, "-") != 0
                          ? vl_options_program_path(o->file, full, sizeof full)
                          : NULL;
    if (check_target(S, o->autosave, program, NULL, 0))
        return 1;
    char note[128];
    stdout_note(note, sizeof note);
    return start(S, o->autosave, o->autosave_every, note, NULL);
}

/* Resuming a program saved by --autosave into the file its killed run
   was writing: the bytes that run wrote after its last save are there
   already, and are not written again. */
static void skip_written(const VladSavedInfo *info)
{
    uintmax_t dev, ino;
    intmax_t start;
    struct stat st;
    if (sscanf(info->note, "stdout %ju %ju %jd", &dev, &ino, &start) != 3
        || fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode)
        || (uintmax_t)st.st_dev != dev || (uintmax_t)st.st_ino != ino)
        return;
    intmax_t written = (intmax_t)st.st_size - start
                       - (intmax_t)info->output_bytes;
    if (written > 0)
        vl_output_skip((uint64_t)written);
}

static int short_input(const char *file, uint64_t n, uint64_t got)
{
    fprintf(stderr, "error: --resume %s: the saved run had read %" PRIu64
                    " bytes of standard input, and standard input has "
                    "only %" PRIu64 ": give it the whole input again (its "
                    "first %" PRIu64 " bytes are skipped)\n",
            file, n, got, n);
    return 1;
}

/* The saved run had consumed 'n' bytes of its input (read-real): the
   resumed run is given the whole input again and starts after them -- a
   seek when standard input is a regular file, else they are read and
   dropped.  A terminal is refused (what would be typed is not the
   input).  0, or 1 (said). */
static int skip_input(const char *file, uint64_t n)
{
    if (n == 0)
        return 0;
    if (isatty(STDIN_FILENO)) {
        fprintf(stderr, "error: --resume %s: the saved run had read %"
                        PRIu64 " bytes of standard input: give the whole "
                        "input again on standard input, from a file or a "
                        "pipe (its first %" PRIu64 " bytes are skipped)\n",
                file, n, n);
        return 1;
    }
    struct stat st;
    off_t at = lseek(STDIN_FILENO, 0, SEEK_CUR);
    if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) && at >= 0) {
        uint64_t left = st.st_size > at ? (uint64_t)(st.st_size - at) : 0;
        if (left < n)
            return short_input(file, n, left);
        if (lseek(STDIN_FILENO, at + (off_t)n, SEEK_SET) >= 0)
            return 0;
    }
    char buf[65536];
    uint64_t got = 0;
    while (got < n) {
        size_t want = n - got < sizeof buf ? (size_t)(n - got) : sizeof buf;
        ssize_t r = read(STDIN_FILENO, buf, want);
        if (r < 0 && errno == EINTR && !vl_signals_caught())
            continue;
        if (r <= 0)
            return vl_signals_caught() ? 1 : short_input(file, n, got);
        got += (uint64_t)r;
    }
    return 0;
}

int vl_saving_resume(VladState *S, const VlOptions *o,
                     const VladSavedInfo *info)
{
    double every;
    uint64_t input;
    if (vlad_saved_autosave(S, o->resume, &every, &input) != VLAD_OK) {
        fputs(vlad_last_error(S)->text, stderr);
        return 1;
    }
    const char *target = o->autosave != NULL ? o->autosave : o->resume;
    if (o->autosave_every_given)
        every = o->autosave_every;
    /* the lock first: a second resumption of the file is refused
       before it reads anything */
    if (check_target(S, target, NULL, o->resume, 0)
        || start(S, target, every, info->note, o->resume)
        || skip_input(o->resume, input))
        return 1;
    skip_written(info);
    return 0;
}

int vl_saving_end(VladState *S, int status)
{
    if (vlad_stop_autosave(S, status == 0) != VLAD_OK) {
        fflush(stdout);
        fputs(vlad_last_error(S)->text, stderr);
        return 1;
    }
    return status;
}
