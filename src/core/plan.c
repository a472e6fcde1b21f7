#include "plan.h"
#include "platform.h"

#include "gitdir.h"
#include "jobserver.h"
#include "path.h"
#include "project.h"
#include "toolstate.h"

#include "shimconf.h"
#include "walk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* A writable entry that does not exist: say which directory the tests are really in. */
static int missing_writable(struct plan *pl, size_t i, tf_err *err)
{
    char found[PATH_MAX], msg[sizeof err->msg];
    if (policy_add(&pl->policy, pl->cfg.writable.v[i], POLICY_PROJECT, err) == 0)
        return 0;
    /* Only the default writable set ("tests") is a guess worth correcting; "built-in
     * defaults" also covers a pyproject.toml without [tool.testfence]. */
    if (strncmp(pl->cfg.source, "built-in defaults", 17))
        return placed(err, pl->cfg.writable_at[i]);
    if (project_find_tests(pl->root, found, sizeof found) < 0)
        placed(err, pl->cfg.writable_at[i]);
    else {
        snprintf(msg, sizeof msg, "%s", err->msg);
        tf_errf(err,
                "%s; this project keeps its tests in %s/: write writable = [\"%s\"] in "
                "testfence.toml (or [tool.testfence] in pyproject.toml), or run "
                "'testfence init'",
                msg, found, found);
    }
    if (err)
        err->kind = TF_ERR_NOT_SET_UP; /* never configured: an installed plugin stands aside */
    return -1;
}

/* The directories the table's quiet paths lie below, for each base (core/toolstate.h). */
struct quiet_bases {
    const char *home;
    char cargo_home[PATH_MAX];
    char cwd[PATH_MAX];
    char git[2][PATH_MAX]; /* the repository around the root, around the cwd; "": none */
};

/* The walks up to the nearest .git are made here, by the unfenced parent before the command:
 * gitdir_find passes over whatever a test could have planted (core/gitdir.h). */
static void quiet_bases(const struct plan *pl, char *const *envp, struct quiet_bases *b)
{
    const char *cargo = envplan_getenv(envp, "CARGO_HOME");
    memset(b, 0, sizeof *b);
    b->home = envplan_getenv(envp, "HOME");
    if (cargo && platform_is_absolute(cargo))
        snprintf(b->cargo_home, sizeof b->cargo_home, "%s", cargo);
    else if (b->home && platform_is_absolute(b->home))
        snprintf(b->cargo_home, sizeof b->cargo_home, "%s/.cargo", b->home);
    if (!getcwd(b->cwd, sizeof b->cwd))
        b->cwd[0] = '\0';
    if (gitdir_find(&pl->policy, pl->root, b->git[0], sizeof b->git[0]) != 1)
        b->git[0][0] = '\0';
    /* From the root itself (the usual case) the same walk would find the same repository. */
    if (!b->cwd[0] || !strcmp(b->cwd, pl->root) ||
        gitdir_find(&pl->policy, b->cwd, b->git[1], sizeof b->git[1]) != 1 ||
        !strcmp(b->git[0], b->git[1]))
        b->git[1][0] = '\0';
}

/* The directories of BASE into DIRS (at most two); how many. */
static size_t base_dirs(const struct plan *pl, const struct quiet_bases *b,
                        enum toolstate_base base, const char *dirs[2])
{
    dirs[0] = dirs[1] = NULL;
    switch (base) {
    case TS_HOME:
        dirs[0] = b->home;
        return 1;
    case TS_CARGO_HOME:
        dirs[0] = b->cargo_home;
        return 1;
    case TS_SYSTEM:
        dirs[0] = "/";
        return 1;
    case TS_CWD: /* the cwd that is the root: TS_ROOT's entry is the same path */
        dirs[0] = b->cwd;
        return strcmp(b->cwd, pl->root) ? 1 : 0;
    case TS_GITDIR:
        dirs[0] = b->git[0];
        dirs[1] = b->git[1];
        return 2;
    case TS_ROOT:
    case TS_ARTIFACTS: /* never quiet: redirects */
    case TS_WORKSPACE:
        break;
    }
    dirs[0] = pl->root;
    return 1;
}

