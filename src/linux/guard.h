/* guard: what Landlock cannot see (chmod, chown, timestamps, xattrs; terminal injection).
 * A seccomp filter in the child, and a supervisor in the parent that asks the policy. */
#ifndef TESTFENCE_GUARD_H
#define TESTFENCE_GUARD_H

#include "core/policy.h"

/* In the child, after the fence and before exec: install the filter. Returns the
 * user-notification listener fd for the parent, or -errno. Async-signal-safe. */
int guard_install(void);

/* In the parent: answer one pending notification on LISTENER: EACCES when the
 * syscall would change metadata outside the writable set of P, else let it run.
 * Returns 0, or -1 when the listener is gone (every child has exited). */
int guard_answer(int listener, const struct policy *p);

#endif
