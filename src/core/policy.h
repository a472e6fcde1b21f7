/* policy: the writable set and the one decision "may this path be written?".
 * The kernel fence, explain, --dry-run and the diagnostics shim all ask this module. */
#ifndef TESTFENCE_POLICY_H
#define TESTFENCE_POLICY_H

#include "base/err.h"
#include "path.h"

#include <stdbool.h>
#include <stddef.h>

/* Where an entry of the writable set came from; printed by explain and --dry-run. */
enum policy_origin {
    POLICY_PROJECT, /* a project directory (default "tests"): must stay inside the root */
    POLICY_ALLOW,   /* named by the user with --allow: may be anywhere */
    POLICY_SYSTEM,  /* the built-in system set that holds no user data */
    POLICY_TMP,     /* the run's private temp dir, outside the project (runtmp) */
    POLICY_OUTPUT,  /* a declared output: a file or directory the run may write (a CI report) */
};

struct policy_entry {
    char *path;  /* absolute, symlinks resolved */
    char *given; /* as written by the user or the defaults (allocated with path) */
    enum policy_origin origin;
    bool is_dir; /* a directory allows writes beneath it, a file only to itself */
};

/* A path whose refused writes are harmless tool state (git's index lock, the REPL's
 * history): still refused by the kernel, but neither reported nor counted. */
struct policy_quiet {
    char *path;           /* absolute, symlinks resolved */
    const char *tool;     /* names it in explain (allocated with path) */
    const char *commands; /* only for these subcommands of TOOL ("describe"), space-separated;
                             NULL: whoever writes (allocated with path) */
    bool is_dir;          /* the directory and everything beneath it */
};

struct policy {
    char *root; /* absolute, symlinks resolved */
    struct policy_entry *entries;
    size_t n, cap;
    struct policy_quiet *quiet;
    size_t nquiet, capquiet;
};

/* The system set: device files and directories that hold no user data. */
extern const char *const policy_system_paths[];

int policy_init(struct policy *p, const char *root, tf_err *err);

/* Add an entry. PROJECT entries are relative to the root and must resolve
 * inside it; ALLOW entries may be anywhere; both must exist. SYSTEM entries
 * that do not exist on this machine are skipped silently. */
int policy_add(struct policy *p, const char *given, enum policy_origin origin, tf_err *err);

/* Add an entry that was resolved elsewhere (the shim loads the set run resolved):
 * RESOLVED is taken as it is, nothing is checked on disk. */
int policy_add_resolved(struct policy *p, const char *resolved, const char *given,
                        enum policy_origin origin, bool is_dir, tf_err *err);

/* A declared output GIVEN: a directory when it ends with '/', else a file. IN_ROOT: given
 * relative to the root (the config's outputs) and must stay inside it; else relative to the
 * current directory (--output), anywhere. It need not exist yet (plan_create_outputs makes
 * it); an existing one must be of the declared kind. */
int policy_add_output(struct policy *p, const char *given, bool in_root, tf_err *err);

/* Does the absolute PATH pass through a symlink inside the writable set (where a test, this
 * run's or an earlier one's, can plant one)? The link's path goes to LINK. */
bool policy_through_link(const struct policy *p, const char *path, char *link, size_t n);

/* Refuse a project or --allow entry that passes through a symlink inside the rest of the
 * set: a test that replaced tests/out (writable = ["tests", "tests/out"]) with a link to
 * ".." would otherwise make the next run's writable set the whole project. */
int policy_check_links(const struct policy *p, tf_err *err);

/* Refused writes to RESOLVED (beneath it, when IS_DIR) are harmless state of TOOL, made by
 * any process, or when COMMANDS is not NULL only by TOOL running one of those subcommands
 * (git describe: git commit taking the same lock is a real write, and reported). */
int policy_add_quiet(struct policy *p, const char *resolved, bool is_dir, const char *tool,
                     const char *commands, tf_err *err);

/* PATH (absolute) resolved as path_resolve() does, in this process, but never through a
 * symlink inside the writable set: a test may have planted one, in this run or an earlier one,
 * and what the unfenced parent decides before the command must not be led by it (-1 then,
 * naming the link). The resolved path goes to OUT; a directory is handed back open (O_PATH) in
 * *DIRFD, the caller's to close (else -1), when DIRFD is not NULL. */
int policy_resolve_fixed(const struct policy *p, const char *path, char *out, size_t len,
                         int *dirfd, tf_err *err);

/* The quiet entry RESOLVED falls under, or NULL. */
const struct policy_quiet *policy_quiet(const struct policy *p, const char *resolved);

/* Is ARGV (the process's command line, NUL-separated, LEN bytes) Q's tool running one of
 * Q's subcommands? Always true when Q has no command list. */
bool policy_quiet_for(const struct policy_quiet *q, const char *argv, size_t len);

/* The entries every run has: the system set. */
int policy_add_system(struct policy *p, tf_err *err);

/* The run's private temp dir (the POLICY_TMP directory entry runtmp planned), or NULL when
 * the set has none. The shim makes glibc's tmpfile() there (it names /tmp itself). */
const char *policy_tmp_dir(const struct policy *p);

/* The entry that allows a write to RESOLVED (absolute, symlinks resolved),
 * or NULL when the write is outside the writable set. */
const struct policy_entry *policy_match(const struct policy *p, const char *resolved);

/* The entry that allows a write to the target RES names (PATH_FILE), or NULL. A target
 * too deep to name is beneath res->path: only a directory entry can then hold it. */
const struct policy_entry *policy_match_res(const struct policy *p, const struct path_res *res);

/* The one verdict on a write, for every place that judges one: the shim, libtestfence (the
 * plugin), explain and the seccomp guard. */
enum policy_verdict {
    POLICY_ALLOWED,   /* inside the writable set (decision.entry says which entry) */
    POLICY_BLOCKED,   /* outside it: refused and reported */
    POLICY_QUIET,     /* outside it, harmless state of a tool (decision.quiet): refused, never
                         reported */
    POLICY_NO_TARGET, /* nothing that could change: not a file (a pipe, a socket), or a call
                         the kernel fails anyway (a directory on the way is missing) */
};

struct policy_decision {
    enum policy_verdict verdict;
    const struct policy_entry *entry; /* POLICY_ALLOWED */
    /* The tool state the target is: for POLICY_QUIET, and for POLICY_BLOCKED when that state
     * is quiet only for some of the tool's commands and CMDLINE was not one of them. */
    const struct policy_quiet *quiet;
};

/* Decide a write to the target RES names (path_resolve_at's answer). CMDLINE (argv,
 * NUL-separated, LEN bytes) is the writer's command line for tool state quiet only for some
 * commands (git describe's index lock); NULL when unknown: such state is then blocked. */
enum policy_verdict policy_decide(const struct policy *p, const struct path_res *res,
                                  const char *cmdline, size_t len, struct policy_decision *d);

const char *policy_origin_name(enum policy_origin origin);

/* How a violation line names the fence: "<first project entry>/" (the root when the set
 * has no project entry), as the shim prints it live and the plugin in its failures. */
void policy_fence_label(const struct policy *p, char *out, size_t len);

void policy_free(struct policy *p);

#endif
