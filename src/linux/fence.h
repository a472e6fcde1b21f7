/* fence: turn the policy into kernel enforcement for a child process.
 * The interface is platform-neutral; fence_linux.c implements it with Landlock. */
#ifndef TESTFENCE_FENCE_H
#define TESTFENCE_FENCE_H

#include "base/err.h"
#include "core/policy.h"

#include <stdbool.h>
#include <stdint.h>

/* One class of write the kernel may or may not be able to block. */
struct fence_class {
    const char *name; /* "truncate files" */
    int abi;          /* the Landlock ABI that introduced it (0: never covered) */
    uint64_t right;
};

/* The classes of filesystem write, in the order doctor prints them. */
extern const struct fence_class fence_classes[];

struct fence_caps {
    int abi;             /* Landlock ABI of the running kernel, 0 when unavailable */
    char why[256];       /* when abi == 0: what the kernel said */
    uint64_t handled;    /* the write rights this kernel lets us handle */
    char kernel[200];    /* "Linux 6.18.44 x86_64" */
    bool userns;         /* unprivileged user namespaces can be created */
    bool seccomp;        /* seccomp filters can be installed */
    bool seccomp_notify; /* and the user-notification action exists */
    int seccomp_filters; /* filters already on this process (an outer run's?) */
};

/* Writes no Landlock ABI can block, printed by doctor so nobody assumes otherwise. */
extern const char fence_never_covered[];

/* What can this kernel enforce? Never fails: an unavailable fence is a result. */
void fence_probe(struct fence_caps *caps);

/* Is CLASS enforced with CAPS? */
bool fence_enforces(const struct fence_caps *caps, const struct fence_class *cls);

/* Fail closed: an error naming every write class this kernel cannot block. */
int fence_require_complete(const struct fence_caps *caps, tf_err *err);

/* In the parent: build a ruleset allowing writes only beneath the policy's
 * entries. Returns a close-on-exec fd for fence_enter, or -1. */
int fence_prepare(const struct policy *p, const struct fence_caps *caps, tf_err *err);

/* The name of fence_in_force's probe directory, followed by six random characters. */
#define FENCE_PROBE_PREFIX ".testfence-probe-"

/* Is the calling process already fenced with P's writable set or a narrower one? The
 * kernel's word, from a probe that changes nothing outside: it removes a directory outside
 * the writable set that it has made sure is not empty (a directory of its own inside, in
 * the writable set, named FENCE_PROBE_PREFIX...). Refused (EACCES from Landlock, EROFS
 * from a read-only mount): 1. Not empty, so the kernel let it try: 0. Anything that could
 * mean something else: -1, and ERR says why. An environment variable never decides it. */
int fence_in_force(const struct policy *p, tf_err *err);

/* The capabilities a root command loses (a test never needs them; each is a way around the
 * fence or into the machine's state: device nodes, mounts, modules, raw I/O,
 * open_by_handle_at, immutable flags, tracing, BPF, network configuration, file
 * capabilities...), ended by {-1, NULL}; doctor lists them by name. */
struct fence_cap {
    int cap;
    const char *name;
};
extern const struct fence_cap fence_dropped_caps[];

/* In the child before exec, as root: drop fence_dropped_caps from the bounding set, so the
 * command starts without them. Async-signal-safe: 0 or an errno, *STEP naming the step. */
int fence_drop_caps(const char **step);

/* In the child, after fork and before exec: restrict this process and every
 * descendant for good. Async-signal-safe: returns 0, or the errno of the failed
 * step (*step names it) for the parent to report. */
int fence_enter(int ruleset_fd, const char **step);

#endif
