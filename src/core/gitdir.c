#include "gitdir.h"
#include "platform.h"

#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A gitfile holds one path: anything longer is not one of ours to read. */
#define GITFILE_MAX (PATH_MAX + 16)

int gitdir_parse_file(const char *text, size_t n, const char *dir, char *out, size_t len,
                      tf_err *err)
{
    static const char prefix[] = "gitdir: ";
    const size_t k = sizeof prefix - 1;
    char path[PATH_MAX];
    /* git strips the line ends after the path, and nothing else. */
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
        n--;
    if (n <= k || memcmp(text, prefix, k))
        return tf_errf(err, "not a gitfile: it does not say \"gitdir: PATH\"");
    if (memchr(text + k, '\0', n - k) || memchr(text + k, '\n', n - k))
        return tf_errf(err, "not a gitfile: its path holds a NUL or a line end");
    if (n - k >= sizeof path)
        return tf_errf(err, "the gitfile's path is too long");
    memcpy(path, text + k, n - k);
    path[n - k] = '\0';
    if (platform_is_absolute(path)) {
        if (strlen(path) >= len)
            return tf_errf(err, "path too long: %s", path);
        memcpy(out, path, strlen(path) + 1);
        return 0;
    }
    return path_join(out, len, dir, path, err);
}

/* Read the gitfile PATH (resolved, outside the writable set: nothing a test can change leads
 * there) into BUF; its length, or -1 when it is no regular file or cannot be read. O_NONBLOCK:
 * a fifo named .git must not hang the run before it starts. */
static ssize_t read_gitfile(const char *path, char *buf, size_t size)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (off_t)size)
        n = read(fd, buf, size);
    close(fd);
    return n;
}

/* The git directory the gitfile REAL (found as CAND) names, resolved into OUT and open in *FD
 * (O_PATH), or -1. A relative path is taken from the directory git found the gitfile in. */
static int follow_gitfile(const struct policy *p, const char *cand, const char *real, char *out,
                          size_t len, int *fd)
{
    char text[GITFILE_MAX], dir[PATH_MAX], named[PATH_MAX];
    ssize_t n = read_gitfile(real, text, sizeof text);
    path_dirname(dir, sizeof dir, cand);
    if (n < 0 || gitdir_parse_file(text, (size_t)n, dir, named, sizeof named, NULL) < 0 ||
        policy_resolve_fixed(p, named, out, len, fd, NULL) < 0)
        return -1;
    return 0;
}

/* Is CAND (DIR/.git) a repository git would take, outside the writable set? Its git directory
 * goes to OUT. */
static bool usable(const struct policy *p, const char *cand, char *out, size_t len)
{
    char found[PATH_MAX], real[PATH_MAX];
    int fd = -1;
    struct stat st;
    /* Nothing of that name (most levels up to /): nothing to resolve. DIR is a real
     * directory (the walk starts at a resolved path), so its .git is looked at there. */
    if (fstatat(AT_FDCWD, cand, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
        return false;
    if (policy_match(p, cand) ||
        policy_resolve_fixed(p, cand, found, sizeof found, &fd, NULL) < 0 || policy_match(p, found))
        goto no;
    if (fd >= 0)
        memcpy(real, found, strlen(found) + 1);
    else if (follow_gitfile(p, cand, found, real, sizeof real, &fd) < 0)
        goto no;
    /* A git directory has a HEAD (a worktree's too); git passes over a .git without one. */
    if (fd < 0 || policy_match(p, real) || fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
        strlen(real) >= len)
        goto no;
    close(fd);
    memcpy(out, real, strlen(real) + 1);
    return true;
no:
    if (fd >= 0)
        close(fd);
    return false;
}

int gitdir_find(const struct policy *p, const char *start, char *out, size_t len)
{
    char dir[PATH_MAX], cand[PATH_MAX], parent[PATH_MAX];
    if (!platform_is_absolute(start) || strlen(start) >= sizeof dir)
        return 0;
    memcpy(dir, start, strlen(start) + 1);
    for (;;) {
        if (path_join(cand, sizeof cand, dir, ".git", NULL) == 0 && usable(p, cand, out, len))
            return 1;
        if (platform_is_top(dir))
            return 0;
        path_dirname(parent, sizeof parent, dir);
        memcpy(dir, parent, sizeof dir);
    }
}
