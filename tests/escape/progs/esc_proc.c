/* esc_proc: try one write from a descendant made in one way (fork, vfork, clone3,
 * posix_spawn, a thread), to show each inherits the fence; the child reports its errno. */
#include "esc.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The write, with raw syscalls only: safe in a vfork child and in a clone3 child. */
static int attempt(const char *path)
{
    long fd = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return errno;
    long n = syscall(SYS_write, fd, ESC_PAYLOAD, ESC_PAYLOAD_LEN);
    int err = n < 0 ? errno : 0;
    syscall(SYS_close, fd);
    return err;
}

/* A child's verdict travels in its exit status: 0 success, else the errno (< 256). */
static long reap(pid_t pid)
{
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -2;
    if (!WIFEXITED(st)) {
        errno = EINTR;
        return -2;
    }
    errno = WEXITSTATUS(st);
    return errno ? -1 : 0;
}

static void *thread_main(void *path)
{
    return (void *)(intptr_t)attempt(path);
}

static long op(const char *o, char *path)
{
    if (!strcmp(o, "fork")) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(attempt(path));
        return reap(pid);
    }
    if (!strcmp(o, "vfork")) {
        pid_t pid = vfork();
        if (pid == 0)
            _exit(attempt(path));
        return reap(pid);
    }
    if (!strcmp(o, "clone3")) {
        struct clone_args ca = {.exit_signal = SIGCHLD};
        long pid = syscall(SYS_clone3, &ca, sizeof ca);
        if (pid == 0)
            syscall(SYS_exit_group, attempt(path));
        return reap((pid_t)pid);
    }
    if (!strcmp(o, "posix-spawn")) {
        /* A new program image: this driver again, in its "child" role. */
        static char self[] = "/proc/self/exe", role[] = "child";
        char *args[] = {self, role, path, NULL};
        pid_t pid;
        int e = posix_spawn(&pid, self, NULL, NULL, args, environ);
        if (e) {
            errno = e;
            return -2;
        }
        return reap(pid);
    }
    if (!strcmp(o, "thread")) {
        pthread_t t;
        void *ret;
        if (pthread_create(&t, NULL, thread_main, path) || pthread_join(t, &ret))
            return -2;
        errno = (int)(intptr_t)ret;
        return errno ? -1 : 0;
    }
    errno = EINVAL;
    return -2;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return esc_usage(argv[0], "fork|vfork|clone3|posix-spawn|thread PATH");
    if (!strcmp(argv[1], "child"))
        return attempt(argv[2]);
    long r = op(argv[1], argv[2]);
    int err = errno;
    if (r == -2) {
        fprintf(stderr, "%s: could not start the child: %s\n", argv[1], strerror(err));
        return 2;
    }
    return esc_result(r, err);
}
