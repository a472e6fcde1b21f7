/* esc_raw: try one write with syscall() only, never a libc file wrapper, so no LD_PRELOAD
 * shim can see or stop it; built dynamic and static (esc_raw_static). */
#include "esc.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

static long op(int argc, char **argv)
{
    const char *o = argv[1], *p = argv[2];
    if (argc == 3 && !strcmp(o, "openat")) {
        long fd = syscall(SYS_openat, AT_FDCWD, p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            return -1;
        long n = syscall(SYS_write, fd, ESC_PAYLOAD, ESC_PAYLOAD_LEN);
        int saved = errno;
        syscall(SYS_close, fd);
        errno = saved;
        return n == (long)ESC_PAYLOAD_LEN ? 0 : -1;
    }
    if (argc == 3 && !strcmp(o, "open")) /* the legacy syscall, not openat */
        return syscall(SYS_open, p, O_WRONLY | O_TRUNC) < 0 ? -1 : 0;
    if (argc == 3 && !strcmp(o, "truncate"))
        return syscall(SYS_truncate, p, 0);
    if (argc == 3 && !strcmp(o, "unlinkat"))
        return syscall(SYS_unlinkat, AT_FDCWD, p, 0);
    if (argc == 3 && !strcmp(o, "mkdirat"))
        return syscall(SYS_mkdirat, AT_FDCWD, p, 0755);
    if (argc == 4 && !strcmp(o, "renameat2"))
        return syscall(SYS_renameat2, AT_FDCWD, p, AT_FDCWD, argv[3], 0);
    if (argc == 4 && !strcmp(o, "rename")) /* the legacy syscall */
        return syscall(SYS_rename, p, argv[3]);
    errno = EINVAL;
    return -2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return esc_usage(argv[0], "openat|open|truncate|unlinkat|mkdirat PATH | "
                                  "renameat2|rename FROM TO");
    long r = op(argc, argv);
    int err = errno;
    if (r == -2) {
        fprintf(stderr, "%s: bad arguments: %s\n", argv[1], strerror(err));
        return 2;
    }
    return esc_result(r, err);
}
