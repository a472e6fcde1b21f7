/* run and doctor where the fence is the OS's own (core/osfence.h: Windows' write-restricted
 * token and Job Object): the run's plan, workspace, temp dir, log and report are the library's
 * in-process lifecycle (lib/session_inproc), the command runs in the OS's fence, and a pytest
 * with the testfence plugin inside it joins the run to report the writes it refuses. */
#include "cmds.h"
#include "opts.h"

#include "core/config.h"
#include "core/exitcode.h"
#include "core/osfence.h"
#include "core/project.h"
#include "lib/session_inproc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef environ /* macOS: src/macos/posix.h names it through _NSGetEnviron() */
extern char **environ;
#endif

static const char run_head[] =
    "usage: testfence run [OPTIONS] [--] COMMAND [ARG...]\n"
    "\n"
    "Run COMMAND so that neither it nor any process it starts can write outside the\n"
    "project's tests/ directory (the writable set, its declared outputs and the run's\n"
    "private temp dir), in the operating system's own fence.\n"
    "\n";

/* Its about text is run_head and osfence_about, joined at start (cmd_run). */
static struct opts_command run_command = {
    .name = "run",
    .cmd = CMD_RUN,
    .after = "Each run gets a workspace under tests/artifacts/ (_isolation_workspace_<run_id>,\n"
             "exported as TESTFENCE_WORKSPACE) and a private temp dir (TEMP, TMP, TMPDIR),\n"
             "removed at the end. A pytest with the testfence plugin (-p testfence) inside\n"
             "the run joins it: the writes it refuses fail their tests and are summarised\n"
             "here and in the workspace's report.json. docs/platforms.md compares this\n"
             "fence with Linux's.\n"
             "\n"
             "exit status: the command's own; 120 the command exited 0 but writes were\n"
             "reported or processes it started were still running (killed; see\n"
             "--allow-violations); 125 usage error or testfence failed (no root, the fence\n"
             "cannot be set up); 126 COMMAND cannot be executed; 127 COMMAND not found.\n",
    .operands = OPERANDS_SOME,
    .missing = "no command given; usage: testfence run [OPTIONS] [--] COMMAND [ARG...]",
};

/* Options of Linux's run that this fence has no counterpart for: a usage error, said. */
static int unsupported(const struct opts *o, tf_err *err)
{
    const char *opt = strcmp(o->backend, "landlock") != 0 ? "--backend"
                      : o->require_namespace              ? "--require"
                      : o->verify                         ? "--verify"
                      : o->nkeep_fds > 0                  ? "--keep-fd"
                      : o->report                         ? "--report"
                      : o->junit                          ? "--junit"
                      : o->sarif                          ? "--sarif"
                      : o->github                         ? "--format github"
                      : o->test_env                       ? "--test-env"
                                                          : NULL;
    if (opt)
        return tf_errf(err, "run: %s is not available on %s (docs/platforms.md)", opt, session_os);
    return 0;
}

/* The places the command may write: the writable set's entries but the system set's
 * (device names, none on disk here), the declared outputs and the temp dir. */
static struct osfence_path *fence_paths(const struct plan *pl, size_t *n)
{
    struct osfence_path *p = calloc(pl->policy.n + 1, sizeof *p);
    *n = 0;
    for (size_t i = 0; p && i < pl->policy.n; i++)
        if (pl->policy.entries[i].origin != POLICY_SYSTEM)
            p[(*n)++] =
                (struct osfence_path){pl->policy.entries[i].path, pl->policy.entries[i].is_dir};
    return p;
}

/* The plan's environment, with what a pytest with the plugin needs to join this run. */
static char **command_env(const struct plan *pl, tf_err *err)
{
    char **env = envplan_apply(&pl->env, environ, err);
    size_t n = 0;
    while (env && env[n])
        n++;
    char **all = env ? realloc(env, (n + 3) * sizeof *env) : NULL;
    if (!all) {
        envplan_free_env(env);
        tf_errf(err, "out of memory");
        return NULL;
    }
    size_t len = strlen(pl->ws.dir) + sizeof "TESTFENCE_PLUGIN=";
    all[n] = malloc(len);
    all[n + 1] = strdup("TESTFENCE_PLUGIN_BACKEND=python");
    all[n + 2] = NULL;
    if (all[n])
        snprintf(all[n], len, "TESTFENCE_PLUGIN=%s", pl->ws.dir);
    return all;
}

static void print_dry_run(const struct session *s, char **cmd)
{
    char layer[512];
    tf_err err = {0};
    if (osfence_probe(layer, sizeof layer, &err) == 0)
        printf("fence:     %s\n", layer);
    else
        printf("fence:     CANNOT BE SET UP: %s\n", err.msg);
    plan_print(stdout, &s->pl, environ);
    printf("retain:    %u run workspaces\ncommand:  ", s->pl.cfg.retain);
    for (char **a = cmd; *a; a++)
        printf(" %s", *a);
    printf("\n%s(dry run: nothing was created, no permission changed, nothing was run)\n",
           osfence_about);
}

