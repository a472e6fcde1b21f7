/* testfence clean: remove run workspaces beyond the retention count, or all of them. */
#include "cmds.h"
#include "opts.h"
#include "core/path.h"

#include <stdio.h>

static const char help[] =
    "usage: testfence clean [OPTIONS]\n"
    "\n"
    "Remove run workspaces (tests/artifacts/_isolation_workspace_<run_id>/, with\n"
    "their tmp/<run_id>/ and _pytest_tmp/<run_id>/) beyond the newest N (the\n"
    "config's retain, 3), or all of them with --all. Only directories testfence\n"
    "made are touched (recognised by name and by the marker file inside); symlinks\n"
    "are never followed; a run still going is never removed; caches kept across\n"
    "runs (.pytest_cache, pycache) stay.\n"
    "\n"
    "options:\n" OPTS_HELP_ROOT OPTS_HELP_CONFIG
    "  --retain N      keep the newest N run workspaces (default: the config's)\n"
    "  --all           remove every run workspace\n" OPTS_HELP_HELP_VERSION "\n"
    "exit status: 0 done; 125 usage error or error.\n";

static int clean(const struct opts *o, tf_err *err)
{
    struct plan pl;
    char joined[PATH_MAX], artifacts[PATH_MAX];
    int rc = plan_policy(&pl, &o->req, err);
    if (rc == 0)
        rc = path_join(joined, sizeof joined, pl.root, pl.cfg.artifacts, err);
    if (rc == 0)
        rc = path_resolve(joined, artifacts, sizeof artifacts, err);
    if (rc == 0) {
        unsigned keep = o->all ? 0 : opts_retain(o, &pl.cfg);
        int n = ws_prune(artifacts, keep, err);
        if (n < 0)
            rc = -1;
        else
            printf("removed %d run director%s from %s (kept the newest %u)\n", n,
                   n == 1 ? "y" : "ies", artifacts, keep);
    }
    plan_free(&pl);
    return rc;
}

int cmd_clean(int argc, char **argv)
{
    struct opts o;
    tf_err err = {{0}};
    int r = opts_parse(argc, argv, OPT_CLEAN, help, &o, &err);
    if (r == 0 && o.argi < argc)
        r = tf_errf(&err, "unexpected argument \"%s\"; see 'testfence clean --help'", argv[o.argi]);
    if (r == 0 && o.all && o.retain)
        r = tf_errf(&err, "--all and --retain contradict each other; choose one");
    if (r == 0)
        r = clean(&o, &err);
    if (r < 0)
        fprintf(stderr, "testfence: %s\n", err.msg);
    opts_free(&o);
    return r < 0 ? TF_EXIT_OWN_ERROR : 0;
}
