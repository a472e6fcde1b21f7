/* runtmp: the run's private temp dir, outside the project: TMPDIR, TMP and TEMP, so also
 * pytest's basetemp. Inside the project, nested pytest sessions found the project's config. */
#ifndef TESTFENCE_RUNTMP_H
#define TESTFENCE_RUNTMP_H

#include "base/err.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

/* <temp base>/testfence-<uid>/<run_id>: the per-user directory holds one per run. */
#define RUNTMP_USER_PREFIX "testfence-"
/* A file in a run's temp dir that keeps later runs from pruning it (--keep-tmp). */
#define RUNTMP_KEEP ".testfence-keep"
/* A file in a run's temp dir that keeps it for a while: the run failed, and its temp dir
 * (pytest's tmp_path) is left to look at, as pytest leaves a failed test's. Later runs prune
 * all but the newest RUNTMP_FAILED_KEPT of them. */
#define RUNTMP_FAILED ".testfence-failed"
#define RUNTMP_FAILED_KEPT 3
/* Runs younger than this are never pruned: between its mkdir and its lock a run is bare. */
#define RUNTMP_PRUNE_AGE 120

/* What becomes of a run's temp dir at its end. */
enum runtmp_end {
    RUNTMP_REMOVED,     /* removed (emptied, by a process that fenced itself) */
    RUNTMP_KEPT,        /* kept until removed by hand (--keep-tmp) */
    RUNTMP_KEPT_FAILED, /* the run failed: kept among the newest RUNTMP_FAILED_KEPT */
};

struct runtmp {
    char user[PATH_MAX]; /* <base>/testfence-<uid>, base resolved */
    char dir[PATH_MAX];  /* <user>/<run_id>: the writable-set entry, TMPDIR */
    char run_id[32];
    int userfd; /* open on user while the dir exists (-1: not created) */
    int fd;     /* open on dir, holding a shared flock while the run lives (-1) */
};

/* Plan the paths, no I/O beyond resolving the base: TMPDIR (the caller's, absolute and
 * outside ROOT) else /tmp. UID names the per-user directory. */
int runtmp_plan(struct runtmp *t, const char *tmpdir, const char *root, const char *run_id,
                unsigned uid, tf_err *err);

/* Create the per-user directory (0711, ours, refused when it is a symlink, someone else's
 * or writable by others), then this run's (0700), and lock it. */
int runtmp_create(struct runtmp *t, tf_err *err);

/* Remove the temp dirs of runs that ended without removing theirs (unlocked, older than
 * RUNTMP_PRUNE_AGE before NOW, without RUNTMP_KEEP; of those marked RUNTMP_FAILED, all but
 * the newest RUNTMP_FAILED_KEPT), beside the command: a per-user directory of many kept
 * runs cost milliseconds before it. ENDED as ws_prune's: once the command has ended and
 * one dir was removed, the rest waits for later runs. Needs the per-user directory
 * runtmp_create opened. */
void runtmp_prune(struct runtmp *t, time_t now, const atomic_bool *ended);

/* Mark the dir kept: later runs leave it alone. */
int runtmp_keep(struct runtmp *t, tf_err *err);

/* Mark the dir a failed run's: later runs keep the newest few such (RUNTMP_FAILED_KEPT). */
int runtmp_keep_failed(struct runtmp *t, tf_err *err);

/* Remove the dir and everything in it, never following a link. */
int runtmp_remove(struct runtmp *t, tf_err *err);

/* Remove everything in the temp dir but the dir itself, never following a link: what a
 * process that fenced itself can do at its end (it may not remove the dir; the next run
 * prunes it, empty and unlocked). Goes on past what cannot be removed; -1 names the first. */
int runtmp_empty(struct runtmp *t, tf_err *err);

/* An unnamed file in DIR, as glibc's tmpfile() makes one in /tmp (the shim makes it in the
 * run's temp dir instead): O_TMPFILE | O_EXCL (never to be linked), else, where that fails
 * (a file system without O_TMPFILE), runtmp_unlinked. Mode 0600 less the umask, read and
 * write, not close-on-exec, as glibc's. The fd, or -1 with errno. */
int runtmp_unnamed(const char *dir);

/* The fallback alone: a name made with mkstemp in DIR ("tmpf" and six letters, as glibc's),
 * unlinked at once. The fd, or -1 with errno (ENAMETOOLONG: DIR is too long for a name). */
int runtmp_unlinked(const char *dir);

/* Let go of the lock and the fds (the dir stays, for a later run to prune). */
void runtmp_close(struct runtmp *t);

#endif
