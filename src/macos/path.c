/* path: core/path.h's resolver in the macOS set (core/path.c is Linux's: /proc, O_PATH,
 * openat2). The walk is Linux's: one component at a time from the root, the cwd or DIRFD,
 * through directory descriptors, each symlink read and followed as the kernel follows it (".."
 * after a link is the parent of its target; a dangling final link is followed too: O_CREAT
 * creates its target), trailing slashes, ELOOP after 32 links (macOS's MAXSYMLINKS). What is
 * reached is named by the system, never by the text that led there: the longest existing part
 * of the path is a directory, or a name in one, and a directory is named from its descriptor
 * (darwin.c's tf_mac_fd_path: fcntl F_GETPATH on macOS, so one name whatever the case it was
 * spelled in, and /var, /tmp, /etc as /private/...); a file, a link kept as it is
 * (PATH_NOFOLLOW) or a name not made yet is its directory's name and its own, as written (a
 * file's descriptor may name another of its hard links); the rest is appended lexically. macOS has
 * no O_PATH: a directory on the way that cannot be opened for reading (no read permission) cannot
 * be walked through, and the caller is told it cannot tell (a write is then refused). Case: a name
 * as written is compared as written (core/policy compares bytes); a directory comes back with the
 * one name the system has for it, so a writable directory spelled in another case still matches.
 * docs/platforms.md. */
#include "core/path.h"
#include "darwin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_LINKS = 32 };

struct walker {
    struct path_res *res;
    tf_err *err;
    int root;               /* "/" */
    int cur;                /* the directory reached so far */
    char *buf;              /* the components still to walk (replaced at each symlink) */
    char *rest;             /* the next of them, in buf */
    int links;              /* symlinks followed */
    struct path_open *open; /* path_open_at's checks and its directory (NULL: none) */
    bool follow_last;       /* follow a final symlink */
    bool trailing;          /* the path ends in '/': its target must be a directory */
    char name[PATH_MAX];
    char link[PATH_MAX];
};

