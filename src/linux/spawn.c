#include "spawn.h"

#include "core/exitcode.h"
#include "fence.h"
#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child reports through the close-on-exec pipe when it fails before exec. */
struct child_failure {
    int err;
    char step[96];
};

/* recv_fd's answer when the child could not make a listener of its own. */
enum { GUARD_DECLINED = -2 };

/* Pass FD over the unix socket SOCK (the guard's listener, child to parent);
 * FD < 0 sends a plain byte: no listener. */
static int send_fd(int sock, int fd)
{
    char byte = 0, ctl[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {&byte, 1};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
    memset(ctl, 0, sizeof ctl);
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    if (fd < 0) {
        m.msg_control = NULL;
        m.msg_controllen = 0;
    }
    return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* The fd sent by send_fd; GUARD_DECLINED for a plain byte; -1 when the child
 * exited without sending anything (SOCK_SEQPACKET reports that as EOF). */
static int recv_fd(int sock)
{
    char byte, ctl[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {&byte, 1};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
    ssize_t n;
    while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    if (!c || c->cmsg_type != SCM_RIGHTS)
        return GUARD_DECLINED;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

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

/* Mark every fd from FIRST on close-on-exec: close_range where the kernel has it (5.11),
 * else one fcntl per possible fd. 0, or -1 with errno. */
static int cloexec_from(int first)
{
    if (close_range((unsigned)first, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
        return 0;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return -1;
    rlim_t top =
        rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 20) ? (1u << 20) : rl.rlim_cur;
    for (rlim_t fd = (rlim_t)first; fd < top; fd++)
        if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0 && errno != EBADF)
            return -1;
    return 0;
}

static void child(const struct spawn_opts *o, const sigset_t *oldmask, bool tty, int errfd,
                  int guardsock)
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
    if (o->guard) {
        /* EBUSY: an outer seccomp listener (a testfence run around this one)
         * already exists, and the kernel allows one per process tree. */
        int lfd = guard_install();
        if (lfd < 0 && lfd != -EBUSY) {
            child_fail(errfd, -lfd, "cannot install the metadata guard");
            _exit(TF_EXIT_OWN_ERROR);
        }
        if (send_fd(guardsock, lfd) < 0) {
            child_fail(errfd, errno, "cannot hand the metadata guard to testfence");
            _exit(TF_EXIT_OWN_ERROR);
        }
        if (lfd >= 0)
            close(lfd);
    }
    /* Nothing but 0, 1, 2 and the kept ones (make's jobserver) may reach the command;
     * errfd closes on a successful exec. */
    if (cloexec_from(3) < 0) {
        child_fail(errfd, errno, "cannot keep testfence's files from the command");
        _exit(TF_EXIT_OWN_ERROR);
    }
    for (size_t i = 0; i < o->nkeep_fds; i++)
        fcntl(o->keep_fds[i], F_SETFD, 0);
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

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* One signal from the signalfd: forward it, follow job control, or reap.
 * Returns the exit code once the child has exited, else -1. */
static int on_signal(int sig, pid_t pid, bool tty)
{
    if (sig == SIGCONT) {
        if (tty)
            give_terminal(pid);
        kill(-pid, SIGCONT);
        return -1;
    }
    if (sig != SIGCHLD) {
        kill(-pid, sig);
        return -1;
    }
    int ws;
    while (waitpid(pid, &ws, WNOHANG | WUNTRACED) > 0) {
        if (!WIFSTOPPED(ws))
            return exit_code(ws);
        /* The command was stopped (Ctrl-Z): stop too, so the shell sees the job stop. */
        if (tty)
            give_terminal(getpgrp());
        kill(getpid(), SIGSTOP);
    }
    return -1;
}

/* Wait for the child, forwarding signals to its group, following job control,
 * answering the metadata guard's questions (LISTENER, or -1) and taking records.
 * Returns its exit code, or -errno when waiting itself failed. */
static int supervise(const struct spawn_opts *o, pid_t pid, bool tty, int sfd, int *listener)
{
    const struct policy *guard = o->guard;
    struct pollfd fds[3] = {{.fd = sfd, .events = POLLIN},
                            {.fd = *listener, .events = POLLIN},
                            {.fd = o->on_record ? o->record_fd : -1, .events = POLLIN}};
    for (;;) {
        if (poll(fds, 3, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -errno; /* nothing can be waited for: never spin on it */
        }
        if (fds[2].revents & POLLIN)
            o->on_record(o->record_ctx);
        if ((fds[1].revents & POLLIN) && guard_answer(*listener, guard) < 0) {
            /* A listener we cannot serve would leave every later metadata call
             * blocked; closed, the kernel fails them (ENOSYS) instead. */
            close_fd(listener);
            fds[1].fd = -1;
        } else if (fds[1].revents & (POLLHUP | POLLERR)) {
            fds[1].fd = -1; /* every guarded process is gone */
        }
        struct signalfd_siginfo si;
        if ((fds[0].revents & POLLIN) && read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
            int code = on_signal((int)si.ssi_signo, pid, tty);
            if (code >= 0)
                return code;
        }
    }
}

/* The channels between parent and child, all made before fork. */
struct channels {
    int err[2];   /* child -> parent: why it failed before exec */
    int guard[2]; /* child -> parent: the guard's listener fd */
    int sfd;      /* the parent's signalfd */
};

static int open_channels(const struct spawn_opts *o, const sigset_t *set, struct channels *ch,
                         tf_err *err)
{
    ch->err[0] = ch->err[1] = ch->guard[0] = ch->guard[1] = ch->sfd = -1;
    if (pipe2(ch->err, O_CLOEXEC) < 0)
        return tf_errnof(err, errno, "pipe");
    if (o->guard && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch->guard) < 0)
        return tf_errnof(err, errno, "socketpair");
    if ((ch->sfd = signalfd(-1, set, SFD_CLOEXEC)) < 0)
        return tf_errnof(err, errno, "signalfd");
    return 0;
}

static void close_channels(struct channels *ch)
{
    close_fd(&ch->err[0]);
    close_fd(&ch->err[1]);
    close_fd(&ch->guard[0]);
    close_fd(&ch->guard[1]);
    close_fd(&ch->sfd);
}

int spawn_run(const struct spawn_opts *o, int *status, tf_err *err)
{
    struct channels ch;
    sigset_t set, old;
    *status = TF_EXIT_OWN_ERROR;
    bool tty = own_terminal();
    signal(SIGCHLD, SIG_DFL); /* an inherited SIG_IGN would reap the child behind our back */
    wait_set(&set);
    sigprocmask(SIG_BLOCK, &set, &old);
    pid_t pid = open_channels(o, &set, &ch, err) < 0 ? -2 : fork();
    if (pid == 0)
        child(o, &old, tty, ch.err[1], ch.guard[1]);
    int rc = -1, code = 0;
    if (pid == -1)
        tf_errnof(err, errno, "fork");
    if (pid > 0) {
        close_fd(&ch.err[1]);
        close_fd(&ch.guard[1]);
        setpgid(pid, pid); /* also here: no race with the first signal we forward */
        if (tty)
            give_terminal(pid);
        int listener = o->guard ? recv_fd(ch.guard[0]) : -1; /* GUARD_DECLINED: nested */
        rc = child_report(ch.err[0], o, status, err);
        code = supervise(o, pid, tty, ch.sfd, &listener);
        if (code < 0) { /* unsupervised, the command must not go on: stop it */
            kill(-pid, SIGKILL);
            waitpid(pid, NULL, 0);
            if (rc == 0)
                rc = tf_errnof(err, -code, "cannot wait for the command (poll)");
            code = TF_EXIT_OWN_ERROR;
            *status = code;
        }
        close_fd(&listener);
        if (tty)
            give_terminal(getpgrp());
    }
    close_channels(&ch);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (rc < 0)
        return -1;
    *status = code;
    return 0;
}
