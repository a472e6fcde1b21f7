/* oscalls: the Linux calls core makes that no POSIX header declares (procfs detection, device
 * numbers, extended attributes, openat2), so no file of core includes a Linux header. Implemented
 * by src/linux/oscalls.c, compiled into tf_core on Linux; the Windows build uses none of them. */
#ifndef TESTFENCE_OSCALLS_H
#define TESTFENCE_OSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* FD is open on procfs (fstatfs's f_type). */
bool os_on_procfs(int fd);

/* openat2(2) of PATH beneath DIRFD refusing every symlink on the way, magic links included
 * (RESOLVE_NO_SYMLINKS), as an O_PATH | O_CLOEXEC descriptor with FLAGS added: -1 with errno
 * when it cannot; a kernel without it (or a filter that forbids it) is remembered (ENOSYS). */
int os_open_no_links(int dirfd, const char *path, int flags);

/* The major and minor numbers of the device D. */
unsigned os_dev_major(dev_t d);
unsigned os_dev_minor(dev_t d);

/* The names of the extended attributes of the file FD, or (FD < 0) of PATH without following
 * a final symlink, into NAMES: flistxattr(2) / llistxattr(2). */
ssize_t os_xattr_list(int fd, const char *path, char *names, size_t len);

/* The value of the attribute NAME, the same way: fgetxattr(2) / lgetxattr(2). */
ssize_t os_xattr_get(int fd, const char *path, const char *name, void *value, size_t len);

#endif
