/* esc_ns: try to change a directory's entries in one way (mkdir, rmdir, unlink, mknod,
 * mkfifo, a bound unix socket, symlink, link, rename, renameat2 exchange/noreplace), or a
 * mount's flags (mount_setattr: the mount at PATH made noexec, nosuid and nodev). */
#include "esc.h"

#include <fcntl.h>
#include <spawn.h>
#include <linux/mount.h>
#include <mqueue.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static long bind_unix(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) {
        errno = ENAMETOOLONG;
        return -2;
    }
    memcpy(a.sun_path, path, strlen(path) + 1);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0)
        return -2;
    return bind(s, (const struct sockaddr *)&a, sizeof a);
}

static long op(int argc, char **argv)
{
    const char *o = argv[1], *p = argv[2];
    if (argc == 3 && !strcmp(o, "mkdir"))
        return mkdir(p, 0755);
    if (argc == 3 && !strcmp(o, "rmdir"))
        return rmdir(p);
    if (argc == 3 && !strcmp(o, "unlink"))
        return unlink(p);
    if (argc == 3 && !strcmp(o, "mknod-reg"))
        return mknod(p, S_IFREG | 0644, 0);
    if (argc == 3 && !strcmp(o, "mknod-chr")) /* a /dev/null twin: needs CAP_MKNOD */
        return mknod(p, S_IFCHR | 0666, makedev(1, 3));
    if (argc == 3 && !strcmp(o, "mknod-blk")) /* loop0's twin: needs CAP_MKNOD */
        return mknod(p, S_IFBLK | 0666, makedev(7, 0));
    if (argc == 3 && !strcmp(o, "mkfifo"))
        return mkfifo(p, 0644);
    if (argc == 3 && !strcmp(o, "bind"))
        return bind_unix(p);
    if (argc == 3 && !strcmp(o, "remove")) /* libc's: it unlinks through no exported call */
        return remove(p);
    if (argc == 3 && !strcmp(o, "spawn-open")) { /* the open happens in libc, in the child */
        posix_spawn_file_actions_t fa;
        pid_t pid;
        char prog[] = "/bin/true", *args[] = {prog, NULL};
        if (posix_spawn_file_actions_init(&fa) ||
            posix_spawn_file_actions_addopen(&fa, 1, p, O_WRONLY | O_TRUNC, 0644))
            return -2;
        int r = posix_spawn(&pid, args[0], &fa, NULL, args, environ);
        posix_spawn_file_actions_destroy(&fa);
        if (r == 0)
            return waitpid(pid, NULL, 0) < 0 ? -1 : 0;
        errno = r;
        return -1;
    }
    if (argc == 3 && !strcmp(o, "mq-create")) { /* a POSIX message queue named P */
        mqd_t q = mq_open(p, O_CREAT | O_RDWR, 0666, NULL);
        return q == (mqd_t)-1 ? -1 : mq_close(q);
    }
    if (argc == 3 && !strcmp(o, "mq-exists")) {
        mqd_t q = mq_open(p, O_RDONLY);
        return q == (mqd_t)-1 ? -1 : mq_close(q);
    }
    if (argc == 3 && !strcmp(o, "mq-unlink"))
        return mq_unlink(p);
    if (argc == 3 && !strcmp(o, "mount-setattr")) { /* 442 on x86_64; glibc has no wrapper */
        struct mount_attr a = {.attr_set =
                                   MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
        return syscall(442, AT_FDCWD, p, 0, &a, sizeof a);
    }
    if (argc == 4 && !strcmp(o, "symlink"))
        return symlink(p, argv[3]);
    if (argc == 4 && !strcmp(o, "link"))
        return link(p, argv[3]);
    if (argc == 4 && !strcmp(o, "rename"))
        return rename(p, argv[3]);
    if (argc == 5 && !strcmp(o, "renameat2")) {
        unsigned flags = !strcmp(argv[4], "exchange")    ? RENAME_EXCHANGE
                         : !strcmp(argv[4], "noreplace") ? RENAME_NOREPLACE
                                                         : 0;
        if (!flags && strcmp(argv[4], "none"))
            return -2;
        return renameat2(AT_FDCWD, p, AT_FDCWD, argv[3], flags);
    }
    return -2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return esc_usage(
            argv[0],
            "mkdir|rmdir|unlink|remove|spawn-open|mknod-reg|mknod-chr|mknod-blk|mkfifo|bind|"
            "mount-setattr PATH | "
            "symlink TARGET LINK | link|rename FROM TO | "
            "renameat2 FROM TO exchange|noreplace|none");
    long r = op(argc, argv);
    int err = errno;
    if (r == -2) {
        fprintf(stderr, "%s: bad arguments or setup failed: %s\n", argv[1], strerror(err));
        return 2;
    }
    return esc_result(r, err);
}
