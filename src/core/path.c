/* The resolver walks a path one component at a time through O_PATH file descriptors,
 * starting from the root, the cwd or a dirfd of the process in question, and asks the kernel
 * for the name of what it reached (/proc/self/fd/N). Nothing is concatenated into text that
 * could overflow, and nothing is read twice from somewhere that could change in between. */
#include "path.h"
#include "oscalls.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Linux gives up after 40 symlinks (ELOOP); so do we. */
enum { MAX_LINKS = 40, PROC_ROOT_INO = 1 };

#define DELETED " (deleted)"

struct walker {
    const struct path_ctx *ctx;
    struct path_res *res;
    tf_err *err;
    int root;               /* the process's root directory */
    int cur;                /* the directory reached so far */
    char *buf;              /* the components still to walk (replaced at each symlink) */
    char *rest;             /* the next of them, in buf */
    int links;              /* symlinks followed */
    struct path_open *open; /* path_open_at's checks and its directory (NULL: none) */
    bool follow_last;       /* follow a final symlink */
    bool trailing;          /* the path ends in '/': its target must be a directory */
    char name[PATH_MAX];
    char link[PATH_MAX];
};

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ---- the process in question ---------------------------------------------------------- */

/* Open WHAT ("cwd", "root", "fd/3") of CTX's process through /proc, or of this one. */
static int ctx_open(const struct path_ctx *ctx, const char *what, int flags)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/%s", (int)ctx->pid, what);
    return open(p, flags | O_CLOEXEC);
}

