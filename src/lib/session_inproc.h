/* session_inproc: the in-process run lifecycle of libtestfence where there is no kernel fence
 * (Windows, macOS): the plan, the hazard check, the workspace and the run's temp dir, the
 * report, the temp dir's end, with the names and fields libtestfence.c uses of
 * linux/session.h. Every step is core's (plan, places, hazard, diag, runtmp); only their order
 * is here. The caller (the plugin's python backend) fences itself: tf_set_backend's
 * TF_BACKEND_SHIM; the kernel backend is refused with "cannot enforce the fence". */
#ifndef TESTFENCE_SESSION_INPROC_H
#define TESTFENCE_SESSION_INPROC_H

#include "core/session_names.h"
#include "base/err.h"
#include "core/diag.h"
#include "core/hazard.h"
#include "core/places.h"
#include "core/plan.h"

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

/* No kernel fence here: the ABI libtestfence reports is 0. */
struct fence_caps {
    int abi;
};

struct session_request {
    struct plan_request plan;
    enum session_backend backend;
    bool in_process; /* always: there is no run of a command here */
    bool allow_violations;
    enum session_keep_tmp keep_tmp;
    FILE *warn;
    const char *report_backend; /* report.json's "backend": NULL is "python" (the plugin's);
                                 * testfence run in an OS's fence names that fence */
    const char *report_note;    /* the summary's note of what it leaves out (report.h) */
};

struct session {
    struct session_request req;
    struct plan pl;
    struct places places;
    struct fence_caps caps;
    struct diag d;
    enum session_backend backend;
    FILE *warn;
    int ruleset_fd; /* never a ruleset: -1 */
    bool tmp_done, reported, hazards_checked;
    int planted;
    int fence_off;
    struct hazard_known known;
    struct timespec started;
};

#define SESSION_QUARANTINE "quarantine"

int session_plan(struct session *s, const struct session_request *req, tf_err *err);
int session_check(struct session *s, tf_err *err);
int session_start(struct session *s, tf_err *err);
int session_left_hazards(struct session *s, FILE *out);
int session_finish(struct session *s, FILE *out, char *const *argv, int command_status);
int session_end_tmp(struct session *s, int status, tf_err *err);
void session_free(struct session *s);

#endif
