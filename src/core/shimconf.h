/* shimconf: how run hands the diagnostics shim its configuration (a file in the run
 * workspace holding the policy as run resolved it), and where run finds the shim. */
#ifndef TESTFENCE_SHIMCONF_H
#define TESTFENCE_SHIMCONF_H

#include "base/err.h"
#include "policy.h"

#include <stdbool.h>
#include <stddef.h>

/* Files in the run workspace. */
#define SHIMCONF_FILE "testfence-shim.conf"
#define SHIMCONF_LOG "violations.jsonl"
#define SHIMCONF_REPORT "report.json"
#define SHIMCONF_SO "libtestfence_preload.so"
#define SHIMCONF_DEFAULT_TEST_ENV "PYTEST_CURRENT_TEST"
/* The largest shim configuration read (the writable set, as run resolved it). */
#define SHIMCONF_MAX (4u << 20)

enum shim_mode {
    SHIM_DIAGNOSE, /* the kernel blocks; the shim reports what failed */
    SHIM_BLOCK,    /* --backend preload: the shim itself refuses writes outside the set */
};

struct shimconf {
    enum shim_mode mode;
    bool precheck_meta; /* refuse chmod/chown/utime/xattr outside the set beforehand: nothing
                           in the kernel blocks them (no seccomp guard) */
    bool protect;       /* files under the writable set are protected (bound read-only onto
                           themselves): an EROFS or EBUSY on one is a refusal too */
    char test_env[128]; /* the variable naming the current test */
    /* Where records go: a datagram socket testfence run listens on (outside the writable
     * set: the command cannot erase what was sent), or, for a process that fences itself,
     * the log in the workspace. "" when not said: records are not kept. */
    bool sink_socket;
    char sink[PATH_MAX];
    struct policy policy;
};

/* Write CONF as NAME in the directory DIRFD (created fresh, mode 0444, never through a link). */
int shimconf_write(int dirfd, const char *name, const struct shimconf *conf, tf_err *err);

/* Parse the text shimconf_write wrote. CONF's policy is filled; free it with policy_free. */
int shimconf_parse(const char *buf, size_t len, struct shimconf *conf, tf_err *err);

/* Read and parse PATH. */
int shimconf_load(const char *path, struct shimconf *conf, tf_err *err);

/* The shim next to the running binary (build dir) or in ../lib/testfence (installed). */
int shimconf_locate(char *out, size_t len, tf_err *err);

/* The shim in DIR, DIR/testfence (beside an installed libtestfence.so) or DIR/../lib/testfence. */
int shimconf_locate_near(const char *dir, char *out, size_t len, tf_err *err);

#endif
