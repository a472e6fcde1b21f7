/* fileio: whole-file reads and all-or-nothing replacement of a file.
 * A config file is either fully rewritten or left as it was, never half written. */
#ifndef TESTFENCE_FILEIO_H
#define TESTFENCE_FILEIO_H

#include "base/err.h"

#include <stddef.h>
#include <stdio.h>

/* The largest configuration file testfence reads or rewrites (pyproject.toml, testfence.toml). */
#define FILEIO_CONFIG_MAX (16u << 20)

/* Read the regular file PATH, at most MAX bytes, into a NUL-terminated malloc'd buffer
 * (*len excludes the NUL). Anything else where the file should be (a FIFO, a device, a
 * directory) is an error, never a hang. */
int fileio_read_all(const char *path, size_t max, char **buf, size_t *len, tf_err *err);

/* Read NAME in the directory DIRFD as fileio_read_all reads a file, never through a symlink
 * (O_NOFOLLOW): a file under the writable set, which a test may have replaced by one. SHOWN
 * names it in messages. */
int fileio_read_at(int dirfd, const char *name, const char *shown, size_t max, char **buf,
                   size_t *len, tf_err *err);

/* Write all LEN bytes of DATA to FD (retrying on EINTR and short writes). 0, or -1 with
 * errno (EIO when a write makes no progress). */
int fileio_write_all(int fd, const char *data, size_t len);

/* Replace PATH with DATA: write a temp file beside it, keep PATH's mode (0644
 * for a new file), fsync, rename over. With EXCLUSIVE, fail if PATH exists. */
int fileio_replace(const char *path, const char *data, size_t len, int exclusive, tf_err *err);

/* Replace PATH as fileio_replace does with what WRITE_TO writes to F (it returns -1 when it
 * failed): a file that does not end up whole is never put in place. */
int fileio_replace_with(const char *path, int (*write_to)(FILE *f, const void *ctx),
                        const void *ctx, tf_err *err);

#endif
