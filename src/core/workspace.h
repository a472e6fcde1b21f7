/* workspace: the per-run directories under the artifacts dir, and their retention.
 * Planning computes every path without I/O (so --dry-run creates nothing); ws_create makes them. */
#ifndef TESTFENCE_WORKSPACE_H
#define TESTFENCE_WORKSPACE_H

#include "base/err.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

/* The prefix of every run workspace, and the marker file inside that proves testfence made it. */
#define WS_PREFIX "_isolation_workspace_"
#define WS_MARKER ".testfence-workspace"
#define WS_MARKER_NEW ".testfence-workspace.new" /* the marker while it is being locked */
#define WS_XDG "xdg"
/* Where earlier versions kept per-run temp dirs; a prune still removes what they left. */
#define WS_PYTEST_TMP "_pytest_tmp"
#define WS_TMP "tmp"
/* The ignore file in the artifacts dir: nothing in it belongs in version control. */
#define WS_IGNORE ".gitignore"

struct workspace {
    char run_id[32];             /* UTC time + pid: 20261129T101438Z-0012345 (sorts by time) */
    char artifacts[PATH_MAX];    /* absolute */
    char dir[PATH_MAX];          /* <artifacts>/_isolation_workspace_<run_id> */
    char pytest_cache[PATH_MAX]; /* <artifacts>/.pytest_cache: stable so --lf works across runs */
};

/* Format the run id for time NOW and NUMBER, which tells runs of the same second apart
 * (a random one for a run: a pid repeats across PID namespaces). */
void ws_run_id(char *out, size_t len, time_t now, pid_t number);

/* Is NAME a run id as ws_run_id makes them? */
int ws_is_run_id(const char *name);

/* Fill every path of the workspace for ARTIFACTS (absolute) and RUN_ID. No I/O. */
int ws_plan(struct workspace *ws, const char *artifacts, const char *run_id, tf_err *err);

/* A created run workspace, as open directories: every later step is relative to them. */
struct ws_fds {
    int dir;  /* the run workspace */
    int hold; /* its marker, share-locked (flock) for as long as the run lives: another run's
                 ws_prune leaves it alone; close-on-exec, so it stays with testfence */
};

/* Names testfence writes in a run workspace itself; a [workspace.files] entry may not use them. */
extern const char *const ws_reserved_names[];

/* Create the run's directories beneath ARTIFACTS_FD (the artifacts dir, opened without
 * following a link), fresh: the workspace with its marker (locked before the marker can be
 * seen, so no prune can take the workspace between its creation and its lock) and the XDG
 * dirs, and the artifacts dir's ignore file when it has none. Nothing is followed: a symlink
 * on the way is refused. (The run's temp dir is outside the project: runtmp.) */
int ws_create(const struct workspace *ws, int artifacts_fd, struct ws_fds *fds, tf_err *err);

void ws_close(struct ws_fds *fds);

/* rm -rf of NAME inside the directory DIRFD (named WHERE, for messages), never following a
 * symlink. ENOENT: nothing to do. */
int ws_remove_tree_at(int dirfd, const char *where, const char *name, tf_err *err);

/* Create the placeholder file NAME (a plain name) in the run workspace DIR_FD with CONTENT. */
int ws_add_file(int dir_fd, const char *name, const char *content, tf_err *err);

/* What a prune did. */
struct ws_pruned {
    int removed; /* run directories removed */
    int failed;  /* runs that could not be removed (said on WARN), left for the next prune */
};

/* Remove the runs beyond the RETAIN newest beneath ARTIFACTS_FD (named WHERE): each run workspace
 * holding testfence's marker whose run is over (see ws_fds.hold), with its tmp/<id> and
 * _pytest_tmp/<id>; nothing without a marker, nothing through a symlink. A run that cannot
 * be removed (a test left something behind that resists) is said on WARN and the prune
 * goes on. Returns 0, or -1 when the artifacts dir cannot be listed. */
int ws_prune(int artifacts_fd, const char *where, unsigned retain, FILE *warn,
             struct ws_pruned *out, tf_err *err);

/* The run ids of the workspaces in ARTIFACTS_FD that did not finish: marked, held by no
 * run, and without report.json (every run that ends writes one: testfence, or the pytest
 * that fenced itself, was killed). Newest first; free with ws_free_ids. */
int ws_unfinished(int artifacts_fd, char ***ids, size_t *n);
void ws_free_ids(char **ids, size_t n);

#endif
