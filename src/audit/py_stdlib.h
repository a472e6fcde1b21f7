/* py_stdlib: the top-level module names of Python's standard library.
 * A module named like one of them is the standard library's, never the project's own. */
#ifndef TESTFENCE_PY_STDLIB_H
#define TESTFENCE_PY_STDLIB_H

#include <stdbool.h>

/* Is the first component of DOTTED ("email.parser") a standard library module? */
bool py_stdlib_module(const char *dotted);

#endif
