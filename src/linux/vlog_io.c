/* vlog_io: core/vlog.h's calls that reach the kernel for the shim (who am I, append a record,
 * send one to run), through raw syscalls: the shim's own I/O must not go through its
 * interposers. Linux only; compiled into tf_core (core/README.md, the platform boundary). */
#include "core/vlog.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static void now_utc(char *out, size_t len)
{
    struct timespec ts;
    struct tm tm;
    char stamp[32];
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, len, "%.*s.%03dZ", (int)n, stamp, (int)(ts.tv_nsec / 1000000) % 1000);
}

/* argv joined with spaces, from /proc. */
static void own_cmdline(char *out, size_t len)
{
    out[0] = '\0';
    long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    long n = syscall(SYS_read, fd, out, len - 1);
    syscall(SYS_close, fd);
    if (n <= 0)
        return;
    while (n > 0 && out[n - 1] == '\0')
        n--;
    for (long i = 0; i < n; i++)
        if (out[i] == '\0')
            out[i] = ' ';
    out[n] = '\0';
}

void vlog_record_self(struct vlog_record *r, struct vlog_self *self)
{
    long n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", self->exe, sizeof self->exe - 1);
    self->exe[n > 0 ? n : 0] = '\0';
    own_cmdline(self->cmdline, sizeof self->cmdline);
    now_utc(self->time, sizeof self->time);
    *r = (struct vlog_record){.time = self->time,
                              .pid = (long)syscall(SYS_getpid),
                              .exe = self->exe,
                              .cmdline = self->cmdline};
}

int vlog_append(const char *path, const char *line, size_t len)
{
    long fd = syscall(SYS_openat, AT_FDCWD, path,
                      O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return errno;
    long n = syscall(SYS_write, fd, line, len);
    int e = n == (long)len ? 0 : n < 0 ? errno : EIO;
    syscall(SYS_close, fd);
    return e;
}

/* A sockaddr_un for PATH in A; *dfd is set when PATH had to be reached through its
 * directory (/proc/self/fd/N/name), and must then be closed. 0 or an errno. */
static int unix_addr(const char *path, struct sockaddr_un *a, long *dfd)
{
    size_t n = strlen(path);
    *dfd = -1;
    a->sun_family = AF_UNIX;
    if (n < sizeof a->sun_path) {
        memcpy(a->sun_path, path, n + 1);
        return 0;
    }
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    if (!slash || slash == path || (size_t)(slash - path) >= sizeof dir)
        return ENAMETOOLONG;
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    *dfd = syscall(SYS_openat, AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (*dfd < 0)
        return errno;
    int k = snprintf(a->sun_path, sizeof a->sun_path, "/proc/self/fd/%ld/%s", *dfd, slash + 1);
    return k > 0 && (size_t)k < sizeof a->sun_path ? 0 : ENAMETOOLONG;
}

int vlog_send(const char *path, const char *line, size_t len)
{
    struct sockaddr_un a;
    long dfd, s = -1;
    int e = unix_addr(path, &a, &dfd);
    if (!e && (s = syscall(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
        e = errno;
    if (!e) {
        /* Never hang on a parent that stopped listening: it takes what it can. */
        struct timeval tv = {10, 0};
        syscall(SYS_setsockopt, s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        long n = syscall(SYS_sendto, s, line, len, MSG_NOSIGNAL, &a, sizeof a);
        e = n == (long)len ? 0 : n < 0 ? errno : EIO;
    }
    if (s >= 0)
        syscall(SYS_close, s);
    if (dfd >= 0)
        syscall(SYS_close, dfd);
    return e;
}
