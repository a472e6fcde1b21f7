/* workspace: the per-run directories under the artifacts dir, and their retention.
 * Planning computes every path without I/O (so --dry-run creates nothing); ws_create makes them. */
#ifndef TESTFENCE_WORKSPACE_H
#define TESTFENCE_WORKSPACE_H

#include "base/err.h"

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* The prefix of every run workspace, and the marker file inside that proves testfence made it. */
#define WS_PREFIX "_isolation_workspace_"
#define WS_MARKER ".testfence-workspace"
/* Where earlier versions kept per-run temp dirs; retention still prunes what they left. */
#define WS_PYTEST_TMP "_pytest_tmp"
#define WS_TMP "tmp"
/* The ignore file in the artifacts dir: nothing in it belongs in version control. */
#define WS_IGNORE ".gitignore"

struct workspace {
    char run_id[32];          /* UTC time + pid: 20261129T101438Z-0012345 (sorts by time) */
    char artifacts[PATH_MAX]; /* absolute */
    char dir[PATH_MAX];       /* <artifacts>/_isolation_workspace_<run_id> */
    char xdg_cache[PATH_MAX]; /* <dir>/xdg/cache, data, state */
    char xdg_data[PATH_MAX];
    char xdg_state[PATH_MAX];
    char pytest_cache[PATH_MAX]; /* <artifacts>/.pytest_cache: stable so --lf works across runs */
    char pycache[PATH_MAX];      /* <artifacts>/pycache: PYTHONPYCACHEPREFIX, stable */
    char hypothesis[PATH_MAX];   /* <artifacts>/.hypothesis: stable example database */
};

/* Format the run id for time NOW and process PID. */
void ws_run_id(char *out, size_t len, time_t now, pid_t pid);

/* Is NAME a run id as ws_run_id makes them? */
int ws_is_run_id(const char *name);

/* Fill every path of the workspace for ARTIFACTS (absolute) and RUN_ID. No I/O. */
int ws_plan(struct workspace *ws, const char *artifacts, const char *run_id, tf_err *err);

/* Create the artifacts dir if needed (with an ignore file) and the run's directories, fresh. */
int ws_create(const struct workspace *ws, tf_err *err);

/* Create the placeholder file NAME (a plain name) in the run workspace with CONTENT. */
int ws_add_file(const struct workspace *ws, const char *name, const char *content, tf_err *err);

/* Mark the run's workspace live until the returned fd is closed (a shared
 * flock on its marker), so that another run's ws_prune leaves it alone.
 * Close-on-exec: the lock stays with testfence, not the command. */
int ws_hold(const struct workspace *ws, tf_err *err);

/* rm -rf of NAME inside the directory DIRFD, never following a symlink. */
int ws_remove_tree_at(int dirfd, const char *name, tf_err *err);

/* Remove run workspaces (and what earlier versions left in tmp/ and _pytest_tmp/) beyond
 * the RETAIN newest.
 * Only directories named by testfence (and, for workspaces, holding its marker)
 * are touched, never one whose run is still going (see ws_hold); symlinks are
 * never followed. Returns how many were removed. */
int ws_prune(const char *artifacts, unsigned retain, tf_err *err);

#endif
