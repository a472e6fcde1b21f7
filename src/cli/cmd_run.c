/* testfence run: run a command that cannot write outside the project's tests/. */
#include "cmds.h"
#include "core/verify.h"
#include "linux/mountns.h"
#include "linux/session.h"
#include "linux/spawn.h"
#include "opts.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static const struct opts_command command = {
    .name = "run",
    .cmd = CMD_RUN,
    .about = "usage: testfence run [OPTIONS] [--] COMMAND [ARG...]\n"
             "\n"
             "Run COMMAND so that neither it nor any process it starts can write outside the\n"
             "project's tests/ directory. The Linux kernel enforces it (Landlock): static\n"
             "binaries, raw syscalls and children with a cleared environment are fenced too.\n"
             "Reading and executing are not restricted.\n"
             "\n",
    .after = "Always writable (the system set, which holds no user data):\n"
             "  /dev/null /dev/zero /dev/full /dev/tty /dev/ptmx /dev/pts/ /dev/shm/\n"
             "\n"
             "Each run gets a workspace under tests/artifacts/ (an ignore file keeps it out\n"
             "of git status):\n"
             "  _isolation_workspace_<run_id>/      exported as TESTFENCE_WORKSPACE\n"
             "  .pytest_cache/ pycache/ .hypothesis/ .coverage ...  tool state, kept\n"
             "and a private temp dir outside the project, /tmp/testfence-<uid>/<run_id>/\n"
             "(TMPDIR, TMP, TEMP; pytest's tmp_path follows), removed at the end: inside\n"
             "the project, a pytest started by a test would find the project's config.\n"
             "Tool state (pip, npm, mypy, ruff, matplotlib, IPython, pre-commit, XDG dirs)\n"
             "is redirected into the workspace; git's index lock, pytest-benchmark's\n"
             "storage and the Python REPL history are refused quietly (docs/run.md).\n"
             "Tool-state variables you already point inside the writable set are kept.\n"
             "Old workspaces beyond --retain are removed; nothing else ever is.\n"
             "\n"
             "The command runs in its own mount and PID namespaces (a user namespace too when\n"
             "not root): every mount is read-only but the writable set, so the kernel refuses\n"
             "chmod, chown, utime, xattrs and inode flags outside with EROFS. Files of other\n"
             "users show as nobody (65534) to a non-root run. When the command exits, every\n"
             "process it left running is killed and reported; if testfence is killed, so is\n"
             "the whole tree. Where namespaces are refused, a seccomp guard stands in (weaker)\n"
             "and run says so.\n"
             "\n"
             "Every blocked write is reported as it happens (TEST_SANDBOX_VIOLATION: on\n"
             "stderr), sent to testfence, which keeps it out of the command's reach and logs\n"
             "it with its test in the workspace (violations.jsonl), summarised at the end,\n"
             "and written to the workspace's report.json. On a terminal the lines are\n"
             "coloured, unless NO_COLOR is set.\n"
             "\n"
             "exit status: the command's own (128+N if killed by signal N); 120 the command\n"
             "exited 0 but writes were blocked or processes it started were still running\n"
             "(see --allow-violations), or the violation log\n"
             "was deleted or rewritten during the run; 125 usage error or\n"
             "testfence failed (no root, fence not enforceable); 126 COMMAND cannot be\n"
             "executed; 127 COMMAND not found.\n",
    .operands = OPERANDS_SOME,
    .missing = "no command given; usage: testfence run [OPTIONS] -- COMMAND [ARG...]",
};

/* Which of the user's files the run would keep from change, and why not when it would not. */
static void print_protect(const struct opts *o, const struct session *s)
{
    enum config_protect mode = session_protect(s);
    printf("protect:   %s", config_protect_name(mode));
    if (o->update_snapshots && s->pl.cfg.protect != CONFIG_PROTECT_NONE)
        printf(" (--update-snapshots: the config's \"%s\" is off for this run)",
               config_protect_name(s->pl.cfg.protect));
    else if (mode == CONFIG_PROTECT_TRACKED)
        printf(" (what git tracks under the writable set, and the directories on the way: "
               "read-only in the namespace layer)");
    else if (mode == CONFIG_PROTECT_EXISTING)
        printf(" (every file under the writable set before the run, and the directories on "
               "the way: read-only in the namespace layer)");
    putchar('\n');
}