/* DIR/T's path refused quietly, unless it is reached through a symlink inside the writable
 * set (a test may have planted one: what it leads to must not go unreported), lies inside the
 * set (nothing to refuse) or is there already (the cwd is the root). A HOME we cannot read
 * (run as another user) has no state of ours to keep quiet. */
static int add_quiet(struct plan *pl, const struct toolstate *t, const char *dir, tf_err *err)
{
    char joined[PATH_MAX], resolved[PATH_MAX];
    size_t n = strlen(t->value);
    if (!dir || !platform_is_absolute(dir) ||
        path_join(joined, sizeof joined, dir, t->value, NULL) < 0 ||
        policy_resolve_fixed(&pl->policy, joined, resolved, sizeof resolved, NULL, NULL) < 0 ||
        policy_match(&pl->policy, resolved))
        return 0;
    for (size_t i = 0; i < pl->policy.nquiet; i++)
        if (!strcmp(pl->policy.quiet[i].path, resolved))
            return 0;
    return policy_add_quiet(&pl->policy, resolved, t->value[n - 1] == '/', t->tool, t->commands,
                            err);
}

/* The tool-state entries of the table that are paths refused quietly. */
static int quiet_state(struct plan *pl, char *const *envp, tf_err *err)
{
    struct quiet_bases b;
    quiet_bases(pl, envp, &b);
    for (const struct toolstate *t = toolstate_table; t->tool; t++) {
        const char *dirs[2];
        size_t n = t->kind == TS_QUIET ? base_dirs(pl, &b, t->base, dirs) : 0;
        for (size_t i = 0; i < n; i++)
            if (add_quiet(pl, t, dirs[i], err) < 0)
                return -1;
    }
    return 0;
}

/* Does ROOT lie in the writable set of the project at ABOVE, its outputs' directories
 * included (the policy that project's runs get, built by the policy module)? 1 yes (the
 * entry as given to HIT), 0 no, -1 its config cannot be read (why to HIT): that says nothing
 * of its writable set, so the caller counts it as holding ROOT (fails closed; --root is the
 * user's way past it). An entry that cannot be added (missing, outside) holds nothing: that
 * project's runs are refused over it, or it does not exist. */
static int in_writable_of(const char *above, const char *root, char *hit, size_t n)
{
    struct config c;
    struct policy outer;
    tf_err why = {0}, ignored = {0};
    if (config_load(&c, above, NULL, &why) < 0 || policy_init(&outer, above, &why) < 0) {
        config_free(&c);
        snprintf(hit, n, "%s", why.msg);
        return -1;
    }
    for (size_t i = 0; i < c.writable.n; i++)
        policy_add(&outer, c.writable.v[i], POLICY_PROJECT, &ignored);
    for (size_t i = 0; i < c.outputs.n; i++)
        policy_add_output(&outer, c.outputs.v[i], true, &ignored);
    const struct policy_entry *e = policy_match(&outer, root);
    if (e)
        snprintf(hit, n, "%s", e->given);
    policy_free(&outer);
    config_free(&c);
    return e ? 1 : 0;
}

/* A root found by walking up from the cwd whose marker lies in the writable set of a
 * project above it: a test there could have written it (tests/testfence.toml saying
 * writable = ["."], protect = "none") for a user who later runs from tests/. --root is the
 * user's own choice. */
static int check_nested_root(const struct plan *pl, const struct plan_request *req, tf_err *err)
{
    char from[PATH_MAX], above[PATH_MAX], hit[PATH_MAX];
    if (req->root)
        return 0;
    snprintf(from, sizeof from, "%s", pl->root);
    while (project_find_above(from, above, sizeof above) == 1) {
        int in = in_writable_of(above, pl->root, hit, sizeof hit);
        if (in > 0)
            return tf_errf(err,
                           "the project root %s lies in the writable set of the project at %s "
                           "(writable \"%s\"), where a test could have written its marker; run "
                           "from %s, or pass --root %s if that project is yours",
                           pl->root, above, hit, above, pl->root);
        if (in < 0)
            return tf_errf(err,
                           "the project root %s lies inside the project at %s, whose "
                           "configuration cannot be read (%s), so a test there may have "
                           "written its marker; fix that configuration, or pass --root %s if "
                           "the inner project is yours",
                           pl->root, above, hit, pl->root);
        snprintf(from, sizeof from, "%s", above);
    }
    return 0;
}

