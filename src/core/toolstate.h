/* toolstate: the built-in table of state that tools keep beside the project or in HOME, and
 * what a run does about each (docs/run.md prints it): redirect it, or refuse it quietly. */
#ifndef TESTFENCE_TOOLSTATE_H
#define TESTFENCE_TOOLSTATE_H

#include <stdbool.h>
#include <stddef.h>

enum toolstate_kind {
    TS_REDIRECT, /* point VAR at a path under the artifacts dir or the workspace */
    TS_SET,      /* set VAR to a value that keeps the tool from writing */
    TS_QUIET,    /* the tool survives the refusal: refused by the kernel, not reported */
};

/* Where a path of the table lies (TS_SYSTEM: the machine's own, from /). TS_CWD: the directory
 * the command starts in (pytest run in a subdirectory of the project); TS_GITDIR: the git
 * directory of the repository around the root and of the one around the cwd (core/gitdir),
 * which is above the root in a monorepo. */
enum toolstate_base {
    TS_ARTIFACTS,
    TS_WORKSPACE,
    TS_ROOT,
    TS_CWD,
    TS_GITDIR,
    TS_HOME,
    TS_CARGO_HOME,
    TS_SYSTEM,
};

struct toolstate {
    const char *tool;
    enum toolstate_kind kind;
    const char *var;          /* TS_REDIRECT, TS_SET */
    enum toolstate_base base; /* TS_REDIRECT, TS_QUIET */
    const char *value;        /* below BASE (a trailing '/' marks a directory); TS_SET: the value */
    const char *why;          /* one line for --dry-run and the docs */
    const char *commands;     /* TS_QUIET: only when the tool runs these subcommands; NULL: any */
};

/* The table, ended by an entry with a NULL tool. */
extern const struct toolstate toolstate_table[];

/* Does PATH have the components NAME ("a" or "a/b") in a row, whole? */
bool toolstate_has_components(const char *path, const char *name);

/* A hint naming the tool whose state RESOLVED is, for a write nothing in the table made
 * harmless (nyc's output, ctest's Testing/, pytest-benchmark's storage), or NULL. */
const char *toolstate_hint(const char *resolved);

/* A hint for a report or test log in the project ROOT (report.xml, test-suite.log), which
 * a runner writes at its end and the config should declare as an output; or NULL. */
const char *toolstate_report_hint(const char *resolved, const char *root);

/* Is RESOLVED coverage.py's data file (.coverage, or parallel mode's .coverage.<suffix>)? */
bool toolstate_coverage_data(const char *resolved);

/* The tool output directory RESOLVED lies in that a run may be given by declaring it an output
 * (htmlcov, .benchmarks, node_modules/.cache): its components as in the path ("htmlcov"), or
 * NULL. *END is set just after them in RESOLVED. */
const char *toolstate_output_dir(const char *resolved, const char **end);

/* Is the file name BASE a CI report's (junit.xml, coverage.xml, lcov.info, a *.sarif, a name
 * with "report" in it)? Narrower than toolstate_report_hint: a name that is not clearly a
 * report (package.json, data.xml) may be the user's file. */
bool toolstate_report_name(const char *base);

/* The row of the table (a TS_REDIRECT) whose tool keeps its state, by default, where RESOLVED
 * lies: in the project ROOT (.hypothesis, .coverage) or in HOME (~/.npm, ~/.cache/pip); or
 * NULL. A run redirects it, so a write there means the redirect did not reach the tool. */
const struct toolstate *toolstate_default_of(const char *resolved, const char *root,
                                             const char *home);

#endif
