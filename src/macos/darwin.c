/* darwin: see darwin.h. Each function's first branch is macOS's; the second, the stand-in
 * of the Linux build of the macOS set, where only these differ. */
#include "darwin.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <crt_externs.h>
#include <mach-o/dyld.h>
#include <stdint.h>
#include <sys/param.h>
#endif

int tf_mac_fd_path(int fd, char *out, size_t len)
{
#if defined(__APPLE__)
    char buf[MAXPATHLEN];
    if (fcntl(fd, F_GETPATH, buf) < 0)
        return -1;
    size_t n = strnlen(buf, sizeof buf);
#else
    char link[40], buf[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t r = readlink(link, buf, sizeof buf - 1);
    if (r < 0)
        return errno == ENAMETOOLONG ? 1 : -1;
    if ((size_t)r >= sizeof buf - 1)
        return 1; /* readlink cuts silently */
    buf[r] = '\0';
    if (buf[0] != '/') /* pipe:[...], socket:[...]: F_GETPATH's EBADF */
        return errno = EBADF, -1;
    size_t n = (size_t)r;
#endif
    if (n >= len)
        return 1;
    memcpy(out, buf, n + 1);
    return 0;
}

int tf_mac_birth_time(int dirfd, const char *name, long long *sec, unsigned *nsec)
{
#if defined(__APPLE__)
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return -1;
    if (st.st_birthtimespec.tv_sec == 0 && st.st_birthtimespec.tv_nsec == 0)
        return 1; /* not kept by this file system */
    *sec = st.st_birthtimespec.tv_sec;
    *nsec = (unsigned)st.st_birthtimespec.tv_nsec;
#else
    struct statx x;
    if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &x) < 0)
        return -1;
    if (!(x.stx_mask & STATX_BTIME))
        return 1;
    *sec = x.stx_btime.tv_sec;
    *nsec = x.stx_btime.tv_nsec;
#endif
    return 0;
}

int tf_mac_rename_excl(int fd1, const char *from, int fd2, const char *to)
{
#if defined(__APPLE__)
    return renameatx_np(fd1, from, fd2, to, RENAME_EXCL);
#else
    return renameat2(fd1, from, fd2, to, RENAME_NOREPLACE);
#endif
}

void tf_mac_self(char *exe, size_t exelen, char *cmdline, size_t cmdlen)
{
    exe[0] = cmdline[0] = '\0';
#if defined(__APPLE__)
    char buf[MAXPATHLEN];
    uint32_t size = sizeof buf;
    if (_NSGetExecutablePath(buf, &size) == 0)
        snprintf(exe, exelen, "%s", buf);
    char **argv = *_NSGetArgv();
    size_t k = 0;
    for (int i = 0; argv && i < *_NSGetArgc() && argv[i] && k + 1 < cmdlen; i++) {
        int w = snprintf(cmdline + k, cmdlen - k, "%s%s", i ? " " : "", argv[i]);
        if (w < 0)
            break;
        k += (size_t)w < cmdlen - k ? (size_t)w : cmdlen - k - 1;
    }
#else
    ssize_t n = readlink("/proc/self/exe", exe, exelen - 1);
    exe[n > 0 ? n : 0] = '\0';
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    n = read(fd, cmdline, cmdlen - 1);
    close(fd);
    if (n <= 0)
        return;
    while (n > 0 && cmdline[n - 1] == '\0')
        n--;
    for (ssize_t i = 0; i < n; i++)
        if (cmdline[i] == '\0')
            cmdline[i] = ' ';
    cmdline[n] = '\0';
#endif
}

#if !defined(__APPLE__)
extern char **environ;
#endif

char ***tf_mac_environ(void)
{
#if defined(__APPLE__)
    return _NSGetEnviron();
#else
    return &environ;
#endif
}
