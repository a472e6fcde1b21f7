/* path_resolve: a path as text, through the OS's resolver (core/path.h's path_resolve_at:
 * src/core/path.c on Linux, src/windows/path.c on Windows), one error for each way it fails. */
#include "path.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

int path_resolve(const char *path, char *out, size_t outlen, tf_err *err)
{
    struct path_res *res = malloc(sizeof *res);
    if (!res)
        return tf_errf(err, "out of memory");
    int rc = path_resolve_at(NULL, AT_FDCWD, path, 0, res, err);
    if (rc == 0 && res->kind == PATH_REJECTED)
        rc = tf_errnof(err, res->errnum, "cannot resolve \"%s\"", path ? path : "");
    else if (rc == 0 && res->kind == PATH_NO_FILE)
        rc = tf_errf(err, "%s names no file", path);
    else if (rc == 0 && (res->beneath || strlen(res->path) >= outlen))
        rc = tf_errf(err, "path too long: %s", path);
    if (rc == 0)
        memcpy(out, res->path, strlen(res->path) + 1);
    free(res);
    return rc;
}
