/* The libc functions the shim interposes (glibc 2.36 names; docs/diagnostics.md has
 * the list). Each one calls the real function first and looks at nothing unless it
 * failed, except in block mode and for metadata calls, which Landlock cannot block. */
#undef _FORTIFY_SOURCE
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#define EXPORT __attribute__((visibility("default")))

/* glibc's fortified entry points, declared by its headers only under _FORTIFY_SOURCE. */
EXPORT int __open_2(const char *path, int flags);
EXPORT int __open64_2(const char *path, int flags);
EXPORT int __openat_2(int dirfd, const char *path, int flags);
EXPORT int __openat64_2(int dirfd, const char *path, int flags);

/* real_: the real NAME, looked up once (into a slot of this function's own). */
#define LOOKUP_REAL(name)                                                                          \
    static void *slot_;                                                                            \
    __typeof__(&name) real_ = (__typeof__(&name))shim_real(&slot_, #name)

/* Call the real NAME(...) between the two hooks; FAIL is its failure value. */
#define FENCED2(name, fail, how, d1, p1, d2, p2, ...)                                              \
    do {                                                                                           \
        LOOKUP_REAL(name);                                                                         \
        if (!real_) {                                                                              \
            errno = ENOSYS;                                                                        \
            return fail;                                                                           \
        }                                                                                          \
        if (shim_pre(#name, how, d1, p1, d2, p2))                                                  \
            return fail;                                                                           \
        __typeof__(real_(__VA_ARGS__)) r_ = real_(__VA_ARGS__);                                    \
        if (r_ == fail)                                                                            \
            shim_post(#name, how, d1, p1, d2, p2);                                                 \
        return r_;                                                                                 \
    } while (0)

#define FENCED(name, fail, how, dirfd, path, ...)                                                  \
    FENCED2(name, fail, how, dirfd, path, AT_FDCWD, NULL, __VA_ARGS__)

#define NOFOLLOW_IF(flags, bit) ((flags) & (bit) ? SHIM_NOFOLLOW : 0)

/* Opening for reading is never looked at; creating exclusively acts on the name itself. */
static unsigned open_how(int flags)
{
    bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) ||
                  (flags & O_TMPFILE) == O_TMPFILE;
    if (!writes)
        return SHIM_SKIP;
    bool excl = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
    return (flags & O_NOFOLLOW) || excl ? SHIM_NOFOLLOW : 0;
}

static unsigned fopen_how(const char *mode)
{
    if (!mode || !strpbrk(mode, "wa+"))
        return SHIM_SKIP;
    return strchr(mode, 'x') ? SHIM_NOFOLLOW : 0;
}

static bool needs_mode(int flags)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

#define OPEN_MODE(flags, mode)                                                                     \
    mode_t mode = 0;                                                                               \
    if (needs_mode(flags)) {                                                                       \
        va_list ap;                                                                                \
        va_start(ap, flags);                                                                       \
        mode = va_arg(ap, mode_t);                                                                 \
        va_end(ap);                                                                                \
    }

/* ---- open family ----------------------------------------------------------- */

EXPORT int open(const char *path, int flags, ...)
{
    OPEN_MODE(flags, mode);
    FENCED(open, -1, open_how(flags), AT_FDCWD, path, path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
    OPEN_MODE(flags, mode);
    FENCED(open64, -1, open_how(flags), AT_FDCWD, path, path, flags, mode);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    OPEN_MODE(flags, mode);
    FENCED(openat, -1, open_how(flags), dirfd, path, dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    OPEN_MODE(flags, mode);
    FENCED(openat64, -1, open_how(flags), dirfd, path, dirfd, path, flags, mode);
}

EXPORT int __open_2(const char *path, int flags)
{
    FENCED(__open_2, -1, open_how(flags), AT_FDCWD, path, path, flags);
}

EXPORT int __open64_2(const char *path, int flags)
{
    FENCED(__open64_2, -1, open_how(flags), AT_FDCWD, path, path, flags);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
    FENCED(__openat_2, -1, open_how(flags), dirfd, path, dirfd, path, flags);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
    FENCED(__openat64_2, -1, open_how(flags), dirfd, path, dirfd, path, flags);
}

EXPORT int creat(const char *path, mode_t mode)
{
    FENCED(creat, -1, 0, AT_FDCWD, path, path, mode);
}

EXPORT int creat64(const char *path, mode_t mode)
{
    FENCED(creat64, -1, 0, AT_FDCWD, path, path, mode);
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
    FENCED(fopen, NULL, fopen_how(mode), AT_FDCWD, path, path, mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
    FENCED(fopen64, NULL, fopen_how(mode), AT_FDCWD, path, path, mode);
}

/* A NULL path reopens the same file with a new mode: nothing new is named. */
EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream)
{
    FENCED(freopen, NULL, path ? fopen_how(mode) : SHIM_SKIP, AT_FDCWD, path, path, mode, stream);
}

EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
    FENCED(freopen64, NULL, path ? fopen_how(mode) : SHIM_SKIP, AT_FDCWD, path, path, mode, stream);
}

/* glibc's tmpfile ignores TMPDIR and creates in P_tmpdir (/tmp), which the fence refuses:
 * the shim makes the unnamed file in the run's temp dir. Where it cannot, glibc's runs and
 * is recorded, with the directory it names. */
EXPORT FILE *tmpfile(void)
{
    FILE *f;
    if (shim_tmpfile(&f))
        return f;
    FENCED(tmpfile, NULL, 0, AT_FDCWD, P_tmpdir, );
}

EXPORT FILE *tmpfile64(void)
{
    FILE *f;
    if (shim_tmpfile(&f))
        return f;
    FENCED(tmpfile64, NULL, 0, AT_FDCWD, P_tmpdir, );
}

EXPORT int truncate(const char *path, off_t len)
{
    FENCED(truncate, -1, 0, AT_FDCWD, path, path, len);
}

EXPORT int truncate64(const char *path, off64_t len)
{
    FENCED(truncate64, -1, 0, AT_FDCWD, path, path, len);
}

/* ---- creating and removing names ------------------------------------------- */

EXPORT int mkdir(const char *path, mode_t mode)
{
    FENCED(mkdir, -1, SHIM_NOFOLLOW, AT_FDCWD, path, path, mode);
}

EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
    FENCED(mkdirat, -1, SHIM_NOFOLLOW, dirfd, path, dirfd, path, mode);
}

EXPORT int mknod(const char *path, mode_t mode, dev_t dev)
{
    FENCED(mknod, -1, SHIM_NOFOLLOW, AT_FDCWD, path, path, mode, dev);
}

EXPORT int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
    FENCED(mknodat, -1, SHIM_NOFOLLOW, dirfd, path, dirfd, path, mode, dev);
}

EXPORT int mkfifo(const char *path, mode_t mode)
{
    FENCED(mkfifo, -1, SHIM_NOFOLLOW, AT_FDCWD, path, path, mode);
}

EXPORT int mkfifoat(int dirfd, const char *path, mode_t mode)
{
    FENCED(mkfifoat, -1, SHIM_NOFOLLOW, dirfd, path, dirfd, path, mode);
}

/* The filesystem path a unix socket address names, copied NUL-terminated into
 * BUF; NULL for abstract sockets and other families, which make no file. */
static const char *unix_path(const struct sockaddr *addr, socklen_t len, char *buf, size_t size)
{
    const struct sockaddr_un *un = (const struct sockaddr_un *)(const void *)addr;
    size_t off = offsetof(struct sockaddr_un, sun_path);
    if (!addr || len <= off || addr->sa_family != AF_UNIX || un->sun_path[0] == '\0')
        return NULL;
    size_t n = len - off < size - 1 ? len - off : size - 1;
    memcpy(buf, un->sun_path, n);
    buf[n] = '\0';
    return buf;
}

/* bind() of a unix socket creates a file at its path, like mknod. */
EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
    char buf[sizeof((struct sockaddr_un *)0)->sun_path + 1];
    const char *path = unix_path(addr, len, buf, sizeof buf);
    FENCED(bind, -1, path ? SHIM_NOFOLLOW : SHIM_SKIP, AT_FDCWD, path, fd, addr, len);
}

EXPORT int unlink(const char *path)
{
    FENCED(unlink, -1, SHIM_NOFOLLOW | SHIM_REMOVES, AT_FDCWD, path, path);
}

EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
    FENCED(unlinkat, -1, SHIM_NOFOLLOW | SHIM_REMOVES, dirfd, path, dirfd, path, flags);
}

