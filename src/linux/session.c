#include "session.h"

#include "core/colour.h"
#include "core/hazard.h"
#include "core/workspace.h"

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
    s->d.wsfd = -1;
    s->ruleset_fd = -1;
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
    int n = hazard_scan(&s->pl.policy, s->pl.ws.artifacts, f, err);
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

int session_start(struct session *s, unsigned retain, const char *test_env, bool in_process,
                  tf_err *err)
{
    bool fenced = s->backend == SESSION_LANDLOCK;
    if (plan_create_workspace(&s->pl, err) < 0 || ws_prune(s->pl.ws.artifacts, retain, err) < 0)
        return -1;
    s->guard = fenced && !in_process && s->caps.seccomp_notify;
    /* A violation log when something writes to it: the shim, or the caller itself. */
    if ((s->pl.shim || in_process) &&
        diag_prepare(&s->d, &s->pl,
                     fenced || s->backend == SESSION_NONE ? SHIM_DIAGNOSE : SHIM_BLOCK, !s->guard,
                     test_env, err) < 0)
        return -1;
    if (fenced && (s->ruleset_fd = fence_prepare(&s->pl.policy, &s->caps, err)) < 0)
        return -1;
    return 0;
}

int session_finish(struct session *s, FILE *out, char *const *argv, int command_status,
                   bool allow_violations, const struct report_outputs *outs)
{
    static const char *const names[] = {"landlock", "preload", "none"};
    struct report_run run = {.run_id = s->pl.ws.run_id,
                             .root = s->pl.root,
                             .workspace = s->pl.ws.dir,
                             .backend = names[s->backend],
                             .home = getenv("HOME"),
                             .argv = argv,
                             .command_status = command_status,
                             .colour = colour_wanted(fileno(out)),
                             .outs = outs};
    return diag_finish(&s->d, out, &run, allow_violations);
}

void session_free(struct session *s)
{
    if (s->ruleset_fd >= 0)
        close(s->ruleset_fd);
    s->ruleset_fd = -1;
    diag_close(&s->d);
    plan_free(&s->pl);
}
