/* vlog_io: core/vlog.h's calls that reach the OS (who am I, append a record, send one to
 * run) on Windows, for libtestfence.dll: the plugin's python backend records its refusals
 * in the workspace's log (tf_record). There is no `testfence run` here to send them to. */
#include "core/vlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <windows.h>

static void now_utc(char *out, size_t len)
{
    SYSTEMTIME t;
    GetSystemTime(&t);
    snprintf(out, len, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ", t.wYear, t.wMonth, t.wDay, t.wHour,
             t.wMinute, t.wSecond, t.wMilliseconds);
}

void vlog_record_self(struct vlog_record *r, struct vlog_self *self)
{
    DWORD n = GetModuleFileNameA(NULL, self->exe, (DWORD)sizeof self->exe);
    self->exe[n < sizeof self->exe ? n : 0] = '\0';
    for (char *p = self->exe; *p; p++)
        if (*p == '\\')
            *p = '/';
    snprintf(self->cmdline, sizeof self->cmdline, "%s", GetCommandLineA());
    now_utc(self->time, sizeof self->time);
    *r = (struct vlog_record){.time = self->time,
                              .pid = (long)GetCurrentProcessId(),
                              .exe = self->exe,
                              .cmdline = self->cmdline};
}

int vlog_append(const char *path, const char *line, size_t len)
{
    /* posix.h's open: a final link or junction is refused (O_NOFOLLOW), as on Linux. */
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return errno;
    int n = _write(fd, line, (unsigned)len);
    int e = n == (int)len ? 0 : n < 0 ? errno : EIO;
    _close(fd);
    return e;
}

int vlog_send(const char *path, const char *line, size_t len)
{
    (void)path, (void)line, (void)len;
    return ENOSYS; /* no run channel on Windows */
}
