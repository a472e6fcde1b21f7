#include "spawn.h"

#include "core/exitcode.h"
#include "core/fileio.h"
#include "fence.h"
#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child reports through the close-on-exec pipe when it fails before exec. */
struct child_failure {
    int err;
    bool ns; /* the namespace layer could not be set up: nothing ran, the run may fall back */
    char step[192];
};

/* What the namespace's init tells testfence on the status pipe. */
struct init_msg {
    char kind; /* INIT_STOPPED, INIT_LEFTOVER, INIT_EXITED */
    int code;  /* INIT_EXITED: the command's exit code, the init's own */
    struct leftover l;
};
enum { INIT_STOPPED = 'S', INIT_LEFTOVER = 'L', INIT_EXITED = 'E' };

/* on_init_msg's answer when the init has more to say. */
enum { INIT_MORE = -2 };

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
    struct child_failure f = {.err = err, .ns = false};
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

/* Its own process group, which owns the terminal when testfence's did. */
static void become_group(bool tty)
{
    setpgid(0, 0);
    if (tty)
        give_terminal(getpgrp());
}

/* The command's process, from the fence to exec; never returns. */
/* The command's seccomp filter: the guard's where there is one (one filter: each costs every
 * later call), else, fenced, the refusal of mount calls alone. */
static void install_filters(const struct spawn_opts *o, int errfd, int guardsock)
{
    int lfd = o->guard ? guard_install(o->refuse_uring) : -EBUSY;
    if (lfd < 0 && lfd != -EBUSY) {
        child_fail(errfd, -lfd, "cannot install the metadata guard");
        _exit(TF_EXIT_OWN_ERROR);
    }
    /* EBUSY: an outer seccomp listener (a testfence run around this one) already exists,
     * and the kernel allows one per process tree; the mount calls are refused alone. */
    int e = lfd == -EBUSY && o->ruleset_fd >= 0 ? guard_deny_mounts(o->refuse_uring) : 0;
    if (e < 0) {
        child_fail(errfd, -e, "cannot refuse mount changes to the command");
        _exit(TF_EXIT_OWN_ERROR);
    }
    if (o->guard && send_fd(guardsock, lfd) < 0) {
        child_fail(errfd, errno, "cannot hand the metadata guard to testfence");
        _exit(TF_EXIT_OWN_ERROR);
    }
    if (lfd >= 0)
        close(lfd);
}

/* Wait at the gate for testfence's go: one byte. Without it (testfence's own preparation
 * failed, or testfence died) the command does not run. */
