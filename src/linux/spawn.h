/* spawn: run the command as a child in its own process group (under an init of ours in new
 * namespaces, with the namespace layer), fenced before exec; kill what outlives it. */
#ifndef TESTFENCE_SPAWN_H
#define TESTFENCE_SPAWN_H

#include "base/err.h"
#include "core/policy.h"
#include "guard.h"
#include "mountns.h"
#include "reaper.h"

#include <stdbool.h>
#include <sys/types.h>

struct spawn_opts {
    char *const *argv;            /* argv[0] is searched in PATH */
    char *const *envp;            /* the child's complete environment */
    int ruleset_fd;               /* from fence_prepare; -1 runs unfenced */
    const struct policy *guard;   /* guard metadata syscalls with this policy; NULL: don't */
    int record_fd;                /* readable when records wait (the channel's socket), or -1 */
    void (*on_record)(void *ctx); /* take them: called from the wait loop */
    void *record_ctx;
    const int *keep_fds; /* open descriptors the command inherits besides 0, 1, 2 */
    size_t nkeep_fds;
    const struct mountns *ns; /* the namespace layer: run in its namespaces; NULL: don't */
    bool refuse_uring;        /* an inherited fd writes outside: io_uring would reach it */
    bool sigpipe_ignored;     /* testfence's caller ignored SIGPIPE (testfence itself does): the
                                 command gets it ignored, else the default */
    const char *test_env;     /* the variable naming a leftover process's test */
    /* Each process still running when the command exited, before it is killed. */
    void (*on_leftover)(void *ctx, const struct leftover *l);
    /* Each call the guard refused (with record_ctx). */
    void (*on_guard_refusal)(void *ctx, const struct guard_refusal *r);
    /* Once, when the command has started (its exec succeeded): testfence's own work that can
     * go on while it runs starts here (with record_ctx). NULL: none. */
    void (*on_started)(void *ctx);
    /* Once, in testfence, right after the child was started and while it sets itself up (the
     * namespaces, the view, the fence): the rest of testfence's preparation, which the command
     * needs done before it runs but its set-up does not, so the two overlap. The command
     * waits before exec until this returns 0; non-zero (ERR filled) stops it there, unrun.
     * NULL: none. */
    int (*before_exec)(void *ctx, tf_err *err);
    /* With NS, where spawn_run leaves the init's pid when it returns before the kernel has
     * torn the init's namespaces down (the command's code said, nothing of the run left):
     * the caller's work goes on beside that, and spawn_reap waits for it after (so the
     * command's CPU time still counts as testfence's children's: time, getrusage). NULL:
     * reaped before spawn_run returns. */
    pid_t *unreaped;
};

/* Run the command and wait for it; then stop, report (on_leftover) and kill every process
 * it left running. With NS the command runs in new mount and PID namespaces under an init of
 * ours, which dies with testfence (and the kernel then kills the whole namespace); without,
 * testfence is their subreaper. On success returns 0 and sets *status to the
 * child's exit status (128+N when killed by signal N). On failure returns -1,
 * fills err and sets *status to 125 (our error), 126 (cannot execute) or 127 (not found);
 * SPAWN_NO_NAMESPACE (below) when the namespace layer could not be set up. */
int spawn_run(const struct spawn_opts *o, int *status, tf_err *err);

/* Wait for the init spawn_run left in *PID (unreaped), if any; *PID is 0 after. */
void spawn_reap(pid_t *pid);

/* The descriptors a command may keep besides 0, 1 and 2 (--keep-fd, make's jobserver). */
enum { SPAWN_MAX_KEEP_FDS = 64 };

/* spawn_run's answer when the namespace layer could not be set up: nothing ran, ERR says
 * which step failed; the caller may run the command again without NS. */
enum { SPAWN_NO_NAMESPACE = -2 };

#endif
