/* config: testfence's own settings, from --config, testfence.toml or [tool.testfence].
 * Never from an environment variable: a silent env fallback caused the data loss we prevent. */
#ifndef TESTFENCE_CONFIG_H
#define TESTFENCE_CONFIG_H

#include "base/err.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* A name and a value: a placeholder file and its content, or a variable and its template. */
struct config_pair {
    char *name;
    char *value;
};

struct config_list {
    char **v;
    size_t n;
};

/* Rule codes as written in [audit] ("TF101", a prefix "TF1"), with "FILE:LINE:COL" of each:
 * the audit says which codes exist, and names the place of one that does not. */
struct config_codes {
    struct config_list codes;
    char **at;
    bool set; /* the key was there */
};

/* One [audit] per-file-ignores entry: a glob as written (a leading '!' negates it) and its
 * codes. */
struct config_file_ignore {
    char *glob;
    struct config_codes codes;
};

/* protect: the user's files under the writable set the run may not change (in this order:
 * config_protect_name). */
enum config_protect {
    CONFIG_PROTECT_NONE,     /* as before: the writable set is the run's */
    CONFIG_PROTECT_TRACKED,  /* what git tracks there */
    CONFIG_PROTECT_EXISTING, /* every regular file there before the run */
};

struct config {
    char source[PATH_MAX + 64];  /* "/p/pyproject.toml [tool.testfence]" or "built-in defaults" */
    char path[PATH_MAX];         /* the file read ("" when none): where a change to it goes */
    struct config_list writable; /* relative to the root; default {"tests"} */
    char **writable_at;          /* "FILE:LINE:COL" of each (NULL: the default), for messages */
    char *artifacts;             /* relative to the root; default "<first writable>/artifacts" */
    char *artifacts_at;          /* "FILE:LINE:COL" of artifacts (NULL: the default) */
    struct config_list outputs;  /* relative to the root; a trailing '/' marks a directory */
    unsigned retain;             /* default 3 */
    struct config_pair *files;   /* [workspace.files], document order */
    size_t nfiles;
    struct config_pair *env; /* [env]: values are templates, see config_expand */
    size_t nenv;
    bool pytest_basetemp;  /* [pytest] basetemp: accepted, no longer used (see docs/config.md) */
    bool pytest_cache_dir; /* [pytest] cache_dir: move .pytest_cache (default true) */
    struct config_list audit_include, audit_exclude, audit_protected;
    bool audit_cwd_temporary; /* [audit] cwd = "temporary": the runner gives tests a temp cwd */
    struct config_codes audit_select, audit_ignore; /* [audit] select, ignore */
    struct config_file_ignore *audit_per_file;      /* [audit] per-file-ignores, in order */
    size_t n_audit_per_file;
    char *test_env;              /* [report] test_env; default PYTEST_CURRENT_TEST */
    bool require_namespace;      /* require = ["namespace"]: refuse rather than fall back */
    enum config_protect protect; /* default CONFIG_PROTECT_NONE */
};

/* Load the configuration for ROOT: OPT_CONFIG (--config) when not NULL, else
 * <root>/testfence.toml, else [tool.testfence] in <root>/pyproject.toml, else
 * the defaults. Unknown keys, wrong types and bad values are errors naming
 * FILE:LINE:COL and the key. */
int config_load(struct config *c, const char *root, const char *opt_config, tf_err *err);

/* Is PATH a pyproject.toml (whose settings are in [tool.testfence])? */
bool config_is_pyproject(const char *path);

/* The values placeholders in [env] expand to. */
struct config_vars {
    const char *root, *workspace, *artifacts, *run_id, *tmp;
};

/* Expand {root} {workspace} {artifacts} {run_id} {tmp} ("{{" and "}}" are
 * literal braces) in TEMPLATE. Fails on an unknown placeholder or overflow. */
int config_expand(const char *template, const struct config_vars *vars, char *out, size_t len,
                  tf_err *err);

void config_free(struct config *c);

/* "none", "tracked" or "existing". */
const char *config_protect_name(enum config_protect p);

#endif