EXPORT int rmdir(const char *path)
{
    FENCED(rmdir, -1, SHIM_NOFOLLOW | SHIM_REMOVES, AT_FDCWD, path, path);
}

EXPORT int rename(const char *from, const char *to)
{
    FENCED2(rename, -1, SHIM_NOFOLLOW | SHIM_REMOVES, AT_FDCWD, from, AT_FDCWD, to, from, to);
}

EXPORT int renameat(int fromfd, const char *from, int tofd, const char *to)
{
    FENCED2(renameat, -1, SHIM_NOFOLLOW | SHIM_REMOVES, fromfd, from, tofd, to, fromfd, from, tofd,
            to);
}

EXPORT int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
    FENCED2(renameat2, -1, SHIM_NOFOLLOW | SHIM_REMOVES, fromfd, from, tofd, to, fromfd, from, tofd,
            to, flags);
}

EXPORT int link(const char *from, const char *to)
{
    FENCED2(link, -1, SHIM_NOFOLLOW, AT_FDCWD, from, AT_FDCWD, to, from, to);
}

EXPORT int linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
    FENCED2(linkat, -1, SHIM_NOFOLLOW, fromfd, from, tofd, to, fromfd, from, tofd, to, flags);
}

EXPORT int symlink(const char *target, const char *path)
{
    FENCED(symlink, -1, SHIM_NOFOLLOW, AT_FDCWD, path, target, path);
}

