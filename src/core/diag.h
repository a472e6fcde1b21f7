/* diag: the diagnostic layer of a run, around the command: before it, hand the shim
 * its configuration through the workspace; after it, read the log, report, pick the status. */
#ifndef TESTFENCE_DIAG_H
#define TESTFENCE_DIAG_H

#include "base/err.h"
#include "plan.h"
#include "report.h"
#include "shimconf.h"

#include <stdbool.h>

struct diag {
    bool on; /* the shim is injected in this run */
    enum shim_mode mode;
    int wsfd; /* the run workspace, opened before the command starts (-1: none) */
};

/* Write the shim's configuration into the created workspace and keep it open.
 * MODE: diagnose behind the kernel fence, block for --backend preload. */
int diag_prepare(struct diag *d, const struct plan *pl, enum shim_mode mode, bool precheck_meta,
                 const char *test_env, tf_err *err);

/* After the command: the summary (and any warning) to OUT, report.json in the workspace,
 * and the exit status: TF_EXIT_VIOLATIONS when the command exited 0 but writes were
 * blocked (unless ALLOW_VIOLATIONS). RUN says what the report says about the run besides
 * the log; its status is set. Returns the status testfence exits with. */
int diag_finish(struct diag *d, FILE *out, struct report_run *run, bool allow_violations);

void diag_close(struct diag *d);

#endif
