/* spawn: run the command as a child in its own process group, fenced before exec.
 * Forwards signals, hands the terminal over and back, and maps the exit status. */
#ifndef TESTFENCE_SPAWN_H
#define TESTFENCE_SPAWN_H

#include "base/err.h"
#include "core/policy.h"

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
};

/* Run the command and wait for it. On success returns 0 and sets *status to the
 * child's exit status (128+N when killed by signal N). On failure returns -1,
 * fills err and sets *status to 125 (our error), 126 (cannot execute) or 127
 * (not found). */
int spawn_run(const struct spawn_opts *o, int *status, tf_err *err);

#endif
