#include "channel.h"

#include "core/fileio.h"
#include "core/report.h"
#include "core/shimconf.h"
#include "core/vlog.h"
#include "core/walk.h"
#include "core/workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* What a private directory may hold; nothing else is ever removed from one. */
static const char *const channel_files[] = {CHANNEL_LOCK,  CHANNEL_LOCK ".new", CHANNEL_SOCKET,
                                            SHIMCONF_FILE, SHIMCONF_LOG,        NULL};

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The per-user base directory: made private, or refused unless it already is ours. */
static int open_base(const char *base, tf_err *err)
{
    if (mkdir(base, 0700) < 0 && errno != EEXIST)
        return tf_errnof(err, errno, "cannot create %s", base);
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return tf_errnof(err, errno, "cannot open %s", base);
    if (fstat(fd, &st) < 0 || st.st_uid != getuid() || (st.st_mode & 077)) {
        close(fd);
        return tf_errf(err, "%s is not a private directory of this user (mode 0700); remove it",
                       base);
    }
    return fd;
}

/* Remove the private directory NAME in BFD, a dead run's: only the files a channel of this
 * version or an earlier one makes. */
static void remove_private(int bfd, const char *name)
{
    int d = openat(bfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d < 0)
        return;
    for (const char *const *f = channel_files; *f; f++)
        unlinkat(d, *f, 0);
    close(d);
    unlinkat(bfd, name, AT_REMOVEDIR);
}

/* Is the private directory D (named NAME in BFD) a live run's, or one we must not take? Its
 * run holds a lock on the directory itself; one made by an earlier version holds one on its
 * CHANNEL_LOCK file, or is making it (CHANNEL_LOCK.new, not locked yet). */
