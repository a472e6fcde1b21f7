#include "fileio.h"

#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fileio_read_all(const char *path, char **buf, size_t *len, tf_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot read %s", path);
    char *b = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = realloc(b, cap = cap ? cap * 2 : 8192);
            if (!nb) {
                free(b);
                close(fd);
                return tf_errf(err, "%s: out of memory", path);
            }
            b = nb;
        }
        ssize_t r = read(fd, b + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(b);
            close(fd);
            return tf_errnof(err, e, "cannot read %s", path);
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

static int write_full(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

int fileio_replace(const char *path, const char *data, size_t len, int exclusive, tf_err *err)
{
    /* A symlinked file is replaced where it really lives; rename() would
     * otherwise turn the link into a plain file. */
    char real[PATH_MAX];
    if (!exclusive && realpath(path, real))
        path = real;
    struct stat st;
    mode_t mode = 0644;
    if (stat(path, &st) == 0) {
        if (exclusive)
            return tf_errf(err, "%s already exists", path);
        mode = st.st_mode & 07777;
    }
    char dir[PATH_MAX], tmp[PATH_MAX];
    path_dirname(dir, sizeof dir, path);
    if (path_join(tmp, sizeof tmp, dir, ".testfence-tmp-XXXXXX", err) < 0)
        return -1;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot create a temporary file in %s", dir);
    int ok = fchmod(fd, mode) == 0 && write_full(fd, data, len) == 0 && fsync(fd) == 0;
    int e = errno;
    ok = close(fd) == 0 && ok;
    if (ok && exclusive)
        ok = link(tmp, path) == 0; /* fails if PATH appeared meanwhile */
    else if (ok)
        ok = rename(tmp, path) == 0;
    if (!ok)
        e = errno ? errno : e;
    if (!ok || exclusive)
        unlink(tmp);
    return ok ? 0 : tf_errnof(err, e, "cannot write %s", path);
}
