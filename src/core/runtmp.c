#include "runtmp.h"
#include "platform.h"

#include "base/vec.h"
#include "path.h"
#include "walk.h"
#include "workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int runtmp_plan(struct runtmp *t, const char *tmpdir, const char *root, const char *run_id,
                unsigned uid, tf_err *err)
{
    char base[PATH_MAX];
    memset(t, 0, sizeof *t);
    t->userfd = t->fd = -1;
    /* The caller's TMPDIR, unless it is inside the project: that is what we get out of. */
    if (!tmpdir || !platform_is_absolute(tmpdir) || !realpath(tmpdir, base) ||
        path_is_within(base, root))
        if (!realpath(platform_default_tmp(), base))
            return tf_errnof(err, errno, "cannot resolve %s for the run's temp dir",
                             platform_default_tmp());
    snprintf(t->run_id, sizeof t->run_id, "%s", run_id);
    int a = snprintf(t->user, sizeof t->user, "%s/" RUNTMP_USER_PREFIX "%u",
                     strcmp(base, "/") ? base : "", uid);
    int b = snprintf(t->dir, sizeof t->dir, "%s/%s", t->user, run_id);
    if (a < 0 || b < 0 || (size_t)b >= sizeof t->dir)
        return tf_errf(err, "temp dir path too long under %s", base);
    return 0;
}

/* The per-user directory: ours, a real directory, writable by us alone. Another user could
 * have made /tmp/testfence-<uid> first, or a symlink there, to steer our temp files. It is
 * 0711, not 0700: a test that drops to another user (nobody) must be able to pass through
 * to a run dir it opened up; the run dirs themselves are 0700 and cannot be listed. */
