/* compat: posix.h's calls (statx, renameat2, strerrorname_np) over POSIX and darwin.c. */
#include "darwin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int tf_mac_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *x)
{
    struct stat st;
    if (fstatat(dirfd, path, &st, flags & AT_SYMLINK_NOFOLLOW) < 0)
        return -1;
    memset(x, 0, sizeof *x);
    x->stx_mask = STATX_TYPE | STATX_MODE | STATX_CTIME;
    x->stx_mode = (unsigned short)st.st_mode;
    /* Whole seconds: what the hazard scan compares them with (the run's start) is one. */
    x->stx_ctime.tv_sec = (long long)st.st_ctime;
    x->stx_mtime.tv_sec = (long long)st.st_mtime;
    if ((mask & STATX_BTIME) &&
        tf_mac_birth_time(dirfd, path, &x->stx_btime.tv_sec, &x->stx_btime.tv_nsec) == 0)
        x->stx_mask |= STATX_BTIME;
    return 0;
}

int tf_mac_renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags)
{
    if (flags == 0)
        return renameat(fd1, from, fd2, to);
    if (flags != RENAME_NOREPLACE) {
        errno = EINVAL;
        return -1;
    }
    return tf_mac_rename_excl(fd1, from, fd2, to);
}

const char *tf_mac_errname(int e)
{
#define N(x)                                                                                       \
    {                                                                                              \
        x, #x                                                                                      \
    }
    static const struct {
        int e;
        const char *name;
    } names[] = {N(EPERM),  N(ENOENT),  N(EIO),     N(EBADF),     N(EACCES),    N(EEXIST),
                 N(EXDEV),  N(ENOTDIR), N(EISDIR),  N(EINVAL),    N(ENOSPC),    N(EROFS),
                 N(EMLINK), N(EBUSY),   N(ETXTBSY), N(ENOTEMPTY), N(ELOOP),     N(ENAMETOOLONG),
                 N(ENOSYS), N(ENOTSUP), N(EDQUOT),  N(EFBIG),     N(EAGAIN),    N(EINTR),
                 N(ENXIO),  N(ENODEV),  N(EFAULT),  N(ENOMEM),    N(EOPNOTSUPP)};
#undef N
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].e == e)
            return names[i].name;
    return NULL;
}
