#include "walk.h"

#include "dirlist.h"

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

struct walk {
    const struct walk_ops *ops;
    void *ctx;
    char path[PATH_MAX];
};

static int problem(struct walk *w, const struct walk_entry *dir, enum walk_problem what, int e)
{
    return w->ops->problem ? w->ops->problem(w->ctx, dir, what, e) : 0;
}

static int walk_dir(struct walk *w, int fd, struct walk_entry *dir);

/* Enter the directory E, open it beneath its parent without following a link. */
static int enter(struct walk *w, struct walk_entry *e)
{
    if (e->depth >= w->ops->max_depth)
        return problem(w, e, WALK_TOO_DEEP, 0);
    int fd = openat(e->dirfd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return problem(w, e, WALK_UNLISTED, errno);
    int rc = walk_dir(w, fd, e);
    if (rc == 0 && w->ops->leave)
        rc = w->ops->leave(w->ctx, e);
    return rc;
}

/* One child NAME of DIR (w->path holds DIR's path, LEN long). */
static int child(struct walk *w, struct dirlist *d, const struct walk_entry *dir,
                 const struct dirlist_entry *de)
{
    /* Children of "/" are "/x", not "//x". */
    size_t base = dir->len == 1 && w->path[0] == '/' ? 0 : dir->len;
    size_t nlen = strlen(de->name);
    if (base + 1 + nlen >= sizeof w->path)
        return problem(w, dir, WALK_PATH_TOO_LONG, ENAMETOOLONG);
    w->path[base] = '/';
    memcpy(w->path + base + 1, de->name, nlen + 1);
    struct walk_entry e = {.dirfd = dirlist_fd(d),
                           .name = de->name,
                           .path = w->path,
                           .len = base + 1 + nlen,
                           .type = de->type,
                           .depth = dir->depth + 1};
    int rc = w->ops->visit(w->ctx, &e);
    if (rc > 0)
        rc = enter(w, &e);
    w->path[dir->len] = '\0';
    return rc;
}

/* Walk the directory open on FD (consumed); w->path holds DIR's path. */
static int walk_dir(struct walk *w, int fd, struct walk_entry *dir)
{
    struct dirlist *d = dirlist_open(fd);
    if (!d)
        return problem(w, dir, WALK_UNLISTED, errno);
    struct walk_entry here = *dir;
    here.path = w->path;
    int rc = 0;
    const struct dirlist_entry *de;
    while (rc == 0 && (errno = 0, de = dirlist_next(d))) {
        const char *n = de->name;
        if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
            continue;
        rc = child(w, d, &here, de);
    }
    if (rc == 0 && errno)
        rc = problem(w, &here, WALK_UNLISTED, errno);
    dirlist_close(d);
    return rc;
}

int walk_fd(int fd, const char *path, long tag, const struct walk_ops *ops, void *ctx)
{
    struct walk w = {.ops = ops, .ctx = ctx};
    size_t len = strlen(path);
    struct walk_entry start = {.dirfd = fd,
                               .name = ".",
                               .path = w.path,
                               .len = len,
                               .type = DT_DIR,
                               .depth = -1,
                               .tag = tag};
    if (len >= sizeof w.path) {
        close(fd);
        return problem(&w, &start, WALK_PATH_TOO_LONG, ENAMETOOLONG);
    }
    memcpy(w.path, path, len + 1);
    return walk_dir(&w, fd, &start);
}

int walk_path(const char *path, long tag, const struct walk_ops *ops, void *ctx)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? -2 : walk_fd(fd, path, tag, ops, ctx);
}

int walk_stat(const struct walk_entry *e, bool follow, struct stat *st)
{
    return fstatat(e->dirfd, e->name, st, follow ? 0 : AT_SYMLINK_NOFOLLOW);
}

/* One step of walk_open_dir: NAME beneath FD, created with MODE when missing (MODE != 0),
 * opened with OFLAG (O_RDONLY, or O_PATH). */
static int open_step(int fd, const char *where, const char *name, mode_t mode, int oflag,
                     tf_err *err)
{
    int e = EINVAL;
    if (!strcmp(name, ".") || !strcmp(name, ".."))
        tf_errf(err, "refusing \"%s\" in a path beneath %s", name, where);
    else if (mode && mkdirat(fd, name, mode) < 0 && errno != EEXIST)
        tf_errnof(err, e = errno, "cannot create %s/%s", where, name);
    else {
        int next = openat(fd, name, oflag | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next >= 0)
            return next;
        e = errno;
        struct stat st;
        if (e == ELOOP || e == ENOTDIR ||
            (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)))
            tf_errf(err,
                    "refusing to use %s/%s: it is a symlink or not a directory; testfence "
                    "works only in real directories under the writable set (remove it)",
                    where, name);
        else
            tf_errnof(err, e, "cannot open %s/%s", where, name);
    }
    errno = e;
    return -1;
}

static int open_dir(int dirfd, const char *where, const char *rel, mode_t mode, int oflag,
                    tf_err *err)
{
    char buf[PATH_MAX], at[PATH_MAX];
    int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot open %s", where);
    if (snprintf(buf, sizeof buf, "%s", rel) >= (int)sizeof buf) {
        close(fd);
        tf_errf(err, "path too long beneath %s", where);
        errno = ENAMETOOLONG; /* callers tell the cases apart by errno, as the header says */
        return -1;
    }
    snprintf(at, sizeof at, "%s", where);
    char *save = NULL;
    for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        int next = open_step(fd, at, c, mode, oflag, err);
        close(fd);
        if (next < 0)
            return -1;
        fd = next;
        size_t n = strlen(at);
        snprintf(at + n, sizeof at - n, "/%s", c);
    }
    return fd;
}

int walk_open_dir(int dirfd, const char *where, const char *rel, mode_t mode, tf_err *err)
{
    return open_dir(dirfd, where, rel, mode, O_RDONLY, err);
}

int walk_path_dir(int dirfd, const char *where, const char *rel, mode_t mode, tf_err *err)
{
    return open_dir(dirfd, where, rel, mode, O_PATH, err);
}

struct dirlist *walk_list(int dirfd)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? NULL : dirlist_open(fd);
}
