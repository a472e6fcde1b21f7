#include "session.h"

#include "core/colour.h"
#include "core/exitcode.h"
#include "core/hazard.h"
#include "core/path.h"
#include "core/report_ci.h"
#include "core/shimconf.h"
#include "core/workspace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

const char session_weak_label[] =
    "WEAKER than landlock: the LD_PRELOAD shim refuses writes itself; static binaries, raw "
    "syscalls and processes with a cleared environment are NOT fenced";

int session_plan(struct session *s, const struct plan_request *req, enum session_backend b,
                 tf_err *err)
{
    char run_id[32];
    memset(s, 0, sizeof *s);
    s->d.wsfd = s->d.logdir = -1;
    s->ruleset_fd = -1;
    channel_init(&s->ch);
    s->backend = b;
    ws_run_id(run_id, sizeof run_id, time(NULL), getpid());
    fence_probe(&s->caps);
    return plan_build(&s->pl, req, run_id, environ, err);
}

/* Something already in the writable set that would let a write escape it. */
static int check_hazards(struct session *s, bool allow, const char *override, FILE *warn,
                         tf_err *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return tf_errf(err, "out of memory");
    struct hazard_opts o = {
        .artifacts = s->pl.ws.artifacts, .warn = warn, .plugin_off_refused = s->pl.in_process};
    int n = hazard_scan(&s->pl.policy, &o, f, err);
    fclose(f);
    if (n > 0 && allow)
        fprintf(warn, "testfence: warning: --allow-hazards: running despite:\n%s", text);
    else if (n > 0)
        tf_errf(err, "refusing to run: the writable set holds %d hazard%s:\n%sFix %s%s%s", n,
                n == 1 ? "" : "s", text, n == 1 ? "it" : "them", override ? ", or " : " first",
                override ? override : "");
    free(text);
    return n < 0 || (n > 0 && !allow) ? -1 : 0;
}

int session_check(struct session *s, bool allow_hazards, const char *override, FILE *warn,
                  tf_err *err)
{
    if (s->backend == SESSION_LANDLOCK && fence_require_complete(&s->caps, err) < 0)
        return -1;
    return check_hazards(s, allow_hazards, override, warn, err);
}

/* Old runs beyond RETAIN go; what a test left behind that resists removal is said on WARN
 * and left for `testfence clean`, never a reason not to run. */
static void prune(struct session *s, unsigned retain, FILE *warn)
{
    struct ws_pruned pr;
    tf_err err = {{0}};
    if (ws_prune(s->pl.artifacts_fd, s->pl.ws.artifacts, retain, warn, &pr, &err) < 0)
        fprintf(warn, "testfence: warning: old runs were not pruned: %s\n", err.msg);
}

/* testfence run's channel, outside the writable set: 1 open. Where there is none to be had
 * (a run nested in another whose fence covers every candidate), 0: the records stay in the
 * workspace, as for a process that fences itself, and WARN says what that costs. */
static int open_channel(struct session *s, FILE *warn, tf_err *err)
{
    tf_err why = {{0}};
    if (s->pl.runtime[0] && channel_open(&s->ch, s->pl.runtime, s->pl.wsfd.dir, &why) == 0)
        return 1;
    channel_close(&s->ch);
    fprintf(warn,
            "testfence: warning: %s: the shim's configuration and the violation log stay in the "
            "run workspace, where the command could change them\n",
            s->pl.runtime[0] ? why.msg : "no private directory outside the writable set");
    if (!s->pl.runtime[0])
        return 0; /* planned so: the shim already looks in the workspace */
    if (path_join(s->pl.shimconf, sizeof s->pl.shimconf, s->pl.ws.dir, SHIMCONF_FILE, err) < 0 ||
        envplan_add(&s->pl.env, "TESTFENCE_SHIM_CONF", s->pl.shimconf, ENV_SET,
                    "the shim's configuration", err) < 0)
        return -1;
    return 0;
}

/* Where the shim's configuration and the records go: through the channel, outside the
 * writable set, when testfence run waits outside the fence; in the workspace for a process
 * that fences itself (it has no other place). */
