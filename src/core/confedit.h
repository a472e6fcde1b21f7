/* confedit: add declared outputs and [env] variables to a config file's text, every other
 * byte kept, the result checked by parsing it again; and the change as a unified diff. */
#ifndef TESTFENCE_CONFEDIT_H
#define TESTFENCE_CONFEDIT_H

#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What to add: outputs (appended to `outputs`, made when missing) and [env] variables (a
 * variable already there gets the new value in place). Strings are written as TOML strings. */
struct confedit_change {
    const char *const *outputs;
    size_t noutputs;
    const char *const *env_names, *const *env_values;
    size_t nenv;
};

/* The text of the config file NAME (DATA, LEN bytes; LEN 0 and DATA "" for a file to create)
 * with CHANGE made in its table TABLE ("": the top level, testfence.toml; "tool.testfence":
 * pyproject.toml's, appended when missing) into *OUT (malloc'd, NUL-terminated, *OUTLEN).
 * Refused (-1) when the file cannot be edited so (not valid TOML, `outputs` not an array, an
 * inline table) or the result would not say what was asked. */
int confedit_apply(const char *name, const char *data, size_t len, const char *table,
                   const struct confedit_change *change, char **out, size_t *outlen, tf_err *err);

/* A unified diff (3 lines of context) from OLD to NEW to F, with the headers "--- FROM" and
 * "+++ TO" (FROM "/dev/null" for a new file). Prints nothing when they are equal. -1 when it
 * could not be made (no memory): a change must not be made unshown. */
int confedit_diff(FILE *f, const char *from, const char *to, const char *old, size_t oldlen,
                  const char *new_, size_t newlen, tf_err *err);

#endif
