/* esc_late: act on PATH from a process that outlives the one the run waits for.
 *   daemon: double fork and setsid; the command exits 0 at once, the daemon acts
 *           DELAY ms later;
 *   tree:   one child in the same process group acts DELAY ms later; the command waits
 *           for it (so the whole tree is running when testfence is killed).
 * The acting process stays LINGER ms after the act, then exits. OP is write (a plain
 * open and write) or uring-xattr (IORING_OP_SETXATTR on PATH, then IORING_OP_FSETXATTR
 * through a read-only fd: no syscall of that name is made). The act's result goes to
 * tests/late.out, the actor's pid to tests/late.pid. Arguments after PATH are ignored
 * (a marker for pgrep -f). usage: esc_late daemon|tree DELAY LINGER OP PATH [MARK...] */
#include "esc.h"

#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static long uring_xattr(const char *path)
{
    struct io_uring ring;
    struct io_uring_cqe *cqe;
    int r = io_uring_queue_init(4, &ring, 0);
    if (r < 0) {
        errno = -r;
        return -1;
    }
    int fd = open(path, O_RDONLY); /* read-only: the fence allows it */
    long res = 0;
    for (int k = 0; k < 2 && res == 0; k++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        if (k == 0)
            io_uring_prep_setxattr(sqe, "user.escape", "escaped", path, 0, 7);
        else if (fd >= 0)
            io_uring_prep_fsetxattr(sqe, fd, "user.escape2", "escaped", 0, 7);
        else
            break;
        if ((r = io_uring_submit(&ring)) < 0 || (r = io_uring_wait_cqe(&ring, &cqe)) < 0) {
            res = r;
            break;
        }
        res = cqe->res;
        io_uring_cqe_seen(&ring, cqe);
    }
    if (fd >= 0)
        close(fd);
    io_uring_queue_exit(&ring);
    if (res < 0) {
        errno = (int)-res;
        return -1;
    }
    return 0;
}

static long act(const char *op, const char *path)
{
    if (!strcmp(op, "write")) {
        int fd = open(path, O_WRONLY | O_TRUNC);
        if (fd < 0)
            return -1;
        long n = write(fd, ESC_PAYLOAD, ESC_PAYLOAD_LEN);
        int err = errno;
        close(fd);
        errno = err;
        return n < 0 ? -1 : 0;
    }
    return uring_xattr(path);
}

/* The acting process: detached from every fd the run gave it, so nothing waits on it
 * through a pipe; says who it is, waits, acts, says how it went, stays a while. */
static void detach(void)
{
    int nul = open("/dev/null", O_RDWR);
    if (nul >= 0) {
        dup2(nul, 0), dup2(nul, 1), dup2(nul, 2);
        if (nul > 2)
            close(nul);
    }
    close_range(3, ~0U, 0);
}

static _Noreturn void actor(long delay, long linger, const char *op, const char *path)
{
    detach();
    FILE *f = fopen("tests/late.pid", "w");
    if (f) {
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
    sleep_ms(delay);
    long r = act(op, path);
    int err = errno;
    if ((f = fopen("tests/late.out", "w"))) {
        const char *n = r < 0 ? strerrorname_np(err) : "ok";
        fprintf(f, "%s\n", n ? n : "EUNKNOWN");
        fclose(f);
    }
    sleep_ms(linger);
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 6 || (strcmp(argv[1], "daemon") && strcmp(argv[1], "tree")) ||
        (strcmp(argv[4], "write") && strcmp(argv[4], "uring-xattr")))
        return esc_usage(argv[0],
                         "daemon|tree DELAY_MS LINGER_MS write|uring-xattr PATH [MARK...]");
    long delay = strtol(argv[2], NULL, 10), linger = strtol(argv[3], NULL, 10);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        if (argv[1][0] == 't')
            actor(delay, linger, argv[4], argv[5]);
        /* daemon: a new session, and a grandchild that is nobody's child here. */
        setsid();
        pid_t g = fork();
        if (g == 0)
            actor(delay, linger, argv[4], argv[5]);
        _exit(g < 0 ? 2 : 0);
    }
    int st;
    if (argv[1][0] == 't') {
        /* tree: the command stays too, as long as its child, holding none of the run's
         * pipes either. */
        printf("started\n");
        fflush(stdout);
        detach();
    }
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "esc_late: the child failed\n");
        return 2;
    }
    if (argv[1][0] == 'd')
        printf("started\n");
    return 0;
}
