/* oscalls: core/oscalls.h on Linux: fstatfs for procfs, sysmacros for device numbers, the
 * xattr calls, openat2. Compiled into tf_core, as vlog_io.c is (the files of this folder below
 * core). */
#include "core/oscalls.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

enum { PROC_MAGIC = 0x9fa0 };

bool os_on_procfs(int fd)
{
    struct statfs sf;
    return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_MAGIC;
}

int os_open_no_links(int dirfd, const char *path, int flags)
{
    static bool unavailable;
    if (__atomic_load_n(&unavailable, __ATOMIC_RELAXED)) {
        errno = ENOSYS;
        return -1;
    }
    struct open_how how = {.flags = (unsigned)(O_PATH | O_CLOEXEC | flags),
                           .resolve = RESOLVE_NO_SYMLINKS};
    int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd < 0 && (errno == ENOSYS || errno == EPERM))
        __atomic_store_n(&unavailable, true, __ATOMIC_RELAXED);
    return fd;
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
