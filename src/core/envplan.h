/* envplan: the environment changes a run makes, as data.
 * --dry-run prints the plan; run applies it to a copy of the environment for the child. */
#ifndef TESTFENCE_ENVPLAN_H
#define TESTFENCE_ENVPLAN_H

#include "base/err.h"

#include <stddef.h>

enum envplan_op {
    ENV_SET,    /* replace any value */
    ENV_APPEND, /* append to the user's value, space-separated (PYTEST_ADDOPTS) */
};

struct envplan_item {
    char *name;
    char *value;
    enum envplan_op op;
    const char *why; /* one line for --dry-run and the docs */
};

struct envplan {
    struct envplan_item *items;
    size_t n, cap;
};

/* The value of NAME in the environment ENVP, or NULL. */
const char *envplan_getenv(char *const *envp, const char *name);

int envplan_add(struct envplan *plan, const char *name, const char *value, enum envplan_op op,
                const char *why, tf_err *err);

/* The value NAME will have in the child, given the parent's environment ENVP:
 * *out is malloc'd (free it), or NULL when the plan leaves NAME unset.
 * Returns -1 when out of memory. No length limit: a value is never cut. */
int envplan_value(const struct envplan *plan, char *const *envp, const char *name, char **out);

/* A new NULL-terminated environment: ENVP with the plan applied. Free with envplan_free_env. */
char **envplan_apply(const struct envplan *plan, char *const *envp, tf_err *err);

void envplan_free_env(char **env);
void envplan_free(struct envplan *plan);

/* Quote S for a shlex-style split (how pytest reads PYTEST_ADDOPTS) into OUT: 0, or -1
 * when it does not fit LEN bytes (NUL included). */
int envplan_shell_quote(char *out, size_t len, const char *s);

#endif
