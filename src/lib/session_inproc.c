/* session_inproc: see session_inproc.h. The same steps, in the same order, as
 * linux/session.c takes for a process that fences itself (in_process), without what needs
 * the kernel there (Landlock, the channel, the namespace). */
#include "session_inproc.h"

#include "core/exitcode.h"
#include "core/path.h"
#include "core/report.h"
#include "core/shimconf.h"
#include "core/workspace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef environ /* macOS: src/macos/posix.h's (a shared library cannot name it there) */
extern char **environ;
#endif

int session_plan(struct session *s, const struct session_request *req, tf_err *err)
{
    char run_id[32];
    memset(s, 0, sizeof *s);
    s->req = *req;
    s->warn = req->warn;
    s->backend = req->backend;
    diag_init(&s->d);
    s->ruleset_fd = -1;
    places_init(&s->places);
    struct plan_request pr = req->plan;
    pr.in_process = true;
    ws_run_id(run_id, sizeof run_id, time(NULL), (pid_t)(getpid() % 10000000));
    int rc = plan_build(&s->pl, &pr, run_id, environ, err);
    memset(&s->req.plan, 0, sizeof s->req.plan); /* the caller's strings: the plan holds them */
    return rc;
}

static int check_hazards(struct session *s, tf_err *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return tf_errf(err, "out of memory");
    struct hazard_opts o = {.artifacts = s->pl.ws.artifacts,
                            .warn = s->warn,
                            .plugin_off_refused = true,
                            .fence_off = &s->fence_off,
                            .known = &s->known};
    hazard_known_free(&s->known);
    int n = hazard_scan(&s->pl.policy, &o, f, err);
    fclose(f);
    if (n > 0)
        tf_errf(err, "refusing to run: the writable set holds %d hazard%s:\n%sFix %s first", n,
                n == 1 ? "" : "s", text ? text : "", n == 1 ? "it" : "them");
    free(text);
    return n != 0 ? -1 : 0;
}

int session_check(struct session *s, tf_err *err)
{
    if (s->backend != SESSION_PRELOAD)
        return tf_errf(err,
                       "cannot enforce the fence: %s has no kernel fence testfence can use; "
                       "the plugin's python backend fences there",
                       session_os);
    return check_hazards(s, err);
}

int session_start(struct session *s, tf_err *err)
{
    char log[PATH_MAX];
    if (places_create(&s->places, &s->pl, err) < 0)
        return -1;
    runtmp_prune(&s->places.tmp, time(NULL), NULL); /* at the start, as linux/session in process */
    if (places_workspace(&s->places, &s->pl, err) < 0)
        return -1;
    diag_unfinished(s->places.artifacts_fd, s->pl.ws.artifacts, s->pl.root, s->warn);
    /* Whole seconds, rounded down: a file made later is never older (as the coarse clock on
     * Linux). */
    s->started = (struct timespec){.tv_sec = time(NULL)};
    if (path_join(log, sizeof log, s->pl.ws.dir, SHIMCONF_LOG, err) < 0)
        return -1;
    struct diag_shim sh = {.mode = SHIM_BLOCK,
                           .precheck_meta = true,
                           .test_env = s->pl.cfg.test_env,
                           .conf_dirfd = s->places.wsfd.dir,
                           .log_dirfd = s->places.wsfd.dir,
                           .ws_dirfd = s->places.wsfd.dir,
                           .sink = log};
    return diag_prepare(&s->d, &s->pl, &sh, err);
}