static void print_dry_run(const struct opts *o, const struct session *s, char **cmd)
{
    printf("backend:   %s", o->backend);
    if (s->backend == SESSION_LANDLOCK)
        printf(" (Landlock ABI %d)", s->caps.abi);
    if (s->backend == SESSION_PRELOAD)
        printf(" (%s)", session_weak_label);
    putchar('\n');
    if (s->backend == SESSION_LANDLOCK) {
        char why[600];
        bool require = session_requires_ns(s);
        if (mountns_probe(why, sizeof why) == 0)
            printf("metadata:  namespace layer (read-only mounts but the writable set; a PID "
                   "namespace)\n");
        else
            printf("metadata:  %s (the namespace layer is unavailable: %s)\n",
                   require ? "REFUSED: the run requires the namespace layer" : "seccomp guard",
                   why);
    }
    plan_print(stdout, &s->pl, environ);
    printf("retain:    %u run workspaces\n", s->retain);
    print_protect(o, s);
    printf("command:  ");
    for (char **a = cmd; *a; a++)
        printf(" %s", *a);
    printf("\n(dry run: nothing was created and nothing was run)\n");
}

/* --verify, after the run: report every change outside the writable set, and
 * count it as a violation (120) when the command itself succeeded. */
static int verify_after(const struct opts *o, const struct plan *pl,
                        const struct verify_snap *before, int *status, tf_err *err)
{
    struct verify_snap after = {0};
    if (verify_snapshot(pl->root, &pl->policy, NULL, &after, err) < 0)
        return -1;
    size_t n = verify_diff(before, &after, stderr);
    if (n == 0)
        fprintf(stderr,
                "testfence: --verify: nothing outside the writable set changed (%zu "
                "entries compared)\n",
                after.n);
    else
        fprintf(stderr, "testfence: --verify: %zu path%s outside the writable set changed\n", n,
                n == 1 ? "" : "s");
    if (n > 0 && *status == 0 && !o->allow_violations)
        *status = TF_EXIT_VIOLATIONS;
    verify_free(&after);
    return 0;
}

/* Run the command under the fence and the guard; with --verify, fingerprint the
 * tree outside the writable set around it. */
static int launch(const struct opts *o, struct session *s, char **cmd, int *status, tf_err *err)
{
    const struct plan *pl = &s->pl;
    struct verify_snap before = {0};
    char **env = envplan_apply(&pl->env, environ, err);
    if (!env || (o->verify && verify_snapshot(pl->root, &pl->policy, NULL, &before, err) < 0)) {
        envplan_free_env(env);
        return -1;
    }
    /* A summary or a leftover's line written into a closed pipe (`| head`) must not kill
     * testfence before it has swept the tree and written the report. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, was;
    sigaction(SIGPIPE, &ignore, &was);
    struct spawn_opts so = {.argv = cmd, .sigpipe_ignored = was.sa_handler == SIG_IGN, .envp = env};
    int rc = session_launch(s, &so, status, err);
    if (rc == 0 && o->verify)
        rc = verify_after(o, pl, &before, status, err);
    verify_free(&before);
    envplan_free_env(env);
    return rc;
}

/* The request the session is driven by, from the options. */
static struct session_request request_of(const struct opts *o, char **cmd)
{
    return (struct session_request){
        .plan = o->req,
        .backend = (enum session_backend)session_backend_of(o->backend), /* opts checked it */
        .test_env = o->test_env,
        .retain = o->retain,
        .require_namespace = o->require_namespace,
        .protect_set = o->update_snapshots,
        .protect = CONFIG_PROTECT_NONE,
        .allow_hazards = o->allow_hazards,
        .hazard_override = "pass --allow-hazards to run anyway",
        .allow_violations = o->allow_violations,
        .keep_tmp = o->keep_tmp,
        .keep_fds = o->keep_fds,
        .nkeep_fds = o->nkeep_fds,
        .report = o->report,
        .junit = o->junit,
        .sarif = o->sarif,
        .github = o->github,
        .argv = cmd,
        .warn = stderr,
    };
}

static int run(struct opts *o, char **cmd, tf_err *err, int *status)
{
    struct session s;
    struct session_request req = request_of(o, cmd);
    int rc = session_plan(&s, &req, err);
    if (rc == 0 && o->dry_run) {
        print_dry_run(o, &s, cmd);
        *status = 0;
    } else if (rc == 0 && (rc = session_check(&s, err)) == 0 &&
               (rc = session_start(&s, err)) == 0) {
        rc = launch(o, &s, cmd, status, err);
        if (rc == 0)
            plan_print_outputs(stderr, &s.pl);
        /* Also when the command could not start: its status (126, 127) is the report's. */
        int finished = session_finish(&s, stderr, cmd, *status);
        if (rc == 0)
            *status = finished;
    }
    session_free(&s);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    struct opts o;
    tf_err err = {0};
    int status = TF_EXIT_OWN_ERROR;
    int r = opts_parse(argc, argv, &command, &o, &err);
    if (r == 0 && run(&o, o.args, &err, &status) < 0)
        r = -1;
    if (r < 0)
        fprintf(stderr, "testfence: %s\n", err.msg);
    opts_free(&o);
    return r == 1 ? 0 : status;
}
