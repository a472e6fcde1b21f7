/* project: find the project root a command applies to.
 * The root is --root when given, else the nearest directory upward with a marker file. */
#ifndef TESTFENCE_PROJECT_H
#define TESTFENCE_PROJECT_H

#include "base/err.h"

#include <stddef.h>

/* The files whose presence marks a project root, in the order they are named in messages. */
extern const char *const project_markers[];

/* Fill root (absolute, symlinks resolved) from OPT_ROOT when not NULL, else by
 * walking up from the current directory to the first directory holding a marker. */
int project_find_root(const char *opt_root, char *root, size_t len, tf_err *err);

#endif