static int open_root(const struct path_ctx *ctx)
{
    return ctx->pid ? ctx_open(ctx, "root", O_PATH | O_DIRECTORY)
                    : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static int open_cwd(const struct path_ctx *ctx)
{
    return ctx->pid ? ctx_open(ctx, "cwd", O_PATH | O_DIRECTORY)
                    : open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* The process's open file FD, as our own descriptor; errno EBADF when it has none. */
static int open_fd(const struct path_ctx *ctx, int fd)
{
    if (!ctx->pid)
        return fcntl(fd, F_DUPFD_CLOEXEC, 3);
    char what[32];
    snprintf(what, sizeof what, "fd/%d", fd);
    int r = ctx_open(ctx, what, O_PATH);
    if (r < 0 && errno == ENOENT)
        errno = EBADF;
    return r;
}

/* The tgid of thread TID: /proc/self in its view names the process, /proc/thread-self the
 * thread. */
static pid_t tgid_of(pid_t tid)
{
    char p[64], line[128];
    pid_t tgid = -1;
    snprintf(p, sizeof p, "/proc/%d/status", (int)tid);
    FILE *f = fopen(p, "re");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Tgid:", 5))
            tgid = (pid_t)atoi(line + 5);
    fclose(f);
    return tgid;
}

/* "self" or "thread-self" at the top of a procfs: the process's own directory in our /proc
 * (whichever procfs instance its path went through, the link means the caller). */
static int open_proc_self(const struct path_ctx *ctx, bool thread)
{
    char p[80];
    if (!ctx->pid)
        return open(thread ? "/proc/thread-self" : "/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
    pid_t tgid = tgid_of(ctx->pid);
    if (tgid < 0)
        return -1;
    if (thread)
        snprintf(p, sizeof p, "/proc/%d/task/%d", (int)tgid, (int)ctx->pid);
    else
        snprintf(p, sizeof p, "/proc/%d", (int)tgid);
    return open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* Are A and B the same directory in the same mount? The inode alone is not enough: a bind
 * mount of / elsewhere (/host) has the root's inode, and its ".." leads out of it, not to
 * itself. The mount id where the kernel gives it (STATX_MNT_ID, Linux 5.8), else the inode. */
static bool same_place(int a, int b)
{
    struct statx xa, xb;
    unsigned mask = STATX_INO | STATX_MNT_ID;
    if (statx(a, "", AT_EMPTY_PATH, mask, &xa) < 0 || statx(b, "", AT_EMPTY_PATH, mask, &xb) < 0)
        return false;
    if (xa.stx_dev_major != xb.stx_dev_major || xa.stx_dev_minor != xb.stx_dev_minor ||
        xa.stx_ino != xb.stx_ino)
        return false;
    return !(xa.stx_mask & xb.stx_mask & STATX_MNT_ID) || xa.stx_mnt_id == xb.stx_mnt_id;
}

static bool on_proc(int fd)
{
    return os_on_procfs(fd);
}

static bool is_proc_root(int fd)
{
    struct stat st;
    return on_proc(fd) && fstat(fd, &st) == 0 && st.st_ino == PROC_ROOT_INO;
}

/* Nothing is named: the kernel fails the call with E. Returns 1 (the walk is over). */
static int rejected(struct walker *w, int e)
{
    w->res->kind = PATH_REJECTED;
    w->res->errnum = e;
    return 1;
}

/* ---- naming what was reached --------------------------------------------------------- */

/* The name this process sees for its open file FD: 0, 1 when too long to name, -1 (errno). */
static int fd_text(int fd, char *out, size_t len)
{
    char link[40];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, len - 1);
    if (n < 0)
        return errno == ENAMETOOLONG ? 1 : -1;
    if ((size_t)n >= len - 1)
        return 1; /* readlink cuts silently */
    out[n] = '\0';
    return 0;
}

/* The target, in or at DIR, is too deep to name: name DIR or its deepest ancestor that fits
 * instead, and mark the target as beneath it. Every entry of the writable set fits in PATH_MAX, so
 * any that contains the target contains that ancestor too. */
static int name_ancestor(struct walker *w, int dir)
{
    int d = fcntl(dir, F_DUPFD_CLOEXEC, 3);
    for (int i = 0; d >= 0 && i < PATH_MAX; i++) {
        int r = fd_text(d, w->res->path, sizeof w->res->path);
        if (r == 0 && w->res->path[0] == '/') {
            close(d);
            w->res->beneath = true;
            return 0;
        }
        int up = r < 0 ? -1 : openat(d, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
        close(d);
        d = up;
    }
    int e = errno;
    close_fd(&d);
    return tf_errnof(w->err, e, "cannot name a directory too deep for PATH_MAX");
}

/* RES->path was read as the name of FD and ends in " (deleted)": the file has no name left
 * (nothing on disk can be reached through it), or it is a real name ending so, or the name
 * went stale while other links remain (then we cannot say where it lives). */
static int deleted(struct walker *w, int fd)
{
    struct stat st, named;
    if (fstat(fd, &st) < 0)
        return tf_errnof(w->err, errno, "cannot look at %s", w->res->path);
    if (st.st_nlink == 0) {
        w->res->kind = PATH_NO_FILE;
        return 0;
    }
    if (fstatat(AT_FDCWD, w->res->path, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        named.st_dev == st.st_dev && named.st_ino == st.st_ino)
        return 0;
    return tf_errf(w->err, "%s was unlinked but has other links: cannot tell where it lives",
                   w->res->path);
}

/* path_open_at: the target OBJ, when it is a directory, is handed back open. */
static void hand_back(struct walker *w, int obj)
{
    struct stat st;
    if (w->open && w->open->dirfd < 0 && fstat(obj, &st) == 0 && S_ISDIR(st.st_mode))
        w->open->dirfd = fcntl(obj, F_DUPFD_CLOEXEC, 3);
}

/* The target is the open file OBJ; PARENT (or -1) is the directory it was found in. */
static int name_object(struct walker *w, int obj, int parent)
{
    struct path_res *res = w->res;
    hand_back(w, obj);
    res->kind = PATH_FILE;
    int r = fd_text(obj, res->path, sizeof res->path);
    if (r < 0)
        return tf_errnof(w->err, errno, "cannot name an open file");
    if (r == 1)
        return parent >= 0 ? name_ancestor(w, parent)
                           : tf_errf(w->err, "an open file too deep to name");
    if (res->path[0] != '/') {
        res->kind = PATH_NO_FILE; /* pipe:[...], socket:[...], anon_inode:... */
        return 0;
    }
    return path_ends_with(res->path, DELETED) ? deleted(w, obj) : 0;
}

/* Append the components of TAIL to res->path lexically: none of them exists, so there is no
 * symlink to honour (the kernel fails the call; this only names what was meant). */
static void append_lexical(struct path_res *res, const char *tail)
{
    char *base = res->path;
    size_t len = strlen(base);
    for (const char *c = tail; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            char *slash = strrchr(base, '/');
            len = slash == base ? 1 : (size_t)(slash - base);
            base[len] = '\0';
        } else if (n && !(n == 1 && c[0] == '.')) {
            bool root = len == 1;
            if (len + !root + n >= sizeof res->path) {
                res->beneath = true; /* named by what fits: the rest is beneath it */
                return;
            }
            if (!root)
                base[len++] = '/';
            memcpy(base + len, c, n);
            len += n;
            base[len] = '\0';
        }
        c += n;
        c += strspn(c, "/");
    }
}

/* The target is NAME (and, when E is set, the components after it) in the current directory,
 * which does not hold it. E: the errno the kernel fails the call with (a missing directory). */
static int name_missing(struct walker *w, const char *name, const char *after, int e)
{
    struct path_res *res = w->res;
    if (on_proc(w->cur)) {
        rejected(w, ENOENT); /* nothing is ever made in /proc: a closed /proc/self/fd/N */
        return 0;
    }
    res->kind = PATH_FILE;
    res->errnum = e;
    int r = fd_text(w->cur, res->path, sizeof res->path);
    if (r < 0)
        return tf_errnof(w->err, errno, "cannot name a directory");
    if (r == 1)
        return name_ancestor(w, w->cur);
    if (path_ends_with(res->path, DELETED)) {
        struct stat st;
        if (fstat(w->cur, &st) == 0 && st.st_nlink == 0) {
            res->kind = PATH_REJECTED; /* nothing can be made in a removed directory */
            res->errnum = ENOENT;
            return 0;
        }
        if (deleted(w, w->cur) < 0)
            return -1;
    }
    append_lexical(res, name);
    if (after)
        append_lexical(res, after);
    return 0;
}

/* ---- walking ------------------------------------------------------------------------- */

/* Take the next component of w->rest into w->name; true when it is the last. */
static bool next_name(struct walker *w)
{
    char *c = w->rest;
    size_t n = strcspn(c, "/");
    memcpy(w->name, c, n < sizeof w->name ? n : sizeof w->name - 1);
    w->name[n < sizeof w->name ? n : sizeof w->name - 1] = '\0';
    c += n;
    c += strspn(c, "/");
    w->rest = c;
    return *c == '\0';
}

/* Continue the walk at the symlink text TARGET followed by what is left. */
static int expand(struct walker *w, const char *target)
{
    if (++w->links > MAX_LINKS)
        return rejected(w, ELOOP);
    size_t lt = strlen(target), lr = strlen(w->rest);
    char *nb = malloc(lt + lr + 2);
    if (!nb)
        return tf_errf(w->err, "out of memory");
    memcpy(nb, target, lt);
    nb[lt] = lr ? '/' : '\0';
    memcpy(nb + lt + 1, w->rest, lr + 1);
    free(w->buf);
    w->buf = w->rest = nb;
    if (target[0] == '/') {
        close_fd(&w->cur);
        if ((w->cur = fcntl(w->root, F_DUPFD_CLOEXEC, 3)) < 0)
            return tf_errnof(w->err, errno, "cannot reopen the root");
        w->rest += strspn(w->rest, "/");
    }
    return 0;
}

/* Move into the directory or file FD reached from the current directory; KNOWN is its
 * fstat when the caller has it (NULL: looked at here). */
static int enter(struct walker *w, int fd, bool last, const struct stat *known)
{
    struct stat st;
    if (known)
        st = *known;
    else if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return tf_errnof(w->err, e, "cannot look at %s", w->name);
    }
    if (last) {
        int rc = name_object(w, fd, w->cur);
        close(fd);
        if (rc == 0 && w->trailing && !S_ISDIR(st.st_mode))
            w->res->errnum = ENOTDIR;
        return rc < 0 ? -1 : 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        close(fd);
        return name_missing(w, w->name, w->rest, ENOTDIR) < 0 ? -1 : 1;
    }
    close_fd(&w->cur);
    w->cur = fd;
    return 0;
}

/* A symlink on procfs: self and thread-self name the caller; links with relative text
 * (mounts -> self/mounts) are ordinary; the rest (fd/N, cwd, root, exe) are magic: they lead
 * to the file itself, whatever their text says, so we open them rather than read them. */
static int proc_link(struct walker *w, bool last)
{
    bool self = !strcmp(w->name, "self"), thread = !strcmp(w->name, "thread-self");
    if ((self || thread) && is_proc_root(w->cur)) {
        if (++w->links > MAX_LINKS)
            return rejected(w, ELOOP);
        int fd = open_proc_self(w->ctx, thread);
        return fd < 0 ? tf_errnof(w->err, errno, "cannot open /proc/%s of the caller", w->name)
                      : enter(w, fd, last, NULL);
    }
    ssize_t n = readlinkat(w->cur, w->name, w->link, sizeof w->link - 1);
    if (n < 0)
        return errno == ENOENT ? rejected(w, ENOENT) : tf_errnof(w->err, errno, "readlink");
    w->link[n] = '\0';
    if (n > 0 && w->link[0] != '/' && !strchr(w->link, ':'))
        return expand(w, w->link);
    if (++w->links > MAX_LINKS)
        return rejected(w, ELOOP);
    int fd = openat(w->cur, w->name, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? rejected(w, ENOENT) /* the fd was closed meanwhile */
                               : tf_errnof(w->err, errno, "cannot open /proc/.../%s", w->name);
    return enter(w, fd, last, NULL);
}

/* path_open_at: the symlink C in the current directory is about to be followed; its
 * caller may refuse it. 0, or -1 with the caller's error. */
static int show_link(struct walker *w, const char *c)
{
    char dir[PATH_MAX], link[PATH_MAX];
    if (!w->open || !w->open->on_link)
        return 0;
    if (fd_text(w->cur, dir, sizeof dir) != 0 || dir[0] != '/')
        return tf_errf(w->err, "cannot name the directory of the symlink %s", c);
    if (path_join(link, sizeof link, dir, c, w->err) < 0)
        return -1;
    return w->open->on_link(link, w->open->arg, w->err);
}

/* One component: 0 to go on, 1 when the target is named, -1 on failure. */
static int step(struct walker *w)
{
    bool last = next_name(w);
    const char *c = w->name;
    if (!c[0] || !strcmp(c, ".") || !strcmp(c, "..")) {
        if (!strcmp(c, "..") && !same_place(w->cur, w->root)) {
            int up = openat(w->cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
            if (up < 0)
                return tf_errnof(w->err, errno, "cannot open ..");
            close_fd(&w->cur);
            w->cur = up;
        }
        return last ? (name_object(w, w->cur, w->cur) < 0 ? -1 : 1) : 0;
    }
    int fd = openat(w->cur, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    int e = fd < 0 ? errno : 0;
    if (e == ENOENT || e == ENOTDIR || e == ENAMETOOLONG)
        return name_missing(w, c, last ? NULL : w->rest, last && e == ENOENT ? 0 : e) < 0 ? -1 : 1;
    if (fd < 0)
        return tf_errnof(w->err, e, "cannot look up %s", c);
    struct stat st;
    if (fstat(fd, &st) < 0)
        return enter(w, fd, last, NULL); /* says why */
    if (!S_ISLNK(st.st_mode) || (last && !w->follow_last))
        return enter(w, fd, last, &st);
    close(fd);
    if (show_link(w, c) < 0)
        return -1;
    if (on_proc(w->cur))
        return proc_link(w, last);
    ssize_t n = readlinkat(w->cur, c, w->link, sizeof w->link - 1);
    if (n < 0)
        return tf_errnof(w->err, errno, "cannot read the symlink %s", c);
    w->link[n] = '\0';
    return expand(w, w->link);
}

/* Where the walk starts: the root for an absolute path, else DIRFD or the cwd. */
static int start(struct walker *w, int dirfd, const char *path)
{
    const struct path_ctx *ctx = w->ctx;
    if ((w->root = open_root(ctx)) < 0)
        return tf_errnof(w->err, errno, "cannot open the root of process %d", (int)ctx->pid);
    if (path[0] == '/')
        w->cur = fcntl(w->root, F_DUPFD_CLOEXEC, 3);
    else
        w->cur = dirfd == AT_FDCWD ? open_cwd(ctx) : open_fd(ctx, dirfd);
    if (w->cur >= 0)
        return 0;
    if (errno == EBADF)
        return rejected(w, EBADF);
    return tf_errnof(w->err, errno, "cannot open the %s of process %d",
                     dirfd == AT_FDCWD ? "cwd" : "dirfd", (int)ctx->pid);
}

/* PATH is "" with AT_EMPTY_PATH: DIRFD (the cwd for AT_FDCWD) is the target. */
static int empty_path(struct walker *w, int dirfd)
{
    int fd = dirfd == AT_FDCWD ? open_cwd(w->ctx) : open_fd(w->ctx, dirfd);
    if (fd < 0 && errno == EBADF)
        return rejected(w, EBADF);
    if (fd < 0)
        return tf_errnof(w->err, errno, "cannot open fd %d of process %d", dirfd, (int)w->ctx->pid);
    int rc = name_object(w, fd, fd); /* a directory too deep to name is beneath its parent */
    close(fd);
    return rc < 0 ? -1 : 1;
}

/* The last component of PATH (trailing slashes left out) in NAME, and what is before it in DIR
 * ("." for none, "/" for the root). False when there is no plain last name ("/", ".", ".."). */
static bool split_last(const char *path, char *dir, char *name)
{
    size_t end = strlen(path);
    while (end > 1 && path[end - 1] == '/')
        end--;
    size_t start = end;
    while (start > 0 && path[start - 1] != '/')
        start--;
    size_t n = end - start;
    if (n == 0 || n >= NAME_MAX + 1 || (n == 1 && path[start] == '.') ||
        (n == 2 && path[start] == '.' && path[start + 1] == '.'))
        return false;
    memcpy(name, path + start, n);
    name[n] = '\0';
    size_t d = start;
    while (d > 1 && path[d - 1] == '/')
        d--;
    if (d == 0) { /* a name in DIRFD itself */
        path = ".";
        d = 1;
    }
    memcpy(dir, path, d);
    dir[d] = '\0';
    return true;
}

/* The target does not exist (ENOENT) and the caller may create it: name it in its parent
 * when the kernel reaches that without a link. 1: named; 0: the walk decides. */
static int direct_missing(struct walker *w, int dirfd, const char *path)
{
    char dir[PATH_MAX], name[NAME_MAX + 1];
    if (!split_last(path, dir, name))
        return 0;
    int fd = os_open_no_links(dirfd, dir, O_DIRECTORY);
    if (fd < 0)
        return 0; /* a directory on the way is missing too, or a link: the walk says which */
    struct path_res *res = w->res;
    int r = on_proc(fd) ? 1 : fd_text(fd, res->path, sizeof res->path);
    close(fd);
    if (r != 0 || res->path[0] != '/' || path_ends_with(res->path, DELETED)) {
        memset(res, 0, sizeof *res); /* /proc, too deep, or gone meanwhile */
        return 0;
    }
    res->kind = PATH_FILE;
    append_lexical(res, name);
    return 1;
}

/* Most paths hold no symlink: the kernel resolves those in one call that refuses any link on
 * the way (openat2's RESOLVE_NO_SYMLINKS), reaching what the walk below would, for a few system
 * calls instead of three or four per component (a run resolves dozens of paths; the plugin
 * hundreds of modules). 1: named; 0: not taken (a link on the way, a name too deep, another
 * process's view, a kernel without openat2): the walk decides. */
static int direct(struct walker *w, int dirfd, const char *path)
{
    if (w->ctx->pid != 0)
        return 0;
    int fd = os_open_no_links(dirfd, path, w->follow_last ? 0 : O_NOFOLLOW);
    if (fd < 0)
        return errno == ENOENT ? direct_missing(w, dirfd, path) : 0;
    struct path_res *res = w->res;
    int r = fd_text(fd, res->path, sizeof res->path);
    if (r != 0 || res->path[0] != '/' || path_ends_with(res->path, DELETED)) {
        close(fd); /* too deep, or gone meanwhile: the walk knows what to say */
        memset(res, 0, sizeof *res);
        return 0;
    }
    hand_back(w, fd);
    res->kind = PATH_FILE;
    close(fd);
    return 1;
}

/* Walk PATH to its target: 1 when it is named (or rejected), -1 on failure. */
static int walk(struct walker *w, int dirfd, const char *path, unsigned flags)
{
    size_t len = strlen(path);
    if (!len)
        return flags & PATH_EMPTY ? empty_path(w, dirfd) : rejected(w, ENOENT);
    if (len >= PATH_MAX)
        return rejected(w, ENAMETOOLONG);
    /* Trailing slashes make the last component a directory, followed even for NOFOLLOW. */
    w->trailing = len > 1 && path[len - 1] == '/';
    w->follow_last = !(flags & PATH_NOFOLLOW) || w->trailing;
    if (direct(w, dirfd, path))
        return 1;
    if (!(w->buf = strdup(path)))
        return tf_errf(w->err, "out of memory");
    w->rest = w->buf + strspn(w->buf, "/");
    int rc = start(w, dirfd, path);
    if (rc == 0 && !*w->rest) /* "/" or "//" */
        rc = name_object(w, w->cur, w->cur) < 0 ? -1 : 1;
    while (rc == 0)
        rc = step(w);
    return rc;
}

static int resolve(const struct path_ctx *ctx, int dirfd, const char *path, unsigned flags,
                   struct path_open *open, struct path_res *res, tf_err *err)
{
    static const struct path_ctx self = {0};
    struct walker *w = calloc(1, sizeof *w);
    memset(res, 0, sizeof *res);
    if (!w)
        return tf_errf(err, "out of memory");
    *w = (struct walker){
        .ctx = ctx ? ctx : &self, .res = res, .err = err, .root = -1, .cur = -1, .open = open};
    int rc = walk(w, dirfd, path ? path : "", flags);
    close_fd(&w->root);
    close_fd(&w->cur);
    free(w->buf);
    free(w);
    return rc < 0 ? -1 : 0;
}

int path_resolve_at(const struct path_ctx *ctx, int dirfd, const char *path, unsigned flags,
                    struct path_res *res, tf_err *err)
{
    return resolve(ctx, dirfd, path, flags, NULL, res, err);
}

int path_open_at(const char *path, struct path_open *open, struct path_res *res, tf_err *err)
{
    open->dirfd = -1;
    int rc = resolve(NULL, AT_FDCWD, path, 0, open, res, err);
    if ((rc < 0 || res->kind != PATH_FILE || res->errnum) && open->dirfd >= 0) {
        close(open->dirfd); /* no directory was reached after all */
        open->dirfd = -1;
    }
    return rc;
}
