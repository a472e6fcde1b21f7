#include "workspace.h"

#include "path.h"
#include "base/vec.h"
#include "walk.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void ws_run_id(char *out, size_t len, time_t now, pid_t pid)
{
    struct tm tm;
    char stamp[20];
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(out, len, "%s-%07d", stamp, (int)pid);
}

int ws_is_run_id(const char *s)
{
    /* 20261129T101438Z-0012345 */
    static const char shape[] = "ddddddddTddddddZ-ddddddd";
    size_t n = strlen(shape);
    if (strlen(s) < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
            return 0;
    for (size_t i = n; s[i]; i++) /* pids beyond 7 digits */
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

static int fmt(char *out, const char *a, const char *b, const char *c, tf_err *err)
{
    int n = snprintf(out, PATH_MAX, "%s/%s%s", a, b, c);
    if (n < 0 || n >= PATH_MAX)
        return tf_errf(err, "path too long under %s", a);
    return 0;
}

int ws_plan(struct workspace *ws, const char *artifacts, const char *run_id, tf_err *err)
{
    memset(ws, 0, sizeof *ws);
    snprintf(ws->run_id, sizeof ws->run_id, "%s", run_id);
    if (fmt(ws->artifacts, artifacts, "", "", err) < 0)
        return -1;
    ws->artifacts[strlen(ws->artifacts) - 1] = '\0'; /* drop the trailing '/' */
    const char *a = ws->artifacts;
    if (fmt(ws->dir, a, WS_PREFIX, run_id, err) < 0 ||
        fmt(ws->xdg_cache, ws->dir, "xdg/cache", "", err) < 0 ||
        fmt(ws->xdg_data, ws->dir, "xdg/data", "", err) < 0 ||
        fmt(ws->xdg_state, ws->dir, "xdg/state", "", err) < 0 ||
        fmt(ws->pytest_cache, a, ".pytest_cache", "", err) < 0 ||
        fmt(ws->pycache, a, "pycache", "", err) < 0 ||
        fmt(ws->hypothesis, a, ".hypothesis", "", err) < 0)
        return -1;
    return 0;
}

/* mkdir -p: the callers checked that PATH resolves inside the writable set. */
static int mkdirs(const char *path, mode_t mode, tf_err *err)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
            return tf_errnof(err, errno, "cannot create %s", buf);
        *p = saved;
        if (!saved)
            return 0;
    }
}

static int write_marker(const struct workspace *ws, tf_err *err)
{
    char text[64];
    snprintf(text, sizeof text, "testfence run workspace %s\n", ws->run_id);
    return ws_add_file(ws, WS_MARKER, text, err);
}

/* mkdir -p of PATH beneath BASE (an existing directory), refusing to pass
 * through a symlink: testfence runs unfenced here, so a planted
 * tests/artifacts/tmp -> /elsewhere must not make it create /elsewhere/<id>. */
