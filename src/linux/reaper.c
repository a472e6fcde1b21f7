/* The sweep after the command: a process a test left behind (a daemon, a server that was
 * never stopped) must not write after the run, or after --verify has looked. */
#include "reaper.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Read at most CAP - 1 bytes of /proc/PID/NAME into BUF; the length, or -1. */
static ssize_t proc_read(pid_t pid, const char *name, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/%s", (long)pid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    ssize_t n;
    while (got < cap - 1 && (n = read(fd, buf + got, cap - 1 - got)) > 0)
        got += (size_t)n;
    close(fd);
    buf[got] = '\0';
    return (ssize_t)got;
}

/* Its state letter and parent from /proc/PID/stat ("pid (comm) S ppid ..."); the comm may
 * hold spaces and parentheses, so the fields start after the last ')'. */
static int proc_state(pid_t pid, char *state, pid_t *ppid)
{
    char buf[1024];
    if (proc_read(pid, "stat", buf, sizeof buf) <= 0)
        return -1;
    char *p = strrchr(buf, ')');
    long pp;
    if (!p || sscanf(p + 1, " %c %ld", state, &pp) != 2)
        return -1;
    *ppid = (pid_t)pp;
    return 0;
}

/* The value of NAME in the NUL-separated environment ENV (LEN bytes), into OUT. */
static void env_value(const char *env, size_t len, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    out[0] = '\0';
    for (size_t i = 0; i < len; i += strlen(env + i) + 1) {
        if (!strncmp(env + i, name, nl) && env[i + nl] == '=') {
            snprintf(out, cap, "%s", env + i + nl + 1);
            return;
        }
    }
}

/* Does any thread of PID still run? /proc/PID/stat shows the main thread's state only: a
 * process whose main thread has exited reads as a zombie while its other threads go on. */
static bool alive(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *d = opendir(path);
    struct dirent *e;
    bool live = false;
    while (d && !live && (e = readdir(d))) {
        char name[300], *p;
        if (e->d_name[0] == '.')
            continue;
        snprintf(name, sizeof name, "task/%s/stat", e->d_name);
        live = proc_read(pid, name, buf, sizeof buf) > 0 && (p = strrchr(buf, ')')) &&
               p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
    }
    if (d)
        closedir(d);
    return live;
}

int reaper_describe(pid_t pid, const char *test_env, struct leftover *l)
{
    /* Static: 256 KiB of environment does not belong on the stack; one caller at a time. */
    static char env[256 * 1024];
    memset(l, 0, sizeof *l);
    if (!alive(pid))
        return -1;
    l->pid = pid;
    char link[64];
    snprintf(link, sizeof link, "/proc/%ld/exe", (long)pid);
    ssize_t n = readlink(link, l->exe, sizeof l->exe - 1);
    l->exe[n > 0 ? n : 0] = '\0';
    n = proc_read(pid, "cmdline", l->cmdline, sizeof l->cmdline);
    for (ssize_t i = 0; i < n; i++)
        if (l->cmdline[i] == '\0' || iscntrl((unsigned char)l->cmdline[i]))
            l->cmdline[i] = ' ';
    while (n > 0 && l->cmdline[n - 1] == ' ')
        l->cmdline[--n] = '\0';
    if (n <= 0) { /* no argv to read (its main thread has exited): its name, as ps shows it */
        char comm[64];
        ssize_t k = proc_read(pid, "comm", comm, sizeof comm);
        while (k > 0 && comm[k - 1] == '\n')
            comm[--k] = '\0';
        snprintf(l->cmdline, sizeof l->cmdline, "[%s]", k > 0 ? comm : "?");
    }
    n = test_env ? proc_read(pid, "environ", env, sizeof env) : -1;
    if (n > 0)
        env_value(env, (size_t)n, test_env, l->test, sizeof l->test);
    return 0;
}

/* Call FN(CTX, PID) for every process in /proc that is PARENT's child (PARENT 0: every one
 * but 1 and the caller), dead or alive: FN tells. Returns how many. */
static size_t each_process(pid_t parent, size_t (*fn)(void *ctx, pid_t pid), void *ctx)
{
    DIR *d = opendir("/proc");
    size_t n = 0;
    struct dirent *e;
    pid_t me = getpid();
    while (d && (e = readdir(d))) {
        char *end, state;
        long pid = strtol(e->d_name, &end, 10);
        pid_t ppid;
        if (*end || pid <= 1 || pid == me || proc_state((pid_t)pid, &state, &ppid) < 0 ||
            (parent && ppid != parent))
            continue;
        n += fn(ctx, (pid_t)pid);
    }
    if (d)
        closedir(d);
    return n;
}

struct sweep {
    const char *test_env;
    void (*fn)(void *ctx, const struct leftover *l);
    void *ctx;
    bool kill_each; /* the subreaper kills what it finds; the init kills all at once */
};

/* One process found: described when it still runs (1), killed by the subreaper whatever
 * state it is in (a real zombie is reaped; one with live threads dies) and reaped before it
 * is reported, so neither a report that fails (stderr a closed pipe) nor a child it leaves
 * can keep it alive or keep us waiting. */
static size_t found(void *ctx, pid_t pid)
{
    struct sweep *s = ctx;
    struct leftover l;
    if (s->kill_each)
        kill(pid, SIGSTOP);
    bool live = reaper_describe(pid, s->test_env, &l) == 0;
    if (s->kill_each) {
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
            ;
    }
    if (live && s->fn)
        s->fn(s->ctx, &l);
    return live;
}

static void reap_all(bool block)
{
    pid_t r;
    while ((r = waitpid(-1, NULL, __WALL | (block ? 0 : WNOHANG))) > 0 || (r < 0 && errno == EINTR))
        ;
}

/* No child at all, not even one to reap: in a PID namespace its init's, nothing else is left
 * either (every process in it descends from the init, orphans come back to it). */
static bool no_children(void)
{
    return waitpid(-1, NULL, __WALL | WNOHANG) < 0 && errno == ECHILD;
}

size_t reaper_sweep(int in_ns, const char *test_env,
                    void (*fn)(void *ctx, const struct leftover *l), void *ctx)
{
    struct sweep s = {.test_env = test_env, .fn = fn, .ctx = ctx, .kill_each = !in_ns};
    size_t total = 0;
    if (in_ns && no_children())
        return 0; /* the usual end: no /proc to list, nobody to stop */
    if (in_ns) {
        kill(-1, SIGSTOP); /* everything in the namespace holds still while it is listed */
        total = each_process(0, found, &s);
        kill(-1, SIGKILL);
        reap_all(true);
        return total;
    }
    /* A killed parent's children come up to us: sweep again until a round finds none.
     * Bounded, so a process that forks faster than it is killed cannot keep us here. */
    for (int round = 0; round < 1000; round++) {
        reap_all(false);
        size_t n = each_process(getpid(), found, &s);
        total += n;
        if (n == 0)
            break;
    }
    reap_all(false);
    return total;
}
