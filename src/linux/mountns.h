/* mountns: the namespace layer. The command runs in a private mount namespace where every
 * mount is read-only except the writable set, and in a PID namespace of its own. */
#ifndef TESTFENCE_MOUNTNS_H
#define TESTFENCE_MOUNTNS_H

#include "base/err.h"
#include "core/policy.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What the child needs to build its view, all worked out by the parent before fork. */
struct mountns_target {
    char *path;
    bool devices; /* device nodes there may be opened (the system set's /dev/pts) */
};

struct mountns {
    struct mountns_target *targets; /* the writable set's mount points (no nested ones) */
    size_t n;
    bool userns; /* not root: a user namespace mapping uid and gid to themselves */
    uid_t uid;
    gid_t gid;
    char cwd[PATH_MAX]; /* re-entered in the new view ("" when there is no name for it) */
    /* The protected files (linux/protect): absolute paths, each NUL-terminated, one after the
     * other, bound read-only onto themselves once the writable set is back. Not owned. */
    const char *protect;
    size_t nprotect;
    /* The directories on the way to them, likewise, in descending order (a directory after
     * those beneath it): each made a mount point beneath the writable copy, so renaming or
     * removing it fails (EBUSY). */
    const char *protect_dirs;
    size_t nprotect_dirs;
};

/* The mount points for P's writable set: each directory or file entry not beneath another
 * directory entry (device nodes stay where they are: writing to a device works on a
 * read-only mount). */
int mountns_plan(struct mountns *m, const struct policy *p, tf_err *err);

void mountns_free(struct mountns *m);

/* The clone(2) flags that make the namespaces: CLONE_NEWNS | CLONE_NEWPID, with
 * CLONE_NEWUSER when M needs a user namespace. */
unsigned long mountns_clone_flags(const struct mountns *m);

/* In the first process of the new namespaces, before anything runs: map the ids, make the
 * mounts private and read-only, bind the writable set back writable (nosuid; nodev but for
 * the system set's; mounts beneath it read-only), bind each protected file read-only onto
 * itself and make each directory on the way a mount point where no path leads (one that
 * cannot be is fatal: the user asked for it), mount /proc for the new PID namespace,
 * re-enter the cwd, and reopen each of FDS (0, 1, 2 and the kept ones) that is a file or
 * directory opened read-only through the read-only view (else a fchmod or an io_uring
 * setxattr on it would reach the writable mount the shell opened it on). Returns 0, or the
 * errno of the failed step, *STEP naming it; *FATAL tells a file that cannot be reopened
 * (the run must refuse) from namespaces the kernel will not give (it may fall back). */
int mountns_enter(const struct mountns *m, const int *fds, size_t nfds, const char **step,
                  bool *fatal);

/* Can this process have the namespace layer? Makes the namespaces in a throwaway child
 * and tries every kind of step mountns_enter takes. 0 yes, else -1 and WHY says which step
 * failed and how. */
int mountns_probe(char *why, size_t len);

/* What a user can do when the layer is unavailable (Ubuntu's AppArmor, a container). */
extern const char mountns_advice[];

#endif
