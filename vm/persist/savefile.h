/*
 * vm/persist/savefile.h -- the files saves are written to: what a save may
 * replace, the lock, the temporary files, the atomic write
 * (vlad_checkpoint_save and the REPL's ,save; autosave, vm/exec/autosave.h)
 *
 * A save replaces the file at its path by a rename: a temporary file
 * beside it is written, flushed to the disk (fsync), renamed over it,
 * and the directory is flushed, so that a crash at any moment leaves
 * the old file or the whole new one.  So that a save never destroys
 * what is not a save (issue 31, L1, U4, R2):
 *   - symbolic links are followed (at most 40): the file written, and
 *     replaced, is the last link's target, and the links stay;
 *   - what is there must be nothing, an empty regular file or a regular
 *     file that begins with VLADCKPT (a file vlad saved): a directory,
 *     a device, a FIFO, a socket or any other file is refused with the
 *     reason, before anything is created beside it;
 *   - a writer holds an exclusive lock (flock) on PATH.vlad-lock while
 *     it writes -- an autosave for as long as it runs -- so two writers
 *     never replace each other's file, and a second one is refused,
 *     naming the process that holds it; the lock dies with its process:
 *     a killed run leaves the lock file (it says "vlad lock: pid N"),
 *     never a lock held, and the next writer takes it;
 *   - once a writer owns the file (it was there when the writer
 *     started, or the writer wrote it), a file that another process puts
 *     in its place is not replaced (vl_savefile_write refuses) nor removed
 *     (vl_savefile_close);
 *   - temporary files are PATH.vlad-tmp.XXXXXX; holding the lock, a
 *     writer removes those a writer killed while saving left behind.
 * Internal header.
 */
#ifndef VL_SAVEFILE_H
#define VL_SAVEFILE_H

#include <stddef.h>
#include <sys/types.h>
#include "vm/core/gc.h"

typedef struct VlSaveFile {
    char *path;             /* the file written: the path given with its
                               symbolic links followed (malloc'd) */
    char *lock_path;        /* path + ".vlad-lock" (malloc'd) */
    int lock_fd;            /* the lock held, or -1 */
    int owned;              /* a file at 'path' is this writer's: */
    dev_t dev;              /* ... the one with these numbers */
    ino_t ino;
    char why[1024];         /* the reason of the last refusal or error */
} VlSaveFile;

/* Start writing to 'path': follow its links, check what is there (above),
   take the lock, check again, remove the temporary files killed writers
   left.  0, or -1 with f->why set and nothing held (f need not be
   closed).  Never raises. */
VL_INTERNAL int vl_savefile_open(VlSaveFile *f, const char *path);

/* Replace the file by the 'len' bytes at 'data', atomically; the new
   file is then f's.  0, or -1 with f->why set (the file as it was: also
   when another file was put in the place of f's since). */
VL_INTERNAL int vl_savefile_write(VlSaveFile *f, const void *data, size_t len);

/* Stop writing: with 'remove', remove the file if it is still f's; then
   release the lock (the lock file removed).  0, or -1 with f->why set
   when the removal failed.  A closed f (or one zeroed with lock_fd -1)
   may be closed again. */
VL_INTERNAL int vl_savefile_close(VlSaveFile *f, int remove);

#endif
