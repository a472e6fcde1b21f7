#include "workspace.h"

#include "path.h"
#include "shimconf.h"
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

void ws_run_id(char *out, size_t len, time_t now, pid_t number)
{
    struct tm tm;
    char stamp[20];
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(out, len, "%s-%07d", stamp, (int)number);
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
        fmt(ws->pytest_cache, a, ".pytest_cache", "", err) < 0)
        return -1;
    return 0;
}

/* PATH (one of WS's paths beneath the artifacts dir) relative to it. */
static const char *beneath(const struct workspace *ws, const char *path)
{
    return path + strlen(ws->artifacts) + 1;
}

static int remove_tree_at(int dirfd, const char *where, const char *name, const char *keep,
                          tf_err *err);

/* The marker, created under a temporary name, share-locked, then renamed into place: a
 * prune lists only workspaces with a marker, and by then the lock is held. */
static int lock_marker(const struct workspace *ws, struct ws_fds *fds, tf_err *err)
{
    char text[64];
    int fd =
        openat(fds->dir, WS_MARKER_NEW, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot create %s/%s", ws->dir, WS_MARKER_NEW);
    fds->hold = fd;
    if (flock(fd, LOCK_SH) < 0)
        return tf_errnof(err, errno, "cannot lock %s/%s", ws->dir, WS_MARKER_NEW);
    int n = snprintf(text, sizeof text, "testfence run workspace %s\n", ws->run_id);
    if (write(fd, text, (size_t)n) != n)
        return tf_errnof(err, errno, "cannot write %s/%s", ws->dir, WS_MARKER_NEW);
    if (renameat(fds->dir, WS_MARKER_NEW, fds->dir, WS_MARKER) < 0)
        return tf_errnof(err, errno, "cannot rename %s/%s", ws->dir, WS_MARKER_NEW);
    return 0;
}

/* "*": git status stays clean however many runs are kept. An existing file (the user's, or
 * one a test left) is kept as it is. */
static void write_ignore(int artifacts_fd)
{
    static const char text[] = "# made by testfence: run workspaces and tool caches\n*\n";
    int fd =
        openat(artifacts_fd, WS_IGNORE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    ssize_t w = write(fd, text, sizeof text - 1);
    (void)w;
    close(fd);
}

int ws_create(const struct workspace *ws, int artifacts_fd, struct ws_fds *fds, tf_err *err)
{
    const char *name = beneath(ws, ws->dir);
    write_ignore(artifacts_fd);
    fds->dir = fds->hold = -1;
    if (mkdirat(artifacts_fd, name, 0755) < 0)
        return tf_errnof(err, errno, "cannot create the run workspace %s", ws->dir);
    fds->dir = walk_open_dir(artifacts_fd, ws->artifacts, name, 0, err);
    /* Nothing more: the tools' directories (xdg/cache, data, state, ...) are made by the tools
     * that write there, as in a fresh container's home (the XDG spec has every writer create
     * its directory); made and removed by each run, empty, they were a tenth of the CPU time of
     * `testfence run -- true`. */
    int rc = fds->dir < 0 || lock_marker(ws, fds, err) < 0 ? -1 : 0;
    if (rc < 0) { /* leave nothing half made: the next prune would take it for a run */
        ws_close(fds);
        remove_tree_at(artifacts_fd, ws->artifacts, name, NULL, NULL);
    }
    return rc;
}

void ws_close(struct ws_fds *fds)
{
    if (fds->dir >= 0)
        close(fds->dir);
    if (fds->hold >= 0)
        close(fds->hold);
    fds->dir = fds->hold = -1;
}

int ws_add_file(int dir_fd, const char *name, const char *content, tf_err *err)
{
    int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot create the placeholder %s", name);
    size_t len = strlen(content);
    ssize_t n = write(fd, content, len);
    int e = n < 0 ? errno : EIO;
    close(fd);
    if (n != (ssize_t)len)
        return tf_errnof(err, e, "cannot write the placeholder %s", name);
    return 0;
}

/* ---- pruning ---------------------------------------------------------------- */

struct rm {
    tf_err *err;
    const char *keep; /* a name at the top not to remove (the marker goes last), or NULL */
    int top;          /* the tree's top directory, where what cannot be reached goes */
    unsigned pass;    /* which walk of the tree this is */
    unsigned hoisted; /* directories this walk moved to the top */
};

/* At most this many walks of one tree: each moves what was too deep (or too long to name)
 * to the top, so the next goes further. Enough for a chain of 200-byte names 200,000 deep. */
#define RM_MAX_PASSES 10000

/* rm -rf, one entry at a time, never following a symlink. */
static int rm_visit(void *ctx, struct walk_entry *e)
{
    struct rm *rm = ctx;
    if (e->depth == 0 && rm->keep && !strcmp(e->name, rm->keep))
        return 0;
    if (unlinkat(e->dirfd, e->name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return tf_errnof(rm->err, errno, "cannot remove %s", e->path);
    return 1; /* a directory: empty it, then rm_leave removes it */
}

static int rm_leave(void *ctx, const struct walk_entry *e)
{
    struct rm *rm = ctx;
    if (unlinkat(e->dirfd, e->name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        return tf_errnof(rm->err, errno, "cannot remove %s", e->path);
    return 0;
}

/* Move the directory DIR to the top of the tree under a fresh name, for the next walk to
 * remove from there: a test's tmp_path can hold a tree deeper than the walk goes or with a
 * path longer than PATH_MAX (recursion tests make them), and an rm that gave up on it left
 * the run's temp dir to every later run, each trying again. */
static int rm_hoist(struct rm *rm, const struct walk_entry *dir)
{
    char name[64];
    if (dir->depth < 0)
        return tf_errf(rm->err, "cannot remove %s: its path is too long", dir->path);
    snprintf(name, sizeof name, ".testfence-deep-%u-%u", rm->pass, rm->hoisted);
    if (renameat(dir->dirfd, dir->name, rm->top, name) == 0)
        rm->hoisted++;
    else if (errno != ENOENT) /* ENOENT: moved already, for an earlier name too long */
        return tf_errnof(rm->err, errno, "cannot move %s up to remove it", dir->path);
    return 0;
}

static int rm_problem(void *ctx, const struct walk_entry *dir, enum walk_problem what, int errnum)
{
    struct rm *rm = ctx;
    if (what == WALK_TOO_DEEP || what == WALK_PATH_TOO_LONG)
        return rm_hoist(rm, dir);
    return tf_errnof(rm->err, errnum, "cannot read %s", dir->path);
}

static const struct walk_ops rm_ops = {
    .visit = rm_visit, .leave = rm_leave, .problem = rm_problem, .max_depth = 256};

/* Walk the tree open on TOP (not taken over) again and again, removing all but its top and
 * KEEP, until nothing had to be moved up. */
static int empty_tree(int top, const char *path, struct rm *rm)
{
    rm->top = top;
    for (rm->pass = 0; rm->pass < RM_MAX_PASSES; rm->pass++) {
        rm->hoisted = 0;
        int fd = fcntl(top, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
            return tf_errnof(rm->err, errno, "cannot open %s", path);
        /* A fresh listing each pass: a dup shares the offset the last walk left at the end. */
        int listed = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(fd);
        if (listed < 0)
            return tf_errnof(rm->err, errno, "cannot open %s", path);
        if (walk_fd(listed, path, 0, &rm_ops, rm) < 0)
            return -1;
        if (rm->hoisted == 0)
            return 0;
    }
    return tf_errf(rm->err, "cannot remove %s: still nested after %d passes", path, RM_MAX_PASSES);
}

/* rm -rf of NAME inside the directory DIRFD (named WHERE), keeping KEEP at its top until
 * the rest is gone. ENOENT: nothing to do. */
static int remove_tree_at(int dirfd, const char *where, const char *name, const char *keep,
                          tf_err *err)
{
    char path[PATH_MAX];
    struct rm rm = {.err = err, .keep = keep};
    snprintf(path, sizeof path, "%s/%s", where, name);
    /* KEEP goes relative to the directory walked, never by "NAME/KEEP": NAME may have become
     * a symlink meanwhile (the command runs while old runs are pruned). */
    int top = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (top < 0)
        return errno == ENOENT ? 0 : tf_errnof(err, errno, "cannot open %s", path);
    int rc = empty_tree(top, path, &rm);
    int gone = rc == 0 && keep ? unlinkat(top, keep, 0) : 0, e = errno;
    close(top);
    if (rc < 0)
        return -1;
    if (gone < 0 && e != ENOENT)
        return tf_errnof(err, e, "cannot remove %s/%s", path, keep);
    if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        return tf_errnof(err, errno, "cannot remove %s", path);
    return 0;
}

int ws_remove_tree_at(int dirfd, const char *where, const char *name, tf_err *err)
{
    return remove_tree_at(dirfd, where, name, NULL, err);
}

static int cmp_desc(const void *a, const void *b)
{
    return strcmp(*(char *const *)b, *(char *const *)a);
}

/* Does NAME in AFD hold testfence's marker (a directory, not a symlink, with a regular
 * marker file)? Returns the marker open, or -1. */
static int open_marker(int afd, const char *name)
{
    int wfd = openat(afd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (wfd < 0)
        return -1;
    int m = openat(wfd, WS_MARKER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    close(wfd);
    struct stat st;
    if (m >= 0 && (fstat(m, &st) < 0 || !S_ISREG(st.st_mode))) {
        close(m);
        m = -1;
    }
    return m;
}

void ws_free_ids(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* The run ids of the marked workspaces in AFD, newest first. */
static int list_runs(int afd, char ***out, size_t *n)
{
    struct dirlist *d = walk_list(afd);
    if (!d)
        return -1;
    size_t plen = strlen(WS_PREFIX), cap = 0;
    char **v = NULL;
    *n = 0;
    for (const struct dirlist_entry *e; (e = dirlist_next(d));) {
        if (strncmp(e->name, WS_PREFIX, plen) || !ws_is_run_id(e->name + plen))
            continue;
        int m = open_marker(afd, e->name);
        if (m < 0)
            continue;
        close(m);
        char **nv = vec_grow(v, &cap, *n, sizeof *v);
        if (nv)
            v = nv;
        if (!nv || !(v[*n] = strdup(e->name + plen))) {
            ws_free_ids(v, *n);
            dirlist_close(d);
            errno = ENOMEM;
            return -1;
        }
        (*n)++;
    }
    dirlist_close(d);
    if (*n) /* qsort(NULL, 0, ...) is undefined */
        qsort(v, *n, sizeof *v, cmp_desc);
    *out = v;
    return 0;
}

/* Run ID's directories inside the per-run dir SUB of AFD (tmp, _pytest_tmp). */
static int remove_sub(int afd, const char *where, const char *sub, const char *id, tf_err *err)
{
    char at[PATH_MAX];
    snprintf(at, sizeof at, "%s/%s", where, sub);
    int sfd = openat(afd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sfd < 0 && errno == ENOENT)
        return 0;
    if (sfd < 0)
        return tf_errnof(err, errno, "cannot open %s (a symlink is never followed)", at);
    int rc = remove_tree_at(sfd, at, id, NULL, err);
    close(sfd);
    return rc;
}

/* Remove run ID, unless it is still going: hold its marker exclusively meanwhile, so a
 * second prune leaves it alone. 1 removed, 0 live, -1 failed. */
static int remove_run(int afd, const char *where, const char *id, tf_err *err)
{
    char name[NAME_MAX + 1];
    snprintf(name, sizeof name, WS_PREFIX "%s", id);
    int m = open_marker(afd, name);
    if (m < 0)
        return 0; /* gone meanwhile */
    if (flock(m, LOCK_EX | LOCK_NB) < 0) {
        close(m);
        return errno == EWOULDBLOCK ? 0 : tf_errnof(err, errno, "cannot lock %s", name);
    }
    /* The run's other dirs first: the marker vouches for them, so it goes last. */
    int rc = remove_sub(afd, where, WS_TMP, id, err) < 0 ||
                     remove_sub(afd, where, WS_PYTEST_TMP, id, err) < 0 ||
                     remove_tree_at(afd, where, name, WS_MARKER, err) < 0
                 ? -1
                 : 1;
    close(m);
    return rc;
}

int ws_prune(int artifacts_fd, const char *where, unsigned retain, FILE *warn,
             struct ws_pruned *out, tf_err *err)
{
    char **ids = NULL;
    size_t n = 0;
    struct ws_pruned p = {0, 0};
    *out = p;
    if (list_runs(artifacts_fd, &ids, &n) < 0)
        return tf_errnof(err, errno, "cannot list the run workspaces in %s", where);
    /* Oldest first, until RETAIN are left: a live run (locked) is skipped, not counted out.
     * Ids order by the second, then a random suffix: two runs in one second may sort either
     * way, and the live one must not take the place of an older one that should go. */
    size_t left = n;
    for (size_t i = n; i-- > 0 && left > retain;) {
        tf_err e = {0};
        int r = remove_run(artifacts_fd, where, ids[i], &e);
        if (r != 0) /* removed, or said and left for clean: either way its turn is taken */
            left--;
        if (r > 0)
            p.removed++;
        if (r < 0) {
            p.failed++;
            fprintf(warn,
                    "testfence: warning: the old run %s was not removed: %s; fix it and run "
                    "`testfence clean`\n",
                    ids[i], e.msg);
        }
    }
    ws_free_ids(ids, n);
    *out = p;
    return 0;
}

/* Run ID held by nobody, and without report.json? */
static bool unfinished(int afd, const char *id)
{
    char name[NAME_MAX + 1];
    snprintf(name, sizeof name, WS_PREFIX "%s", id);
    int m = open_marker(afd, name);
    if (m < 0)
        return false;
    bool free_ = flock(m, LOCK_EX | LOCK_NB) == 0;
    close(m); /* lets go of our lock, if we took it */
    int w = openat(afd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    bool reported = w >= 0 && fstatat(w, SHIMCONF_REPORT, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (w >= 0)
        close(w);
    return free_ && w >= 0 && !reported;
}

int ws_unfinished(int artifacts_fd, char ***ids, size_t *n)
{
    char **all = NULL;
    size_t total = 0, k = 0;
    if (list_runs(artifacts_fd, &all, &total) < 0)
        return -1;
    for (size_t i = 0; i < total; i++) {
        if (unfinished(artifacts_fd, all[i]))
            all[k++] = all[i];
        else
            free(all[i]);
    }
    *ids = all;
    *n = k;
    return 0;
}
