/* pyargs: the reports a pytest command line (and PYTEST_ADDOPTS) asks pytest to write, so run
 * refuses before the command starts one the fence would refuse at the very end of the suite. */
#ifndef TESTFENCE_PYARGS_H
#define TESTFENCE_PYARGS_H

#include "base/err.h"
#include "policy.h"

#include <stdbool.h>
#include <stddef.h>

/* One file or directory pytest was asked to write. */
struct pyargs_output {
    const char *flag; /* "--junitxml", "--cov-report=xml" (static) */
    const char *path; /* as given, relative to the command's cwd (borrowed from the args or
                         a default: "coverage.xml") */
    bool is_dir;      /* a directory (html coverage): the report's files go beneath it */
};

/* The slots a pytest command line fills; the last option for a slot wins, as in pytest. */
enum {
    PYARGS_JUNIT,
    PYARGS_HTML,
    PYARGS_REPORT_LOG,
    PYARGS_RESULTLOG,
    PYARGS_JSON_REPORT,
    PYARGS_COV_XML,
    PYARGS_COV_HTML,
    PYARGS_COV_JSON,
    PYARGS_COV_LCOV,
    PYARGS_COV_MARKDOWN,
    PYARGS_COV_MARKDOWN_APPEND,
    PYARGS_COV_ANNOTATE,
    PYARGS_NSLOTS
};

struct pyargs {
    struct pyargs_output out[PYARGS_NSLOTS];
    size_t n;     /* outputs in out[0..n) */
    char **words; /* PYTEST_ADDOPTS split as shlex does (owned) */
    size_t nwords;
};

/* Is ARGV a pytest command: `pytest`, `py.test`, `pytest-3`, `python[X.Y] [opts] -m pytest`,
 * behind any of `env [-i] [-u NAME] [NAME=VALUE]...`, `uv run`, `poetry run`? Returns the
 * index of pytest's first argument, or 0 when it is not (or cannot be told). *ADDOPTS is
 * PYTEST_ADDOPTS as the command will see it: ENVP's, as env's assignments change it (NULL). */
size_t pyargs_command(char *const *argv, char *const *envp, const char **addopts);

/* Split S as Python's shlex.split does (POSIX mode, no comments) into *WORDS (*N of them,
 * NULL-terminated, free with pyargs_free_words). -1 when shlex would fail (a quote not
 * closed, a trailing backslash) or out of memory. */
int pyargs_split(const char *s, char ***words, size_t *n);
void pyargs_free_words(char **words, size_t n);

/* The outputs ARGV (a command line, any prefix) names, with PYTEST_ADDOPTS from ENVP read
 * first, as pytest does; A->n is 0 when ARGV is no pytest command. -1 only out of memory. */
int pyargs_parse(char *const *argv, char *const *envp, struct pyargs *a, tf_err *err);
void pyargs_free(struct pyargs *a);

/* Refuse (-1, ERR saying what to declare) when ARGV would have pytest write a report outside
 * POLICY's writable set (declared outputs are in it): resolved from the cwd as the kernel
 * would, ENVP's HOME for "~". ROOT (the project's) makes the config line. 0: nothing to say. */
int pyargs_check(char *const *argv, char *const *envp, const struct policy *policy,
                 const char *root, tf_err *err);

#endif
