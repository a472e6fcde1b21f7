/* walk_bypath: walk.h's walk_path() and walk_stat() where the build has no directory fds
 * (Windows) or none of Linux's O_PATH (macOS): listed by path (opendir), entries typed by
 * stat, visited in readdir's order. POSIX calls only; walk.c is Linux's. */
#include "walk.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct walk {
    const struct walk_ops *ops;
    void *ctx;
    char path[PATH_MAX];
};

static int problem(struct walk *w, const struct walk_entry *dir, enum walk_problem what, int e)
{
    return w->ops->problem ? w->ops->problem(w->ctx, dir, what, e) : 0;
}

static int walk_dir(struct walk *w, struct walk_entry *dir);

static int enter(struct walk *w, struct walk_entry *e)
{
    if (e->depth >= w->ops->max_depth)
        return problem(w, e, WALK_TOO_DEEP, 0);
    int rc = walk_dir(w, e);
    if (rc == 0 && w->ops->leave)
        rc = w->ops->leave(w->ctx, e);
    return rc;
}

static unsigned char type_of(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return DT_UNKNOWN;
    return S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
}

static int child(struct walk *w, const struct walk_entry *dir, const char *name)
{
    size_t base = dir->len == 1 && w->path[0] == '/' ? 0 : dir->len;
    size_t nlen = strlen(name);
    if (base + 1 + nlen >= sizeof w->path)
        return problem(w, dir, WALK_PATH_TOO_LONG, ENAMETOOLONG);
    w->path[base] = '/';
    memcpy(w->path + base + 1, name, nlen + 1);
    struct walk_entry e = {.dirfd = -1,
                           .name = name,
                           .path = w->path,
                           .len = base + 1 + nlen,
                           .type = type_of(w->path),
                           .depth = dir->depth + 1};
    int rc = w->ops->visit(w->ctx, &e);
    if (rc > 0)
        rc = enter(w, &e);
    w->path[dir->len] = '\0';
    return rc;
}

/* The children of DIR, whose path w->path holds. */
static int walk_dir(struct walk *w, struct walk_entry *dir)
{
    DIR *d = opendir(w->path);
    if (!d)
        return problem(w, dir, WALK_UNLISTED, errno);
    struct walk_entry here = *dir;
    here.path = w->path;
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (errno = 0, de = readdir(d))) {
        const char *n = de->d_name;
        if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
            continue;
        rc = child(w, &here, n);
    }
    if (rc == 0 && errno)
        rc = problem(w, &here, WALK_UNLISTED, errno);
    closedir(d);
    return rc;
}

int walk_path(const char *path, long tag, const struct walk_ops *ops, void *ctx)
{
    struct walk w = {.ops = ops, .ctx = ctx};
    size_t len = strlen(path);
    struct stat st;
    if (stat(path, &st) < 0)
        return -2;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -2;
    }
    struct walk_entry start = {.dirfd = -1,
                               .name = ".",
                               .path = w.path,
                               .len = len,
                               .type = DT_DIR,
                               .depth = -1,
                               .tag = tag};
    if (len >= sizeof w.path)
        return problem(&w, &start, WALK_PATH_TOO_LONG, ENAMETOOLONG);
    memcpy(w.path, path, len + 1);
    return walk_dir(&w, &start);
}

int walk_stat(const struct walk_entry *e, bool follow, struct stat *st)
{
    return follow ? stat(e->path, st) : lstat(e->path, st); /* lstat is stat on Windows */
}
