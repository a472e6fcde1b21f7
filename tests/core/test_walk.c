/* test_walk: the tree walker (order, depth, links never followed, problems told) and the
 * component-at-a-time directory opener that refuses symlinks. */
#include "check.h"

#include "core/walk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];

/* What a walk saw, as one string of "V<depth>:<path> ", "L:<path> " and "P<what>:<path> ". */
struct seen {
    char log[8192];
    int stop_at_visit; /* stop (return -1) at this many visits; 0: never */
    int visits;
};

static void note(struct seen *s, char what, int n, const char *path)
{
    size_t k = strlen(s->log);
    snprintf(s->log + k, sizeof s->log - k, "%c%d:%s ", what, n, path);
}

static int visit(void *ctx, struct walk_entry *e)
{
    struct seen *s = ctx;
    note(s, 'V', e->depth, e->path);
    e->tag = e->depth + 100; /* handed back in leave() and problem() */
    if (s->stop_at_visit && ++s->visits == s->stop_at_visit)
        return -1;
    return e->type == DT_DIR || e->type == DT_LNK; /* try the link: it must not be entered */
}

static int leave(void *ctx, const struct walk_entry *e)
{
    struct seen *s = ctx;
    CHECK(e->tag == e->depth + 100);
    note(s, 'L', e->depth, e->path);
    return 0;
}

static int problem(void *ctx, const struct walk_entry *d, enum walk_problem what, int errnum)
{
    struct seen *s = ctx;
    (void)errnum;
    note(s, 'P', (int)what, d->path);
    return 0;
}