static const int dir_flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static bool same_inode(int a, int b)
{
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Nothing is named: the kernel fails the call with E. Returns 1 (the walk is over). */
static int rejected(struct walker *w, int e)
{
    w->res->kind = PATH_REJECTED;
    w->res->errnum = e;
    return 1;
}

/* ---- naming what was reached --------------------------------------------------------- */

/* The name of the open file FD, absolute: 0, 1 when too long to name, -1 (errno). */
static int fd_text(int fd, char *out, size_t len)
{
    int r = tf_mac_fd_path(fd, out, len);
    if (r == 0 && out[0] != '/')
        return errno = EBADF, -1;
    return r;
}

/* The target, in or at DIR, is too deep to name: name DIR or its deepest ancestor that fits
 * instead, and mark the target as beneath it. Every entry of the writable set fits in PATH_MAX,
 * so any that contains the target contains that ancestor too. */
static int name_ancestor(struct walker *w, int dir)
{
    int d = fcntl(dir, F_DUPFD_CLOEXEC, 3);
    for (int i = 0; d >= 0 && i < PATH_MAX; i++) {
        int r = fd_text(d, w->res->path, sizeof w->res->path);
        if (r == 0) {
            close(d);
            w->res->beneath = true;
            return 0;
        }
        int up = r < 0 ? -1 : openat(d, "..", dir_flags);
        close(d);
        d = up;
    }
    int e = errno;
    close_fd(&d);
    return tf_errnof(w->err, e, "cannot name a directory too deep for PATH_MAX");
}

/* path_open_at: the target FD, when it is a directory, is handed back open. */
static void hand_back(struct walker *w, int fd)
{
    struct stat st;
    if (w->open && w->open->dirfd < 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
        w->open->dirfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

/* The target is the directory open on FD; PARENT is the one it was found in. */
static int name_dir(struct walker *w, int fd, int parent)
{
    struct path_res *res = w->res;
    hand_back(w, fd);
    res->kind = PATH_FILE;
    int r = fd_text(fd, res->path, sizeof res->path);
    if (r < 0)
        return tf_errnof(w->err, errno, "cannot name an open directory");
    return r == 1 ? name_ancestor(w, parent) : 0;
}

/* Append the components of TAIL to res->path lexically: none of them exists, so there is no
 * symlink to honour (the kernel fails the call; this only names what was meant). */
static void append_lexical(struct path_res *res, const char *tail)
{
    char *base = res->path;
    size_t len = strlen(base);
    for (const char *c = tail; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            char *slash = strrchr(base, '/');
            len = slash == base ? 1 : (size_t)(slash - base);
            base[len] = '\0';
        } else if (n && !(n == 1 && c[0] == '.')) {
            bool root = len == 1;
            if (len + !root + n >= sizeof res->path) {
                res->beneath = true; /* named by what fits: the rest is beneath it */
                return;
            }
            if (!root)
                base[len++] = '/';
            memcpy(base + len, c, n);
            len += n;
            base[len] = '\0';
        }
        c += n;
        c += strspn(c, "/");
    }
}

/* The target is NAME (and, when AFTER is set, the components after it) in the current
 * directory: not there (E: the errno the kernel fails the call with, 0 when it may create
 * it), or there and no directory (a file, a link kept, a fifo: named as written). */
static int name_in_cur(struct walker *w, const char *name, const char *after, int e)
{
    struct path_res *res = w->res;
    struct stat st;
    if (fstat(w->cur, &st) == 0 && st.st_nlink == 0) {
        rejected(w, ENOENT); /* nothing can be made in a removed directory */
        return 0;
    }
    res->kind = PATH_FILE;
    res->errnum = e;
    int r = fd_text(w->cur, res->path, sizeof res->path);
    if (r < 0)
        return tf_errnof(w->err, errno, "cannot name a directory");
    if (r == 1)
        return name_ancestor(w, w->cur);
    append_lexical(res, name);
    if (after)
        append_lexical(res, after);
    return 0;
}

/* ---- walking ------------------------------------------------------------------------- */

/* Take the next component of w->rest into w->name; true when it is the last. */
static bool next_name(struct walker *w)
{
    char *c = w->rest;
    size_t n = strcspn(c, "/");
    memcpy(w->name, c, n < sizeof w->name ? n : sizeof w->name - 1);
    w->name[n < sizeof w->name ? n : sizeof w->name - 1] = '\0';
    c += n;
    c += strspn(c, "/");
    w->rest = c;
    return *c == '\0';
}

/* Continue the walk at the symlink text TARGET followed by what is left. */
static int expand(struct walker *w, const char *target)
{
    if (++w->links > MAX_LINKS)
        return rejected(w, ELOOP);
    size_t lt = strlen(target), lr = strlen(w->rest);
    char *nb = malloc(lt + lr + 2);
    if (!nb)
        return tf_errf(w->err, "out of memory");
    memcpy(nb, target, lt);
    nb[lt] = lr ? '/' : '\0';
    memcpy(nb + lt + 1, w->rest, lr + 1);
    free(w->buf);
    w->buf = w->rest = nb;
    if (target[0] == '/') {
        close_fd(&w->cur);
        if ((w->cur = fcntl(w->root, F_DUPFD_CLOEXEC, 3)) < 0)
            return tf_errnof(w->err, errno, "cannot reopen the root");
        w->rest += strspn(w->rest, "/");
    }
    return 0;
}

/* path_open_at: the symlink C in the current directory is about to be followed; its
 * caller may refuse it. 0, or -1 with the caller's error. */
static int show_link(struct walker *w, const char *c)
{
    char dir[PATH_MAX], link[PATH_MAX];
    if (!w->open || !w->open->on_link)
        return 0;
    if (fd_text(w->cur, dir, sizeof dir) != 0)
        return tf_errf(w->err, "cannot name the directory of the symlink %s", c);
    if (path_join(link, sizeof link, dir, c, w->err) < 0)
        return -1;
    return w->open->on_link(link, w->open->arg, w->err);
}

/* The directory C of the current one, reached: named when LAST, else entered. */
static int directory(struct walker *w, const char *c, bool last)
{
    int fd = openat(w->cur, c, dir_flags | O_NOFOLLOW);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR)
            return name_in_cur(w, c, last ? NULL : w->rest, last && e == ENOENT ? 0 : e) < 0 ? -1
                                                                                             : 1;
        if (last && (e == EACCES || e == EPERM)) /* not readable: it is there, no link */
            return name_in_cur(w, c, NULL, 0) < 0 ? -1 : 1;
        return tf_errnof(w->err, e, "cannot open the directory %s on the way", c);
    }
    if (last) {
        int rc = name_dir(w, fd, w->cur);
        close(fd);
        return rc < 0 ? -1 : 1;
    }
    close_fd(&w->cur);
    w->cur = fd;
    return 0;
}

/* One component: 0 to go on, 1 when the target is named, -1 on failure. */
static int step(struct walker *w)
{
    bool last = next_name(w);
    const char *c = w->name;
    if (!c[0] || !strcmp(c, ".") || !strcmp(c, "..")) {
        if (!strcmp(c, "..") && !same_inode(w->cur, w->root)) {
            int up = openat(w->cur, "..", dir_flags);
            if (up < 0)
                return tf_errnof(w->err, errno, "cannot open ..");
            close_fd(&w->cur);
            w->cur = up;
        }
        return last ? (name_dir(w, w->cur, w->cur) < 0 ? -1 : 1) : 0;
    }
    struct stat st;
    if (fstatat(w->cur, c, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR || e == ENAMETOOLONG)
            return name_in_cur(w, c, last ? NULL : w->rest, last && e == ENOENT ? 0 : e) < 0 ? -1
                                                                                             : 1;
        return tf_errnof(w->err, e, "cannot look up %s", c);
    }
    if (S_ISLNK(st.st_mode) && (!last || w->follow_last)) {
        if (show_link(w, c) < 0)
            return -1;
        ssize_t n = readlinkat(w->cur, c, w->link, sizeof w->link - 1);
        if (n < 0)
            return tf_errnof(w->err, errno, "cannot read the symlink %s", c);
        w->link[n] = '\0';
        return expand(w, w->link);
    }
    if (S_ISDIR(st.st_mode))
        return directory(w, c, last);
    /* A file, a fifo, a socket, a device, or a final link kept: its directory's name and its
     * own. On the way, it is no directory: the call fails with ENOTDIR. */
    if (!last)
        return name_in_cur(w, c, w->rest, ENOTDIR) < 0 ? -1 : 1;
    if (name_in_cur(w, c, NULL, 0) < 0)
        return -1;
    if (w->trailing)
        w->res->errnum = ENOTDIR;
    return 1;
}

