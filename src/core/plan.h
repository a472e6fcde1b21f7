/* plan: everything a command decides before it acts: root, writable set, workspace, env; plain
 * data (places.h creates what it names). run, --dry-run, doctor and explain build the same plan. */
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
    struct runtmp tmp; /* the private temp dir, outside the project: its paths (places.h
                        * creates it; the fds here stay -1) */
    struct envplan env;
    bool shim;       /* the diagnostics shim is preloaded (LD_PRELOAD in env) */
    bool in_process; /* the caller fences itself (plan_request.in_process) */
    /* testfence run's private directory, outside the writable set (the command cannot touch
     * it): the shim's configuration, the record socket, testfence's own copy of the log.
     * "" in process (libtestfence): there the shim's configuration is in the workspace. */
    char runtime[PATH_MAX];
    char shimconf[PATH_MAX]; /* the shim's configuration: TESTFENCE_SHIM_CONF */
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

void plan_print_policy(FILE *f, const struct plan *pl);
void plan_print(FILE *f, const struct plan *pl, char *const *envp);

/* One line per declared output, for the end of a run. */
void plan_print_outputs(FILE *f, const struct plan *pl);

void plan_free(struct plan *pl);

#endif
