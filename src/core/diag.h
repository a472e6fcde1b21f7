/* diag: the diagnostic layer of a run, around the command: before it, hand the shim
 * its configuration through the workspace; after it, read the log, report, pick the status. */
#ifndef TESTFENCE_DIAG_H
#define TESTFENCE_DIAG_H

#include "base/err.h"
#include "plan.h"
#include "report.h"
#include "shimconf.h"

#include <limits.h>
#include <stdbool.h>

struct diag {
    bool on; /* the shim is injected in this run */
    enum shim_mode mode;
    int wsfd;       /* the run workspace, opened before the command starts (-1: none) */
    int logdir;     /* where the log the report trusts is (-1: none) */
    bool log_apart; /* ... outside the workspace (testfence run's channel) */
    int confdir;    /* where the shim's configuration was written (-1: none) */
    char *conf;     /* ... what was written there, to tell a change at the end */
    size_t conf_len;
    char conf_path[PATH_MAX]; /* ... its name, for the message */
};

/* Nothing prepared, nothing to close: safe for diag_close. */
void diag_init(struct diag *d);

/* What the shim is told besides the policy, and where. */
struct diag_shim {
    enum shim_mode mode;  /* diagnose behind the kernel fence, block for --backend preload */
    bool precheck_meta;   /* refuse metadata changes itself: no seccomp guard watches */
    bool protect;         /* protected files are bound read-only in the writable set */
    const char *test_env; /* the variable naming the current test */
    int conf_dirfd;       /* its configuration goes there: the channel's directory or the
                             workspace (a process that fences itself has no other place) */
    bool sink_socket;     /* records go to the socket SINK (run), or are appended to the log */
    const char *sink;
    int log_dirfd; /* the log the report trusts: the channel's copy, or the workspace's */
    int ws_dirfd;  /* the run's workspace: report.json goes there */
};

/* Write the shim's configuration as SH says and keep the workspace and the log open. */
int diag_prepare(struct diag *d, const struct plan *pl, const struct diag_shim *sh, tf_err *err);

/* After the command: the summary (and any warning) to OUT, report.json in the workspace,
 * and the exit status: TF_EXIT_VIOLATIONS when the command exited 0 but writes were
 * blocked (unless ALLOW_VIOLATIONS), or FAIL (the record was tampered with), or the shim's
 * configuration was changed or removed (said on OUT: the processes started after that took
 * their fence, or their record, from what a test wrote). RUN says what
 * the report says about the run besides the log; its status is set. Returns the status
 * testfence exits with. */
int diag_finish(struct diag *d, FILE *out, struct report_run *run, bool allow_violations,
                bool fail);

/* Say on OUT what the runs in ARTIFACTS_FD (named ARTIFACTS, in the project ROOT) that did
 * not finish (ws_unfinished) left in their logs, and write their report.json (status -1),
 * so each is said once. */
void diag_unfinished(int artifacts_fd, const char *artifacts, const char *root, FILE *out);

/* Was the shim's configuration this process wrote changed or removed since (by a test)? */
bool diag_conf_changed(const struct diag *d);

void diag_close(struct diag *d);

#endif
