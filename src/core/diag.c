#include "diag.h"

#include "exitcode.h"
#include "path.h"
#include "report.h"
#include "report_ci.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int diag_prepare(struct diag *d, const struct plan *pl, enum shim_mode mode, bool precheck_meta,
                 const char *test_env, tf_err *err)
{
    char path[PATH_MAX];
    struct shimconf conf = {.mode = mode, .precheck_meta = precheck_meta, .policy = pl->policy};
    snprintf(conf.test_env, sizeof conf.test_env, "%s",
             test_env && test_env[0] ? test_env : SHIMCONF_DEFAULT_TEST_ENV);
    if (strlen(test_env ? test_env : "") >= sizeof conf.test_env)
        return tf_errf(err, "the test variable name \"%.40s...\" is too long", test_env);
    d->on = true;
    d->mode = mode;
    d->wsfd = open(pl->ws.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d->wsfd < 0)
        return tf_errnof(err, errno, "cannot open the run workspace %s", pl->ws.dir);
    if (path_join(path, sizeof path, pl->ws.dir, SHIMCONF_FILE, err) < 0)
        return -1;
    return shimconf_write(path, &conf, err);
}

int diag_finish(struct diag *d, FILE *out, struct report_run *run, bool allow_violations)
{
    struct report r;
    tf_err err = {{0}};
    struct stat st;
    run->status = run->command_status;
    run->weak = d->mode == SHIM_BLOCK;
    if (!d->on || d->wsfd < 0)
        return run->status;
    /* Another run in the same project may prune this workspace (retention): say so
     * rather than report a clean run. */
    if (fstat(d->wsfd, &st) == 0 && st.st_nlink == 0) {
        fprintf(out,
                "testfence: warning: the run workspace %s was removed while the command "
                "ran (another run's retention?); blocked writes cannot be reported\n",
                run->workspace);
        return run->status;
    }
    if (report_load(&r, d->wsfd, SHIMCONF_LOG, &err) < 0) {
        fprintf(out, "testfence: %s\n", err.msg);
        return run->status;
    }
    if (run->command_status == 0 && r.total > 0 && !allow_violations)
        run->status = TF_EXIT_VIOLATIONS;
    report_print(out, &r, run);
    if (report_write_json(&r, run, d->wsfd, SHIMCONF_REPORT, &err) < 0)
        fprintf(out, "testfence: %s\n", err.msg);
    report_write_outputs(&r, run, out); /* --report, --junit, --format github */
    report_free(&r);
    return run->status;
}

void diag_close(struct diag *d)
{
    if (d->wsfd >= 0)
        close(d->wsfd);
    d->wsfd = -1;
}
