#include "plan.h"

#include "path.h"
#include "project.h"

#include "shimconf.h"
#include "walk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

/* Put "FILE:LINE:COL: " (WHERE, when the value came from a config file) before ERR. */
static int placed(tf_err *err, const char *where)
{
    if (!err || !where)
        return -1;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return tf_errf(err, "%s: %s", where, msg);
}

int plan_policy(struct plan *pl, const struct plan_request *req, tf_err *err)
{
    memset(pl, 0, sizeof *pl);
    if (project_find_root(req->root, pl->root, sizeof pl->root, err) < 0 ||
        config_load(&pl->cfg, pl->root, req->config, err) < 0 ||
        policy_init(&pl->policy, pl->root, err) < 0)
        return -1;
    for (size_t i = 0; i < pl->cfg.writable.n; i++)
        if (policy_add(&pl->policy, pl->cfg.writable.v[i], POLICY_PROJECT, err) < 0)
            return placed(err, pl->cfg.writable_at[i]);
    for (size_t i = 0; i < req->nallow; i++)
        if (policy_add(&pl->policy, req->allow[i], POLICY_ALLOW, err) < 0)
            return -1;
    if (policy_add_system(&pl->policy, err) < 0)
        return -1;
    return 0;
}

/* Point NAME at VALUE, unless the user already points it inside the writable set. */
static int redirect(struct plan *pl, char *const *envp, const char *name, const char *value,
                    const char *why, tf_err *err)
{
    const char *cur = envplan_getenv(envp, name);
    char resolved[PATH_MAX];
    if (cur && cur[0] && path_resolve(cur, resolved, sizeof resolved, NULL) == 0) {
        const struct policy_entry *e = policy_match(&pl->policy, resolved);
        if (e && e->origin != POLICY_SYSTEM)
            return 0;
    }
    return envplan_add(&pl->env, name, value, ENV_SET, why, err);
}

static int pytest_addopts(struct plan *pl, tf_err *err)
{
    char a[PATH_MAX * 2] = "", b[PATH_MAX * 2] = "", opts[PATH_MAX * 5];
    char basetemp[PATH_MAX + 16], cache[PATH_MAX + 16];
    snprintf(basetemp, sizeof basetemp, "--basetemp=%s", pl->ws.basetemp);
    snprintf(cache, sizeof cache, "cache_dir=%s", pl->ws.pytest_cache);
    if ((pl->cfg.pytest_basetemp && envplan_shell_quote(a, sizeof a, basetemp) < 0) ||
        (pl->cfg.pytest_cache_dir && envplan_shell_quote(b, sizeof b, cache) < 0))
        return tf_errf(err, "artifacts path too long: %s", pl->ws.artifacts);
    if (!a[0] && !b[0])
        return 0;
    snprintf(opts, sizeof opts, "%s%s%s%s", a, a[0] && b[0] ? " " : "", b[0] ? "-o " : "", b);
    return envplan_add(&pl->env, "PYTEST_ADDOPTS", opts, ENV_APPEND,
                       "pytest's tmp_path and cache under the artifacts dir", err);
}

/* The [env] table of the config, placeholders expanded; set last, so it wins. */
static int config_env(struct plan *pl, tf_err *err)
{
    const struct workspace *ws = &pl->ws;
    struct config_vars vars = {pl->root, ws->dir, ws->artifacts, ws->run_id, ws->tmp};
    for (size_t i = 0; i < pl->cfg.nenv; i++) {
        char val[PATH_MAX * 2];
        if (config_expand(pl->cfg.env[i].value, &vars, val, sizeof val, err) < 0 ||
            envplan_add(&pl->env, pl->cfg.env[i].name, val, ENV_SET, "[env] in the config", err) <
                0)
            return -1;
    }
    return 0;
}

