/* guard: what Landlock cannot see (chmod, chown, timestamps, xattrs, inode ioctls; terminal
 * injection). A seccomp filter in the child, a supervisor in the parent that fails closed. */
#ifndef TESTFENCE_GUARD_H
#define TESTFENCE_GUARD_H

#include "core/policy.h"

#include <stdbool.h>

/* In the child, after the fence and before exec: install the guard, one seccomp filter that
 * hands the metadata calls and the mount calls to the supervisor (which refuses every mount
 * call, EPERM, and records it) and refuses io_uring with URING, as guard_deny_mounts. Returns the
 * user-notification listener fd for the parent, or -errno (-EBUSY: an outer guard holds the one
 * listener a process tree may have; then guard_deny_mounts). Async-signal-safe. */
int guard_install(bool uring);

/* In the child, after the fence and before exec, where no guard is installed: refuse (EPERM)
 * every call that changes mounts (mount, umount2, pivot_root, mount_setattr, open_tree,
 * open_tree_attr, move_mount, fsopen, fsconfig, fsmount, fspick) and open_by_handle_at,
 * x86_64 and i386 alike; with URING also io_uring (ENOSYS). Landlock already refuses most
 * mount calls; mount_setattr it does not, and with it the read-only view could be made
 * writable again. A plain filter (no listener): it nests. Returns 0 or -errno.
 * Async-signal-safe. */
int guard_deny_mounts(bool uring);

/* A call the guard refused: who made it, which call, and its target as resolved ("" when
 * it could not be worked out). */
struct guard_refusal {
    long pid; /* in testfence's view */
    const char *call;
    const char *path;
    int err;   /* what the caller was answered: EACCES, EPERM for a mount call */
    bool libc; /* the shim interposes libc's function of that name (it records the call) */
};

/* In the parent: answer one pending notification on LISTENER: let the call run when its
 * target is inside the writable set of P, names no file, or is refused by the kernel
 * itself (a bad pointer, a closed fd); EACCES for anything else, including whatever
 * cannot be worked out (a child we may not read, a target we cannot resolve). Each refusal
 * is told to REFUSED (may be NULL) with CTX. Returns 0, or -1 when the listener is gone
 * (every child has exited). */
int guard_answer(int listener, const struct policy *p,
                 void (*refused)(void *ctx, const struct guard_refusal *r), void *ctx);

#endif
