/* runtmp: the run's private temp dir, outside the project: TMPDIR, TMP and TEMP, so also
 * pytest's basetemp. Inside the project, nested pytest sessions found the project's config. */
#ifndef TESTFENCE_RUNTMP_H
#define TESTFENCE_RUNTMP_H

#include "base/err.h"

#include <limits.h>
#include <stdbool.h>
#include <time.h>

/* <temp base>/testfence-<uid>/<run_id>: the per-user directory holds one per run. */
#define RUNTMP_USER_PREFIX "testfence-"
/* A file in a run's temp dir that keeps later runs from pruning it (--keep-tmp). */
#define RUNTMP_KEEP ".testfence-keep"
/* Runs younger than this are never pruned: between its mkdir and its lock a run is bare. */
#define RUNTMP_PRUNE_AGE 120

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
 * or writable by others), prune the temp dirs of runs that ended without removing theirs
 * (unlocked, older than RUNTMP_PRUNE_AGE, without RUNTMP_KEEP), then create this run's
 * (0700) and lock it. */
int runtmp_create(struct runtmp *t, time_t now, tf_err *err);

/* Mark the dir kept: later runs leave it alone. */
int runtmp_keep(struct runtmp *t, tf_err *err);

/* Remove the dir and everything in it, never following a link. */
int runtmp_remove(struct runtmp *t, tf_err *err);

/* Remove everything in the temp dir but the dir itself, never following a link: what a
 * process that fenced itself can do at its end (it may not remove the dir; the next run
 * prunes it, empty and unlocked). Goes on past what cannot be removed; -1 names the first. */
int runtmp_empty(struct runtmp *t, tf_err *err);

/* Let go of the lock and the fds (the dir stays, for a later run to prune). */
void runtmp_close(struct runtmp *t);

#endif