static int open_user_dir(struct runtmp *t, tf_err *err)
{
    /* The base was resolved when planned: walked from / without following a link, in case
     * it lies in a writable directory where a test planted one since. */
    char base[PATH_MAX];
    const char *name = strrchr(t->user, '/') + 1;
    snprintf(base, sizeof base, "%.*s", (int)(name - 1 - t->user), t->user);
    const char *below = "";
    int root =
        base[0] ? platform_open_top(base, &below) : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    int bfd = root < 0 ? -1 : walk_path_dir(root, "", below, 0, err);
    if (root < 0)
        return tf_errnof(err, errno, "cannot open the top of %s", base[0] ? base : "/");
    close(root);
    if (bfd < 0)
        return -1;
    if (mkdirat(bfd, name, 0711) < 0 && errno != EEXIST) {
        int e = errno;
        close(bfd);
        return tf_errnof(err, e,
                         "cannot create %s for the run's temp dir (point TMPDIR at a "
                         "directory you can write)",
                         t->user);
    }
    int fd = openat(bfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int saved = errno;
    close(bfd);
    errno = saved;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return tf_errnof(err, e, "cannot use %s (a symlink?)", t->user);
    }
    if (st.st_uid != geteuid() || (st.st_mode & 022)) {
        close(fd);
        return tf_errf(err,
                       "refusing to use %s for the run's temp dir: it is not yours alone "
                       "(owner uid %u, mode %03o); remove it, or point TMPDIR elsewhere",
                       t->user, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
    }
    /* One made 0700 (the umask, or an earlier version): opened for passing through. */
    if ((st.st_mode & 0711) != 0711 && fchmod(fd, st.st_mode | 0711) < 0) {
        int e = errno;
        close(fd);
        return tf_errnof(err, e, "cannot make %s passable (0711)", t->user);
    }
    t->userfd = fd;
    return 0;
}

static bool has(int dirfd, const char *name)
{
    struct stat st;
    return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
}

enum staleness { LIVE_OR_KEPT, STALE, STALE_FAILED };

/* Did the run that made NAME end without removing it? Not locked by a live run, not kept;
 * a failed run's (STALE_FAILED) goes only when newer ones are kept instead. What cannot be
 * told is kept. */
static enum staleness staleness(int userfd, const char *name)
{
    int fd = openat(userfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return LIVE_OR_KEPT;
    enum staleness s = LIVE_OR_KEPT;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && !has(fd, RUNTMP_KEEP))
        s = has(fd, RUNTMP_FAILED) ? STALE_FAILED : STALE;
    close(fd);
    return s;
}

static int newest_first(const void *a, const void *b)
{
    return -strcmp(*(char *const *)a, *(char *const *)b);
}

/* Should a prune that has removed REMOVED dirs stop? Once the command it runs beside has
 * ended (ENDED, NULL: never), after one: the rest waits for later runs. */
static bool stops(const atomic_bool *ended, int removed)
{
    return removed > 0 && ended && atomic_load(ended);
}

/* Of the failed runs' dirs NAMES (N), all but the newest RUNTMP_FAILED_KEPT go, oldest
 * first, until ENDED says stop (*REMOVED counts them). */
static void prune_failed(struct runtmp *t, char **names, size_t n, const atomic_bool *ended,
                         int *removed)
{
    if (n <= RUNTMP_FAILED_KEPT)
        return; /* nothing goes (and NAMES may be NULL, which qsort must not be given) */
    qsort(names, n, sizeof *names, newest_first);
    for (size_t i = n; i-- > RUNTMP_FAILED_KEPT && !stops(ended, *removed);) {
        tf_err ignored;
        if (ws_remove_tree_at(t->userfd, t->user, names[i], &ignored) == 0)
            ++*removed;
    }
}

/* Remove what ended runs left: only names that are run ids older than CUTOFF. */
static void prune(struct runtmp *t, const char *cutoff, const atomic_bool *ended)
{
    char **failed = NULL;
    size_t n = 0, cap = 0;
    int removed = 0;
    struct dirlist *d = walk_list(t->userfd);
    if (!d)
        return;
    for (const struct dirlist_entry *e; (e = dirlist_next(d));) {
        tf_err ignored;
        if (!ws_is_run_id(e->name) || strcmp(e->name, cutoff) >= 0)
            continue;
        if (stops(ended, removed))
            break;
        enum staleness s = staleness(t->userfd, e->name);
        char **v = s == STALE_FAILED ? vec_grow(failed, &cap, n + 1, sizeof *failed) : NULL;
        if (s == STALE && ws_remove_tree_at(t->userfd, t->user, e->name, &ignored) == 0)
            removed++;
        else if (v && (v[n] = strdup(e->name)))
            failed = v, n++;
        else if (v)
            failed = v; /* out of memory: this one is kept */
    }
    dirlist_close(d);
    prune_failed(t, failed, n, ended, &removed);
    for (size_t i = 0; i < n; i++)
        free(failed[i]);
    free(failed);
}

void runtmp_prune(struct runtmp *t, time_t now, const atomic_bool *ended)
{
    char cutoff[32];
    if (t->userfd < 0)
        return;
    ws_run_id(cutoff, sizeof cutoff, now - RUNTMP_PRUNE_AGE, 0);
    prune(t, cutoff, ended);
}

int runtmp_create(struct runtmp *t, tf_err *err)
{
    if (open_user_dir(t, err) < 0)
        return -1;
    if (mkdirat(t->userfd, t->run_id, 0700) < 0)
        return tf_errnof(err, errno, "cannot create the run's temp dir %s", t->dir);
    t->fd = openat(t->userfd, t->run_id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (t->fd < 0)
        return tf_errnof(err, errno, "cannot open %s", t->dir);
    if (flock(t->fd, LOCK_SH) < 0)
        return tf_errnof(err, errno, "cannot lock %s", t->dir);
    return 0;
}

static int mark(struct runtmp *t, const char *marker, tf_err *err)
{
    if (t->fd < 0)
        return 0;
    int fd = openat(t->fd, marker, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot mark %s kept", t->dir);
    close(fd);
    return 0;
}

int runtmp_keep(struct runtmp *t, tf_err *err)
{
    return mark(t, RUNTMP_KEEP, err);
}

int runtmp_keep_failed(struct runtmp *t, tf_err *err)
{
    return mark(t, RUNTMP_FAILED, err);
}

int runtmp_remove(struct runtmp *t, tf_err *err)
{
    int rc = 0;
    if (t->userfd >= 0 && t->fd >= 0)
        rc = ws_remove_tree_at(t->userfd, t->user, t->run_id, err);
    runtmp_close(t);
    return rc;
}

/* NAME in the temp dir: a directory's tree, or the name itself (a file, a link: never what
 * a link names). */
static int remove_entry(struct runtmp *t, const char *name, tf_err *err)
{
    struct stat st;
    if (fstatat(t->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : tf_errnof(err, errno, "cannot look at %s/%s", t->dir, name);
    if (S_ISDIR(st.st_mode))
        return ws_remove_tree_at(t->fd, t->dir, name, err);
    if (unlinkat(t->fd, name, 0) < 0 && errno != ENOENT)
        return tf_errnof(err, errno, "cannot remove %s/%s", t->dir, name);
    return 0;
}

int runtmp_empty(struct runtmp *t, tf_err *err)
{
    if (t->fd < 0)
        return 0;
    struct dirlist *d = walk_list(t->fd);
    if (!d)
        return tf_errnof(err, errno, "cannot list %s", t->dir);
    int rc = 0;
    for (const struct dirlist_entry *ent; (ent = dirlist_next(d));)
        if (strcmp(ent->name, ".") && strcmp(ent->name, "..") &&
            remove_entry(t, ent->name, rc == 0 ? err : NULL) < 0)
            rc = -1;
    dirlist_close(d);
    return rc;
}

void runtmp_close(struct runtmp *t)
{
    if (t->fd >= 0)
        close(t->fd);
    if (t->userfd >= 0)
        close(t->userfd);
    t->fd = t->userfd = -1;
}

int runtmp_unnamed(const char *dir)
{
#ifdef O_TMPFILE /* Linux (and Windows' posix.h); not macOS */
    int fd = open(dir, O_RDWR | O_TMPFILE | O_EXCL, S_IRUSR | S_IWUSR);
    return fd >= 0 ? fd : runtmp_unlinked(dir);
#else
    return runtmp_unlinked(dir);
#endif
}

int runtmp_unlinked(const char *dir)
{
    char tmpl[PATH_MAX];
    int n = snprintf(tmpl, sizeof tmpl, "%s/tmpfXXXXXX", dir);
    if (n < 0 || (size_t)n >= sizeof tmpl) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(tmpl);
    if (fd >= 0)
        (void)unlink(tmpl); /* as glibc's: the open file lives on, unnamed */
    return fd;
}