int session_left_hazards(struct session *s, FILE *out)
{
    if (s->hazards_checked)
        return s->planted;
    s->hazards_checked = true;
    /* What earlier runs left, as linux/session prunes a process that fenced itself. */
    places_prune(&s->places, &s->pl, s->pl.cfg.retain, false, NULL, s->warn);
    char *text = NULL;
    size_t len = 0;
    tf_err err = {0};
    FILE *f = open_memstream(&text, &len), *quiet = fopen("/dev/null", "we");
    if (!f || !quiet) {
        fprintf(out,
                "testfence: cannot check what the tests left in the writable set: %s; "
                "the run fails\n",
                strerror(errno));
        if (f)
            fclose(f);
        if (quiet)
            fclose(quiet);
        free(text);
        return s->planted = 1;
    }
    int after = 0;
    char qpath[PATH_MAX];
    bool moves = s->places.wsfd.dir >= 0 &&
                 path_join(qpath, sizeof qpath, s->pl.ws.dir, SESSION_QUARANTINE, &err) == 0;
    struct hazard_opts o = {.artifacts = s->pl.ws.artifacts,
                            .warn = quiet,
                            .plugin_off_refused = true,
                            .fence_off_only = true,
                            .fence_off = &after,
                            .quarantine_at = s->places.wsfd.dir,
                            .quarantine_name = SESSION_QUARANTINE,
                            .quarantine = moves ? qpath : NULL,
                            .since = s->started,
                            .known = &s->known};
    int n = hazard_scan(&s->pl.policy, &o, f, &err);
    fclose(f);
    fclose(quiet);
    if (n < 0) {
        fprintf(out,
                "testfence: cannot check what the tests left in the writable set: %s; "
                "the run fails\n",
                err.msg);
        free(text);
        return s->planted = 1;
    }
    int more = after - s->fence_off;
    if (more > 0)
        fprintf(out,
                "testfence: the tests left %d hazard%s in the writable set, which would switch "
                "the next run's fence off or make it refuse; remove %s:\n%s",
                more, more == 1 ? "" : "s", more == 1 ? "it" : "them", text ? text : "");
    free(text);
    return s->planted = more > 0 ? more : 0;
}

int session_finish(struct session *s, FILE *out, char *const *argv, int command_status)
{
    bool planted = session_left_hazards(s, out) > 0;
    struct report_run run = {.run_id = s->pl.ws.run_id,
                             .root = s->pl.root,
                             .workspace = s->pl.ws.dir,
                             .backend = s->req.report_backend ? s->req.report_backend : "python",
                             .home = getenv("HOME"),
                             .argv = argv,
                             .command_status = command_status,
                             .status = command_status,
                             .note = s->req.report_note};
    s->reported = true;
    return diag_finish(&s->d, out, &run, s->req.allow_violations, planted);
}

int session_end_tmp(struct session *s, int status, tf_err *err)
{
    if (s->tmp_done || s->places.tmp.fd < 0)
        return 0;
    s->tmp_done = true;
    enum runtmp_end end = s->req.keep_tmp == KEEP_TMP_NEVER    ? RUNTMP_REMOVED
                          : s->req.keep_tmp == KEEP_TMP_ALWAYS ? RUNTMP_KEPT
                          : status != 0                        ? RUNTMP_KEPT_FAILED
                                                               : RUNTMP_REMOVED;
    if (end == RUNTMP_REMOVED)
        return runtmp_empty(&s->places.tmp, err);
    int rc = end == RUNTMP_KEPT ? runtmp_keep(&s->places.tmp, err)
                                : runtmp_keep_failed(&s->places.tmp, err);
    if (rc == 0 && end == RUNTMP_KEPT)
        fprintf(s->warn, "testfence: kept the run's temp dir %s\n", s->pl.tmp.dir);
    return rc;
}

void session_free(struct session *s)
{
    if (s->places.opened && s->places.wsfd.dir >= 0 && !s->reported) {
        struct report r;
        tf_err err = {0};
        struct report_run run = {.run_id = s->pl.ws.run_id,
                                 .root = s->pl.root,
                                 .workspace = s->pl.ws.dir,
                                 .backend =
                                     s->req.report_backend ? s->req.report_backend : "python",
                                 .command_status = -1,
                                 .status = TF_EXIT_OWN_ERROR};
        memset(&r, 0, sizeof r);
        report_write_json(&r, &run, s->places.wsfd.dir, SHIMCONF_REPORT, &err);
    }
    hazard_known_free(&s->known);
    diag_close(&s->d);
    places_close(&s->places);
    plan_free(&s->pl);
}
