/* opts: the command-line options the commands share (--root, --config, --allow, --help, --version).
 * Each command parses its own extra options through the same table-driven loop. */
#ifndef TESTFENCE_OPTS_H
#define TESTFENCE_OPTS_H

#include "core/plan.h"

#include <stdbool.h>

/* Extra options a command accepts beyond --root/--allow/--help/--version. */
enum {
    OPT_RUN = 1 << 0,     /* --backend, --dry-run, --retain, --report, --junit, --format, --output,
                             --keep-tmp, --keep-fd */
    OPT_CLEAN = 1 << 1,   /* --all, --retain */
    OPT_INIT = 1 << 2,    /* --dry-run */
    OPT_EXPLAIN = 1 << 3, /* --output */
};

struct opts {
    struct plan_request req;
    const char *backend;    /* "landlock", "preload" or "none" */
    bool allow_violations;  /* --allow-violations: keep the command's status */
    bool require_namespace; /* --require namespace: refuse rather than fall back to the guard */
    const char *test_env;   /* --test-env: the variable naming the current test, or NULL */
    bool dry_run;
    bool allow_hazards;
    bool verify;
    unsigned retain; /* 0: not given, use the config's */
    bool all;
    const char *report; /* --report FILE: report.json's content, also written there */
    const char *junit;  /* --junit FILE */
    bool github;        /* --format github: annotations too */
    bool keep_tmp;      /* --keep-tmp: leave the run's temp dir in place */
    int *keep_fds;      /* --keep-fd N: descriptors the command inherits besides 0-2 */
    size_t nkeep_fds, keep_fds_cap;
    size_t allow_cap;   /* room in req.allow */
    size_t outputs_cap; /* room in req.outputs */
    int argi;           /* index of the first operand in argv */
};

/* The --help lines of the options commands share, concatenated into each command's help
 * (so share/gen-docs.py and the completions see them there too). */
#define OPTS_HELP_ROOT                                                                             \
    "  --root DIR      project root (default: the nearest directory upward holding\n"              \
    "                  testfence.toml, pyproject.toml or .git)\n"
#define OPTS_HELP_CONFIG                                                                           \
    "  --config FILE   read the configuration from FILE (default: testfence.toml,\n"               \
    "                  else [tool.testfence] in pyproject.toml; never an env var)\n"
#define OPTS_HELP_ALLOW                                                                            \
    "  --allow PATH    also allow writes beneath PATH; repeatable; PATH must exist\n"              \
    "                  and may be outside the root\n"
#define OPTS_HELP_OUTPUT                                                                           \
    "  --output PATH   a file outside the writable set the run may write (created if\n"            \
    "                  missing), or with a trailing '/' a directory; repeatable; like\n"           \
    "                  the config's outputs (a CI report: --output report.xml)\n"
#define OPTS_HELP_HELP_VERSION                                                                     \
    "  -h, --help      print this help\n"                                                          \
    "  -V, --version   print the version\n"

/* Parse ARGV (argv[0] is the command name). Returns 0 to go on, 1 when --help or
 * --version (-h, -V) was answered, -1 on a usage error (err filled; the command exits
 * TF_EXIT_OWN_ERROR, the one status for usage errors of every command). Stops at the first
 * operand or at "--" so the test command's own options are never touched. */
int opts_parse(int argc, char **argv, unsigned accepted, const char *help, struct opts *o,
               tf_err *err);

unsigned opts_retain(const struct opts *o, const struct config *cfg);

void opts_free(struct opts *o);

#endif
