#include "path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Linux gives up after 40 symlinks (ELOOP); so do we. */
enum { MAX_LINKS = 40 };

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

/* Append the components of TAIL to the resolved absolute BASE, applying "."
 * and ".." lexically: nothing in TAIL exists, so there is no symlink to honour. */
static int append_lexical(char *base, size_t len, const char *tail, tf_err *err)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", tail);
    char *save = NULL;
    for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, "."))
            continue;
        if (!strcmp(c, "..")) {
            char *slash = strrchr(base, '/');
            if (slash == base)
                base[1] = '\0';
            else if (slash)
                *slash = '\0';
            continue;
        }
        char tmp[PATH_MAX];
        if (path_join(tmp, sizeof tmp, base, c, err) < 0)
            return -1;
        snprintf(base, len, "%s", tmp);
    }
    return 0;
}

/* Split ABS into the longest prefix realpath() accepts and the rest. */
static int split_existing(const char *abs, char *resolved, char *tail, size_t len, tf_err *err)
{
    char head[PATH_MAX];
    snprintf(head, sizeof head, "%s", abs);
    tail[0] = '\0';
    for (;;) {
        if (realpath(head, resolved))
            return 0;
        if (errno != ENOENT && errno != ENOTDIR)
            return tf_errnof(err, errno, "cannot resolve %s", head);
        char *slash = strrchr(head, '/');
        if (!slash)
            return tf_errf(err, "cannot resolve %s", abs);
        char rest[PATH_MAX];
        int n = snprintf(rest, sizeof rest, "%s%s%s", slash + 1, tail[0] ? "/" : "", tail);
        if (n < 0 || (size_t)n >= sizeof rest)
            return tf_errf(err, "path too long: %s", abs);
        snprintf(tail, len, "%s", rest);
        if (slash == head)
            head[1] = '\0';
        else
            *slash = '\0';
    }
}

/* If the first missing component is a dangling symlink, return its target
 * (made absolute against its directory) so resolution can continue there. */
static bool dangling_target(const char *resolved, const char *tail, char *next, size_t len)
{
    char first[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
    size_t n = strcspn(tail, "/");
    int f = snprintf(first, sizeof first, "%s%s%.*s", resolved, strcmp(resolved, "/") ? "/" : "",
                     (int)n, tail);
    if (f < 0 || (size_t)f >= sizeof first)
        return false;
    struct stat st;
    if (lstat(first, &st) < 0 || !S_ISLNK(st.st_mode))
        return false;
    ssize_t r = readlink(first, link, sizeof link - 1);
    if (r < 0)
        return false;
    link[r] = '\0';
    int k = link[0] == '/' ? snprintf(target, sizeof target, "%s", link)
                           : snprintf(target, sizeof target, "%s/%s", resolved, link);
    if (k < 0 || (size_t)k >= sizeof target)
        return false;
    int m = snprintf(next, len, "%s%s", target, tail + n);
    return m > 0 && (size_t)m < len;
}

int path_resolve(const char *path, char *out, size_t outlen, tf_err *err)
{
    char abs[PATH_MAX], resolved[PATH_MAX], tail[PATH_MAX];
    if (!path || !path[0])
        return tf_errf(err, "empty path");
    if (path[0] == '/') {
        if (strlen(path) >= sizeof abs)
            return tf_errf(err, "path too long: %s", path);
        snprintf(abs, sizeof abs, "%s", path);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            return tf_errnof(err, errno, "cannot determine the current directory");
        if (path_join(abs, sizeof abs, cwd, path, err) < 0)
            return -1;
    }
    for (int links = 0;; links++) {
        if (split_existing(abs, resolved, tail, sizeof tail, err) < 0)
            return -1;
        if (!tail[0] || links == MAX_LINKS || !dangling_target(resolved, tail, abs, sizeof abs))
            break;
    }
    if (append_lexical(resolved, sizeof resolved, tail, err) < 0)
        return -1;
    if (strlen(resolved) >= outlen)
        return tf_errf(err, "path too long: %s", resolved);
    snprintf(out, outlen, "%s", resolved);
    return 0;
}

int path_resolve_parent(const char *p, char *out, size_t outlen, tf_err *err)
{
    char buf[PATH_MAX], dir[PATH_MAX], rdir[PATH_MAX];
    size_t n = strlen(p);
    if (n >= sizeof buf)
        return tf_errf(err, "path too long");
    memcpy(buf, p, n + 1);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    const char *slash = strrchr(buf, '/');
    const char *name = slash ? slash + 1 : buf;
    if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
        return path_resolve(p, out, outlen, err);
    path_dirname(dir, sizeof dir, buf);
    if (path_resolve(slash ? dir : ".", rdir, sizeof rdir, err) < 0)
        return -1;
    return path_join(out, outlen, rdir, name, err);
}
