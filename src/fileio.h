/* fileio: whole-file reads and all-or-nothing replacement of a file.
 * A config file is either fully rewritten or left as it was, never half written. */
#ifndef TESTFENCE_FILEIO_H
#define TESTFENCE_FILEIO_H

#include "err.h"

#include <stddef.h>

/* Read PATH into a NUL-terminated malloc'd buffer (*len excludes the NUL). */
int fileio_read_all(const char *path, char **buf, size_t *len, tf_err *err);

/* Replace PATH with DATA: write a temp file beside it, keep PATH's mode (0644
 * for a new file), fsync, rename over. With EXCLUSIVE, fail if PATH exists. */
int fileio_replace(const char *path, const char *data, size_t len, int exclusive, tf_err *err);

#endif
