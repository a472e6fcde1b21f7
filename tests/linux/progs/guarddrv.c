/* guarddrv: change the metadata of a file in one of the ways the seccomp guard must see
 * through: the way glibc does chmod without following links (/proc/self/fd), an empty path
 * on the cwd, a path of PATH_MAX-1 bytes, a cwd deeper than PATH_MAX, a non-dumpable caller,
 * an ioctl the guard does not know. Prints "ok" or the errno's name; exits 0 or 1. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

static int result(long r)
{
    if (r < 0) {
        const char *n = strerrorname_np(errno);
        printf("%s\n", n ? n : "?");
        return 1;
    }
    printf("ok\n");
    return 0;
}

/* "./././.../PATH" of exactly PATH_MAX - 1 bytes. */
static long long_path(const char *path)
{
    static char p[PATH_MAX];
    size_t fill = PATH_MAX - 1 - strlen(path);
    for (size_t i = 0; i + 1 < fill; i += 2)
        memcpy(p + i, "./", 2);
    if (fill % 2)
        p[fill - 1] = '/';
    snprintf(p + fill, sizeof p - fill, "%s", path);
    return chmod(p, 0600);
}

/* Go 25 directories of 200 bytes deep under DIR (inside the writable set), then chmod PATH
 * (relative to the starting directory) from there. */
static long deep_cwd(const char *dir, const char *path)
{
    char name[201], rel[PATH_MAX] = "";
    memset(name, 'd', 200);
    name[200] = '\0';
    if (chdir(dir) < 0)
        return -1;
    for (int i = 0; i < 25; i++) {
        if ((mkdir(name, 0755) < 0 && errno != EEXIST) || chdir(name) < 0)
            return -1;
        strcat(rel, "../");
    }
    strcat(rel, "../");
    strcat(rel, path);
    return chmod(rel, 0600);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: guarddrv procfd-nofollow|empty-cwd|long-path|undumpable|"
                        "ioctl-setversion PATH | deep-cwd DIR PATH\n");
        return 2;
    }
    const char *c = argv[1], *p = argv[2];
    if (!strcmp(c, "procfd-nofollow")) /* glibc 2.36: chmod("/proc/self/fd/N") */
        return result(fchmodat(AT_FDCWD, p, 0600, AT_SYMLINK_NOFOLLOW));
    if (!strcmp(c, "empty-cwd"))
        return result(chdir(p) < 0 ? -1
                                   : syscall(SYS_fchmodat2, AT_FDCWD, "", 0700, AT_EMPTY_PATH));
    if (!strcmp(c, "long-path"))
        return result(long_path(p));
    if (!strcmp(c, "deep-cwd") && argc == 4)
        return result(deep_cwd(p, argv[3]));
    if (!strcmp(c, "undumpable"))
        return result(prctl(PR_SET_DUMPABLE, 0) < 0 ? -1 : chmod(p, 0600));
    if (!strcmp(c, "ioctl-setversion")) {
        int fd = open(p, O_RDONLY), v = 12345;
        return result(fd < 0 ? -1 : ioctl(fd, FS_IOC_SETVERSION, &v));
    }
    fprintf(stderr, "guarddrv: unknown case %s\n", c);
    return 2;
}
