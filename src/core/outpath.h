/* outpath: a file run writes for CI (--report, --junit), which no test can redirect.
 * Its directory is opened before the command starts, never through a symlink inside the
 * writable set; the file is then written fresh there and renamed into place. */
#ifndef TESTFENCE_OUTPATH_H
#define TESTFENCE_OUTPATH_H

#include "base/err.h"
#include "policy.h"

#include <limits.h>
#include <stdio.h>

struct outpath {
    int dirfd; /* the directory, held open from before the command (-1: none) */
    char name[NAME_MAX + 1];
    char shown[PATH_MAX]; /* the path as given, for messages */
};

/* Is NAME a Python source (".py", any case)? A report written over one (a slip of the
 * keyboard: --junit tests/test_x.py) would replace a test: run's outputs and the audit's
 * --output-file refuse it. */
bool outpath_python_source(const char *name);

/* Open the directory of GIVEN (relative to the current directory), which must exist.
 * Symlinks on the way are followed unless they lie inside POLICY's writable set (where
 * the command, or an earlier one, could have planted them): those are refused. */
int outpath_open(struct outpath *o, const char *given, const struct policy *policy, tf_err *err);

/* Write the file: FILL prints it to a fresh temporary file in the directory, which
 * then replaces the file (a symlink there is replaced, never followed). */
int outpath_write(const struct outpath *o, void (*fill)(FILE *f, const void *ctx), const void *ctx,
                  tf_err *err);

void outpath_close(struct outpath *o);

#endif
