/* vlog_io: core/vlog.h's calls that reach the OS (who am I, append a record, send one to
 * run) in the macOS set, for libtestfence.dylib: the plugin's python backend records its
 * refusals in the workspace's log (tf_record). POSIX calls; there is no shim here whose own
 * I/O must stay out of its interposers, and no `testfence run` to send records to. */
#include "core/vlog.h"
#include "darwin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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

void vlog_record_self(struct vlog_record *r, struct vlog_self *self)
{
    tf_mac_self(self->exe, sizeof self->exe, self->cmdline, sizeof self->cmdline);
    now_utc(self->time, sizeof self->time);
    *r = (struct vlog_record){
        .time = self->time, .pid = (long)getpid(), .exe = self->exe, .cmdline = self->cmdline};
}

int vlog_append(const char *path, const char *line, size_t len)
{
    /* A final link is refused (O_NOFOLLOW), as on Linux; one write, appended. */
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return errno;
    ssize_t n = write(fd, line, len);
    int e = n == (ssize_t)len ? 0 : n < 0 ? errno : EIO;
    close(fd);
    return e;
}

int vlog_send(const char *path, const char *line, size_t len)
{
    (void)path, (void)line, (void)len;
    return ENOSYS; /* no run channel on macOS */
}
