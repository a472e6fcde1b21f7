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

/* The nearest directory above DIR (absolute) holding a marker, into OUT: 1; none: 0. */
int project_find_above(const char *dir, char *out, size_t len);

/* The project's test directory, relative to ROOT, when its tests are not in tests/: the
 * first of test/, testing/, t/, spec/, __tests__/, testdata/ at the root, then a package's own
 * (pkg/tests, pkg/test, src/pkg/tests), for `init` and the missing-writable error to
 * propose. Returns 0 and fills OUT, or -1 when none is found. */
int project_find_tests(const char *root, char *out, size_t len);

#endif
