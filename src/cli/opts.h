/* opts: every command-line option of every command, in one table (name, the commands that
 * take it, its help, how it is applied), and the one parser and help printer over it. */
#ifndef TESTFENCE_OPTS_H
#define TESTFENCE_OPTS_H

#include "audit/audit.h"
#include "audit/audit_output.h"
#include "core/plan.h"
/* The one place the command line picks its OS's run lifecycle (docs/platforms.md). */
#if defined(_WIN32) || defined(TESTFENCE_MACOS)
#include "core/session_names.h"
#else
#include "linux/session.h"
#endif

#include <stdbool.h>

/* The commands, as the table names the ones each option applies to. */
enum opts_cmd {
    CMD_RUN = 1 << 0,
    CMD_DOCTOR = 1 << 1,
    CMD_EXPLAIN = 1 << 2,
    CMD_INIT = 1 << 3,
    CMD_CLEAN = 1 << 4,
    CMD_AUDIT = 1 << 5,
    CMD_SUGGEST = 1 << 6,
};

/* What a command takes besides options. */
enum opts_operands {
    OPERANDS_NONE, /* none: an operand is a usage error */
    OPERANDS_SOME, /* at least one (run's command, explain's paths) */
    OPERANDS_ANY,  /* any number (audit's paths) */
};

/* A command as the parser and its --help see it. */
struct opts_command {
    const char *name;  /* "run" */
    enum opts_cmd cmd; /* its bit in the table */
    const char *about; /* --help up to its "options:" section ("usage: ...", paragraphs) */
    const char *after; /* --help after the options ("exit status: ..." last) */
    enum opts_operands operands;
    const char *missing; /* OPERANDS_SOME: the error when none is given */
    bool permute;        /* options may come between and after the operands (audit) */
};

/* audit's own options. */
struct opts_audit {
    bool strict, exit_zero, statistics, no_cache, cwd_given, select_given;
    const char *output_file; /* --output-file FILE */
    tf_audit_format format;
    tf_audit_cwd cwd;
    unsigned select, ignore; /* rule masks */
    const char *explain;     /* --explain CODE */
    const char *cache_dir;
    int jobs;
    char **protect; /* --protect NAME..., and what cmd_audit adds (owned) */
    size_t n_protect, cap_protect;
};

struct opts {
    const struct opts_command *command;
    struct plan_request req;
    const char *backend;    /* "landlock", "preload" or "none" */
    bool allow_violations;  /* --allow-violations: keep the command's status */
    bool require_namespace; /* --require namespace: refuse rather than fall back to the guard */
    bool update_snapshots;  /* --update-snapshots: protect = "none" for this run */
    const char *test_env;   /* --test-env: the variable naming the current test, or NULL */
    bool dry_run;
    bool allow_hazards;
    bool verify;
    unsigned retain; /* 0: not given, use the config's */
    bool all;
    const char *suggest_run;        /* suggest --run ID */
    bool apply;                     /* suggest --apply */
    const char *report;             /* --report FILE: report.json's content, also written there */
    const char *junit;              /* --junit FILE */
    const char *sarif;              /* --sarif FILE */
    bool github;                    /* --format github: annotations too */
    enum session_keep_tmp keep_tmp; /* --keep-tmp, --no-keep-tmp; else on failure */
    int *keep_fds;                  /* --keep-fd N: descriptors the command inherits besides 0-2 */
    size_t nkeep_fds, keep_fds_cap;
    size_t allow_cap;   /* room in req.allow */
    size_t outputs_cap; /* room in req.outputs */
    struct opts_audit audit;
    char **args; /* the operands (run: the command and its arguments), NULL-terminated */
    int nargs;
    char **own_args; /* args when the parser collected them (permute) */
    size_t own_cap;
};

/* Parse ARGV (argv[0] is the command's name) for COMMAND. Returns 0 to go on, 1 when
 * --help or --version (-h, -V) was answered on stdout, -1 on a usage error (err filled;
 * the command exits TF_EXIT_OWN_ERROR, the one status for usage errors of every command).
 * An option COMMAND does not take is an error, as is a missing or unexpected operand. Unless
 * COMMAND permutes, the first operand or "--" ends the options, so a test command's own
 * options are never touched. */
int opts_parse(int argc, char **argv, const struct opts_command *command, struct opts *o,
               tf_err *err);

/* COMMAND's whole --help: its about text, the options section from the table, the rest. */
void opts_print_help(FILE *f, const struct opts_command *command);

/* Add NAME to audit's protected names (copied). Returns 0 or -1 (out of memory). */
int opts_protect_add(struct opts *o, const char *name);

unsigned opts_retain(const struct opts *o, const struct config *cfg);

void opts_free(struct opts *o);

#endif