EXPORT int symlinkat(const char *target, int dirfd, const char *path)
{
    FENCED(symlinkat, -1, SHIM_NOFOLLOW, dirfd, path, target, dirfd, path);
}

/* ---- temporary files: the template names the directory written ------------- */

EXPORT int mkstemp(char *tmpl)
{
    FENCED(mkstemp, -1, SHIM_NOFOLLOW, AT_FDCWD, tmpl, tmpl);
}

EXPORT int mkstemp64(char *tmpl)
{
    FENCED(mkstemp64, -1, SHIM_NOFOLLOW, AT_FDCWD, tmpl, tmpl);
}

EXPORT int mkostemp(char *tmpl, int flags)
{
    FENCED(mkostemp, -1, SHIM_NOFOLLOW, AT_FDCWD, tmpl, tmpl, flags);
}

EXPORT int mkostemp64(char *tmpl, int flags)
{
    FENCED(mkostemp64, -1, SHIM_NOFOLLOW, AT_FDCWD, tmpl, tmpl, flags);
}

EXPORT int mkstemps(char *tmpl, int suffixlen)
{
    FENCED(mkstemps, -1, SHIM_NOFOLLOW, AT_FDCWD, tmpl, tmpl, suffixlen);
}

EXPORT int mkstemps64(char *tmpl, int suffixlen)
{
    FENCED(mkstemps64, -1, SHIM_NOFOLLOW, AT_FDCWD, tmpl, tmpl, suffixlen);
}

EXPORT int mkostemps(char *tmpl, int suffixlen, int flags)
{
    FENCED(mkostemps, -1, SHIM_NOFOLLOW, AT_FDCWD, tmpl, tmpl, suffixlen, flags);
}

EXPORT int mkostemps64(char *tmpl, int suffixlen, int flags)
{
    FENCED(mkostemps64, -1, SHIM_NOFOLLOW, AT_FDCWD, tmpl, tmpl, suffixlen, flags);
}

EXPORT char *mkdtemp(char *tmpl)
{
    FENCED(mkdtemp, NULL, SHIM_NOFOLLOW, AT_FDCWD, tmpl, tmpl);
}

/* ---- libc's own removals and spawns, which call no interposed function --------- */

EXPORT int remove(const char *path)
{
    FENCED(remove, -1, SHIM_NOFOLLOW | SHIM_REMOVES, AT_FDCWD, path, path);
}

#define REAL_OR_ENOSYS(name)                                                                       \
    LOOKUP_REAL(name);                                                                             \
    if (!real_)                                                                                    \
        return ENOSYS;

EXPORT int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd,
                                            const char *path, int oflag, mode_t mode)
{
    REAL_OR_ENOSYS(posix_spawn_file_actions_addopen);
    /* --backend preload: no kernel fence, so the open the child would make is refused here. */
    if (shim_pre("posix_spawn", open_how(oflag), AT_FDCWD, path, AT_FDCWD, NULL))
        return EACCES;
    int r = real_(fa, fd, path, oflag, mode);
    if (r == 0)
        shim_spawn_open(fa, path, open_how(oflag));
    return r;
}

EXPORT int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa)
{
    REAL_OR_ENOSYS(posix_spawn_file_actions_destroy);
    shim_spawn_forget(fa);
    return real_(fa);
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    REAL_OR_ENOSYS(posix_spawn);
    return shim_spawn_post(real_(pid, path, fa, attr, argv, envp), fa);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    REAL_OR_ENOSYS(posix_spawnp);
    return shim_spawn_post(real_(pid, file, fa, attr, argv, envp), fa);
}