static int env_plan(struct plan *pl, char *const *envp, tf_err *err)
{
    const struct workspace *ws = &pl->ws;
    char coverage[PATH_MAX];
    if (path_join(coverage, sizeof coverage, ws->artifacts, ".coverage", err) < 0)
        return -1;
    const char *tmp_why = "private temp dir";
    if (envplan_add(&pl->env, "TMPDIR", ws->tmp, ENV_SET, tmp_why, err) < 0 ||
        envplan_add(&pl->env, "TMP", ws->tmp, ENV_SET, tmp_why, err) < 0 ||
        envplan_add(&pl->env, "TEMP", ws->tmp, ENV_SET, tmp_why, err) < 0 ||
        pytest_addopts(pl, err) < 0 ||
        redirect(pl, envp, "PYTHONPYCACHEPREFIX", ws->pycache,
                 "Python bytecode caches, never next to the sources", err) < 0 ||
        redirect(pl, envp, "HYPOTHESIS_STORAGE_DIRECTORY", ws->hypothesis,
                 "Hypothesis' example database (default ./.hypothesis)", err) < 0 ||
        redirect(pl, envp, "COVERAGE_FILE", coverage, "coverage.py data (default ./.coverage)",
                 err) < 0 ||
        redirect(pl, envp, "XDG_CACHE_HOME", ws->xdg_cache, "per-user caches (~/.cache)", err) <
            0 ||
        redirect(pl, envp, "XDG_DATA_HOME", ws->xdg_data, "per-user data (~/.local/share)", err) <
            0 ||
        redirect(pl, envp, "XDG_STATE_HOME", ws->xdg_state, "per-user state (~/.local/state)",
                 err) < 0 ||
        envplan_add(&pl->env, "TESTFENCE_WORKSPACE", ws->dir, ENV_SET,
                    "the run workspace, for fixtures", err) < 0 ||
        envplan_add(&pl->env, "TESTFENCE_RUN_ID", ws->run_id, ENV_SET, "the run id", err) < 0 ||
        config_env(pl, err) < 0)
        return -1;
    return 0;
}

/* The outermost writable directory holding PATH: its ancestors are outside the writable
 * set, so nothing the command does can change what its path leads to. */
static const struct policy_entry *anchor_of(const struct policy *p, const char *path)
{
    const struct policy_entry *best = NULL;
    for (size_t i = 0; i < p->n; i++) {
        const struct policy_entry *e = &p->entries[i];
        if (e->is_dir && e->origin != POLICY_SYSTEM && path_is_within(path, e->path) &&
            (!best || strlen(e->path) < strlen(best->path)))
            best = e;
    }
    return best;
}

int plan_artifacts(const struct plan *pl, char *out, size_t len, tf_err *err)
{
    char joined[PATH_MAX];
    if (path_join(joined, sizeof joined, pl->root, pl->cfg.artifacts, err) < 0 ||
        path_resolve(joined, out, len, err) < 0)
        return placed(err, pl->cfg.artifacts_at);
    if (!anchor_of(&pl->policy, out)) {
        tf_errf(err,
                "the artifacts dir %s (\"%s\") is outside the writable set; it must lie beneath "
                "a writable directory",
                out, pl->cfg.artifacts);
        return placed(err, pl->cfg.artifacts_at);
    }
    return 0;
}

int plan_open_artifacts(const struct plan *pl, const char *artifacts, bool create, tf_err *err)
{
    const struct policy_entry *e = anchor_of(&pl->policy, artifacts);
    if (!e)
        return tf_errf(err, "the artifacts dir %s is outside the writable set", artifacts);
    int fd = open(e->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot open the writable directory %s", e->path);
    size_t n = strlen(e->path);
    const char *rel = artifacts[n] == '/' ? artifacts + n + 1 : artifacts + n;
    int afd = walk_open_dir(fd, e->path, rel, create ? 0755 : 0, err);
    int saved = errno;
    close(fd);
    errno = saved;
    return afd;
}

/* The first of $XDG_RUNTIME_DIR, $TMPDIR and /tmp that exists and lies outside the writable
 * set (so the command can neither delete nor rewrite what testfence keeps there), + the
 * per-user directory + the run id. */
static int plan_runtime(struct plan *pl, char *const *envp, tf_err *err)
{
    const char *cand[] = {envplan_getenv(envp, "XDG_RUNTIME_DIR"), envplan_getenv(envp, "TMPDIR"),
                          "/tmp"};
    char resolved[PATH_MAX];
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        struct stat st;
        if (!cand[i] || cand[i][0] != '/' ||
            path_resolve(cand[i], resolved, sizeof resolved, NULL) < 0 || stat(resolved, &st) < 0 ||
            !S_ISDIR(st.st_mode) || policy_match(&pl->policy, resolved))
            continue;
        int n = snprintf(pl->runtime, sizeof pl->runtime, "%s/testfence-channel-%u/%s", resolved,
                         (unsigned)getuid(), pl->ws.run_id);
        if (n > 0 && (size_t)n < sizeof pl->runtime - 32)
            return 0;
    }
    pl->runtime[0] = '\0';
    return tf_errf(err, "no directory outside the writable set for testfence's private files "
                        "($XDG_RUNTIME_DIR, $TMPDIR, /tmp)");
}

