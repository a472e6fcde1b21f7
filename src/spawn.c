#include "spawn.h"

#include "cmds.h"
#include "fence.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child reports through the close-on-exec pipe when it fails before exec. */
struct child_failure {
    int err;
    char step[96];
};

/* Signals the parent waits for instead of handling: no handlers, no globals. */
static void wait_set(sigset_t *set)
{
    sigemptyset(set);
    int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCONT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(set, sigs[i]);
}

/* Is our stdin a terminal whose foreground group we are in? Then the child's
 * group must own the terminal, or reading from it (pytest --pdb) stops it. */
static bool own_terminal(void)
{
    return isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
}

/* tcsetpgrp from a background group raises SIGTTOU; block it around the call. */
static void give_terminal(pid_t pgid)
{
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGTTOU);
    sigprocmask(SIG_BLOCK, &set, &old);
    tcsetpgrp(STDIN_FILENO, pgid);
    sigprocmask(SIG_SETMASK, &old, NULL);
}

static void child_fail(int fd, int err, const char *step)
{
    struct child_failure f = {.err = err};
    size_t n = strlen(step);
    memcpy(f.step, step, n < sizeof f.step - 1 ? n : sizeof f.step - 1);
    ssize_t w = write(fd, &f, sizeof f);
    (void)w;
}

static void child(const struct spawn_opts *o, const sigset_t *oldmask, bool tty, int errfd)
{
    setpgid(0, 0);
    if (tty)
        give_terminal(getpid());
    sigprocmask(SIG_SETMASK, oldmask, NULL);
    if (o->ruleset_fd >= 0) {
        const char *step = "";
        int e = fence_enter(o->ruleset_fd, &step);
        if (e) {
            child_fail(errfd, e, step);
            _exit(TF_EXIT_OWN_ERROR);
        }
    }
    /* Nothing but 0, 1 and 2 may reach the command; errfd closes on a successful exec. */
    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    execvpe(o->argv[0], o->argv, o->envp);
    int e = errno;
    child_fail(errfd, e, "cannot execute");
    _exit(e == ENOENT ? TF_EXIT_NOT_FOUND : TF_EXIT_CANNOT_EXEC);
}

/* Read the child's failure report: 0 bytes means exec succeeded. */
static int child_report(int fd, const struct spawn_opts *o, int *status, tf_err *err)
{
    struct child_failure f;
    ssize_t n;
    while ((n = read(fd, &f, sizeof f)) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof f)
        return 0;
    if (!strcmp(f.step, "cannot execute")) {
        *status = f.err == ENOENT ? TF_EXIT_NOT_FOUND : TF_EXIT_CANNOT_EXEC;
        return tf_errnof(err, f.err, "%s %s",
                         f.err == ENOENT ? "command not found:" : "cannot execute", o->argv[0]);
    }
    *status = TF_EXIT_OWN_ERROR;
    return tf_errnof(err, f.err, "%s", f.step);
}

static int exit_code(int wstatus)
{
    if (WIFSIGNALED(wstatus))
        return 128 + WTERMSIG(wstatus);
    return WEXITSTATUS(wstatus);
}

/* Wait for the child, forwarding signals to its group and following job control. */
static int supervise(pid_t pid, bool tty, const sigset_t *set)
{
    for (;;) {
        int sig;
        if (sigwait(set, &sig) != 0)
            continue;
        if (sig == SIGCONT) {
            if (tty)
                give_terminal(pid);
            kill(-pid, SIGCONT);
            continue;
        }
        if (sig != SIGCHLD) {
            kill(-pid, sig);
            continue;
        }
        int ws;
        pid_t r;
        while ((r = waitpid(pid, &ws, WNOHANG | WUNTRACED)) > 0) {
            if (!WIFSTOPPED(ws))
                return exit_code(ws);
            /* The command was stopped (Ctrl-Z): stop too, so the shell sees the job stop. */
            if (tty)
                give_terminal(getpgrp());
            kill(getpid(), SIGSTOP);
        }
    }
}

int spawn_run(const struct spawn_opts *o, int *status, tf_err *err)
{
    int pfd[2];
    sigset_t set, old;
    *status = TF_EXIT_OWN_ERROR;
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return tf_errnof(err, errno, "pipe");
    bool tty = own_terminal();
    signal(SIGCHLD, SIG_DFL); /* an inherited SIG_IGN would reap the child behind our back */
    wait_set(&set);
    sigprocmask(SIG_BLOCK, &set, &old);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(pfd[0]);
        close(pfd[1]);
        return tf_errnof(err, e, "fork");
    }
    if (pid == 0) {
        close(pfd[0]);
        child(o, &old, tty, pfd[1]);
    }
    close(pfd[1]);
    setpgid(pid, pid); /* also here: no race with the first signal we forward */
    if (tty)
        give_terminal(pid);
    int rc = child_report(pfd[0], o, status, err);
    close(pfd[0]);
    int code = supervise(pid, tty, &set);
    if (tty)
        give_terminal(getpgrp());
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (rc < 0)
        return -1;
    *status = code;
    return 0;
}
