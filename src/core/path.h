/* path: what a path means, resolved as the kernel would for a given process.
 * The one resolver: the guard, the shim, libtestfence, the plugin and explain all ask it. */
#ifndef TESTFENCE_PATH_H
#define TESTFENCE_PATH_H

#include "base/err.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Whose view of the file tree applies: its root, its cwd, its fds, its /proc/self. */
struct path_ctx {
    pid_t pid; /* 0: this process; else a thread we may look into through /proc/PID */
};

enum {
    /* The call acts on a final symlink itself (lchown, AT_SYMLINK_NOFOLLOW, unlink, rename,
     * O_CREAT|O_EXCL). A trailing slash still follows it, as in the kernel. */
    PATH_NOFOLLOW = 1u << 0,
    /* AT_EMPTY_PATH: an empty PATH names DIRFD itself (AT_FDCWD: the cwd). */
    PATH_EMPTY = 1u << 1,
};

enum path_kind {
    PATH_FILE,     /* path names the target (which may not exist yet) */
    PATH_NO_FILE,  /* not in the file tree: a pipe, a socket, an anonymous inode, a file or
                      directory with no name left (memfd, unlinked) */
    PATH_REJECTED, /* nothing is named: the kernel fails the call itself with errnum (a closed
                      fd, an empty path without AT_EMPTY_PATH, a path of PATH_MAX bytes, a loop) */
};

struct path_res {
    enum path_kind kind;
    /* PATH_FILE: 0, or the errno the kernel fails the call with anyway (a directory on the
     * way is missing or not a directory; path is then completed lexically). */
    int errnum;
    /* The target lies strictly beneath path: too deep to name in PATH_MAX bytes. Only a
     * directory of the writable set can then contain it (see policy_match_res). */
    bool beneath;
    char path[PATH_MAX]; /* absolute, symlinks resolved, as this process sees the tree */
};

/* Resolve PATH relative to DIRFD (AT_FDCWD: the cwd) in the view of CTX's process, component
 * by component through file descriptors, as the kernel would: "." and "..", symlinks (a
 * dangling final one too: O_CREAT creates its target), /proc/self, /proc/thread-self,
 * /dev/fd/N and /proc/PID/fd/N (the file itself, never the text of the link), trailing
 * slashes, paths and cwds of any depth. Returns 0 with RES filled, or -1 when it cannot tell
 * (a process we may not look into, a name that no longer holds): callers deciding a write
 * must then refuse it. */
int path_resolve_at(const struct path_ctx *ctx, int dirfd, const char *path, unsigned flags,
                    struct path_res *res, tf_err *err);

/* For a caller that must open what it resolves, in this process (outpath: a report file's
 * directory): each symlink the walk follows is first shown to ON_LINK by its absolute name,
 * which may refuse it (-1, with ERR set: the walk stops); a target that is a directory is
 * handed back open (O_PATH) in DIRFD, else DIRFD stays -1. */
struct path_open {
    int (*on_link)(const char *link, void *arg, tf_err *err);
    void *arg;
    int dirfd;
};

/* PATH resolved as path_resolve_at does for this process, relative to the cwd, with OPEN's
 * checks and its directory: 0 with RES filled, or -1. OPEN->dirfd is the caller's to close. */
int path_open_at(const char *path, struct path_open *open, struct path_res *res, tf_err *err);

/* PATH (relative to the cwd) resolved for this process, as text: an error when it names no
 * file or does not fit in OUTLEN. */
int path_resolve(const char *path, char *out, size_t outlen, tf_err *err);

/* out = a + "/" + b, without doubling the slash. Fails when it does not fit. */
int path_join(char *out, size_t outlen, const char *a, const char *b, tf_err *err);

/* Is PATH equal to DIR or beneath it? Both must be absolute and normalised. */
bool path_is_within(const char *path, const char *dir);

/* Is PATH normalised, as path_is_within wants it: no empty, "." or ".." component, no '/' at
 * the end but the root's? (Text only: a symlink is not looked at.) */
bool path_is_normal(const char *path);

/* PATH's last component ("x" for "/a/x", PATH itself without a '/', "" for NULL). */
const char *path_base(const char *path);

/* Does S end with TAIL ("x.log" with ".log")? */
bool path_ends_with(const char *s, const char *tail);

/* Copy the directory part of PATH into out ("/" for "/x"). */
void path_dirname(char *out, size_t outlen, const char *path);

#endif
