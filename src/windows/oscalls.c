/* oscalls: core/oscalls.h on Windows. There is no procfs, no openat2, no device numbers in
 * the POSIX sense and no extended attributes through these calls: each answers as Linux does
 * where the feature is missing. */
#include "core/oscalls.h"

#include <errno.h>

bool os_on_procfs(int fd)
{
    (void)fd;
    return false;
}

int os_open_no_links(int dirfd, const char *path, int flags)
{
    (void)dirfd, (void)path, (void)flags;
    errno = ENOSYS;
    return -1;
}

unsigned os_dev_major(dev_t d)
{
    return (unsigned)d;
}

unsigned os_dev_minor(dev_t d)
{
    (void)d;
    return 0;
}

ssize_t os_xattr_list(int fd, const char *path, char *names, size_t len)
{
    (void)fd, (void)path, (void)names, (void)len;
    return 0; /* none */
}

ssize_t os_xattr_get(int fd, const char *path, const char *name, void *value, size_t len)
{
    (void)fd, (void)path, (void)name, (void)value, (void)len;
    errno = ENOTSUP;
    return -1;
}
