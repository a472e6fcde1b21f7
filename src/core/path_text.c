/* path_text: path.h's calls on path text alone (joining, containment, the parent), which
 * touch no file and so are the same on every platform; the resolver is path.c (Linux). */
#include "path.h"

#include <stdio.h>
#include <string.h>

int path_join(char *out, size_t outlen, const char *a, const char *b, tf_err *err)
{
    size_t la = strlen(a);
    const char *sep = (la > 0 && a[la - 1] == '/') ? "" : "/";
    int n = snprintf(out, outlen, "%s%s%s", a, sep, b);
    if (n < 0 || (size_t)n >= outlen)
        return tf_errf(err, "path too long: %s/%s", a, b);
    return 0;
}

bool path_is_within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return path[0] == '/';
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool path_is_normal(const char *path)
{
    if (!strcmp(path, "/"))
        return true;
    for (const char *c = path;; c++) {
        const char *end = strchr(c, '/');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        bool empty = n == 0 && c != path; /* "a//b", "a/": a leading '/' is the root's */
        if (empty || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        if (!end)
            return true;
        c = end;
    }
}

const char *path_base(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "";
}

bool path_ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && !strcmp(s + n - k, tail);
}

void path_dirname(char *out, size_t outlen, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n == 0) {
        snprintf(out, outlen, "%s", slash ? "/" : ".");
        return;
    }
    snprintf(out, outlen, "%.*s", (int)n, path);
}