static bool held(int bfd, const char *name, int d)
{
    struct stat locked, now;
    if (flock(d, LOCK_EX | LOCK_NB) < 0)
        return true;
    /* Locked: but is NAME still the directory we opened? Its run may have made it again, and
     * locked that one, after another sweep removed the one we hold. */
    if (fstat(d, &locked) < 0 || fstatat(bfd, name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
        locked.st_dev != now.st_dev || locked.st_ino != now.st_ino)
        return true;
    if (fstatat(d, CHANNEL_LOCK ".new", &now, AT_SYMLINK_NOFOLLOW) == 0)
        return true;
    int l = openat(d, CHANNEL_LOCK, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    bool busy = l >= 0 && flock(l, LOCK_EX | LOCK_NB) < 0;
    if (l >= 0)
        close(l);
    return busy;
}

/* Private directories whose run is gone (testfence was killed): nobody holds their lock. */
static void remove_stale(int bfd)
{
    struct dirlist *dl = walk_list(bfd);
    if (!dl)
        return;
    for (const struct dirlist_entry *e; (e = dirlist_next(dl));) {
        if (!ws_is_run_id(e->name))
            continue;
        int d = openat(bfd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (d >= 0 && !held(bfd, e->name, d))
            remove_private(bfd, e->name); /* our lock held meanwhile: nobody takes it over */
        if (d >= 0)
            close(d);
    }
    dirlist_close(dl);
}

/* Lock the private directory, waiting a moment for whoever holds it: another run's sweep
 * holds it for microseconds; anything longer (a process that opened it to stall us) and the
 * run goes on without the channel, said so. */
static int lock_dir(int fd, const char *dir, tf_err *err)
{
    struct timespec ms = {0, 1000000};
    for (int tries = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; tries++) {
        if (errno != EWOULDBLOCK && errno != EINTR)
            return tf_errnof(err, errno, "cannot lock %s", dir);
        if (tries == 1000)
            return tf_errf(err, "cannot lock %s: another process holds it", dir);
        nanosleep(&ms, NULL);
    }
    return 0;
}

/* Make the private directory and lock it, the directory itself (a lock file more would be
 * made, renamed and removed by every run). Another run's sweep may find it between our mkdir
 * and our lock, take it for a dead run's and remove it: then it has no link left once we
 * hold the lock, and we make it again (the sweep checks the name still leads to the
 * directory it locked, so it never removes the one made again). */
static int make_locked(struct channel *c, const char *dir, tf_err *err)
{
    for (int tries = 0; tries < 100; tries++) {
        if (mkdirat(c->basefd, c->name, 0700) < 0)
            return tf_errnof(err, errno, "cannot create %s", dir);
        c->dirfd = openat(c->basefd, c->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (c->dirfd < 0 && errno != ENOENT) {
            int e = errno;
            unlinkat(c->basefd, c->name, AT_REMOVEDIR);
            return tf_errnof(err, e, "cannot open %s", dir);
        }
        struct stat st;
        if (c->dirfd >= 0 && lock_dir(c->dirfd, dir, err) < 0)
            return -1;
        if (c->dirfd >= 0 && fstat(c->dirfd, &st) == 0 && st.st_nlink > 0)
            return 0;
        close_fd(&c->dirfd);
    }
    return tf_errf(err, "cannot keep %s: another run removed it again and again", dir);
}

/* Bind the datagram socket in the private directory; the sender's pid comes with each one. */
static int bind_socket(struct channel *c, const char *dir, tf_err *err)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int on = 1, buf = 1 << 20;
    snprintf(c->sock_path, sizeof c->sock_path, "%s/" CHANNEL_SOCKET, dir);
    int k =
        strlen(c->sock_path) < sizeof a.sun_path
            ? snprintf(a.sun_path, sizeof a.sun_path, "%s", c->sock_path)
            : snprintf(a.sun_path, sizeof a.sun_path, "/proc/self/fd/%d/" CHANNEL_SOCKET, c->dirfd);
    if (k < 0 || (size_t)k >= sizeof a.sun_path)
        return tf_errf(err, "the socket path %s is too long", c->sock_path);
    c->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->sock < 0 || setsockopt(c->sock, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) < 0 ||
        bind(c->sock, (struct sockaddr *)&a, sizeof a) < 0)
        return tf_errnof(err, errno, "cannot listen on %s", c->sock_path);
    setsockopt(c->sock, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf); /* best effort: bursts */
    return 0;
}

void channel_init(struct channel *c)
{
    *c =
        (struct channel){.basefd = -1, .dirfd = -1, .sock = -1, .log = -1, .wsfd = -1, .wslog = -1};
}

int channel_open(struct channel *c, const char *dir, tf_err *err)
{
    char base[PATH_MAX];
    const char *name = strrchr(dir, '/');
    channel_init(c);
    if (!name || strlen(name + 1) >= sizeof c->name)
        return tf_errf(err, "bad private directory %s", dir);
    snprintf(base, sizeof base, "%.*s", (int)(name - dir), dir);
    snprintf(c->name, sizeof c->name, "%s", name + 1);
    if ((c->basefd = open_base(base, err)) < 0)
        return -1;
    remove_stale(c->basefd);
    int rc = make_locked(c, dir, err);
    if (rc == 0)
        rc = bind_socket(c, dir, err);
    return rc; /* our copy of the log is made at the first record: most runs have none */
}

void channel_workspace(struct channel *c, int wsfd)
{
    c->wsfd = wsfd;
}

/* The workspace's copy: created by us at the first record; one already there was not. */
static void ws_append(struct channel *c, const char *line, size_t len)
{
    if (c->wslog < 0 && !c->ws_foreign) {
        c->wslog = openat(c->wsfd, SHIMCONF_LOG,
                          O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
        c->ws_foreign = c->wslog < 0;
    }
    if (c->wslog >= 0)
        fileio_write_all(c->wslog, line, len); /* a failure shows in channel_check */
}

void channel_add(struct channel *c, const struct vlog_record *rec)
{
    char line[VLOG_MAX], now[40];
    struct vlog_record r = *rec;
    if (!r.time) { /* a record must say when: then it is when it came */
        time_t t = time(NULL);
        struct tm tm;
        strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%S.000Z", gmtime_r(&t, &tm));
        r.time = now;
    }
    if (!r.path)
        r.path = "";
    size_t len = vlog_format(line, sizeof line, &r);
    if (c->full || c->bytes + len > REPORT_MAX_LOG) {
        c->full = true;
        c->dropped++;
        return;
    }
    if (c->log < 0) /* made once; if it cannot be, each record is lost, and the run fails */
        c->log = openat(c->dirfd, SHIMCONF_LOG, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
                        0600);
    if (c->log < 0 || fileio_write_all(c->log, line, len) < 0) {
        c->lost_errno = errno;
        c->lost++;
        return;
    }
    c->bytes += len;
    c->records++;
    ws_append(c, line, len);
}

/* One datagram of N bytes from PID (0: unknown). */
static void take(struct channel *c, char *buf, size_t n, pid_t pid)
{
    char scratch[VLOG_LINE_MAX + 1];
    struct vlog_record r;
    if (n > 0 && buf[n - 1] == '\n')
        n--;
    if (n == 0 || n >= VLOG_MAX || vlog_parse(buf, n, &r, scratch) < 0) {
        c->malformed++;
        return;
    }
    if (pid > 0)
        r.pid = pid; /* the kernel's word, not the sender's */
    channel_add(c, &r);
}

void channel_drain(struct channel *c)
{
    char buf[VLOG_MAX + 1], ctl[CMSG_SPACE(sizeof(struct ucred))];
    while (c->sock >= 0) {
        struct iovec iov = {buf, sizeof buf};
        struct msghdr m = {
            .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
        ssize_t n = recvmsg(c->sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return; /* EAGAIN: all taken */
        pid_t pid = 0;
        struct cmsghdr *h = CMSG_FIRSTHDR(&m);
        if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_CREDENTIALS) {
            struct ucred cr;
            memcpy(&cr, CMSG_DATA(h), sizeof cr);
            pid = cr.pid;
        }
        if (m.msg_flags & MSG_TRUNC)
            c->malformed++;
        else
            take(c, buf, (size_t)n, pid);
    }
}

/* Are the files open on A and B the same bytes? 1 yes, 0 no, -1 cannot tell. */
static int same_content(int a, int b)
{
    char x[8192], y[8192];
    for (;;) {
        ssize_t n = read(a, x, sizeof x);
        if (n < 0)
            return -1;
        if (n == 0)
            return read(b, y, 1) == 0; /* B must end here too */
        size_t got = 0;
        while (got < (size_t)n) {
            ssize_t m = read(b, y + got, (size_t)n - got);
            if (m < 0)
                return -1;
            if (m == 0)
                return 0;
            got += (size_t)m;
        }
        if (memcmp(x, y, (size_t)n))
            return 0;
    }
}

/* Put our copy in the workspace as SHIMCONF_LOG: a fresh file renamed over whatever is there. */
static void restore(struct channel *c)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "." SHIMCONF_LOG ".%ld.tmp", (long)getpid());
    int in = openat(c->dirfd, SHIMCONF_LOG, O_RDONLY | O_CLOEXEC);
    bool none = in < 0 && errno == ENOENT && c->log < 0; /* no record came: an empty log */
    int out = openat(c->wsfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    char buf[65536];
    ssize_t n = 0;
    while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0 &&
           fileio_write_all(out, buf, (size_t)n) == 0)
        ;
    bool ok = (in >= 0 || none) && out >= 0 && n == 0;
    if (out >= 0 && (close(out) < 0 || !ok || renameat(c->wsfd, tmp, c->wsfd, SHIMCONF_LOG) < 0))
        unlinkat(c->wsfd, tmp, 0);
    if (in >= 0)
        close(in);
}

/* Why the workspace's log is not what we wrote, or NULL when it is. */
static const char *compare(struct channel *c)
{
    struct stat st;
    if (fstat(c->wsfd, &st) == 0 && st.st_nlink == 0)
        return c->bytes ? "was removed with the whole run workspace" : NULL;
    int ws = openat(c->wsfd, SHIMCONF_LOG, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (ws < 0 && errno == ENOENT)
        return c->bytes ? "was deleted" : NULL;
    if (ws < 0 || fstat(ws, &st) < 0 || !S_ISREG(st.st_mode)) {
        if (ws >= 0)
            close(ws);
        return "was replaced by something that is not a regular file";
    }
    int ours = openat(c->dirfd, SHIMCONF_LOG, O_RDONLY | O_CLOEXEC);
    /* Ours missing is an empty log only while no record came; made, and gone, it was taken. */
    int same = ours >= 0                       ? same_content(ours, ws)
               : errno == ENOENT && c->log < 0 ? st.st_size == 0
                                               : -1;
    if (ours >= 0)
        close(ours);
    close(ws);
    if (same == 1)
        return NULL;
    return c->bytes ? "was changed" : "was written, but not by testfence (nothing was blocked)";
}

int channel_check(struct channel *c, const char *ws, char *why, size_t len)
{
    if (c->dirfd < 0 || c->wsfd < 0)
        return 0;
    const char *what = compare(c);
    if (!what)
        return 0;
    snprintf(why, len, "the violation log %s/" SHIMCONF_LOG " %s during the run", ws, what);
    struct stat st;
    if (fstat(c->wsfd, &st) == 0 && st.st_nlink > 0)
        restore(c);
    return -1;
}

void channel_close(struct channel *c)
{
    close_fd(&c->sock);
    close_fd(&c->wslog);
    if (c->dirfd >= 0) { /* ours, removed while we hold its lock: only the files it holds */
        unlinkat(c->dirfd, CHANNEL_SOCKET, 0);
        unlinkat(c->dirfd, SHIMCONF_FILE, 0);
        if (c->log >= 0)
            unlinkat(c->dirfd, SHIMCONF_LOG, 0);
        unlinkat(c->basefd, c->name, AT_REMOVEDIR);
    }
    close_fd(&c->log);
    close_fd(&c->dirfd);
    close_fd(&c->basefd);
}
