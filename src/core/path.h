/* path: absolute, symlink-resolved paths, as the kernel would see them.
 * Shared by the policy, the fence and explain, so all of them agree on what a path means. */
#ifndef TESTFENCE_PATH_H
#define TESTFENCE_PATH_H

#include "base/err.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* Resolve PATH (relative to the current directory when not absolute) to an
 * absolute path with every existing symlink followed, including a dangling
 * final symlink (a write with O_CREAT would create its target). Components that
 * do not exist yet are appended lexically, with "." and ".." applied. */
int path_resolve(const char *path, char *out, size_t outlen, tf_err *err);

/* PATH as a call that acts on the name itself sees it (unlink, rename, lchown,
 * AT_SYMLINK_NOFOLLOW): the directory part resolved, the last component kept as it is.
 * A last component of "." or ".." is resolved like any other path. */
int path_resolve_parent(const char *path, char *out, size_t outlen, tf_err *err);

/* out = a + "/" + b, without doubling the slash. Fails when it does not fit. */
int path_join(char *out, size_t outlen, const char *a, const char *b, tf_err *err);

/* Is PATH equal to DIR or beneath it? Both must be absolute and normalised. */
bool path_is_within(const char *path, const char *dir);

/* Copy the directory part of PATH into out ("/" for "/x"). */
void path_dirname(char *out, size_t outlen, const char *path);

#endif