/* Where the walk starts: the root for an absolute path, else DIRFD or the cwd. */
static int start(struct walker *w, int dirfd, const char *path)
{
    if ((w->root = open("/", dir_flags)) < 0)
        return tf_errnof(w->err, errno, "cannot open the root");
    if (path[0] == '/')
        w->cur = fcntl(w->root, F_DUPFD_CLOEXEC, 3);
    else
        w->cur = dirfd == AT_FDCWD ? open(".", dir_flags) : fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
    if (w->cur >= 0)
        return 0;
    if (errno == EBADF)
        return rejected(w, EBADF);
    return tf_errnof(w->err, errno, "cannot open the %s", dirfd == AT_FDCWD ? "cwd" : "dirfd");
}

/* PATH is "" with AT_EMPTY_PATH: DIRFD (the cwd for AT_FDCWD) is the target, a directory or
 * any open file (named from its descriptor: one of its names). */
static int empty_path(struct walker *w, int dirfd)
{
    int fd = dirfd == AT_FDCWD ? open(".", dir_flags) : fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
    if (fd < 0 && errno == EBADF)
        return rejected(w, EBADF);
    if (fd < 0)
        return tf_errnof(w->err, errno, "cannot open fd %d", dirfd);
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) < 0)
        rc = tf_errnof(w->err, errno, "cannot look at fd %d", dirfd);
    else if (S_ISDIR(st.st_mode))
        rc = name_dir(w, fd, fd); /* a directory too deep to name is beneath its parent */
    else if (st.st_nlink == 0)
        w->res->kind = PATH_NO_FILE; /* a file with no name left */
    else {
        w->res->kind = PATH_FILE;
        int r = fd_text(fd, w->res->path, sizeof w->res->path);
        if (r != 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
            w->res->kind = PATH_NO_FILE; /* a pipe, a socket: no file in the tree */
            w->res->path[0] = '\0';
        } else if (r != 0)
            rc = tf_errnof(w->err, r < 0 ? errno : ENAMETOOLONG, "cannot name fd %d", dirfd);
    }
    close(fd);
    return rc < 0 ? -1 : 1;
}

/* Walk PATH to its target: 1 when it is named (or rejected), -1 on failure. */
static int walk(struct walker *w, int dirfd, const char *path, unsigned flags)
{
    size_t len = strlen(path);
    if (!len)
        return flags & PATH_EMPTY ? empty_path(w, dirfd) : rejected(w, ENOENT);
    if (len >= PATH_MAX)
        return rejected(w, ENAMETOOLONG);
    /* Trailing slashes make the last component a directory, followed even for NOFOLLOW. */
    w->trailing = len > 1 && path[len - 1] == '/';
    w->follow_last = !(flags & PATH_NOFOLLOW) || w->trailing;
    if (!(w->buf = strdup(path)))
        return tf_errf(w->err, "out of memory");
    w->rest = w->buf + strspn(w->buf, "/");
    int rc = start(w, dirfd, path);
    if (rc == 0 && !*w->rest) /* "/" or "//" */
        rc = name_dir(w, w->cur, w->cur) < 0 ? -1 : 1;
    while (rc == 0)
        rc = step(w);
    return rc;
}

static int resolve(const struct path_ctx *ctx, int dirfd, const char *path, unsigned flags,
                   struct path_open *open, struct path_res *res, tf_err *err)
{
    memset(res, 0, sizeof *res);
    if (ctx && ctx->pid)
        return tf_errf(err, "another process's view of the tree cannot be had on macOS");
    struct walker *w = calloc(1, sizeof *w);
    if (!w)
        return tf_errf(err, "out of memory");
    *w = (struct walker){.res = res, .err = err, .root = -1, .cur = -1, .open = open};
    int rc = walk(w, dirfd, path ? path : "", flags);
    close_fd(&w->root);
    close_fd(&w->cur);
    free(w->buf);
    free(w);
    return rc < 0 ? -1 : 0;
}

int path_resolve_at(const struct path_ctx *ctx, int dirfd, const char *path, unsigned flags,
                    struct path_res *res, tf_err *err)
{
    return resolve(ctx, dirfd, path, flags, NULL, res, err);
}

int path_open_at(const char *path, struct path_open *open, struct path_res *res, tf_err *err)
{
    open->dirfd = -1;
    int rc = resolve(NULL, AT_FDCWD, path, 0, open, res, err);
    if ((rc < 0 || res->kind != PATH_FILE || res->errnum) && open->dirfd >= 0) {
        close(open->dirfd); /* no directory was reached after all */
        open->dirfd = -1;
    }
    return rc;
}
