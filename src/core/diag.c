#include "diag.h"

#include "exitcode.h"
#include "path.h"
#include "report.h"
#include "report_ci.h"
#include "walk.h"
#include "workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void diag_init(struct diag *d)
{
    memset(d, 0, sizeof *d);
    d->wsfd = d->logdir = d->confdir = -1;
}

/* The shim's configuration as it is now in D->confdir: a malloc'd copy, or NULL (gone, or not
 * a plain file: a test replaced it). */
static char *conf_now(const struct diag *d, size_t *len)
{
    int fd = openat(d->confdir, SHIMCONF_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    char *buf = NULL;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (1 << 24) &&
        (buf = malloc((size_t)st.st_size + 1)) != NULL) {
        ssize_t n = read(fd, buf, (size_t)st.st_size + 1);
        if (n != st.st_size) { /* short, or it grew meanwhile: not what was written */
            free(buf);
            buf = NULL;
        } else {
            *len = (size_t)n;
        }
    }
    if (fd >= 0)
        close(fd);
    return buf;
}

/* Keep what was written, to tell at the end whether a test changed it. */
static int keep_conf(struct diag *d, const struct plan *pl, int conf_dirfd, tf_err *err)
{
    d->confdir = fcntl(conf_dirfd, F_DUPFD_CLOEXEC, 3);
    d->conf = d->confdir < 0 ? NULL : conf_now(d, &d->conf_len);
    if (!d->conf)
        return tf_errnof(err, errno, "cannot read back %s", SHIMCONF_FILE);
    snprintf(d->conf_path, sizeof d->conf_path, "%s", pl->shimconf);
    return 0;
}

bool diag_conf_changed(const struct diag *d)
{
    if (!d->conf)
        return false; /* none written by this process (a pytest that joined a run) */
    size_t len = 0;
    char *now = conf_now(d, &len);
    bool changed = !now || len != d->conf_len || memcmp(now, d->conf, len) != 0;
    free(now);
    return changed;
}

int diag_prepare(struct diag *d, const struct plan *pl, const struct diag_shim *sh, tf_err *err)
{
    const char *te = sh->test_env && sh->test_env[0] ? sh->test_env : SHIMCONF_DEFAULT_TEST_ENV;
    struct shimconf conf = {.mode = sh->mode,
                            .precheck_meta = sh->precheck_meta,
                            .protect = sh->protect,
                            .sink_socket = sh->sink_socket,
                            .policy = pl->policy};
    if (strlen(te) >= sizeof conf.test_env)
        return tf_errf(err, "the test variable name \"%.40s...\" is too long", te);
    if (strlen(sh->sink) >= sizeof conf.sink)
        return tf_errf(err, "path too long: %s", sh->sink);
    snprintf(conf.test_env, sizeof conf.test_env, "%s", te);
    snprintf(conf.sink, sizeof conf.sink, "%s", sh->sink);
    d->on = true;
    d->mode = sh->mode;
    d->wsfd = fcntl(sh->ws_dirfd, F_DUPFD_CLOEXEC, 3);
    d->logdir = fcntl(sh->log_dirfd, F_DUPFD_CLOEXEC, 3);
    d->log_apart = sh->log_dirfd != sh->ws_dirfd;
    if (d->wsfd < 0 || d->logdir < 0)
        return tf_errnof(err, errno, "cannot open the run workspace %s", pl->ws.dir);
    if (shimconf_write(sh->conf_dirfd, SHIMCONF_FILE, &conf, err) < 0)
        return -1;
    return keep_conf(d, pl, sh->conf_dirfd, err);
}

