/*
 * vm/persist/savefile.c -- the files saves are written to (see vm/persist/savefile.h)
 */
#include "config.h"
#include "vm/persist/savefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "vm/persist/ckptfile.h"

#define LINKS_MAX 40                    /* as the kernel's MAXSYMLINKS */
#define LOCK_SUFFIX ".vlad-lock"
#define TMP_SUFFIX ".vlad-tmp."         /* then 6 characters (mkstemp) */
#define LOCK_TEXT "vlad lock: pid "

static int fail(VlSaveFile *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->why, sizeof f->why, fmt, ap);
    va_end(ap);
    return -1;
}

/* The directory part of 'path' (malloc'd; NULL: no memory). */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash == NULL ? strdup(".")
           : slash == path ? strdup("/")
           : strndup(path, (size_t)(slash - path));
}

static char *concat(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = malloc(na + nb + 1);
    if (s != NULL) {
        memcpy(s, a, na);
        memcpy(s + na, b, nb + 1);
    }
    return s;
}

/* 'path' with its symbolic links followed (malloc'd), or NULL with
   errno set.  A path whose last component does not exist is the file to
   make (its directory is checked when something is made there). */
static char *resolve(const char *path)
{
    char *p = strdup(path);
    for (int links = 0; p != NULL; links++) {
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
            return p;
        if (links == LINKS_MAX) {
            free(p);
            errno = ELOOP;
            return NULL;
        }
        size_t cap = 256;
        char *t = NULL;
        ssize_t n;
        do {
            cap *= 2;
            char *nt = realloc(t, cap);
            if (nt == NULL) {
                free(t);
                free(p);
                errno = ENOMEM;
                return NULL;
            }
            t = nt;
            n = readlink(p, t, cap);
        } while (n >= 0 && (size_t)n >= cap - 1);
        if (n < 0) {
            int e = errno;
            free(t);
            free(p);
            errno = e;
            return NULL;
        }
        t[n] = '\0';
        char *next = NULL;
        if (t[0] == '/') {
            next = t;
            t = NULL;
        } else {
            char *dir = dir_of(p);
            char *dir_slash = dir != NULL ? concat(dir, "/") : NULL;
            next = dir_slash != NULL ? concat(dir_slash, t) : NULL;
            free(dir_slash);
            free(dir);
        }
        free(t);
        free(p);
        p = next;
    }
    errno = ENOMEM;
    return NULL;
}

/* Whether the regular file at 'path' begins with the magic; -1 when it
   cannot be read (errno set). */
static int is_save(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char magic[8];
    ssize_t n;
    do
        n = pread(fd, magic, sizeof magic, 0);
    while (n < 0 && errno == EINTR);
    int e = errno;
    close(fd);
    errno = e;
    if (n < 0)
        return -1;
    return n == (ssize_t)sizeof magic && memcmp(magic, VL_CKPT_MAGIC, 8) == 0;
}

/* Whether what is at f->path may be replaced (vm/persist/savefile.h); it is then
   f's.  0, or -1 with the reason. */
static int check(VlSaveFile *f)
{
    struct stat st;
    f->owned = 0;
    if (lstat(f->path, &st) != 0)
        return errno == ENOENT ? 0 : fail(f, "%s", strerror(errno));
    if (S_ISDIR(st.st_mode))
        return fail(f, "it is a directory");
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        return fail(f, "it is a device");
    if (S_ISFIFO(st.st_mode))
        return fail(f, "it is a FIFO (a named pipe)");
    if (S_ISSOCK(st.st_mode))
        return fail(f, "it is a socket");
    if (S_ISLNK(st.st_mode))            /* made since it was followed */
        return fail(f, "it became a symbolic link");
    if (!S_ISREG(st.st_mode))
        return fail(f, "it is not a regular file");
    if (st.st_size > 0) {
        int s = is_save(f->path);
        if (s < 0)
            return fail(f, "cannot read it to see what it holds: %s",
                        strerror(errno));
        if (!s)
            return fail(f, "it is not a file vlad saved (it does not "
                           "begin with VLADCKPT): remove it, or save to "
                           "another file");
    }
    f->owned = 1;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    return 0;
}

/* The process named in a lock file's text, or 0. */
static long lock_pid(const char *text, ssize_t n)
{
    size_t k = sizeof LOCK_TEXT - 1;
    if (n <= (ssize_t)k || memcmp(text, LOCK_TEXT, k) != 0)
        return 0;
    return strtol(text + k, NULL, 10);
}

/* Take the lock of f (vm/persist/savefile.h).  0, or -1 with the reason. */
static int lock(VlSaveFile *f)
{
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(f->lock_path, O_RDWR | O_CREAT | O_NOFOLLOW
                                    | O_NONBLOCK | O_CLOEXEC, 0644);
        if (fd < 0)
            return errno == ELOOP
                   ? fail(f, "'%s' is a symbolic link", f->lock_path)
                   : fail(f, "cannot make its lock file '%s': %s",
                          f->lock_path, strerror(errno));
        struct stat st, now;
        char text[64];
        ssize_t n = -1;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            return fail(f, "'%s' is not a regular file", f->lock_path);
        }
        if (st.st_size > 0) {
            n = pread(fd, text, sizeof text - 1, 0);
            size_t k = sizeof LOCK_TEXT - 1;
            if (n > 0 && memcmp(text, LOCK_TEXT,
                                (size_t)n < k ? (size_t)n : k) != 0) {
                close(fd);
                return fail(f, "'%s' is there and is not a lock file of "
                               "vlad", f->lock_path);
            }
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close(fd);
            if (e == EINTR)
                continue;
            if (e != EWOULDBLOCK)
                return fail(f, "cannot lock '%s': %s", f->lock_path,
                            strerror(e));
            long pid = lock_pid(text, n);
            if (pid > 0)
                return fail(f, "another vlad (process %ld) is saving to "
                               "it", pid);
            return fail(f, "another vlad is saving to it");
        }
        /* the holder before may have removed the file after this open
           (vl_savefile_close): then the lock is on a file nobody sees */
        if (stat(f->lock_path, &now) != 0 || now.st_dev != st.st_dev
            || now.st_ino != st.st_ino) {
            close(fd);
            continue;
        }
        /* the holder before is no longer named; this one is once its
           start-up is over (name_holder) */
        int r = ftruncate(fd, 0);   /* the text only names the holder */
        (void)r;
        f->lock_fd = fd;
        return 0;
    }
    return fail(f, "cannot lock it: '%s' keeps being replaced",
                f->lock_path);
}