int plan_policy(struct plan *pl, const struct plan_request *req, char *const *envp, tf_err *err)
{
    memset(pl, 0, sizeof *pl);
    pl->tmp.fd = pl->tmp.userfd = -1;
    if (project_find_root(req->root, pl->root, sizeof pl->root, err) < 0 ||
        check_nested_root(pl, req, err) < 0 ||
        config_load(&pl->cfg, pl->root, req->config, err) < 0 ||
        policy_init(&pl->policy, pl->root, err) < 0)
        return -1;
    for (size_t i = 0; i < pl->cfg.writable.n; i++)
        if (missing_writable(pl, i, err) < 0)
            return -1;
    for (size_t i = 0; i < req->nallow; i++)
        if (policy_add(&pl->policy, req->allow[i], POLICY_ALLOW, err) < 0)
            return -1;
    if (policy_check_links(&pl->policy, err) < 0)
        return -1;
    for (size_t i = 0; i < pl->cfg.outputs.n; i++)
        if (policy_add_output(&pl->policy, pl->cfg.outputs.v[i], true, err) < 0)
            return -1;
    for (size_t i = 0; i < req->noutputs; i++)
        if (policy_add_output(&pl->policy, req->outputs[i], false, err) < 0)
            return -1;
    if (policy_add_system(&pl->policy, err) < 0 || quiet_state(pl, envp, err) < 0)
        return -1;
    /* make 4.4 hands its jobserver over as a named fifo: taking a job slot writes to it.
     * Only a fifo: a stale or crafted MAKEFLAGS naming a file must not make it writable. */
    struct jobserver js;
    struct stat st;
    jobserver_parse(envplan_getenv(envp, "MAKEFLAGS"), &js);
    if (js.kind == JOBSERVER_FIFO && stat(js.fifo, &st) == 0 && S_ISFIFO(st.st_mode) &&
        policy_add(&pl->policy, js.fifo, POLICY_ALLOW, err) < 0)
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

/* pytest's cache moves under the artifacts dir. No --basetemp: pytest takes its temp dirs
 * from TMPDIR (the private temp dir), and a --basetemp in PYTEST_ADDOPTS would reach every
 * pytest a test starts, which empties it at start-up. */
static int pytest_addopts(struct plan *pl, tf_err *err)
{
    char opt[PATH_MAX * 2], cache[PATH_MAX + 16];
    if (!pl->cfg.pytest_cache_dir)
        return 0;
    snprintf(cache, sizeof cache, "cache_dir=%s", pl->ws.pytest_cache);
    if (envplan_shell_quote(opt + 3, sizeof opt - 3, cache) < 0)
        return tf_errf(err, "artifacts path too long: %s", pl->ws.artifacts);
    memcpy(opt, "-o ", 3);
    return envplan_add(&pl->env, "PYTEST_ADDOPTS", opt, ENV_APPEND,
                       "pytest's cache under the artifacts dir", err);
}

/* The table's redirects and settings: docs/run.md lists them. */
static int tool_state(struct plan *pl, char *const *envp, tf_err *err)
{
    for (const struct toolstate *t = toolstate_table; t->tool; t++) {
        char path[PATH_MAX];
        const char *cur = envplan_getenv(envp, t->var ? t->var : "");
        if (t->kind == TS_SET && !cur &&
            envplan_add(&pl->env, t->var, t->value, ENV_SET, t->why, err) < 0)
            return -1;
        if (t->kind != TS_REDIRECT)
            continue;
        const char *base = t->base == TS_WORKSPACE ? pl->ws.dir : pl->ws.artifacts;
        if (path_join(path, sizeof path, base, t->value, err) < 0 ||
            redirect(pl, envp, t->var, path, t->why, err) < 0)
            return -1;
    }
    /* A bytecode prefix of the user's outside the writable set: its paths hold no
     * __pycache__, so every write there would be refused and reported. Empty (CPython then
     * ignores it), Python writes beside the sources, refused quietly, and reads what is there. */
    const char *prefix = envplan_getenv(envp, "PYTHONPYCACHEPREFIX");
    if (prefix && prefix[0] &&
        redirect(pl, envp, "PYTHONPYCACHEPREFIX", "",
                 "your bytecode prefix lies outside the writable set: Python keeps its "
                 "bytecode beside the sources instead (refused there quietly)",
                 err) < 0)
        return -1;
    return 0;
}

/* The [env] table of the config, placeholders expanded; set last, so it wins. */
static int config_env(struct plan *pl, tf_err *err)
{
    const struct workspace *ws = &pl->ws;
    struct config_vars vars = {pl->root, ws->dir, ws->artifacts, ws->run_id, pl->tmp.dir};
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
    const char *tmp_why = "the run's private temp dir, outside the project";
    if (envplan_add(&pl->env, "TMPDIR", pl->tmp.dir, ENV_SET, tmp_why, err) < 0 ||
        envplan_add(&pl->env, "TMP", pl->tmp.dir, ENV_SET, tmp_why, err) < 0 ||
        envplan_add(&pl->env, "TEMP", pl->tmp.dir, ENV_SET, tmp_why, err) < 0 ||
        pytest_addopts(pl, err) < 0 || tool_state(pl, envp, err) < 0 ||
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
    char joined[PATH_MAX], link[PATH_MAX];
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
    /* tests/artifacts -> . (a run's doing) would make all of tests/ the run's own. */
    if (policy_through_link(&pl->policy, joined, link, sizeof link)) {
        tf_errf(err,
                "the artifacts dir \"%s\" goes through the symlink %s inside the writable set, "
                "which a test can change; remove the link (a run may have left it) and run "
                "again",
                pl->cfg.artifacts, link);
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
    if (plan_policy(pl, req, envp, err) < 0 ||
        plan_artifacts(pl, artifacts, sizeof artifacts, err) < 0)
        return -1;
    /* The temp dir joins the writable set: exactly this one directory, made per run. */
    if (ws_plan(&pl->ws, artifacts, run_id, err) < 0 ||
        runtmp_plan(&pl->tmp, envplan_getenv(envp, "TMPDIR"), pl->root, run_id, geteuid(), err) <
            0 ||
        policy_add_resolved(&pl->policy, pl->tmp.dir, "TMPDIR", POLICY_TMP, true, err) < 0 ||
        env_plan(pl, envp, err) < 0)
        return -1;
    /* Appended: a user's own preloads keep working (LD_PRELOAD splits on spaces). */
    pl->shim = req->shim != NULL;
    pl->in_process = req->in_process;
    if (req->shim && plan_shim(pl, req, envp, err) < 0)
        return -1;
    return 0;
}

void plan_print_policy(FILE *f, const struct plan *pl)
{
    fprintf(f, "root:      %s\nconfig:    %s\nwritable:\n", pl->root, pl->cfg.source);
    for (size_t i = 0; i < pl->policy.n; i++) {
        const struct policy_entry *e = &pl->policy.entries[i];
        fprintf(f, "  %-40s %s", e->path, policy_origin_name(e->origin));
        if (e->origin == POLICY_OUTPUT)
            fprintf(f, " \"%s\" (a declared %s)", e->given, e->is_dir ? "directory" : "file");
        else if (e->origin == POLICY_TMP)
            fputs(" (the run's private temp dir; removed at the end)", f);
        else if (e->origin != POLICY_SYSTEM)
            fprintf(f, " \"%s\"", e->given);
        fputc('\n', f);
    }
    fputs("refused quietly (harmless tool state, not reported):\n", f);
    for (size_t i = 0; i < pl->policy.nquiet; i++) {
        const struct policy_quiet *q = &pl->policy.quiet[i];
        fprintf(f, "  %-40s %s%s%s\n", q->path, q->tool, q->commands ? " " : "",
                q->commands ? q->commands : "");
    }
}

void plan_print_outputs(FILE *f, const struct plan *pl)
{
    for (size_t i = 0; i < pl->policy.n; i++)
        if (pl->policy.entries[i].origin == POLICY_OUTPUT)
            fprintf(f, "testfence: declared output (writable outside the fence): %s%s\n",
                    pl->policy.entries[i].path, pl->policy.entries[i].is_dir ? "/" : "");
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
    config_free(&pl->cfg);
    policy_free(&pl->policy);
    envplan_free(&pl->env);
}
