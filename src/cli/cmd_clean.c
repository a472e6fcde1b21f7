/* testfence clean: remove run workspaces beyond the retention count, or all of them. */
#include "cmds.h"
#include "opts.h"
#include "core/diag.h"
#include "core/plan.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#ifndef environ /* macOS: src/macos/posix.h's */
extern char **environ;
#endif

static const struct opts_command command = {
    .name = "clean",
    .cmd = CMD_CLEAN,
    .about = "usage: testfence clean [OPTIONS]\n"
             "\n"
             "Remove old runs (tests/artifacts/_isolation_workspace_<run_id>/, with their\n"
             "tmp/<run_id>/ and _pytest_tmp/<run_id>/) beyond the newest N (the config's\n"
             "retain, 3), or all of them with --all. Only runs testfence made are touched\n"
             "(recognised by name and by the marker file in the workspace); nothing is\n"
             "followed through a symlink, and the artifacts dir must lie inside the\n"
             "writable set, as for run; a run still going is never removed; caches kept\n"
             "across runs (.pytest_cache, pycache) stay. A run that did not finish\n"
             "(testfence was killed) is said first, with what its log held.\n"
             "\n",
    .after = "exit status: 0 done; 125 usage error or error (including an old run that could\n"
             "not be removed).\n",
    .operands = OPERANDS_NONE,
    .missing = NULL,
};

/* Prune the artifacts dir ARTIFACTS, open on AFD. */
static int prune(const struct opts *o, const struct plan *pl, int afd, const char *artifacts,
                 tf_err *err)
{
    unsigned keep = o->all ? 0 : opts_retain(o, &pl->cfg);
    struct ws_pruned pr;
    diag_unfinished(afd, artifacts, pl->root, stdout); /* before they may go */
    if (ws_prune(afd, artifacts, keep, stderr, &pr, err) < 0)
        return -1;
    printf("removed %d old run%s from %s (kept the newest %u)\n", pr.removed,
           pr.removed == 1 ? "" : "s", artifacts, keep);
    if (pr.failed)
        return tf_errf(err, "%d old run%s could not be removed (see above)", pr.failed,
                       pr.failed == 1 ? "" : "s");
    return 0;
}

/* As run does: the artifacts dir must lie beneath a writable directory, and it is opened
 * from there without following a link, so a symlink planted by a test leads nowhere. */
static int clean(const struct opts *o, tf_err *err)
{
    struct plan pl;
    char artifacts[PATH_MAX];
    int rc = plan_policy(&pl, &o->req, environ, err);
    if (rc == 0)
        rc = plan_artifacts(&pl, artifacts, sizeof artifacts, err);
    int afd = rc == 0 ? plan_open_artifacts(&pl, artifacts, false, err) : -1;
    if (rc == 0 && afd < 0 && errno == ENOENT)
        printf("nothing to clean: %s does not exist\n", artifacts);
    else if (rc == 0 && afd < 0)
        rc = -1;
    if (afd >= 0) {
        rc = prune(o, &pl, afd, artifacts, err);
        close(afd);
    }
    plan_free(&pl);
    return rc;
}

int cmd_clean(int argc, char **argv)
{
    struct opts o;
    tf_err err = {0};
    int r = opts_parse(argc, argv, &command, &o, &err);
    if (r == 0 && o.all && o.retain)
        r = tf_errf(&err, "--all and --retain contradict each other; choose one");
    if (r == 0)
        r = clean(&o, &err);
    if (r < 0)
        fprintf(stderr, "testfence: %s\n", err.msg);
    opts_free(&o);
    return r < 0 ? TF_EXIT_OWN_ERROR : 0;
}
