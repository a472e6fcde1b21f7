/* path: core/path.h's resolver on Windows (core/path.c is Linux's: /proc and O_PATH walks).
 * Windows itself makes a path absolute and folds "." and ".." lexically before any file is
 * looked at (GetFullPathName), then follows symlinks and junctions on the way; so does this:
 * the longest part of the path that exists is opened (its final link or junction followed,
 * unless PATH_NOFOLLOW asks for the link itself) and named by the system from its handle
 * (GetFinalPathNameByHandle); what does not exist yet is appended as written. Paths come
 * back with '/' ("C:/Users/me/proj/tests/x"), the form every part compares. */
#include "core/path.h"
#include "core/platform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

/* PATH relative to DIRFD (AT_FDCWD: the cwd) made absolute and folded, in OUT. */
static int full_path(int dirfd, const char *path, char *out, size_t len)
{
    char joined[PATH_MAX];
    bool abs = path[0] == '/' || path[0] == '\\' || (path[0] && path[1] == ':');
    if (!abs && dirfd != AT_FDCWD) {
        char dir[PATH_MAX];
        if (tf_win_fd_path(dirfd, dir, sizeof dir) < 0)
            return -1;
        int w = snprintf(joined, sizeof joined, "%s/%s", dir, path);
        if (w < 0 || (size_t)w >= sizeof joined) {
            errno = ENAMETOOLONG;
            return -1;
        }
        path = joined;
    }
    DWORD n = GetFullPathNameA(path, (DWORD)len, out, NULL);
    if (n == 0 || n >= len) {
        errno = n ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    platform_separators(out);
    return 0;
}

/* The system's name for the file at PATH (its links followed, or with NOFOLLOW not the
 * last), in OUT: 0; 1 when PATH does not exist; -1 (errno) otherwise. */
static int final_name(const char *path, bool nofollow, char *out, size_t len, int *dirfd)
{
    int flags = nofollow ? O_PATH | O_NOFOLLOW : O_PATH;
    DWORD a = GetFileAttributesA(path);
    if (a == INVALID_FILE_ATTRIBUTES)
        return 1;
    if (nofollow && (a & FILE_ATTRIBUTE_REPARSE_POINT))
        flags = O_PATH; /* the link itself: named by its parent below */
    int fd = -1;
    if (!(nofollow && (a & FILE_ATTRIBUTE_REPARSE_POINT)))
        fd = open(path, flags);
    if (fd < 0 && !(nofollow && (a & FILE_ATTRIBUTE_REPARSE_POINT)))
        return errno == ENOENT ? 1 : -1;
    if (fd < 0) { /* a final link kept as it is: its directory's name, then its own */
        char dir[PATH_MAX];
        const char *slash = strrchr(path, '/');
        if (!slash || (size_t)(slash - path) >= sizeof dir)
            return errno = EINVAL, -1;
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
        if (dir[1] == ':' && !dir[2]) {
            dir[2] = '/';
            dir[3] = '\0';
        }
        int r = final_name(dir, false, out, len, NULL);
        if (r != 0)
            return r;
        size_t l = strlen(out);
        int w = snprintf(out + l, len - l, "%s%s", out[l - 1] == '/' ? "" : "/", slash + 1);
        return w < 0 || (size_t)w >= len - l ? (errno = ENAMETOOLONG, -1) : 0;
    }
    int rc = tf_win_fd_path(fd, out, len);
    struct stat st;
    if (rc == 0 && dirfd && *dirfd < 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
        *dirfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return rc;
}

static int resolve(int dirfd, const char *path, unsigned flags, struct path_open *po,
                   struct path_res *res, tf_err *err)
{
    char full[PATH_MAX];
    memset(res, 0, sizeof *res);
    if (!path[0]) {
        if (!(flags & PATH_EMPTY)) {
            res->kind = PATH_REJECTED;
            res->errnum = ENOENT;
            return 0;
        }
        path = ".";
    }
    if (strlen(path) >= PATH_MAX) {
        res->kind = PATH_REJECTED;
        res->errnum = ENAMETOOLONG;
        return 0;
    }
    if (full_path(dirfd, path, full, sizeof full) < 0) {
        if (errno == EBADF) {
            res->kind = PATH_REJECTED;
            res->errnum = EBADF;
            return 0;
        }
        return tf_errnof(err, errno, "cannot make %s absolute", path);
    }
    size_t n = strlen(full);
    while (n > 3 && full[n - 1] == '/')
        full[--n] = '\0';
    /* The longest existing prefix, then the rest as written. */
    char head[PATH_MAX];
    memcpy(head, full, n + 1);
    const char *rest = NULL;
    for (;;) {
        bool last = rest == NULL;
        int r = final_name(head, last && (flags & PATH_NOFOLLOW), res->path, sizeof res->path,
                           po ? &po->dirfd : NULL);
        if (r < 0)
            return tf_errnof(err, errno, "cannot resolve %s", head);
        if (r == 0)
            break;
        char *slash = strrchr(head, '/');
        if (!slash || slash < head + 2 || (slash == head + 2 && !slash[1])) {
            /* the drive itself is missing ("C:/x", C: existing, goes on as "C:/" + "x") */
            res->kind = PATH_REJECTED;
            res->errnum = ENOENT;
            return 0;
        }
        *slash = '\0';
        rest = full + (slash - head) + 1;
        if (slash == head + 2) { /* "C:" -> "C:/" */
            head[2] = '/';
            head[3] = '\0';
        }
    }
    res->kind = PATH_FILE;
    if (rest) {
        /* A directory on the way is missing: the call fails with ENOENT anyway. */
        res->errnum = strchr(rest, '/') ? ENOENT : 0;
        size_t l = strlen(res->path);
        int w = snprintf(res->path + l, sizeof res->path - l, "%s%s",
                         res->path[l - 1] == '/' ? "" : "/", rest);
        if (w < 0 || (size_t)w >= sizeof res->path - l)
            res->beneath = true;
    }
    return 0;
}

int path_resolve_at(const struct path_ctx *ctx, int dirfd, const char *path, unsigned flags,
                    struct path_res *res, tf_err *err)
{
    if (ctx && ctx->pid)
        return tf_errf(err, "another process's view of the tree cannot be had on Windows");
    return resolve(dirfd, path ? path : "", flags, NULL, res, err);
}

int path_open_at(const char *path, struct path_open *po, struct path_res *res, tf_err *err)
{
    po->dirfd = -1;
    /* A link or junction on the way is shown to the caller, as on Linux (policy refuses one
     * inside the writable set): each existing component of the path is asked. */
    char full[PATH_MAX];
    if (full_path(AT_FDCWD, path, full, sizeof full) < 0)
        return tf_errnof(err, errno, "cannot make %s absolute", path);
    for (char *c = full + 3;; c++) {
        if (*c == '/' || !*c) {
            char save = *c;
            *c = '\0';
            DWORD a = GetFileAttributesA(full);
            if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_REPARSE_POINT) && po->on_link &&
                po->on_link(full, po->arg, err) < 0)
                return -1;
            *c = save;
            if (!save)
                break;
        }
    }
    int rc = resolve(AT_FDCWD, path, 0, po, res, err);
    if ((rc < 0 || res->kind != PATH_FILE || res->errnum) && po->dirfd >= 0) {
        close(po->dirfd);
        po->dirfd = -1;
    }
    return rc;
}