int diag_finish(struct diag *d, FILE *out, struct report_run *run, bool allow_violations, bool fail)
{
    struct report r;
    tf_err err = {0};
    struct stat st;
    run->status = run->command_status == 0 && fail ? TF_EXIT_VIOLATIONS : run->command_status;
    run->weak = d->mode == SHIM_BLOCK;
    if (!d->on || d->wsfd < 0 || d->logdir < 0)
        return run->status;
    /* Removed by a test, or by another run in the same project (retention): say so rather
     * than report a clean run. A log kept apart still says what was blocked. */
    bool gone = fstat(d->wsfd, &st) == 0 && st.st_nlink == 0;
    if (gone)
        fprintf(out,
                "testfence: warning: the run workspace %s was removed while the command ran%s\n",
                run->workspace,
                d->log_apart ? "; report.json cannot be written"
                             : "; blocked writes cannot be reported, so the run fails");
    if (gone && !d->log_apart) {
        /* What was blocked went with it: the run cannot show it was clean (fail closed). */
        if (run->command_status == 0 && !allow_violations)
            run->status = TF_EXIT_VIOLATIONS;
        return run->status;
    }
    if (diag_conf_changed(d)) {
        /* Children started after the change took their fence (block mode) or their record
         * from what a test wrote: what they did cannot be shown clean (fail closed). */
        fprintf(out,
                "testfence: the shim's configuration %s was changed or removed while the command "
                "ran: a test must not touch it (processes started after that may have written "
                "unrecorded, or unfenced under the python backend); the run fails\n",
                d->conf_path[0] ? d->conf_path : SHIMCONF_FILE);
        if (run->command_status == 0)
            run->status = TF_EXIT_VIOLATIONS;
        run->fails_why = "the shim's configuration was changed";
    }
    if (report_load(&r, d->logdir, SHIMCONF_LOG, &err) < 0) {
        fprintf(out, "testfence: %s\n", err.msg);
        return run->status;
    }
    if (run->command_status == 0 && r.total > 0 && !allow_violations)
        run->status = TF_EXIT_VIOLATIONS;
    report_print(out, &r, run);
    if (!gone && report_write_json(&r, run, d->wsfd, SHIMCONF_REPORT, &err) < 0)
        fprintf(out, "testfence: %s\n", err.msg);
    report_write_outputs(&r, run, out); /* --report, --junit, --format github */
    report_free(&r);
    return run->status;
}

void diag_close(struct diag *d)
{
    if (d->wsfd >= 0)
        close(d->wsfd);
    if (d->logdir >= 0)
        close(d->logdir);
    if (d->confdir >= 0)
        close(d->confdir);
    free(d->conf);
    d->conf = NULL;
    d->wsfd = d->logdir = d->confdir = -1;
}

/* One run that did not finish: what its workspace's log holds (as the command left it:
 * nobody was there to keep a copy), and a report.json that says it did not finish. */
static void unfinished_one(int afd, const char *artifacts, const char *root, const char *id,
                           FILE *out)
{
    char name[NAME_MAX + 1], ws[PATH_MAX];
    tf_err err = {0};
    struct report r;
    snprintf(name, sizeof name, WS_PREFIX "%s", id);
    snprintf(ws, sizeof ws, "%s/%s", artifacts, name);
    int wsfd = walk_open_dir(afd, artifacts, name, 0, &err);
    if (wsfd < 0 || report_load(&r, wsfd, SHIMCONF_LOG, &err) < 0) {
        if (wsfd >= 0)
            close(wsfd);
        return;
    }
    fprintf(out,
            "testfence: the earlier run %s did not finish (testfence, or the pytest that fenced "
            "itself, was killed): its violation log holds %zu blocked write%s (%zu distinct)%s%s\n",
            id, r.total, r.total == 1 ? "" : "s", r.n, r.total ? "; see " : "", r.total ? ws : "");
    struct report_run run = {.run_id = id,
                             .root = root,
                             .workspace = ws,
                             .backend = "unknown",
                             .command_status = -1,
                             .status = -1};
    report_write_json(&r, &run, wsfd, SHIMCONF_REPORT, &err);
    report_free(&r);
    close(wsfd);
}

void diag_unfinished(int artifacts_fd, const char *artifacts, const char *root, FILE *out)
{
    char **ids = NULL;
    size_t n = 0;
    if (ws_unfinished(artifacts_fd, &ids, &n) < 0)
        return;
    for (size_t i = 0; i < n; i++)
        unfinished_one(artifacts_fd, artifacts, root, ids[i], out);
    ws_free_ids(ids, n);
}
