/* esc_uring: try one write through io_uring (the kernel does the open, rename, unlink or
 * setxattr on the ring's behalf, with no syscall of that name at all); liburing. */
#include "esc.h"

#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <unistd.h>

/* Submit the one prepared SQE and wait for it; its result is -errno or >= 0. */
static long run1(struct io_uring *ring)
{
    struct io_uring_cqe *cqe;
    int r = io_uring_submit(ring);
    if (r < 0) {
        errno = -r;
        return -2;
    }
    r = io_uring_wait_cqe(ring, &cqe);
    if (r < 0) {
        errno = -r;
        return -2;
    }
    int res = cqe->res;
    io_uring_cqe_seen(ring, cqe);
    if (res < 0) {
        errno = -res;
        return -1;
    }
    return res;
}

/* An xattr set through the ring on FD (just opened; -1: the open failed, -1 returned). */
static long fsetxattr_on(struct io_uring *ring, struct io_uring_sqe *sqe, int fd)
{
    if (fd < 0)
        return -1;
    io_uring_prep_fsetxattr(sqe, fd, "user.escape", "escaped", 0, 7);
    long r = run1(ring);
    close(fd);
    return r;
}

static long op(struct io_uring *ring, int argc, char **argv)
{
    const char *o = argv[1], *p = argv[2];
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (argc == 3 && !strcmp(o, "openat")) {
        io_uring_prep_openat(sqe, AT_FDCWD, p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        long fd = run1(ring);
        if (fd < 0)
            return fd;
        sqe = io_uring_get_sqe(ring);
        io_uring_prep_write(sqe, (int)fd, ESC_PAYLOAD, ESC_PAYLOAD_LEN, 0);
        long n = run1(ring);
        close((int)fd);
        return n < 0 ? n : 0;
    }
    if (argc == 4 && !strcmp(o, "renameat")) {
        io_uring_prep_renameat(sqe, AT_FDCWD, p, AT_FDCWD, argv[3], 0);
        return run1(ring);
    }
    if (argc == 3 && !strcmp(o, "unlinkat")) {
        io_uring_prep_unlinkat(sqe, AT_FDCWD, p, 0);
        return run1(ring);
    }
    if (argc == 3 && !strcmp(o, "mkdirat")) {
        io_uring_prep_mkdirat(sqe, AT_FDCWD, p, 0755);
        return run1(ring);
    }
    if (argc == 4 && !strcmp(o, "linkat")) {
        io_uring_prep_linkat(sqe, AT_FDCWD, p, AT_FDCWD, argv[3], 0);
        return run1(ring);
    }
    /* xattrs through the ring: no setxattr syscall is made, so a seccomp filter on
     * the syscall never sees it. */
    if (argc == 3 && !strcmp(o, "setxattr")) {
        io_uring_prep_setxattr(sqe, "user.escape", "escaped", p, 0, 7);
        return run1(ring);
    }
    if (argc == 3 && !strcmp(o, "fsetxattr")) /* read-only: the fence allows the open */
        return fsetxattr_on(ring, sqe, open(p, O_RDONLY));
    if (argc == 3 && !strcmp(o, "fsetxattr-fd")) {
        /* An fd the command was given open (its stdin, say). */
        io_uring_prep_fsetxattr(sqe, (int)strtol(p, NULL, 10), "user.escape", "escaped", 0, 7);
        return run1(ring);
    }
    /* A file opened read-only relative to an fd the command was given (an O_PATH fd of the
     * project), or the file such an fd names reopened through /proc/self/fd: on whichever
     * mount that fd is. */
    if (argc == 4 && !strcmp(o, "fsetxattr-at"))
        return fsetxattr_on(ring, sqe, openat((int)strtol(p, NULL, 10), argv[3], O_RDONLY));
    if (argc == 3 && !strcmp(o, "fsetxattr-proc")) {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%s", p);
        return fsetxattr_on(ring, sqe, open(link, O_RDONLY));
    }
    errno = EINVAL;
    return -2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return esc_usage(
            argv[0],
            "openat|unlinkat|mkdirat|setxattr|fsetxattr PATH | fsetxattr-fd|fsetxattr-proc FD | "
            "fsetxattr-at FD NAME | renameat|linkat FROM TO");
    struct io_uring ring;
    int r = io_uring_queue_init(4, &ring, 0);
    if (r < 0) {
        /* No ring at all (io_uring disabled): nothing to test, and the harness must know. */
        fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-r));
        return 3;
    }
    long res = op(&ring, argc, argv);
    int err = errno;
    io_uring_queue_exit(&ring);
    if (res == -2) {
        fprintf(stderr, "%s: bad arguments or ring failure: %s\n", argv[1], strerror(err));
        return 2;
    }
    return esc_result(res, err);
}
