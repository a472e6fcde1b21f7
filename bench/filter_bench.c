/* The cost of installing the command's seccomp filter, as the child does before exec: a
 * forked child installs it and times the call alone. usage: tf_bench_filter guard|mounts [N]
 * (the guard's filter with its listener, or the mount refusals alone); prints the mean µs. */
#include "linux/guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* One child: install, send the time it took over FD. */
static void child(bool guard, int fd)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        _exit(1);
    double t0 = now_us();
    int r = guard ? guard_install(false) : guard_deny_mounts(false);
    double dt = now_us() - t0;
    _exit(r < 0 || write(fd, &dt, sizeof dt) != (ssize_t)sizeof dt);
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "guard") && strcmp(argv[1], "mounts"))) {
        fprintf(stderr, "usage: tf_bench_filter guard|mounts [N]\n");
        return 2;
    }
    bool guard = !strcmp(argv[1], "guard");
    int n = argc > 2 ? atoi(argv[2]) : 200;
    double total = 0;
    for (int i = 0; i < n; i++) {
        int p[2];
        double dt = 0;
        if (pipe(p) < 0)
            return 1;
        pid_t pid = fork();
        if (pid == 0)
            child(guard, p[1]);
        close(p[1]);
        int st;
        if (pid < 0 || read(p[0], &dt, sizeof dt) != (ssize_t)sizeof dt ||
            waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "tf_bench_filter: the filter could not be installed\n");
            return 1;
        }
        close(p[0]);
        total += dt;
    }
    printf("%s filter: %.1f us to install (mean of %d)\n", argv[1], total / n, n);
    return 0;
}
