/* esc_meta: try to change an existing file's metadata in one way (mode, owner, times,
 * xattrs, inode flags), by path, through an fd, or through an O_PATH fd. */
#include "esc.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Newer than Debian 12's headers (x86_64 numbers). */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#endif
#ifndef SYS_removexattrat
#define SYS_removexattrat 466
#endif

/* struct xattr_args (Linux 6.13) for setxattrat. */
struct esc_xattr_args {
    unsigned long long value;
    unsigned int size;
    unsigned int flags;
};

#define XNAME "user.escape"
#define XVAL "escaped"

static const struct timespec times2001[2] = {{978307200, 0}, {978307200, 0}};

static long op(int argc, char **argv)
{
    const char *o = argv[1], *p = argv[2];
    /* An fd the command was given open (its stdin the shell opened read-only, say):
     * the path was never seen inside the fence. */
    if (argc == 3 && (!strcmp(o, "fchmod-fd") || !strcmp(o, "fsetxattr-fd"))) {
        int fd = (int)strtol(p, NULL, 10);
        return o[1] == 'c' ? fchmod(fd, 0666) : fsetxattr(fd, XNAME, XVAL, strlen(XVAL), 0);
    }
    /* Metadata calls need no write access to the file: an fd opened read-only (which
     * the fence allows) or an O_PATH fd is enough, so those routes are cases too. */
    int rd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    int pf = open(p, O_PATH | O_NOFOLLOW);
    if (pf < 0)
        return -2;
    char magic[64];
    snprintf(magic, sizeof magic, "/proc/self/fd/%d", pf);

    if (argc == 3 && !strcmp(o, "chmod"))
        return chmod(p, 0666);
    if (argc == 3 && !strcmp(o, "fchmod"))
        return fchmod(rd, 0666);
    if (argc == 3 && !strcmp(o, "fchmodat2-opath"))
        return syscall(SYS_fchmodat2, pf, "", 0666, AT_EMPTY_PATH);
    if (argc == 3 && !strcmp(o, "chmod-procfd"))
        return chmod(magic, 0666);
    if (argc == 5 && (!strcmp(o, "chown") || !strcmp(o, "fchown") || !strcmp(o, "lchown"))) {
        uid_t u = (uid_t)strtol(argv[3], NULL, 10);
        gid_t g = (gid_t)strtol(argv[4], NULL, 10);
        return o[0] == 'c' ? chown(p, u, g) : o[0] == 'f' ? fchown(rd, u, g) : lchown(p, u, g);
    }
    if (argc == 3 && !strcmp(o, "utimensat"))
        return utimensat(AT_FDCWD, p, times2001, 0);
    if (argc == 3 && !strcmp(o, "futimens"))
        return futimens(rd, times2001);
    if (argc == 3 && !strcmp(o, "setxattr"))
        return setxattr(p, XNAME, XVAL, strlen(XVAL), 0);
    if (argc == 3 && !strcmp(o, "lsetxattr"))
        return lsetxattr(p, XNAME, XVAL, strlen(XVAL), 0);
    if (argc == 3 && !strcmp(o, "fsetxattr"))
        return fsetxattr(rd, XNAME, XVAL, strlen(XVAL), 0);
    if (argc == 3 && !strcmp(o, "setxattrat")) {
        struct esc_xattr_args a = {.value = (unsigned long long)(uintptr_t)XVAL,
                                   .size = (unsigned)strlen(XVAL)};
        return syscall(SYS_setxattrat, AT_FDCWD, p, 0, XNAME, &a, sizeof a);
    }
    if (argc == 4 && !strcmp(o, "removexattr"))
        return removexattr(p, argv[3]);
    if (argc == 4 && !strcmp(o, "removexattrat"))
        return syscall(SYS_removexattrat, AT_FDCWD, p, 0, argv[3]);
    if (argc == 3 && !strcmp(o, "setflags")) {
        /* chattr +d through a read-only fd: inode flags are metadata too. */
        int flags;
        if (ioctl(rd, FS_IOC_GETFLAGS, &flags) < 0)
            return -2;
        flags |= FS_NODUMP_FL;
        return ioctl(rd, FS_IOC_SETFLAGS, &flags);
    }
    errno = EINVAL;
    return -2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return esc_usage(argv[0], "chmod|fchmod|fchmodat2-opath|chmod-procfd|utimensat|futimens|"
                                  "setxattr|lsetxattr|fsetxattr|setxattrat|setflags PATH | "
                                  "fchmod-fd|fsetxattr-fd FD | "
                                  "chown|fchown|lchown PATH UID GID | "
                                  "removexattr|removexattrat PATH NAME");
    long r = op(argc, argv);
    int err = errno;
    if (r == -2) {
        fprintf(stderr, "%s: bad arguments or setup failed: %s\n", argv[1], strerror(err));
        return 2;
    }
    return esc_result(r, err);
}