/* The command in the fence; *STATUS its status, 120 when it left processes running. */
static int launch(const struct opts *o, struct session *s, char **cmd, int *status, tf_err *err)
{
    size_t n = 0;
    struct osfence_result res = {.status = *status};
    struct osfence_path *paths = fence_paths(&s->pl, &n);
    char **env = paths ? command_env(&s->pl, err) : NULL;
    int rc = -1;
    if (!paths)
        tf_errf(err, "out of memory");
    if (env) {
        struct osfence_run r = {paths, n, cmd, env, stderr};
        rc = osfence_launch(&r, &res, err);
    }
    if (rc == 0)
        *status = res.status;
    if (rc == 0 && res.left > 0)
        fprintf(stderr, "testfence: the command left %d process%s running: killed\n", res.left,
                res.left == 1 ? "" : "es");
    if (rc == 0 && (res.left > 0 || res.seen > 0) && *status == 0 && !o->allow_violations)
        *status = TF_EXIT_VIOLATIONS;
    envplan_free_env(env);
    free(paths);
    return rc;
}

static int run(struct opts *o, char **cmd, tf_err *err, int *status)
{
    struct session s;
    memset(&s, 0, sizeof s);
    struct session_request req = {.plan = o->req,
                                  .backend = SESSION_PRELOAD,
                                  .report_backend = osfence_name,
                                  .report_note = osfence_note,
                                  .allow_violations = o->allow_violations,
                                  .keep_tmp = o->keep_tmp,
                                  .warn = stderr};
    bool planned = false;
    int rc = unsupported(o, err);
    if (rc == 0) {
        planned = true;
        rc = session_plan(&s, &req, err);
    }
    if (rc == 0 && o->dry_run) {
        print_dry_run(&s, cmd);
        *status = 0;
    } else if (rc == 0 && (rc = session_check(&s, err)) == 0 &&
               (rc = session_start(&s, err)) == 0) {
        rc = launch(o, &s, cmd, status, err);
        if (rc == 0)
            plan_print_outputs(stderr, &s.pl);
        int finished = session_finish(&s, stderr, cmd, *status);
        if (rc == 0)
            *status = finished;
        tf_err terr = {0};
        if (session_end_tmp(&s, *status, &terr) < 0)
            fprintf(stderr, "testfence: %s\n", terr.msg);
    }
    if (planned)
        session_free(&s);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    static char about[sizeof run_head + 2048];
    snprintf(about, sizeof about, "%s%s\n", run_head, osfence_about);
    run_command.about = about;
    struct opts o;
    tf_err err = {0};
    int status = TF_EXIT_OWN_ERROR;
    int r = opts_parse(argc, argv, &run_command, &o, &err);
    if (r == 0 && run(&o, o.args, &err, &status) < 0)
        r = -1;
    if (r < 0)
        fprintf(stderr, "testfence: %s\n", err.msg);
    opts_free(&o);
    return r == 1 ? 0 : r < 0 ? TF_EXIT_OWN_ERROR : status;
}

static const struct opts_command doctor_command = {
    .name = "doctor",
    .cmd = CMD_DOCTOR,
    .about = "usage: testfence doctor [OPTIONS]\n"
             "\n"
             "Say which fence 'testfence run' would use on this system (tried: the token and\n"
             "the job are made and dropped, no permission is changed), what it reports and what\n"
             "it only refuses, and check what would apply: the project root and its\n"
             "configuration (--config, testfence.toml, [tool.testfence] in pyproject.toml, or\n"
             "the defaults), every key and type in it, and the writable directories it names.\n"
             "\n",
    .after = "exit status: 0 'testfence run' would work here; 1 it would refuse (the fence\n"
             "cannot be set up, no project root, a configuration error, printed on stdout);\n"
             "125 usage error.\n",
    .operands = OPERANDS_NONE,
    .missing = NULL,
};

int cmd_doctor(int argc, char **argv)
{
    struct opts o;
    tf_err err = {0};
    char layer[512];
    int r = opts_parse(argc, argv, &doctor_command, &o, &err);
    if (r != 0) {
        if (r < 0)
            fprintf(stderr, "testfence: %s\n", err.msg);
        opts_free(&o);
        return r > 0 ? 0 : TF_EXIT_OWN_ERROR;
    }
    printf("system:    %s (testfence %s)\n", session_os, TESTFENCE_VERSION);
    bool fence = osfence_probe(layer, sizeof layer, &err) == 0;
    if (fence)
        printf("fence:     %s\n%s", layer, osfence_about);
    else
        printf("fence:     CANNOT BE SET UP: %s\n", err.msg);
    bool project = doctor_project(&o, &err) == 0;
    if (!project)
        printf("project:   none usable from here: %s\n", err.msg);
    const char *verdict = !project ? "testfence run would refuse here (the project)"
                          : fence  ? "testfence run would work here"
                          : osfence_falls_back
                              ? "testfence run would fall back to the plugin's guard here "
                                "(WEAKER: only a pytest with the plugin is fenced)"
                              : "testfence run would refuse here (no fence)";
    printf("verdict:   %s\n", verdict);
    opts_free(&o);
    return fence && project ? 0 : 1;
}
