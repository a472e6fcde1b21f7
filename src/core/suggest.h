/* suggest: the smallest fix for each write a run's report.json lists, from what testfence
 * knows of tools (core/toolstate, core/hint); a file it does not know is the user's. */
#ifndef TESTFENCE_SUGGEST_H
#define TESTFENCE_SUGGEST_H

#include "base/err.h"
#include "base/json.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* One distinct blocked write of the report; the strings point into the JSON tree. */
struct suggest_write {
    const char *test; /* NULL: outside any test */
    const char *op, *resolved, *exe, *blocked_by;
    long long count;
    const char *src_file, *src_func, *test_file; /* NULL: not in the report */
    long long src_line, test_line;               /* 0: not in the report */
};

/* What report.json says, as far as suggest reads it. */
struct suggest_report {
    const char *run_id, *root;
    struct suggest_write *w;
    size_t n;
};

/* Read the report tree DOC (NAME for messages) into R (free with suggest_report_free; it
 * points into DOC). A wrong schema, a missing key or a wrong type: -1, "NAME:LINE:COL: ...". */
int suggest_read(const char *name, const struct json_value *doc, struct suggest_report *r,
                 tf_err *err);

void suggest_report_free(struct suggest_report *r);

enum suggest_kind {
    SUGGEST_OUTPUT,     /* declare `output` in outputs: a tool's report or output directory */
    SUGGEST_ENV,        /* set [env] `var` = `value`: a tool's state redirected */
    SUGGEST_GIT_GLOBAL, /* git config --global from a test: GIT_CONFIG_GLOBAL in a fixture */
    SUGGEST_TEST,       /* the user's own file: change the test (tmp_path), never the config */
    SUGGEST_ADVICE,     /* a tool's known write no config entry fixes: do what the advice says */
};

/* What the config already holds, for a fix that would repeat it or that it defeats. */
struct suggest_config {
    const char *const *outputs;
    size_t noutputs;
    const char *const *env_names, *const *env_values; /* [env], as written */
    size_t nenv;
};

struct suggest_fix {
    enum suggest_kind kind;
    char output[PATH_MAX]; /* SUGGEST_OUTPUT: relative to the root, a directory ends in '/' */
    const char *var;       /* SUGGEST_ENV */
    char value[PATH_MAX];  /* SUGGEST_ENV: a template of the config ({artifacts}/.coverage) */
    bool in_config;        /* the config already says it (nothing to change) */
    const char *advice;    /* static text: what to do (and, for the user's files, why not the
                              config) */
};

/* The fix for W in the project ROOT, HOME the user's home (may be NULL), CFG the config in
 * force. Never widens the fence onto a path that is not a known tool's. */
void suggest_fix(const struct suggest_write *w, const char *root, const char *home,
                 const struct suggest_config *cfg, struct suggest_fix *fix);

/* The text of a GIT_CONFIG_GLOBAL fixture for a conftest.py, without a trailing newline. */
extern const char suggest_git_fixture[];

#endif
