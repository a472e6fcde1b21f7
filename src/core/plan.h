/* plan: everything a command decides before it acts: root, writable set, workspace, env.
 * run, --dry-run, doctor and explain build the same plan, so what they print is what run does. */
#ifndef TESTFENCE_PLAN_H
#define TESTFENCE_PLAN_H

#include "config.h"
#include "envplan.h"
#include "base/err.h"
#include "policy.h"
#include "runtmp.h"
#include "workspace.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

/* What the user chose on the command line. */
struct plan_request {
    const char *root;   /* --root, or NULL to discover */
    const char *config; /* --config, or NULL to discover */
    const char **allow; /* --allow entries */
    size_t nallow;
    const char **outputs; /* --output entries: files, or directories when ending in '/' */
    size_t noutputs;
    const char *shim; /* the diagnostics shim to add to LD_PRELOAD, or NULL */
    bool in_process;  /* the caller fences itself (libtestfence): no parent outside the fence */
};

struct plan {
    char root[PATH_MAX];
    struct config cfg;
    struct policy policy;
    struct workspace ws;
    struct runtmp tmp; /* the private temp dir, outside the project */
    struct envplan env;
    bool shim;       /* the diagnostics shim is preloaded (LD_PRELOAD in env) */
    bool in_process; /* the caller fences itself (plan_request.in_process) */
    /* testfence run's private directory, outside the writable set (the command cannot touch
     * it): the shim's configuration, the record socket, testfence's own copy of the log.
     * "" in process (libtestfence): there the shim's configuration is in the workspace. */
    char runtime[PATH_MAX];
    char shimconf[PATH_MAX]; /* the shim's configuration: TESTFENCE_SHIM_CONF */
    bool opened;             /* plan_create_workspace ran: the fds below are ours to close */
    int artifacts_fd;        /* the artifacts dir, opened once, never through a symlink (else -1) */
    struct ws_fds wsfd;      /* the created workspace, held live until plan_free */
};

/* Root, config and writable set (declared outputs and quiet tool state included; the
 * run's temp dir is not planned yet): enough for explain and doctor. ENVP gives HOME. */
int plan_policy(struct plan *pl, const struct plan_request *req, char *const *envp, tf_err *err);

/* The whole plan for a run: policy, workspace paths for RUN_ID, env changes
 * given the current environment ENVP. No file is created. */
int plan_build(struct plan *pl, const struct plan_request *req, const char *run_id,
               char *const *envp, tf_err *err);

/* The artifacts dir (the config's, beneath the root) resolved into OUT; an error unless it
 * lies beneath a writable directory. run and clean both ask it. */
int plan_artifacts(const struct plan *pl, char *out, size_t len, tf_err *err);

/* Open the artifacts dir ARTIFACTS beneath the outermost writable directory holding it, one
 * component at a time, never through a symlink (a test may have planted one since the plan
 * was made). With CREATE, make what is missing. Returns an fd, or -1 (errno ENOENT: it does
 * not exist). */
int plan_open_artifacts(const struct plan *pl, const char *artifacts, bool create, tf_err *err);

/* Create what the fence is built on, before it is: the artifacts dir (opened once, as
 * pl->artifacts_fd), the private temp dir (NOW: the time, for pruning what crashed runs
 * left) and every declared output that is missing. */
int plan_create_places(struct plan *pl, time_t now, tf_err *err);

/* Would plan_create_places create nothing in the project: the artifacts dir and every
 * declared output exist already? (The temp dir it makes lies outside and goes at the end.) */
bool plan_places_exist(const struct plan *pl);

/* Then create the run workspace with the config's placeholder files, fresh, beneath the
 * artifacts dir, and hold it live (plan_free lets go) so concurrent runs do not prune it. */
int plan_create_workspace(struct plan *pl, tf_err *err);

/* After the run: remove the private temp dir, or with KEEP mark it kept. */
int plan_finish_tmp(struct plan *pl, bool keep, tf_err *err);

void plan_print_policy(FILE *f, const struct plan *pl);
void plan_print(FILE *f, const struct plan *pl, char *const *envp);

/* One line per declared output, for the end of a run. */
void plan_print_outputs(FILE *f, const struct plan *pl);

void plan_free(struct plan *pl);

#endif
