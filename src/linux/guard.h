/* guard: what Landlock cannot see (chmod, chown, timestamps, xattrs, inode ioctls; terminal
 * injection). A seccomp filter in the child, a supervisor in the parent that fails closed. */
#ifndef TESTFENCE_GUARD_H
#define TESTFENCE_GUARD_H

#include "core/policy.h"

/* In the child, after the fence and before exec: install the filter. Returns the
 * user-notification listener fd for the parent, or -errno. Async-signal-safe. */
int guard_install(void);

/* In the parent: answer one pending notification on LISTENER: let the call run when its
 * target is inside the writable set of P, names no file, or is refused by the kernel
 * itself (a bad pointer, a closed fd); EACCES for anything else, including whatever
 * cannot be worked out (a child we may not read, a target we cannot resolve).
 * Returns 0, or -1 when the listener is gone (every child has exited). */
int guard_answer(int listener, const struct policy *p);

#endif