static int mkdirs_beneath(const char *base, const char *path, mode_t mode, tf_err *err)
{
    size_t n = strlen(base);
    if (strncmp(path, base, n) || (path[n] != '/' && path[n] != '\0'))
        return tf_errf(err, "%s is not beneath %s", path, base);
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot open %s", base);
    char rest[PATH_MAX];
    snprintf(rest, sizeof rest, "%s", path + n);
    char *save = NULL;
    for (char *c = strtok_r(rest, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
        if (mkdirat(fd, c, mode) < 0 && errno != EEXIST) {
            tf_errnof(err, errno, "cannot create %s/%s", base, c);
            close(fd);
            return -1;
        }
        int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0)
            tf_errf(err,
                    "refusing to use %s: \"%s\" in it is a symlink or not a directory; "
                    "testfence makes its run directories only in real directories (remove it)",
                    path, c);
        close(fd);
        fd = next;
    }
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* "*": git status stays clean however many runs are kept. An existing file (the user's,
 * or anything a test left) is kept as it is. */
static void write_ignore(const char *artifacts)
{
    int dfd = open(artifacts, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int fd = dfd < 0 ? -1
                     : openat(dfd, WS_IGNORE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                              0644);
    if (fd >= 0) {
        static const char text[] = "# made by testfence: run workspaces and tool caches\n*\n";
        ssize_t w = write(fd, text, sizeof text - 1);
        (void)w;
        close(fd);
    }
    if (dfd >= 0)
        close(dfd);
}

int ws_create(const struct workspace *ws, tf_err *err)
{
    if (mkdirs(ws->artifacts, 0755, err) < 0)
        return -1;
    write_ignore(ws->artifacts);
    if (mkdirs_beneath(ws->artifacts, ws->dir, 0755, err) < 0)
        return -1;
    if (write_marker(ws, err) < 0)
        return -1;
    const char *dirs[] = {ws->xdg_cache, ws->xdg_data, ws->xdg_state};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (mkdirs_beneath(ws->artifacts, dirs[i], 0700, err) < 0)
            return -1;
    return 0;
}

int ws_add_file(const struct workspace *ws, const char *name, const char *content, tf_err *err)
{
    char path[PATH_MAX];
    if (path_join(path, sizeof path, ws->dir, name, err) < 0)
        return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot create the placeholder %s", path);
    size_t len = strlen(content);
    ssize_t n = write(fd, content, len);
    int e = errno;
    close(fd);
    if (n != (ssize_t)len)
        return tf_errnof(err, n < 0 ? e : EIO, "cannot write the placeholder %s", path);
    return 0;
}

/* rm -rf, one entry at a time, never following a symlink. */
static int rm_visit(void *ctx, struct walk_entry *e)
{
    if (unlinkat(e->dirfd, e->name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return tf_errnof(ctx, errno, "cannot remove %s", e->path);
    return 1; /* a directory: empty it, then rm_leave removes it */
}

static int rm_leave(void *ctx, const struct walk_entry *e)
{
    if (unlinkat(e->dirfd, e->name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        return tf_errnof(ctx, errno, "cannot remove %s", e->path);
    return 0;
}

static int rm_problem(void *ctx, const struct walk_entry *dir, enum walk_problem what, int errnum)
{
    if (what == WALK_TOO_DEEP)
        return tf_errf(ctx, "directory tree too deep under %s", dir->path);
    return tf_errnof(ctx, errnum, "cannot read %s", dir->path);
}

int ws_remove_tree_at(int dirfd, const char *name, tf_err *err)
{
    static const struct walk_ops ops = {
        .visit = rm_visit, .leave = rm_leave, .problem = rm_problem, .max_depth = 256};
    struct walk_entry top = {.dirfd = dirfd, .name = name, .path = name, .len = strlen(name)};
    int rc = rm_visit(err, &top);
    if (rc <= 0)
        return rc;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot open %s", name);
    rc = walk_fd(fd, name, 0, &ops, err);
    return rc < 0 ? -1 : rm_leave(err, &top);
}

static int cmp_desc(const void *a, const void *b)
{
    return strcmp(*(char *const *)b, *(char *const *)a);
}

/* The names in DIRFD that are directories (not symlinks) of the form PREFIX<run_id>,
 * holding MARKER when it is not NULL; newest first. */
static int list_runs(int dirfd, const char *prefix, const char *marker, char ***out, size_t *n)
{
    DIR *d = fdopendir(dup(dirfd));
    if (!d)
        return -1;
    size_t plen = strlen(prefix);
    char **v = NULL;
    size_t cap = 0;
    *n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        struct stat st;
        if (strncmp(e->d_name, prefix, plen) || !ws_is_run_id(e->d_name + plen))
            continue;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
            continue;
        char m[NAME_MAX * 2 + 2];
        snprintf(m, sizeof m, "%s/%s", e->d_name, marker ? marker : "");
        if (marker && fstatat(dirfd, m, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        char **nv = vec_grow(v, &cap, *n, sizeof *v);
        if (nv)
            v = nv;
        if (!nv || !(v[*n] = strdup(e->d_name))) {
            for (size_t i = 0; i < *n; i++)
                free(v[i]);
            free(v);
            closedir(d);
            return -1;
        }
        (*n)++;
    }
    closedir(d);
    if (*n) /* qsort(NULL, 0, ...) is undefined */
        qsort(v, *n, sizeof *v, cmp_desc);
    *out = v;
    return 0;
}

/* Is run ID still running? Its testfence holds a shared flock on the marker
 * for the whole run (ws_hold), so an exclusive try-lock fails. */
static bool is_live(int artifacts_fd, const char *run_id)
{
    char m[NAME_MAX * 2 + 2];
    snprintf(m, sizeof m, WS_PREFIX "%s/" WS_MARKER, run_id);
    int fd = openat(artifacts_fd, m, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool live = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
    close(fd); /* drops our lock, if we got it */
    return live;
}

/* Remove the runs in DIRFD beyond the RETAIN newest, never one still running.
 * PREFIX + run id names each; ARTIFACTS_FD is where their workspaces live. */
static int prune_in(int artifacts_fd, int dirfd, const char *prefix, const char *marker,
                    unsigned retain, tf_err *err)
{
    char **names = NULL;
    size_t n = 0;
    int removed = 0;
    if (list_runs(dirfd, prefix, marker, &names, &n) < 0)
        return tf_errnof(err, errno, "cannot list run workspaces");
    for (size_t i = 0; i < n; i++) {
        const char *id = names[i] + strlen(prefix);
        if (i >= retain && removed >= 0 && !is_live(artifacts_fd, id)) {
            if (ws_remove_tree_at(dirfd, names[i], err) < 0)
                removed = -1;
            else
                removed++;
        }
        free(names[i]);
    }
    free(names);
    return removed;
}

/* Prune the per-run directories named by run id inside SUB (no marker: their
 * owner empties them, as pytest does its basetemp). */
static int prune_sub(int fd, const char *sub, unsigned retain, tf_err *err)
{
    int sfd = openat(fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sfd < 0)
        return 0;
    int r = prune_in(fd, sfd, "", NULL, retain, err);
    close(sfd);
    return r;
}

int ws_prune(const char *artifacts, unsigned retain, tf_err *err)
{
    int fd = open(artifacts, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : tf_errnof(err, errno, "cannot open %s", artifacts);
    int removed = prune_in(fd, fd, WS_PREFIX, WS_MARKER, retain, err);
    const char *subs[] = {WS_PYTEST_TMP, WS_TMP};
    for (size_t i = 0; removed >= 0 && i < sizeof subs / sizeof subs[0]; i++) {
        int r = prune_sub(fd, subs[i], retain, err);
        removed = r < 0 ? -1 : removed + r;
    }
    close(fd);
    return removed;
}

int ws_hold(const struct workspace *ws, tf_err *err)
{
    char path[PATH_MAX];
    if (path_join(path, sizeof path, ws->dir, WS_MARKER, err) < 0)
        return -1;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot open %s", path);
    if (flock(fd, LOCK_SH) < 0) {
        int e = errno;
        close(fd);
        return tf_errnof(err, e, "cannot lock %s", path);
    }
    return fd;
}