static const char *at(const char *rel)
{
    static char buf[4][PATH_MAX + 64];
    static int k;
    char *b = buf[k++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", dir, rel);
    return b;
}

static void touch(const char *rel)
{
    int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
}

/* DIR holds one directory "a" with one directory "b" and a file "f", and a link "l" to /. */
static void make_tree(void)
{
    CHECK(mkdir(at("t"), 0755) == 0);
    CHECK(mkdir(at("t/a"), 0755) == 0);
    CHECK(mkdir(at("t/a/b"), 0755) == 0);
    touch("t/a/f");
    CHECK(symlink("/", at("t/l")) == 0);
}

static int open_t(void)
{
    return open(at("t"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void walk_order(void)
{
    struct walk_ops ops = {.visit = visit, .leave = leave, .problem = problem, .max_depth = 8};
    struct seen s = {0};
    CHECK(walk_fd(open_t(), "/T", 7, &ops, &s) == 0);
    /* readdir's order is the file system's: check each fact, not the whole string */
    CHECK(strstr(s.log, "V0:/T/a ") != NULL);
    CHECK(strstr(s.log, "V1:/T/a/b ") != NULL);
    CHECK(strstr(s.log, "V1:/T/a/f ") != NULL);
    CHECK(strstr(s.log, "L1:/T/a/b ") != NULL);
    CHECK(strstr(s.log, "V0:/T/l ") != NULL);
    /* the link to / was not entered: O_NOFOLLOW refuses it, told as unlisted */
    CHECK(strstr(s.log, "P1:/T/l ") != NULL);
    CHECK(strstr(s.log, "L0:/T/l ") == NULL);
    /* parents first, leave after the children */
    const char *va = strstr(s.log, "V0:/T/a "), *vb = strstr(s.log, "V1:/T/a/b ");
    const char *la = strstr(s.log, "L0:/T/a ");
    CHECK(va && vb && la && va < vb && vb < la);
    CHECK(strstr(s.log, "/T//") == NULL);
}

static void walk_from_slash(void)
{
    struct walk_ops ops = {.visit = visit, .max_depth = 8};
    struct seen s = {0};
    /* children of "/" are "/x", not "//x" (the fd is the temp tree, named "/" here) */
    CHECK(walk_fd(open_t(), "/", 0, &ops, &s) == 0);
    CHECK(strstr(s.log, "V0:/a ") != NULL);
    CHECK(strstr(s.log, "V1:/a/b ") != NULL);
    CHECK(strstr(s.log, "//") == NULL);
}

static void walk_limits(void)
{
    struct walk_ops ops = {.visit = visit, .leave = leave, .problem = problem, .max_depth = 1};
    struct seen s = {0};
    CHECK(walk_fd(open_t(), "/T", 0, &ops, &s) == 0);
    CHECK(strstr(s.log, "V1:/T/a/b ") != NULL);
    CHECK(strstr(s.log, "P0:/T/a/b ") != NULL); /* WALK_TOO_DEEP, not entered */
    CHECK(strstr(s.log, "L1:/T/a/b ") == NULL);

    /* a start path that leaves no room for a child's name */
    static char longpath[PATH_MAX];
    memset(longpath, 'x', PATH_MAX - 2);
    longpath[0] = '/';
    longpath[PATH_MAX - 2] = '\0';
    struct seen t = {0};
    ops.max_depth = 8;
    CHECK(walk_fd(open_t(), longpath, 0, &ops, &t) == 0);
    CHECK(strstr(t.log, "P2:/xxx") != NULL); /* WALK_PATH_TOO_LONG */
    CHECK(strstr(t.log, "V") == NULL);

    /* a start path longer than PATH_MAX: told, and the fd closed */
    static char toolong[PATH_MAX + 8];
    memset(toolong, 'y', sizeof toolong - 1);
    struct seen u = {0};
    int fd = open_t();
    CHECK(walk_fd(fd, toolong, 0, &ops, &u) == 0);
    CHECK(strncmp(u.log, "P2:", 3) == 0);
    CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF);
}

static void walk_stops(void)
{
    struct walk_ops ops = {.visit = visit, .max_depth = 8};
    struct seen s = {.stop_at_visit = 1};
    CHECK(walk_fd(open_t(), "/T", 0, &ops, &s) == -1);
    CHECK(s.visits == 1);
}

static int open_fd(const char *rel, mode_t mode, tf_err *err)
{
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = walk_open_dir(d, "DIR", rel, mode, err);
    int e = errno;
    close(d);
    errno = e;
    return fd;
}

static void open_dirs(void)
{
    tf_err err = {0};
    int fd = open_fd("m/n//o", 0700, &err); /* made on the way; an empty component is none */
    CHECK(fd >= 0);
    struct stat st;
    CHECK(stat(at("m/n/o"), &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC));
    if (fd >= 0)
        close(fd);
    fd = open_fd("", 0, &err); /* "" opens DIRFD again */
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);

    CHECK(open_fd("nothere", 0, &err) == -1 && errno == ENOENT);
    CHECK(open_fd("t/l", 0, &err) == -1 && (errno == ELOOP || errno == ENOTDIR));
    CHECK(strstr(err.msg, "refusing to use DIR/t/l") != NULL);
    CHECK(open_fd("t/l/tmp", 0700, &err) == -1); /* even when making: never through it */
    CHECK(open_fd("t/a/f", 0, &err) == -1 && errno == ENOTDIR);
    CHECK(strstr(err.msg, "DIR/t/a/f") != NULL);
    CHECK(open_fd("t/../t", 0, &err) == -1 && errno == EINVAL);
    CHECK(open_fd("./t", 0, &err) == -1 && errno == EINVAL);
    CHECK(strstr(err.msg, "refusing \".\"") != NULL);
}

/* errno says why, a name too long included (the header promises it for every -1). */
static void open_too_long(void)
{
    static char rel[PATH_MAX + 8];
    memset(rel, 'a', sizeof rel - 1);
    tf_err err = {0};
    errno = 0;
    CHECK(open_fd(rel, 0, &err) == -1);
    CHECK(errno == ENAMETOOLONG);
    CHECK(strstr(err.msg, "too long") != NULL);
}

static void path_dirs(void)
{
    tf_err err = {0};
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = walk_path_dir(d, "DIR", "p/q", 0711, &err);
    CHECK(fd >= 0);
    CHECK(fd >= 0 && (fcntl(fd, F_GETFL) & O_PATH));
    int f = fd >= 0 ? openat(fd, "file", O_WRONLY | O_CREAT | O_CLOEXEC, 0644) : -1;
    CHECK(f >= 0); /* good as the DIRFD of *at calls */
    if (f >= 0)
        close(f);
    CHECK(walk_path_dir(d, "DIR", "t/l", 0, &err) == -1);
    if (fd >= 0)
        close(fd);
    close(d);
}

static void listing(void)
{
    int d = open(at("t/a"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct dirlist *l = walk_list(d);
    CHECK(l != NULL);
    if (!l)
        return;
    CHECK(fcntl(dirlist_fd(l), F_GETFD) & FD_CLOEXEC);
    int names = 0;
    for (const struct dirlist_entry *e; (e = dirlist_next(l));)
        names += e->name[0] != '.';
    CHECK(names == 2);
    dirlist_close(l);
    /* DIRFD kept its own offset: a second listing sees everything again */
    l = walk_list(d);
    names = 0;
    for (const struct dirlist_entry *e; l && (e = dirlist_next(l));)
        names += e->name[0] != '.';
    CHECK(names == 2);
    dirlist_close(l);
    close(d);
    errno = 0;
    CHECK(walk_list(-1) == NULL && errno == EBADF);
}

int main(void)
{
    if (!check_tmpdir(dir, sizeof dir, "tf_walk"))
        return perror("mkdtemp"), 1;
    make_tree();
    walk_order();
    walk_from_slash();
    walk_limits();
    walk_stops();
    open_dirs();
    open_too_long();
    path_dirs();
    listing();
    return check_done("test_walk");
}
