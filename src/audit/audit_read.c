#include "audit_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read a regular file without ever blocking (a FIFO or a device named as a path). */
char *tf_audit_read(const char *path, size_t max, size_t *len, char *msg, size_t msglen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(msg, msglen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
        snprintf(msg, msglen, "%s: %s", path,
                 S_ISREG(st.st_mode) ? "too large, not audited" : "not a regular file");
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap);
    ssize_t r = 0;
    while (buf && n < cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    int saved = errno;
    close(fd);
    if (!buf || r < 0) {
        snprintf(msg, msglen, "%s: %s", path, buf ? strerror(saved) : "out of memory");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