/* Write this process's number into the lock file, for the messages of
   another vlad that finds FILE locked.  Done last, once the temporaries
   are swept: a lock that names a process says its start-up is over. */
static void name_holder(VlSaveFile *f)
{
    char text[64];
    int len = snprintf(text, sizeof text, LOCK_TEXT "%ld\n",
                       (long)getpid());
    ssize_t w = pwrite(f->lock_fd, text, (size_t)len, 0);
    (void)w;                    /* the text only names the holder */
}

/* Remove the temporary files of f->path that killed writers left (the
   lock is held: no other writer is writing one). */
static void sweep(VlSaveFile *f)
{
    char *dir = dir_of(f->path);
    const char *slash = strrchr(f->path, '/');
    char *prefix = concat(slash != NULL ? slash + 1 : f->path, TMP_SUFFIX);
    DIR *d = dir != NULL && prefix != NULL ? opendir(dir) : NULL;
    size_t n = prefix != NULL ? strlen(prefix) : 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        struct stat st;
        if (strncmp(e->d_name, prefix, n) == 0 && strlen(e->d_name) == n + 6
            && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0
            && S_ISREG(st.st_mode))
            (void)unlinkat(dirfd(d), e->d_name, 0);
    }
    if (d != NULL)
        closedir(d);
    free(prefix);
    free(dir);
}

static void release(VlSaveFile *f)
{
    if (f->lock_fd >= 0) {
        /* removed first: whoever opened it meanwhile sees that it is
           gone once it has the lock, and makes a new one (lock) */
        (void)unlink(f->lock_path);
        close(f->lock_fd);
        f->lock_fd = -1;
    }
    free(f->path);
    free(f->lock_path);
    f->path = f->lock_path = NULL;
}

int vl_savefile_open(VlSaveFile *f, const char *path)
{
    memset(f, 0, sizeof *f);
    f->lock_fd = -1;
    f->path = resolve(path);
    if (f->path == NULL) {
        int e = errno;
        release(f);
        return fail(f, "%s", e == ELOOP ? "too many symbolic links"
                                        : strerror(e));
    }
    f->lock_path = concat(f->path, LOCK_SUFFIX);
    if (f->lock_path == NULL) {
        release(f);
        return fail(f, "%s", strerror(ENOMEM));
    }
    /* checked before the lock file is made beside it (a device's
       directory gets nothing), and again under the lock */
    if (check(f) != 0 || lock(f) != 0 || check(f) != 0) {
        char why[sizeof f->why];
        memcpy(why, f->why, sizeof why);
        release(f);
        memcpy(f->why, why, sizeof why);
        return -1;
    }
    sweep(f);
    name_holder(f);
    return 0;
}

/* Write all of p[0, n) to fd. */
static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Flush the directory of 'path' to the disk, after a rename there. */
static void sync_dir(const char *path)
{
    char *dir = dir_of(path);
    int fd = dir != NULL ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                         : -1;
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

int vl_savefile_write(VlSaveFile *f, const void *data, size_t len)
{
    if (f->path == NULL)
        return fail(f, "not open");
    struct stat st;
    if (lstat(f->path, &st) == 0) {
        if (!f->owned || st.st_dev != f->dev || st.st_ino != f->ino)
            return fail(f, "another file was put in its place (it is "
                           "not replaced)");
    } else if (errno != ENOENT) {
        return fail(f, "%s", strerror(errno));
    }
    char *tmp = concat(f->path, TMP_SUFFIX "XXXXXX");
    if (tmp == NULL)
        return fail(f, "%s", strerror(ENOMEM));
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return fail(f, "%s", strerror(e));
    }
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    int failed = write_all(fd, data, len) != 0 || fsync(fd) != 0
              || fstat(fd, &st) != 0;
    int e = errno;
    (void)fchmod(fd, 0644);     /* mkstemp made it 0600 */
    if (close(fd) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (!failed && rename(tmp, f->path) != 0) {
        failed = 1;
        e = errno;
    }
    if (failed) {
        (void)unlink(tmp);
        free(tmp);
        return fail(f, "%s", strerror(e));
    }
    free(tmp);
    sync_dir(f->path);
    f->owned = 1;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    return 0;
}

int vl_savefile_close(VlSaveFile *f, int remove)
{
    int status = 0;
    struct stat st;
    if (remove && f->path != NULL && f->owned
        && lstat(f->path, &st) == 0 && st.st_dev == f->dev
        && st.st_ino == f->ino && unlink(f->path) != 0)
        status = fail(f, "cannot remove it: %s", strerror(errno));
    f->owned = 0;
    release(f);
    return status;
}
