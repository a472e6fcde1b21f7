#include "fileio.h"

#include "base/vec.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read the regular file open on FD, at most MAX bytes, into a NUL-terminated buffer. */
static int read_fd(int fd, const char *path, size_t max, char **buf, size_t *len, tf_err *err)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return tf_errnof(err, errno, "cannot read %s", path);
    if (!S_ISREG(st.st_mode))
        return tf_errf(err, "cannot read %s: not a regular file", path);
    char *b = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        char *nb = n <= max ? vec_grow(b, &cap, n + 8192, 1) : NULL;
        if (!nb) {
            free(b);
            return n <= max ? tf_errf(err, "%s: out of memory", path)
                            : tf_errf(err, "%s is larger than %zu bytes", path, max);
        }
        b = nb;
        ssize_t r = read(fd, b + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(b);
            return tf_errnof(err, e, "cannot read %s", path);
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int fileio_read_all(const char *path, size_t max, char **buf, size_t *len, tf_err *err)
{
    /* O_NONBLOCK: a FIFO put where a file was expected must not hang us. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot read %s", path);
    int rc = read_fd(fd, path, max, buf, len, err);
    close(fd);
    return rc;
}

int fileio_read_at(int dirfd, const char *name, const char *shown, size_t max, char **buf,
                   size_t *len, tf_err *err)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot read %s%s", shown,
                         errno == ELOOP ? " (a symlink, not followed)" : "");
    int rc = read_fd(fd, shown, max, buf, len, err);
    close(fd);
    return rc;
}

int fileio_write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO; /* no progress and no error: never loop on it */
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Fill the temporary file FD: 0, or the errno of the step that failed (read right there,
 * never later, when some other call may have left its own). */
static int fill(int fd, mode_t mode, const char *data, size_t len)
{
    if (fchmod(fd, mode) < 0 || fileio_write_all(fd, data, len) < 0 || fsync(fd) < 0)
        return errno;
    return 0;
}

/* The temporary file beside PATH (followed through a symlink: rename() would turn the link
 * into a plain file) that will replace it: its name in TMP, its descriptor, and in *MODE the
 * mode PATH has (0644 for a new file). -1 with ERR filled. */
static int temp_beside(const char **path, char real[PATH_MAX], int exclusive, char tmp[PATH_MAX],
                       mode_t *mode, tf_err *err)
{
    if (!exclusive && realpath(*path, real))
        *path = real;
    struct stat st;
    *mode = 0644;
    if (stat(*path, &st) == 0) {
        if (exclusive)
            return tf_errf(err, "%s already exists", *path);
        *mode = st.st_mode & 07777;
    }
    char dir[PATH_MAX];
    path_dirname(dir, sizeof dir, *path);
    if (path_join(tmp, PATH_MAX, dir, ".testfence-tmp-XXXXXX", err) < 0)
        return -1;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot create a temporary file in %s", dir);
    return fd;
}

int fileio_replace(const char *path, const char *data, size_t len, int exclusive, tf_err *err)
{
    char real[PATH_MAX], tmp[PATH_MAX];
    mode_t mode;
    int fd = temp_beside(&path, real, exclusive, tmp, &mode, err);
    if (fd < 0)
        return -1;
    int e = fill(fd, mode, data, len);
    if (close(fd) < 0 && !e)
        e = errno;
    /* link fails if PATH appeared meanwhile. */
    if (!e && (exclusive ? link(tmp, path) : rename(tmp, path)) < 0)
        e = errno;
    if (e || exclusive)
        unlink(tmp);
    return e ? tf_errnof(err, e, "cannot write %s", path) : 0;
}

int fileio_replace_with(const char *path, int (*write_to)(FILE *f, const void *ctx),
                        const void *ctx, tf_err *err)
{
    char real[PATH_MAX], tmp[PATH_MAX];
    mode_t mode;
    int fd = temp_beside(&path, real, 0, tmp, &mode, err);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return tf_errnof(err, e, "cannot write %s", path);
    }
    errno = 0;
    int e = write_to(f, ctx) < 0 || fflush(f) != 0 || ferror(f) ? (errno ? errno : EIO) : 0;
    if (!e && (fchmod(fileno(f), mode) < 0 || fsync(fileno(f)) < 0))
        e = errno;
    if (fclose(f) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) < 0)
        e = errno;
    if (e)
        unlink(tmp);
    return e ? tf_errnof(err, e, "cannot write %s", path) : 0;
}
