/* probe: try one filesystem write with a raw syscall (no libc wrapper, so no
 * LD_PRELOAD shim can see it) and print "ok" or the errno name. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long op(int argc, char **argv)
{
    const char *o = argv[1];
    if (!strcmp(o, "write") && argc == 3) {
        long fd = syscall(SYS_openat, AT_FDCWD, argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            return -1;
        long n = syscall(SYS_write, fd, "probe\n", 6);
        syscall(SYS_close, fd);
        return n;
    }
    if (!strcmp(o, "truncate") && argc == 3)
        return syscall(SYS_truncate, argv[2], 0);
    if (!strcmp(o, "rename") && argc == 4)
        return syscall(SYS_renameat2, AT_FDCWD, argv[2], AT_FDCWD, argv[3], 0);
    if (!strcmp(o, "link") && argc == 4)
        return syscall(SYS_linkat, AT_FDCWD, argv[2], AT_FDCWD, argv[3], 0);
    if (!strcmp(o, "unlink") && argc == 3)
        return syscall(SYS_unlinkat, AT_FDCWD, argv[2], 0);
    if (!strcmp(o, "mkdir") && argc == 3)
        return syscall(SYS_mkdirat, AT_FDCWD, argv[2], 0755);
    if (!strcmp(o, "fds") && argc == 2) {
        for (int fd = 0; fd < 4096; fd++)
            if (fcntl(fd, F_GETFD) >= 0)
                printf("%d ", fd);
        return 0;
    }
    fprintf(stderr, "usage: probe fds |  write|truncate|unlink|mkdir PATH | rename|link FROM TO\n");
    errno = EINVAL;
    return -2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return op(argc, argv) == -2 ? 2 : 2;
    long r = op(argc, argv);
    if (r == -2)
        return 2;
    if (r < 0) {
        printf("%s\n", strerrorname_np(errno));
        return 1;
    }
    if (strcmp(argv[1], "fds"))
        printf("ok\n");
    return 0;
}