/* ---- ioctl: inode flags (chattr) and the like, where no guard judges them ------- */

/* glibc declares `int ioctl(int, unsigned long, ...)`; every request takes one argument. */
EXPORT int ioctl(int fd, unsigned long req, ...)
{
    va_list ap;
    va_start(ap, req);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    static void *slot_;
    int (*real)(int, unsigned long, ...) =
        (int (*)(int, unsigned long, ...))shim_real(&slot_, "ioctl");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (shim_ioctl_pre(fd, req))
        return -1;
    return real(fd, req, arg);
}

/* ---- metadata: Landlock cannot block these, so the shim refuses them beforehand -- */

#define META SHIM_META
#define META_AT(flags)                                                                             \
    (SHIM_META | NOFOLLOW_IF(flags, AT_SYMLINK_NOFOLLOW) | ((flags)&AT_EMPTY_PATH ? SHIM_EMPTY : 0))

EXPORT int chmod(const char *path, mode_t mode)
{
    FENCED(chmod, -1, META, AT_FDCWD, path, path, mode);
}

EXPORT int lchmod(const char *path, mode_t mode)
{
    FENCED(lchmod, -1, META | SHIM_NOFOLLOW, AT_FDCWD, path, path, mode);
}

EXPORT int fchmod(int fd, mode_t mode)
{
    FENCED(fchmod, -1, META, fd, NULL, fd, mode);
}

EXPORT int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
    FENCED(fchmodat, -1, META_AT(flags), dirfd, path, dirfd, path, mode, flags);
}

EXPORT int chown(const char *path, uid_t uid, gid_t gid)
{
    FENCED(chown, -1, META, AT_FDCWD, path, path, uid, gid);
}

EXPORT int lchown(const char *path, uid_t uid, gid_t gid)
{
    FENCED(lchown, -1, META | SHIM_NOFOLLOW, AT_FDCWD, path, path, uid, gid);
}

EXPORT int fchown(int fd, uid_t uid, gid_t gid)
{
    FENCED(fchown, -1, META, fd, NULL, fd, uid, gid);
}

EXPORT int fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
    FENCED(fchownat, -1, META_AT(flags), dirfd, path, dirfd, path, uid, gid, flags);
}

EXPORT int utime(const char *path, const struct utimbuf *times)
{
    FENCED(utime, -1, META, AT_FDCWD, path, path, times);
}

EXPORT int utimes(const char *path, const struct timeval times[2])
{
    FENCED(utimes, -1, META, AT_FDCWD, path, path, times);
}

EXPORT int lutimes(const char *path, const struct timeval times[2])
{
    FENCED(lutimes, -1, META | SHIM_NOFOLLOW, AT_FDCWD, path, path, times);
}

EXPORT int futimes(int fd, const struct timeval times[2])
{
    FENCED(futimes, -1, META, fd, NULL, fd, times);
}

EXPORT int futimesat(int dirfd, const char *path, const struct timeval times[2])
{
    FENCED(futimesat, -1, META, dirfd, path, dirfd, path, times);
}

/* utimensat(fd, NULL, ...) is futimens: it names the open file. */
EXPORT int utimensat(int dirfd, const char *path, const struct timespec times[2], int flags)
{
    FENCED(utimensat, -1, META_AT(flags), dirfd, path, dirfd, path, times, flags);
}

EXPORT int futimens(int fd, const struct timespec times[2])
{
    FENCED(futimens, -1, META, fd, NULL, fd, times);
}

EXPORT int setxattr(const char *path, const char *name, const void *value, size_t size, int flags)
{
    FENCED(setxattr, -1, META, AT_FDCWD, path, path, name, value, size, flags);
}

EXPORT int lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags)
{
    FENCED(lsetxattr, -1, META | SHIM_NOFOLLOW, AT_FDCWD, path, path, name, value, size, flags);
}

EXPORT int fsetxattr(int fd, const char *name, const void *value, size_t size, int flags)
{
    FENCED(fsetxattr, -1, META, fd, NULL, fd, name, value, size, flags);
}

EXPORT int removexattr(const char *path, const char *name)
{
    FENCED(removexattr, -1, META, AT_FDCWD, path, path, name);
}

EXPORT int lremovexattr(const char *path, const char *name)
{
    FENCED(lremovexattr, -1, META | SHIM_NOFOLLOW, AT_FDCWD, path, path, name);
}

EXPORT int fremovexattr(int fd, const char *name)
{
    FENCED(fremovexattr, -1, META, fd, NULL, fd, name);
}