static void wait_at_gate(int gate)
{
    char go;
    ssize_t n;
    while ((n = read(gate, &go, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        _exit(TF_EXIT_OWN_ERROR); /* testfence says why */
}

static void fence_and_exec(const struct spawn_opts *o, const sigset_t *oldmask, int errfd,
                           int guardsock, int gate)
{
    sigprocmask(SIG_SETMASK, oldmask, NULL);
    if (!o->sigpipe_ignored)
        signal(SIGPIPE, SIG_DFL);
    if (o->ruleset_fd >= 0) {
        const char *step = "";
        int e = fence_enter(o->ruleset_fd, &step);
        if (!e)
            e = fence_drop_caps(&step);
        if (e) {
            child_fail(errfd, e, step);
            _exit(TF_EXIT_OWN_ERROR);
        }
    }
    install_filters(o, errfd, guardsock);
    /* Nothing but 0, 1, 2 and the kept ones (make's jobserver) may reach the command;
     * errfd closes on a successful exec. */
    if (cloexec_from(3) < 0) {
        child_fail(errfd, errno, "cannot keep testfence's files from the command");
        _exit(TF_EXIT_OWN_ERROR);
    }
    for (size_t i = 0; i < o->nkeep_fds; i++)
        fcntl(o->keep_fds[i], F_SETFD, 0);
    if (gate >= 0)
        wait_at_gate(gate);
    execvpe(o->argv[0], o->argv, o->envp);
    int e = errno;
    child_fail(errfd, e, "cannot execute");
    _exit(e == ENOENT ? TF_EXIT_NOT_FOUND : TF_EXIT_CANNOT_EXEC);
}

static int exit_code(int wstatus)
{
    if (WIFSIGNALED(wstatus))
        return 128 + WTERMSIG(wstatus);
    return WEXITSTATUS(wstatus);
}

/* The command's process: a group of its own, then the fence and exec. */
static void child(const struct spawn_opts *o, const sigset_t *oldmask, bool tty, int errfd,
                  int guardsock, int gate)
{
    become_group(tty);
    fence_and_exec(o, oldmask, errfd, guardsock, gate);
}

/* The channels between parent and child, all made before fork. */
struct channels {
    int err[2];    /* child -> parent: why it failed before exec */
    int guard[2];  /* child -> parent: the guard's listener fd */
    int status[2]; /* the namespace's init -> parent: the command stopped; leftovers */
    int death[2];  /* parent holds [1] until it dies: the init sees POLLHUP on [0] */
    int gate[2];   /* parent -> command: go, once before_exec is done (a socket: no SIGPIPE) */
    int sfd;       /* the parent's signalfd */
};

static int read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void send_leftover(void *ctx, const struct leftover *l)
{
    struct init_msg m = {.kind = INIT_LEFTOVER, .l = *l};
    fileio_write_all(*(int *)ctx, (const char *)&m, sizeof m);
}

/* The init waits for the command, passes on the signals testfence forwards (to the
 * command's group: the init has a group of its own), says when the command stops (the init
 * of a PID namespace cannot stop itself, so testfence stops in its place) and returns the
 * command's exit code. The wait set stays blocked, so the signals queue for the signalfd. */
static int init_wait(pid_t cmd, int status_fd, bool tty)
{
    sigset_t set;
    wait_set(&set);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    for (;;) {
        struct signalfd_siginfo si;
        ssize_t n = sfd < 0 ? -1 : read(sfd, &si, sizeof si);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof si) { /* cannot wait: the command must not go on unwatched */
            kill(-cmd, SIGKILL);
            return TF_EXIT_OWN_ERROR;
        }
        int sig = (int)si.ssi_signo, ws;
        if (sig != SIGCHLD) {
            if (sig == SIGCONT && tty)
                give_terminal(cmd);
            kill(-cmd, sig);
            continue;
        }
        pid_t w;
        while ((w = waitpid(-1, &ws, WNOHANG | WUNTRACED | __WALL)) > 0) {
            if (w != cmd)
                continue; /* an orphan handed to us: reaped */
            if (!WIFSTOPPED(ws))
                return exit_code(ws);
            struct init_msg m = {.kind = INIT_STOPPED};
            fileio_write_all(status_fd, (const char *)&m, sizeof m);
        }
    }
}

/* The first process in the new namespaces (PID 1): it builds the read-only view, forks the
 * command, waits for it, then stops, reports and kills whatever is left; its exit code is the
 * command's. If testfence dies first, the kernel kills it and with it the whole namespace. */
static void ns_init(const struct spawn_opts *o, const sigset_t *oldmask, bool tty,
                    struct channels *ch)
{
    static int fds[3 + SPAWN_MAX_KEEP_FDS];
    size_t nfds = 0;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(ch->death[1]);
    struct pollfd parent = {.fd = ch->death[0], .events = POLLIN};
    if (poll(&parent, 1, 0) != 0)
        _exit(TF_EXIT_OWN_ERROR); /* testfence died before PDEATHSIG was set */
    setpgid(0, 0); /* testfence signals this group; the command gets one of its own */
    for (int fd = 0; fd < 3; fd++)
        fds[nfds++] = fd;
    for (size_t i = 0; i < o->nkeep_fds; i++)
        fds[nfds++] = o->keep_fds[i]; /* at most SPAWN_MAX_KEEP_FDS: spawn_run checked */
    const char *step = "";
    bool fatal;
    int e = mountns_enter(o->ns, fds, nfds, &step, &fatal);
    if (e) {
        struct child_failure f = {.err = e, .ns = !fatal};
        snprintf(f.step, sizeof f.step, "%s", step);
        fileio_write_all(ch->err[1], (const char *)&f, sizeof f);
        _exit(TF_EXIT_OWN_ERROR);
    }
    pid_t cmd = fork();
    if (cmd == 0)
        child(o, oldmask, tty, ch->err[1], ch->guard[1], ch->gate[0]);
    if (cmd < 0) {
        child_fail(ch->err[1], errno, "cannot fork the command");
        _exit(TF_EXIT_OWN_ERROR);
    }
    setpgid(cmd, cmd); /* also here: no race with the first signal we pass on */
    close(ch->err[1]);
    if (ch->guard[1] >= 0)
        close(ch->guard[1]);
    if (ch->gate[0] >= 0)
        close(ch->gate[0]);
    int code = init_wait(cmd, ch->status[1], tty);
    reaper_sweep(1, o->test_env, send_leftover, &ch->status[1]);
    /* Said before exiting: the kernel's tear-down of the namespaces then goes on beside
     * testfence's report, not before it. */
    struct init_msg m = {.kind = INIT_EXITED, .code = code};
    fileio_write_all(ch->status[1], (const char *)&m, sizeof m);
    _exit(code);
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
    if (f.ns) {
        *status = TF_EXIT_OWN_ERROR;
        tf_errnof(err, f.err, "the namespace layer is unavailable: %s", f.step);
        return SPAWN_NO_NAMESPACE;
    }
    if (!strcmp(f.step, "cannot execute")) {
        *status = f.err == ENOENT ? TF_EXIT_NOT_FOUND : TF_EXIT_CANNOT_EXEC;
        return tf_errnof(err, f.err, "%s %s",
                         f.err == ENOENT ? "command not found:" : "cannot execute", o->argv[0]);
    }
    *status = TF_EXIT_OWN_ERROR;
    return tf_errnof(err, f.err, "%s", f.step);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The command was stopped (Ctrl-Z): stop too, so the shell sees the job stop. Without a
 * terminal nobody would continue testfence: it goes on waiting. */
static void stop_self(bool tty)
{
    if (!tty)
        return; /* no shell's job control to follow: wait for whoever continues it */
    give_terminal(getpgrp());
    kill(getpid(), SIGSTOP);
}

/* One signal from the signalfd: forward it, follow job control, or reap (the child, and any
 * orphan handed to us as subreaper). Returns the exit code once the child has exited, else -1. */
static int on_signal(int sig, pid_t pid, bool tty, bool ns)
{
    if (sig == SIGCONT) {
        if (tty && !ns) /* in namespaces the init gives it to the command's group */
            give_terminal(pid);
        kill(-pid, SIGCONT);
        return -1;
    }
    if (sig != SIGCHLD) {
        kill(-pid, sig);
        return -1;
    }
    int ws, code = -1;
    pid_t w;
    while ((w = waitpid(-1, &ws, WNOHANG | WUNTRACED | __WALL)) > 0) {
        if (w != pid)
            continue;
        if (!WIFSTOPPED(ws))
            code = exit_code(ws);
        else
            stop_self(tty);
    }
    return code;
}

/* One message from the namespace's init; -1 once it has no more to say, or, when it says
 * the command's exit code (its last message: nothing of the run is left), that code. */
static int on_init_msg(const struct spawn_opts *o, int fd, bool tty)
{
    struct init_msg m;
    if (read_full(fd, &m, sizeof m) < 0)
        return -1;
    if (m.kind == INIT_EXITED)
        return m.code & 0xff;
    if (m.kind == INIT_STOPPED)
        stop_self(tty);
    else if (m.kind == INIT_LEFTOVER && o->on_leftover)
        o->on_leftover(o->record_ctx, &m.l);
    return INIT_MORE;
}

/* Wait for the child, forwarding signals to its group, following job control,
 * answering the metadata guard's questions (LISTENER, or -1), taking records and the
 * init's messages (STATUS, or -1). Returns its exit code, or -errno when waiting failed;
 * *SAID when the namespace's init said it (it is exiting then, not yet reaped). */
static int supervise(const struct spawn_opts *o, pid_t pid, bool tty, int sfd, int *listener,
                     int status, bool *said)
{
    const struct policy *guard = o->guard;
    struct pollfd fds[4] = {{.fd = sfd, .events = POLLIN},
                            {.fd = *listener, .events = POLLIN},
                            {.fd = o->on_record ? o->record_fd : -1, .events = POLLIN},
                            {.fd = status, .events = POLLIN}};
    for (;;) {
        if (poll(fds, 4, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -errno; /* nothing can be waited for: never spin on it */
        }
        if (fds[2].revents & POLLIN)
            o->on_record(o->record_ctx);
        if ((fds[1].revents & POLLIN) &&
            guard_answer(*listener, guard, o->on_guard_refusal, o->record_ctx) < 0) {
            /* A listener we cannot serve would leave every later metadata call
             * blocked; closed, the kernel fails them (ENOSYS) instead. */
            close_fd(listener);
            fds[1].fd = -1;
        } else if (fds[1].revents & (POLLHUP | POLLERR)) {
            fds[1].fd = -1; /* every guarded process is gone */
        }
        int init = fds[3].revents & (POLLIN | POLLHUP) ? on_init_msg(o, status, tty) : INIT_MORE;
        if (init >= 0) {
            *said = true;
            return init;
        }
        if (init == -1)
            fds[3].fd = -1;
        struct signalfd_siginfo si;
        if ((fds[0].revents & POLLIN) && read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
            int code = on_signal((int)si.ssi_signo, pid, tty, o->ns != NULL);
            if (code >= 0)
                return code;
        }
    }
}

static int open_channels(const struct spawn_opts *o, const sigset_t *set, struct channels *ch,
                         tf_err *err)
{
    ch->err[0] = ch->err[1] = ch->guard[0] = ch->guard[1] = ch->sfd = -1;
    ch->status[0] = ch->status[1] = ch->death[0] = ch->death[1] = -1;
    ch->gate[0] = ch->gate[1] = -1;
    if (pipe2(ch->err, O_CLOEXEC) < 0)
        return tf_errnof(err, errno, "pipe");
    if (o->ns && (pipe2(ch->status, O_CLOEXEC) < 0 || pipe2(ch->death, O_CLOEXEC) < 0))
        return tf_errnof(err, errno, "pipe");
    if (o->guard && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch->guard) < 0)
        return tf_errnof(err, errno, "socketpair");
    if (o->before_exec && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch->gate) < 0)
        return tf_errnof(err, errno, "socketpair");
    if ((ch->sfd = signalfd(-1, set, SFD_CLOEXEC)) < 0)
        return tf_errnof(err, errno, "signalfd");
    return 0;
}

static void close_channels(struct channels *ch)
{
    int *all[] = {&ch->err[0],    &ch->err[1],    &ch->guard[0], &ch->guard[1],
                  &ch->status[0], &ch->status[1], &ch->death[0], &ch->death[1],
                  &ch->gate[0],   &ch->gate[1],   &ch->sfd};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        close_fd(all[i]);
}

/* fork, or with the namespace layer a clone into new namespaces whose first process is our
 * init (a raw clone: glibc has no fork that takes namespace flags). */
static pid_t start(const struct spawn_opts *o, const sigset_t *old, bool tty, struct channels *ch)
{
    pid_t pid = o->ns ? (pid_t)syscall(SYS_clone, mountns_clone_flags(o->ns) | SIGCHLD, NULL, NULL,
                                       NULL, NULL)
                      : fork();
    if (pid == 0 && ch->gate[1] >= 0)
        close(ch->gate[1]); /* testfence's end: its death is an end-of-file at the gate */
    if (pid == 0 && o->ns)
        ns_init(o, old, tty, ch);
    if (pid == 0)
        child(o, old, tty, ch->err[1], ch->guard[1], ch->gate[0]);
    return pid;
}

/* A signal that stops the run (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT) that came while the
 * preparation ran, taken: its number, or 0 when none did. (Blocked for the signalfd, it would
 * otherwise go to a command started after it, or kill testfence unannounced once unblocked.) */
static int stop_signal_taken(void)
{
    sigset_t stop;
    sigemptyset(&stop);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&stop, sigs[i]);
    struct timespec now = {0, 0};
    int sig = sigtimedwait(&stop, NULL, &now);
    return sig > 0 ? sig : 0;
}

/* testfence's preparation beside the child's set-up, then the command's go. Failed, or
 * stopped by a signal meanwhile (*STATUS 128 + it), the child is killed before exec and
 * waited for; the caller reports ERR. */
static int open_gate(const struct spawn_opts *o, pid_t pid, struct channels *ch, int *status,
                     tf_err *err)
{
    if (!o->before_exec)
        return 0;
    int rc = o->before_exec(o->record_ctx, err);
    int sig = stop_signal_taken();
    if (rc == 0 && sig) { /* a refusal says why itself, with its own status */
        rc = tf_errf(err, "stopped by %s before the command started", strsignal(sig));
        *status = 128 + sig;
    }
    if (rc < 0) {
        close_fd(&ch->gate[1]);
        kill(-pid, SIGKILL); /* the init's group (its namespace dies), or the child's */
        waitpid(pid, NULL, 0);
        return -1;
    }
    char go = 1;
    send(ch->gate[1], &go, 1, MSG_NOSIGNAL); /* a child gone already: child_report says why */
    close_fd(&ch->gate[1]);
    return 0;
}

/* The namespace's init said the command's exit code and is exiting: the kernel tears its
 * namespaces down meanwhile (a fifth of a millisecond). With o->unreaped the caller reaps it
 * after its own work (the report), so the two overlap; else now. */
static void reap_later(const struct spawn_opts *o, pid_t init)
{
    if (o->unreaped)
        *o->unreaped = init;
    else
        spawn_reap(&init);
}

void spawn_reap(pid_t *pid)
{
    while (*pid > 0 && waitpid(*pid, NULL, __WALL) < 0 && errno == EINTR)
        ;
    *pid = 0;
}

/* After the command: what its init still has to say (the leftovers it killed), or, without
 * a PID namespace, the sweep of the orphans we inherited as subreaper. */
static void after_command(const struct spawn_opts *o, struct channels *ch, bool tty)
{
    if (o->ns) {
        while (ch->status[0] >= 0 && on_init_msg(o, ch->status[0], tty) == INIT_MORE)
            ;
        return;
    }
    if (o->on_leftover)
        reaper_sweep(0, o->test_env, o->on_leftover, o->record_ctx);
}

/* The child is on its way: testfence's preparation beside its set-up, then the go, the exec
 * and the wait. Returns what spawn_run does; *CODE is the command's exit code. */
static int watch(const struct spawn_opts *o, pid_t pid, bool tty, struct channels *ch, int *status,
                 int *code, tf_err *err)
{
    close_fd(&ch->err[1]);
    close_fd(&ch->guard[1]);
    close_fd(&ch->status[1]);
    close_fd(&ch->death[0]);
    close_fd(&ch->gate[0]);
    setpgid(pid, pid); /* also here: no race with the first signal we forward */
    if (tty && !o->ns) /* in namespaces the command takes it itself, the init on SIGCONT */
        give_terminal(pid);
    int rc = open_gate(o, pid, ch, status, err);
    if (rc == 0) {
        int listener = o->guard ? recv_fd(ch->guard[0]) : -1; /* GUARD_DECLINED: nested */
        rc = child_report(ch->err[0], o, status, err);
        if (rc == 0 && o->on_started)
            o->on_started(o->record_ctx);
        bool said = false;
        *code = supervise(o, pid, tty, ch->sfd, &listener, ch->status[0], &said);
        if (*code < 0) { /* unsupervised, the command must not go on: stop it */
            kill(-pid, SIGKILL);
            waitpid(pid, NULL, 0);
            if (rc == 0)
                rc = tf_errnof(err, -*code, "cannot wait for the command (poll)");
            *code = *status = TF_EXIT_OWN_ERROR;
        }
        close_fd(&listener);
        if (said)
            reap_later(o, pid);
        else if (rc != SPAWN_NO_NAMESPACE)
            after_command(o, ch, tty);
    }
    if (tty)
        give_terminal(getpgrp());
    return rc;
}

int spawn_run(const struct spawn_opts *o, int *status, tf_err *err)
{
    struct channels ch;
    sigset_t set, old;
    *status = TF_EXIT_OWN_ERROR;
    if (o->nkeep_fds > SPAWN_MAX_KEEP_FDS)
        return tf_errf(err, "too many descriptors to keep (%zu; at most %d)", o->nkeep_fds,
                       SPAWN_MAX_KEEP_FDS);
    bool tty = own_terminal();
    signal(SIGCHLD, SIG_DFL); /* an inherited SIG_IGN would reap the child behind our back */
    wait_set(&set);
    sigprocmask(SIG_BLOCK, &set, &old);
    /* Without a PID namespace, orphans of the command come to us, not to init. */
    bool reaper = !o->ns && o->on_leftover && prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
    pid_t pid = open_channels(o, &set, &ch, err) < 0 ? -2 : start(o, &old, tty, &ch);
    int rc = -1, code = 0;
    if (pid == -1)
        tf_errnof(err, errno, o->ns ? "the namespace layer is unavailable: clone" : "fork");
    if (pid == -1 && o->ns)
        rc = SPAWN_NO_NAMESPACE;
    if (pid > 0)
        rc = watch(o, pid, tty, &ch, status, &code, err);
    if (reaper)
        prctl(PR_SET_CHILD_SUBREAPER, 0);
    close_channels(&ch);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (rc < 0)
        return rc == SPAWN_NO_NAMESPACE ? SPAWN_NO_NAMESPACE : -1;
    *status = code;
    return 0;
}