static int start_diag(struct session *s, const char *test_env, bool in_process, FILE *warn,
                      tf_err *err)
{
    bool block = s->backend == SESSION_PRELOAD;
    char log[PATH_MAX];
    struct diag_shim sh = {.mode = block ? SHIM_BLOCK : SHIM_DIAGNOSE,
                           .precheck_meta = !s->guard,
                           .test_env = test_env,
                           .conf_dirfd = s->pl.wsfd.dir,
                           .log_dirfd = s->pl.wsfd.dir,
                           .sink = log};
    int ch = in_process ? 0 : open_channel(s, warn, err);
    if (ch < 0)
        return -1;
    if (ch) {
        sh.conf_dirfd = sh.log_dirfd = s->ch.dirfd;
        sh.sink_socket = true;
        sh.sink = s->ch.sock_path;
    } else if (path_join(log, sizeof log, s->pl.ws.dir, SHIMCONF_LOG, err) < 0) {
        return -1;
    }
    return diag_prepare(&s->d, &s->pl, &sh, err);
}

int session_start(struct session *s, unsigned retain, const char *test_env, bool in_process,
                  FILE *warn, tf_err *err)
{
    bool fenced = s->backend == SESSION_LANDLOCK;
    if (plan_create_workspace(&s->pl, time(NULL), err) < 0)
        return -1;
    diag_unfinished(s->pl.artifacts_fd, s->pl.ws.artifacts, s->pl.root, warn);
    prune(s, retain, warn);
    s->guard = fenced && !in_process && s->caps.seccomp_notify;
    /* A violation log when something writes to it: the shim, or the caller itself. */
    if ((s->pl.shim || in_process) && start_diag(s, test_env, in_process, warn, err) < 0)
        return -1;
    if (fenced && (s->ruleset_fd = fence_prepare(&s->pl.policy, &s->caps, err)) < 0)
        return -1;
    return 0;
}

static const char *const backend_names[] = {"landlock", "preload", "none"};

/* Every run that ends leaves report.json, so the next one can tell a killed run from one
 * that finished: this one, when no violation log made one (nothing to report from), and
 * the outputs RUN asks for, on OUT (NULL: none). */
static void report_plain(struct session *s, const struct report_run *run, FILE *out)
{
    struct report r;
    tf_err err = {{0}};
    memset(&r, 0, sizeof r);
    report_write_json(&r, run, s->pl.wsfd.dir, SHIMCONF_REPORT, &err);
    if (out)
        report_write_outputs(&r, run, out);
    s->reported = true;
}

void session_records(void *s)
{
    channel_drain(&((struct session *)s)->ch);
}

int session_finish(struct session *s, FILE *out, char *const *argv, int command_status,
                   bool allow_violations, const struct report_outputs *outs)
{
    char why[PATH_MAX + 128];
    channel_drain(&s->ch);
    bool tampered = channel_check(&s->ch, s->pl.ws.dir, why, sizeof why) < 0;
    if (tampered)
        fprintf(out,
                "testfence: %s: a test must not touch testfence's record. testfence kept its own "
                "copy of every record, reports from it and restored the log; the run fails\n",
                why);
    if (s->ch.malformed)
        fprintf(out, "testfence: %zu malformed record%s sent to testfence %s dropped\n",
                s->ch.malformed, s->ch.malformed == 1 ? "" : "s",
                s->ch.malformed == 1 ? "was" : "were");
    struct report_run run = {.run_id = s->pl.ws.run_id,
                             .root = s->pl.root,
                             .workspace = s->pl.ws.dir,
                             .backend = backend_names[s->backend],
                             .home = getenv("HOME"),
                             .argv = argv,
                             .command_status = command_status,
                             .status = command_status,
                             .colour = colour_wanted(fileno(out)),
                             .outs = outs};
    if (!s->d.on) {
        report_plain(s, &run, out);
        return command_status;
    }
    s->reported = true;
    return diag_finish(&s->d, out, &run, allow_violations, tampered);
}

void session_free(struct session *s)
{
    /* A run that stopped on an error of ours after its workspace was made: say so there. */
    if (s->pl.opened && s->pl.wsfd.dir >= 0 && !s->reported) {
        struct report_run run = {.run_id = s->pl.ws.run_id,
                                 .root = s->pl.root,
                                 .workspace = s->pl.ws.dir,
                                 .backend = backend_names[s->backend],
                                 .command_status = -1,
                                 .status = TF_EXIT_OWN_ERROR};
        report_plain(s, &run, NULL);
    }
    if (s->ruleset_fd >= 0)
        close(s->ruleset_fd);
    s->ruleset_fd = -1;
    diag_close(&s->d);
    channel_close(&s->ch);
    plan_free(&s->pl);
}
