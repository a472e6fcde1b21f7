/* oscalls: core/oscalls.h on Linux: fstatfs for procfs, sysmacros for device numbers, the
 * xattr calls. Compiled into tf_core (the one file of this folder below core). */
#include "core/oscalls.h"

#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/xattr.h>

enum { PROC_MAGIC = 0x9fa0 };

bool os_on_procfs(int fd)
{
    struct statfs sf;
    return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_MAGIC;
}

unsigned os_dev_major(dev_t d)
{
    return major(d);
}

unsigned os_dev_minor(dev_t d)
{
    return minor(d);
}

ssize_t os_xattr_list(int fd, const char *path, char *names, size_t len)
{
    return fd >= 0 ? flistxattr(fd, names, len) : llistxattr(path, names, len);
}

ssize_t os_xattr_get(int fd, const char *path, const char *name, void *value, size_t len)
{
    return fd >= 0 ? fgetxattr(fd, name, value, len) : lgetxattr(path, name, value, len);
}
