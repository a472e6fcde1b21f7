/* mountinfo: the kernel's list of the namespace's mounts, scanned line by line in a buffer on
 * the stack with raw syscalls (the shim calls it from inside interposed libc calls). */
#include "mountinfo.h"

#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { LINE_MAX_BYTES = 8192 };

/* Is the field F..END, with mountinfo's octal escapes (" \t\n\\" as \ooo), the text S? */
static bool field_is(const char *f, const char *end, const char *s)
{
    while (f < end) {
        char c = *f++;
        if (c == '\\' && end - f >= 3 && f[0] >= '0' && f[0] <= '3' && f[1] >= '0' && f[1] <= '7' &&
            f[2] >= '0' && f[2] <= '7') {
            c = (char)((f[0] - '0') << 6 | (f[1] - '0') << 3 | (f[2] - '0'));
            f += 3;
        }
        if (c != *s++)
            return false;
    }
    return *s == '\0';
}

/* Does the line L..END name ABS as its mount point (the fifth field)? */
static bool line_names(const char *l, const char *end, const char *abs)
{
    for (int field = 1; field < 5; field++) {
        const char *sp = memchr(l, ' ', (size_t)(end - l));
        if (!sp)
            return false;
        l = sp + 1;
    }
    const char *sp = memchr(l, ' ', (size_t)(end - l));
    return field_is(l, sp ? sp : end, abs);
}

bool mountinfo_lists(const char *abs)
{
    char buf[LINE_MAX_BYTES];
    size_t have = 0;
    bool skip = false, found = false; /* skip: the rest of a line too long for BUF */
    long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    for (;;) {
        long n = syscall(SYS_read, (int)fd, buf + have, sizeof buf - have);
        if (n <= 0)
            break;
        have += (size_t)n;
        char *l = buf, *nl;
        while (!found && (nl = memchr(l, '\n', have - (size_t)(l - buf)))) {
            found = !skip && line_names(l, nl, abs);
            skip = false;
            l = nl + 1;
        }
        if (found)
            break;
        have -= (size_t)(l - buf);
        memmove(buf, l, have);
        if (have == sizeof buf) { /* one line fills the buffer: not ours to match */
            have = 0;
            skip = true;
        }
    }
    syscall(SYS_close, (int)fd);
    return found;
}
