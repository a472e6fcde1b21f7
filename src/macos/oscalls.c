/* oscalls: core/oscalls.h in the macOS set. Each is a Linux call macOS does not have in this
 * form (procfs, openat2, Linux's device numbering, Linux's xattr calls): each answers as a Linux
 * without it does, as src/windows/oscalls.c does. */
#include "core/oscalls.h"

#include <errno.h>

bool os_on_procfs(int fd)
{
    (void)fd;
    return false; /* no procfs */
}

int os_open_no_links(int dirfd, const char *path, int flags)
{
    (void)dirfd, (void)path, (void)flags;
    errno = ENOSYS; /* no openat2: callers walk the path instead */
    return -1;
}

unsigned os_dev_major(dev_t d)
{
    return (unsigned)(((unsigned long)d >> 24) & 0xff); /* macOS's major() */
}

unsigned os_dev_minor(dev_t d)
{
    return (unsigned)((unsigned long)d & 0xffffff); /* macOS's minor() */
}

ssize_t os_xattr_list(int fd, const char *path, char *names, size_t len)
{
    (void)fd, (void)path, (void)names, (void)len;
    return 0; /* none read (macOS's listxattr takes other arguments: not used yet) */
}

ssize_t os_xattr_get(int fd, const char *path, const char *name, void *value, size_t len)
{
    (void)fd, (void)path, (void)name, (void)value, (void)len;
    errno = ENOTSUP;
    return -1;
}
