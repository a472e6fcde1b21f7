/* walk: the one walker of directory trees under the writable set and the root.
 * It starts from a directory fd, enters directories with O_NOFOLLOW and never follows a link. */
#ifndef TESTFENCE_WALK_H
#define TESTFENCE_WALK_H

#include "base/err.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include "dirlist.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>

struct walk_entry {
    int dirfd;          /* the directory holding the entry, open for the *at() calls */
    const char *name;   /* the entry's name in dirfd ("." for the start directory) */
    const char *path;   /* the start's path + "/" + the path below it */
    size_t len;         /* strlen(path) */
    unsigned char type; /* d_type from readdir; DT_UNKNOWN when the file system gives none */
    int depth;          /* 0 for the children of the start directory, -1 for the start */
    long tag;           /* the visitor's own note, handed back in leave() and problem() */
};

enum walk_problem {
    WALK_TOO_DEEP,      /* a directory at max_depth: not entered */
    WALK_UNLISTED,      /* a directory that could not be opened or listed (errnum says why) */
    WALK_PATH_TOO_LONG, /* a name in the directory makes a path longer than PATH_MAX: skipped */
};

struct walk_ops {
    /* Every entry below the start, parents first. Return 1 to enter it (when it is a
     * directory), 0 to pass over it, -1 to stop the walk with that error. */
    int (*visit)(void *ctx, struct walk_entry *e);
    /* After the children of a directory that was entered; NULL when not needed. */
    int (*leave)(void *ctx, const struct walk_entry *e);
    /* What could not be walked, told about the directory concerned; NULL ignores it.
     * Return 0 to go on, -1 to stop. */
    int (*problem)(void *ctx, const struct walk_entry *dir, enum walk_problem what, int errnum);
    int max_depth; /* directories at this depth are not entered */
};

/* Walk the directory open on FD (taken over: closed before returning) whose path is PATH;
 * TAG is the start directory's tag. Returns 0, or -1 when a callback stopped the walk. */
int walk_fd(int fd, const char *path, long tag, const struct walk_ops *ops, void *ctx);

/* The two calls of this header every platform has (the rest is Linux's: directory fds).
 * Linux: walk.c; Windows: src/windows/walk.c, where an entry's dirfd is -1. */

/* Walk the directory PATH, as walk_fd does. 0; -1 when a callback stopped the walk; -2 with
 * errno set when PATH cannot be opened as a directory (no callback was called). */
int walk_path(const char *path, long tag, const struct walk_ops *ops, void *ctx);

/* Stat the entry E: the link itself with FOLLOW false, what it names with FOLLOW true. */
int walk_stat(const struct walk_entry *e, bool follow, struct stat *st);

/* Open the directory REL ("a/b/c": plain names, no "." or "..") beneath the directory DIRFD,
 * one component at a time with O_NOFOLLOW, so nothing under the writable set can lead the
 * unfenced parent elsewhere. With MODE != 0 missing components are created with it. REL ""
 * opens DIRFD again. WHERE names DIRFD in messages. Returns a close-on-exec fd, or -1 with
 * errno saying why (ENOENT: missing; ELOOP or ENOTDIR: a symlink or not a directory, refused
 * by name). */
int walk_open_dir(int dirfd, const char *where, const char *rel, mode_t mode, tf_err *err);

/* List the directory DIRFD through a new open file description, close-on-exec (a dup would
 * share DIRFD's offset, and leak into a command). NULL with errno set; dirlist_close when
 * done. */
struct dirlist *walk_list(int dirfd);

/* walk_open_dir for a directory that is only passed through or made in (a base others may
 * only search, 0711): an O_PATH fd, good as the DIRFD of *at calls, not for listing. */
int walk_path_dir(int dirfd, const char *where, const char *rel, mode_t mode, tf_err *err);

#endif