/* The diagnostics shim: preloaded (appended, so a user's own preloads keep working), and
 * told where its configuration is: outside the writable set for run, in the workspace for
 * a process that fences itself (it has no parent outside the fence). */
static int plan_shim(struct plan *pl, const struct plan_request *req, char *const *envp,
                     tf_err *err)
{
    /* No such place (a run nested in another, sharing its writable set): the workspace,
     * and run says so when it starts. */
    if (!req->in_process)
        plan_runtime(pl, envp, NULL);
    if (path_join(pl->shimconf, sizeof pl->shimconf, pl->runtime[0] ? pl->runtime : pl->ws.dir,
                  SHIMCONF_FILE, err) < 0 ||
        envplan_add(&pl->env, "LD_PRELOAD", req->shim, ENV_APPEND,
                    "the diagnostics shim: reports each blocked write and its test", err) < 0 ||
        envplan_add(&pl->env, "TESTFENCE_SHIM_CONF", pl->shimconf, ENV_SET,
                    pl->runtime[0] ? "the shim's configuration, outside the writable set"
                                   : "the shim's configuration",
                    err) < 0)
        return -1;
    return 0;
}

int plan_build(struct plan *pl, const struct plan_request *req, const char *run_id,
               char *const *envp, tf_err *err)
{
    char artifacts[PATH_MAX];
    if (plan_policy(pl, req, err) < 0 || plan_artifacts(pl, artifacts, sizeof artifacts, err) < 0)
        return -1;
    if (ws_plan(&pl->ws, artifacts, run_id, err) < 0 || env_plan(pl, envp, err) < 0)
        return -1;
    /* Appended: a user's own preloads keep working (LD_PRELOAD splits on spaces). */
    pl->shim = req->shim != NULL;
    pl->in_process = req->in_process;
    if (req->shim && plan_shim(pl, req, envp, err) < 0)
        return -1;
    return 0;
}

int plan_create_workspace(struct plan *pl, tf_err *err)
{
    pl->opened = true;
    pl->wsfd.dir = pl->wsfd.hold = -1;
    pl->artifacts_fd = plan_open_artifacts(pl, pl->ws.artifacts, true, err);
    if (pl->artifacts_fd < 0 || ws_create(&pl->ws, pl->artifacts_fd, &pl->wsfd, err) < 0)
        return -1;
    for (size_t i = 0; i < pl->cfg.nfiles; i++)
        if (ws_add_file(pl->wsfd.dir, pl->cfg.files[i].name, pl->cfg.files[i].value, err) < 0)
            return -1;
    return 0;
}

void plan_print_policy(FILE *f, const struct plan *pl)
{
    fprintf(f, "root:      %s\nconfig:    %s\nwritable:\n", pl->root, pl->cfg.source);
    for (size_t i = 0; i < pl->policy.n; i++) {
        const struct policy_entry *e = &pl->policy.entries[i];
        fprintf(f, "  %-40s %s", e->path, policy_origin_name(e->origin));
        if (e->origin != POLICY_SYSTEM)
            fprintf(f, " \"%s\"", e->given);
        fputc('\n', f);
    }
}

void plan_print(FILE *f, const struct plan *pl, char *const *envp)
{
    plan_print_policy(f, pl);
    fprintf(f, "workspace: %s\n", pl->ws.dir);
    for (size_t i = 0; i < pl->cfg.nfiles; i++)
        fprintf(f, "  %s (placeholder, %zu bytes)\n", pl->cfg.files[i].name,
                strlen(pl->cfg.files[i].value));
    fprintf(f, "artifacts: %s\nenv:\n", pl->ws.artifacts);
    for (size_t i = 0; i < pl->env.n; i++) {
        const struct envplan_item *it = &pl->env.items[i];
        char *val = NULL;
        int oom = envplan_value(&pl->env, envp, it->name, &val) < 0;
        fprintf(f, "  %s=%s\n      (%s%s)\n", it->name,
                oom   ? "(out of memory)"
                : val ? val
                      : "",
                it->why, it->op == ENV_APPEND ? "; appended to your value" : "");
        free(val);
    }
}

void plan_free(struct plan *pl)
{
    if (pl->opened) {
        ws_close(&pl->wsfd);
        if (pl->artifacts_fd >= 0)
            close(pl->artifacts_fd);
    }
    pl->opened = false;
    config_free(&pl->cfg);
    policy_free(&pl->policy);
    envplan_free(&pl->env);
}
