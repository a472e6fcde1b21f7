/* Unit tests for src/core/path.c: resolution as the kernel sees paths, for this process and
 * for another one (the guard's view of the process it supervises). Every class of the escape
 * corpus's metadata cases has its case here: procfs and /dev/fd paths, an empty path, paths
 * of PATH_MAX-1 bytes, cwds deeper than PATH_MAX, a process we may not look into. */
#include "check.h"
#include "core/path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char base[PATH_MAX];

static void at(char *out, const char *rel)
{
    snprintf(out, PATH_MAX, "%s%s%s", base, rel[0] ? "/" : "", rel);
}

static void mk(const char *rel)
{
    char p[PATH_MAX];
    at(p, rel);
    mkdir(p, 0755);
}

static void touch(const char *rel)
{
    char p[PATH_MAX];
    at(p, rel);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
        close(fd);
}

static void ln(const char *target, const char *rel)
{
    char p[PATH_MAX];
    at(p, rel);
    if (symlink(target, p) < 0)
        perror("symlink");
}

/* Resolve IN for CTX; expect a file at WANT_REL (relative to base unless absolute). */
static void expect_ctx(const struct path_ctx *ctx, int dirfd, const char *in, unsigned flags,
                       const char *want_rel, int line)
{
    char want[PATH_MAX];
    struct path_res r;
    tf_err err = {0};
    if (want_rel[0] == '/')
        snprintf(want, sizeof want, "%s", want_rel);
    else
        at(want, want_rel);
    int rc = path_resolve_at(ctx, dirfd, in, flags, &r, &err);
    check_count++;
    if (rc != 0 || r.kind != PATH_FILE || strcmp(r.path, want) || r.beneath) {
        check_failures++;
        fprintf(stderr,
                "test_path.c:%d: %s: rc %d kind %d beneath %d got \"%s\" want \"%s\" (%s)\n", line,
                in, rc, rc == 0 ? (int)r.kind : -1, r.beneath, rc == 0 ? r.path : "", want,
                err.msg);
    }
}

/* IN relative to base (unless absolute), for this process. */
static void expect_base(const char *in, unsigned flags, const char *want_rel, int line)
{
    char in_abs[PATH_MAX];
    if (in[0] == '/')
        snprintf(in_abs, sizeof in_abs, "%s", in);
    else
        at(in_abs, in);
    expect_ctx(NULL, AT_FDCWD, in_abs, flags, want_rel, line);
}

#define EXPECT(in, want) expect_base(in, 0, want, __LINE__)
#define EXPECT_NF(in, want) expect_base(in, PATH_NOFOLLOW, want, __LINE__)

/* What a resolution of IN gives, for the cases that are no plain file. */
static int resolve(const struct path_ctx *ctx, int dirfd, const char *in, unsigned flags,
                   struct path_res *r)
{
    tf_err err = {0};
    return path_resolve_at(ctx, dirfd, in, flags, r, &err);
}

static void test_plain(void)
{
    mk("tests");
    mk("tests/sub");
    touch("tests/sub/file");
    touch("config.toml");
    ln("..", "tests/up");                    /* tests/up -> the project */
    ln("../outside.toml", "tests/dangling"); /* dangling, points out of tests */
    ln("/", "tests/slash");
    ln("sub/file", "tests/tofile");
    ln("loop", "tests/loop");

    EXPECT("tests/sub/new.txt", "tests/sub/new.txt");
    EXPECT("tests/sub/../x", "tests/x");
    EXPECT("tests/up/config.toml", "config.toml");
    EXPECT("tests/dangling", "outside.toml");
    EXPECT("tests/./sub//y", "tests/sub/y");
    EXPECT("tests/slash/etc/passwd", "/etc/passwd");
    EXPECT("/", "/");
    EXPECT("/..", "/");
    EXPECT("/../../etc", "/etc");
    EXPECT("tests/..", "");
    EXPECT("tests/sub/.", "tests/sub");

    /* NOFOLLOW acts on the link itself; "." and ".." are never links. */
    EXPECT_NF("tests/dangling", "tests/dangling");
    EXPECT_NF("tests/up", "tests/up");
    char parent[PATH_MAX];
    path_dirname(parent, sizeof parent, base);
    EXPECT_NF("tests/up/..", parent); /* up is followed: it is not the last component */
    EXPECT_NF("tests/up/.", "");

    /* A trailing slash follows the last link even for NOFOLLOW (the kernel does). */
    EXPECT_NF("tests/up/", "");
    EXPECT_NF("tests/up//", "");
    EXPECT("tests/sub/", "tests/sub");

    struct path_res r;
    char p[PATH_MAX];
    at(p, "tests/tofile/");
    CHECK(resolve(NULL, AT_FDCWD, p, PATH_NOFOLLOW, &r) == 0 && r.errnum == ENOTDIR);

    /* A missing directory on the way: named lexically; the kernel fails the call itself. */
    at(p, "tests/nope/../x");
    CHECK(resolve(NULL, AT_FDCWD, p, 0, &r) == 0 && r.kind == PATH_FILE && r.errnum == ENOENT);
    at(p, "tests/x");
    CHECK_STR(r.path, p);
    at(p, "tests/missing/deeper/f");
    CHECK(resolve(NULL, AT_FDCWD, p, 0, &r) == 0 && r.errnum == ENOENT);
    CHECK_STR(r.path, p);
    at(p, "tests/sub/file/x");
    CHECK(resolve(NULL, AT_FDCWD, p, 0, &r) == 0 && r.errnum == ENOTDIR);

    /* A loop is the kernel's ELOOP. */
    at(p, "tests/loop");
    CHECK(resolve(NULL, AT_FDCWD, p, 0, &r) == 0 && r.kind == PATH_REJECTED && r.errnum == ELOOP);

    /* Relative to a dirfd, and relative to the cwd. */
    at(p, "tests");
    int d = open(p, O_RDONLY | O_DIRECTORY);
    expect_ctx(NULL, d, "sub/file", 0, "tests/sub/file", __LINE__);
    expect_ctx(NULL, d, "../config.toml", 0, "config.toml", __LINE__);
    expect_ctx(NULL, d, "/etc", 0, "/etc", __LINE__); /* absolute: the dirfd is ignored */
    int saved = open(".", O_RDONLY | O_DIRECTORY);
    CHECK(fchdir(d) == 0);
    char out[PATH_MAX];
    tf_err err = {0};
    CHECK(path_resolve("sub/../../config.toml", out, sizeof out, &err) == 0);
    at(p, "config.toml");
    CHECK_STR(out, p);
    CHECK(fchdir(saved) == 0);
    close(saved);
    close(d);

    CHECK(path_resolve("", out, sizeof out, &err) < 0);
}

/* /proc/self, /proc/thread-self, /dev/fd and /proc/PID/fd name the file itself. */
static void test_proc(void)
{
    char p[PATH_MAX], want[PATH_MAX];
    at(p, "config.toml");
    int fd = open(p, O_PATH);
    at(want, "config.toml");
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    EXPECT(p, want);
    snprintf(p, sizeof p, "/dev/fd/%d", fd);
    EXPECT(p, want);
    snprintf(p, sizeof p, "/proc/thread-self/fd/%d", fd);
    EXPECT(p, want);
    snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)getpid(), fd);
    EXPECT(p, want);
    /* NOFOLLOW on the magic link acts on the link in /proc, which is outside. */
    struct path_res r;
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    CHECK(resolve(NULL, AT_FDCWD, p, PATH_NOFOLLOW, &r) == 0 && r.kind == PATH_FILE &&
          !strncmp(r.path, "/proc/", 6));
    /* Through the cwd's magic link. */
    char cwd[PATH_MAX];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(want, sizeof want, "%s/x", cwd);
    EXPECT("/proc/self/cwd/x", want);

    /* An fd target: AT_EMPTY_PATH, or the open file named by /proc/self/fd. */
    expect_ctx(NULL, fd, "", PATH_EMPTY, "config.toml", __LINE__);
    CHECK(resolve(NULL, fd, "", 0, &r) == 0 && r.kind == PATH_REJECTED && r.errnum == ENOENT);
    CHECK(resolve(NULL, AT_FDCWD, "", PATH_EMPTY, &r) == 0 && r.kind == PATH_FILE);
    CHECK_STR(r.path, cwd);
    close(fd);

    /* A closed fd is the kernel's EBADF, through a dirfd or through /proc. */
    CHECK(resolve(NULL, 987, "x", 0, &r) == 0 && r.kind == PATH_REJECTED && r.errnum == EBADF);
    CHECK(resolve(NULL, 987, "", PATH_EMPTY, &r) == 0 && r.kind == PATH_REJECTED);
    CHECK(resolve(NULL, AT_FDCWD, "/proc/self/fd/987", 0, &r) == 0 && r.kind == PATH_REJECTED &&
          r.errnum == ENOENT);

    /* Pipes, memfds and unlinked files are no place in the tree. */
    int pp[2];
    CHECK(pipe(pp) == 0);
    CHECK(resolve(NULL, pp[0], "", PATH_EMPTY, &r) == 0 && r.kind == PATH_NO_FILE);
    snprintf(p, sizeof p, "/proc/self/fd/%d", pp[1]);
    CHECK(resolve(NULL, AT_FDCWD, p, 0, &r) == 0 && r.kind == PATH_NO_FILE);
    close(pp[0]);
    close(pp[1]);
    int m = (int)syscall(SYS_memfd_create, "tf", 0);
    CHECK(resolve(NULL, m, "", PATH_EMPTY, &r) == 0 && r.kind == PATH_NO_FILE);
    close(m);
    touch("gone");
    at(p, "gone");
    int g = open(p, O_RDONLY);
    unlink(p);
    CHECK(resolve(NULL, g, "", PATH_EMPTY, &r) == 0 && r.kind == PATH_NO_FILE);
    close(g);
    /* Unlinked by the name we know while another link remains: we cannot tell where. */
    touch("twice");
    char p2[PATH_MAX];
    at(p2, "twice2");
    at(p, "twice");
    CHECK(link(p, p2) == 0);
    g = open(p, O_RDONLY);
    unlink(p);
    CHECK(resolve(NULL, g, "", PATH_EMPTY, &r) < 0);
    close(g);
    /* A real name that ends in " (deleted)" is just a name. */
    touch("real (deleted)");
    EXPECT("real (deleted)", "real (deleted)");
}

/* A path of PATH_MAX - 1 bytes is resolved; one of PATH_MAX is the kernel's ENAMETOOLONG. */
static void test_long_path(void)
{
    char p[PATH_MAX + 8];
    const char *name = "config.toml";
    size_t n = (size_t)snprintf(p, sizeof p, "%s/", base);
    size_t fill = PATH_MAX - 1 - n - strlen(name);
    for (size_t i = 0; i + 1 < fill; i += 2)
        memcpy(p + n + i, "./", 2); /* "././" stays in the same directory */
    if (fill % 2)
        p[n + fill - 1] = '/';
    snprintf(p + n + fill, sizeof p - n - fill, "%s", name);
    CHECK(strlen(p) == PATH_MAX - 1);
    EXPECT(p, "config.toml");
    memmove(p + n + 1, p + n, strlen(p + n) + 1);
    p[n] = '/';
    struct path_res r;
    CHECK(resolve(NULL, AT_FDCWD, p, 0, &r) == 0 && r.kind == PATH_REJECTED &&
          r.errnum == ENAMETOOLONG);
}

/* Make a directory chain deeper than PATH_MAX under base/deep; returns an fd to its bottom. */
static int deep_dir(int *levels)
{
    char name[201];
    memset(name, 'd', 200);
    name[200] = '\0';
    char p[PATH_MAX];
    at(p, "tests/deep");
    mkdir(p, 0755);
    int fd = open(p, O_RDONLY | O_DIRECTORY);
    for (*levels = 0; fd >= 0 && *levels < 25; (*levels)++) {
        mkdirat(fd, name, 0755);
        int next = openat(fd, name, O_RDONLY | O_DIRECTORY);
        close(fd);
        fd = next;
    }
    return fd;
}

/* A cwd deeper than PATH_MAX: its text cannot be had, the walk by fds still works. */
static void test_deep_cwd(void)
{
    int levels, fd = deep_dir(&levels);
    CHECK(fd >= 0);
    int saved = open(".", O_RDONLY | O_DIRECTORY);
    CHECK(fchdir(fd) == 0);
    struct path_res r;
    /* A name here is beneath a directory we can name, inside tests/deep. */
    CHECK(resolve(NULL, AT_FDCWD, "f", 0, &r) == 0 && r.kind == PATH_FILE && r.beneath);
    char want[PATH_MAX];
    at(want, "tests/deep");
    CHECK(path_is_within(r.path, want));
    /* Climbing back out by ".." names the target exactly. */
    char up[PATH_MAX] = "";
    for (int i = 0; i <= levels; i++)
        strcat(up, "../");
    strcat(up, "../config.toml");
    expect_ctx(NULL, AT_FDCWD, up, 0, "config.toml", __LINE__);
    CHECK(fchdir(saved) == 0);
    close(saved);
    /* The same from an fd to the deep directory. */
    expect_ctx(NULL, fd, up, 0, "config.toml", __LINE__);
    CHECK(resolve(NULL, fd, "", PATH_EMPTY, &r) == 0 && r.beneath && path_is_within(r.path, want));
    close(fd);
}

/* ---- another process's view ---------------------------------------------------------- */

struct kid {
    pid_t pid;
    int ready; /* read end: one byte when set up */
};

/* Fork a child that runs SETUP, reports ready, then waits to be killed. */
static struct kid spawn_kid(void (*setup)(void))
{
    int p[2];
    struct kid k = {-1, -1};
    if (pipe(p) < 0)
        return k;
    k.pid = fork();
    if (k.pid == 0) {
        close(p[0]);
        setup();
        char c = 1;
        if (write(p[1], &c, 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(p[1]);
    char c;
    if (read(p[0], &c, 1) != 1)
        k.pid = -1;
    close(p[0]);
    return k;
}

static void reap(struct kid *k)
{
    if (k->pid > 0) {
        kill(k->pid, SIGKILL);
        waitpid(k->pid, NULL, 0);
    }
}

static void kid_nothing(void) {}

/* Paths with no symlink on the way are resolved in one openat2 call for this process; another
 * process's view always takes the walk, component by component. Both must say the same. */
static void test_direct_is_the_walk(void)
{
    static const char *const rel[] = {"config.toml",
                                      "tests",
                                      "tests/",
                                      "tests//sub/./file",
                                      "tests/sub/..",
                                      "tests/sub/../..",
                                      "tests/new.txt",
                                      "tests/new/",
                                      "tests/sub/new",
                                      "tests/nope/deeper/f",
                                      "tests/nope/../x",
                                      "tests/sub/file/x",
                                      "tests/sub/file/",
                                      "tests/up",
                                      "tests/up/config.toml",
                                      "tests/dangling",
                                      "tests/.",
                                      "tests/sub/file/..",
                                      ""};
    static const char *const abs[] = {
        "/",        "/..",         "/etc",      "/etc/",    "/nonexistent/x",
        "/tmp/new", "/proc/1/new", "/dev/null", "/proc/new"};
    struct kid k = spawn_kid(kid_nothing);
    CHECK(k.pid > 0);
    struct path_ctx other = {k.pid};
    char p[PATH_MAX];
    for (size_t i = 0; i < sizeof rel / sizeof *rel + sizeof abs / sizeof *abs; i++) {
        if (i < sizeof rel / sizeof *rel)
            at(p, rel[i]);
        else
            snprintf(p, sizeof p, "%s", abs[i - sizeof rel / sizeof *rel]);
        for (unsigned flags = 0; flags <= PATH_NOFOLLOW; flags += PATH_NOFOLLOW) {
            struct path_res mine, walked;
            int a = resolve(NULL, AT_FDCWD, p, flags, &mine);
            int b = resolve(&other, AT_FDCWD, p, flags, &walked);
            CHECK(a == b);
            CHECK(a < 0 || (mine.kind == walked.kind && mine.errnum == walked.errnum &&
                            mine.beneath == walked.beneath && !strcmp(mine.path, walked.path)));
            if (a != b || (a == 0 && strcmp(mine.path, walked.path)))
                fprintf(stderr, "test_path.c: %s (flags %u): \"%s\" here, \"%s\" walked\n", p,
                        flags, mine.path, walked.path);
        }
    }
    reap(&k);
}

/* The child: fd 40 is config.toml, its cwd is tests/sub. */
static void kid_setup(void)
{
    char p[PATH_MAX];
    at(p, "config.toml");
    int fd = open(p, O_PATH);
    dup2(fd, 40);
    at(p, "tests/sub");
    if (chdir(p) < 0)
        _exit(1);
}

static void test_other_process(void)
{
    /* Our own fd 40 is something else: the child's must be what counts. */
    char p[PATH_MAX];
    at(p, "tests");
    int mine = open(p, O_PATH);
    dup2(mine, 40);
    close(mine);
    struct kid k = spawn_kid(kid_setup);
    CHECK(k.pid > 0);
    struct path_ctx ctx = {k.pid};
    expect_ctx(&ctx, AT_FDCWD, "/proc/self/fd/40", 0, "config.toml", __LINE__);
    expect_ctx(&ctx, AT_FDCWD, "/dev/fd/40", 0, "config.toml", __LINE__);
    expect_ctx(&ctx, AT_FDCWD, "/proc/thread-self/fd/40", 0, "config.toml", __LINE__);
    expect_ctx(&ctx, 40, "", PATH_EMPTY, "config.toml", __LINE__);
    expect_ctx(&ctx, AT_FDCWD, "file", 0, "tests/sub/file", __LINE__);
    expect_ctx(&ctx, AT_FDCWD, "../../config.toml", 0, "config.toml", __LINE__);
    expect_ctx(&ctx, AT_FDCWD, "/proc/self/cwd/file", 0, "tests/sub/file", __LINE__);
    expect_ctx(&ctx, AT_FDCWD, "", PATH_EMPTY, "tests/sub", __LINE__);
    struct path_res r;
    CHECK(resolve(&ctx, 41, "x", 0, &r) == 0 && r.kind == PATH_REJECTED && r.errnum == EBADF);
    reap(&k);
    close(40);
    /* A process that is gone cannot be looked into: that is a failure, not an answer. */
    CHECK(resolve(&ctx, AT_FDCWD, "x", 0, &r) < 0);
}

/* The child: its cwd deeper than PATH_MAX. */
static void kid_deep(void)
{
    int levels, fd = deep_dir(&levels);
    if (fd < 0 || fchdir(fd) < 0)
        _exit(1);
}

static void test_other_deep_cwd(void)
{
    struct kid k = spawn_kid(kid_deep);
    CHECK(k.pid > 0);
    struct path_ctx ctx = {k.pid};
    struct path_res r;
    char want[PATH_MAX], up[PATH_MAX] = "";
    at(want, "tests/deep");
    CHECK(resolve(&ctx, AT_FDCWD, "f", 0, &r) == 0 && r.beneath && path_is_within(r.path, want));
    for (int i = 0; i <= 25; i++)
        strcat(up, "../");
    strcat(up, "../config.toml");
    expect_ctx(&ctx, AT_FDCWD, up, 0, "config.toml", __LINE__);
    reap(&k);
}

static void kid_undumpable(void)
{
    prctl(PR_SET_DUMPABLE, 0);
}

/* As a normal user, a process that made itself non-dumpable cannot be looked into: the
 * resolver says it cannot tell (callers deciding a write refuse it). Root may look. */
static void test_undumpable(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (getuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
            _exit(3);
        struct kid k = spawn_kid(kid_undumpable);
        struct path_ctx ctx = {k.pid};
        struct path_res r;
        int rc = resolve(&ctx, AT_FDCWD, "/etc/passwd", 0, &r);
        reap(&k);
        _exit(k.pid > 0 && rc < 0 ? 0 : 1);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A chrooted process: its "/" and ".." stop at its root. */
static void kid_chroot(void)
{
    char p[PATH_MAX];
    at(p, "jail");
    if (chroot(p) < 0 || chdir("/") < 0)
        _exit(1);
}

static void test_chroot(void)
{
    if (getuid() != 0)
        return;
    if (getenv("TESTFENCE_RUN_ID")) { /* the guard of an outer run refuses chroot */
        printf("test_path: chroot: skipped, nested under testfence\n");
        return;
    }
    mk("jail");
    mk("jail/etc");
    struct kid k = spawn_kid(kid_chroot);
    CHECK(k.pid > 0);
    struct path_ctx ctx = {k.pid};
    expect_ctx(&ctx, AT_FDCWD, "/../../etc/x", 0, "jail/etc/x", __LINE__);
    expect_ctx(&ctx, AT_FDCWD, "../etc", 0, "jail/etc", __LINE__);
    reap(&k);
}

/* A bind mount of / inside the tree (a container's /host): it has the root's inode, but its
 * ".." leads to the directory it is mounted on, not to itself. */
static void kid_bind_root(void)
{
    char p[PATH_MAX];
    at(p, "host");
    if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
        mount("/", p, NULL, MS_BIND, NULL) < 0)
        _exit(1);
}

static void test_bind_of_root(void)
{
    if (getuid() != 0)
        return;
    mk("host");
    touch("x");
    struct kid k = spawn_kid(kid_bind_root);
    if (k.pid <= 0) { /* no mount namespace here (the suite under testfence run itself) */
        fprintf(stderr, "test_path: bind of /: skipped, cannot mount here\n");
        return;
    }
    struct path_ctx ctx = {k.pid};
    char in[PATH_MAX];
    at(in, "host/../x");
    expect_ctx(&ctx, AT_FDCWD, in, 0, "x", __LINE__);
    at(in, "host/tmp/../../x");
    expect_ctx(&ctx, AT_FDCWD, in, 0, "x", __LINE__);
    reap(&k);
}

/* path_open_at: every symlink followed is shown first (by its absolute name), a refusal
 * stops the walk, and a directory reached is handed back open. */
struct seen {
    char last[PATH_MAX];
    int n;
    bool refuse;
};

static int see_link(const char *link, void *arg, tf_err *err)
{
    struct seen *s = arg;
    snprintf(s->last, sizeof s->last, "%s", link);
    s->n++;
    return s->refuse ? tf_errf(err, "refused %s", link) : 0;
}

static void test_open_at(void)
{
    char p[PATH_MAX], want[PATH_MAX];
    struct path_res res;
    tf_err err = {0};
    mk("o");
    mk("o/real");
    ln("real", "o/via");
    struct seen s = {0};
    struct path_open po = {.on_link = see_link, .arg = &s};
    at(p, "o/via");
    CHECK(path_open_at(p, &po, &res, &err) == 0);
    at(want, "o/via");
    CHECK_STR(s.last, want);
    CHECK(s.n == 1);
    at(want, "o/real");
    CHECK_STR(res.path, want);
    struct stat a, b;
    CHECK(po.dirfd >= 0 && fstat(po.dirfd, &a) == 0 && stat(want, &b) == 0 && a.st_ino == b.st_ino);
    if (po.dirfd >= 0)
        close(po.dirfd);
    s = (struct seen){.refuse = true};
    CHECK(path_open_at(p, &po, &res, &err) < 0 && po.dirfd < 0 && strstr(err.msg, "refused"));
    touch("o/file");
    at(p, "o/file");
    CHECK(path_open_at(p, &po, &res, &err) == 0 && po.dirfd < 0); /* not a directory */
    at(p, "o/missing");
    CHECK(path_open_at(p, &po, &res, &err) == 0 && po.dirfd < 0);
}

/* path_is_normal: what path_is_within wants of its arguments. */
static void normal(void)
{
    const char *yes[] = {"/", "/a", "/a/b", "/a/.b", "/a/b..", "C:/x", "rel/a"};
    const char *no[] = {"/a/", "//a", "/a//b", "/a/./b", "/a/../b", "/..", "/a/.", "/a/.."};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        CHECK(path_is_normal(yes[i]));
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        CHECK(!path_is_normal(no[i]));
    CHECK_STR(path_base("/a/x.log"), "x.log");
    CHECK_STR(path_base("x"), "x");
    CHECK_STR(path_base("/a/"), "");
    CHECK_STR(path_base(NULL), "");
    CHECK(path_ends_with("x.log", ".log") && path_ends_with(".log", ".log"));
    CHECK(!path_ends_with("log", ".log") && !path_ends_with("x.logs", ".log"));
}

int main(void)
{
    normal();
    char buf[PATH_MAX];
    char *d = check_tmpdir(buf, sizeof buf, "tf-path");
    if (!d || !realpath(d, base))
        return perror("mkdtemp"), 1;
    test_plain();
    test_proc();
    test_long_path();
    test_deep_cwd();
    test_other_process();
    test_direct_is_the_walk();
    test_other_deep_cwd();
    test_undumpable();
    test_chroot();
    test_bind_of_root();
    test_open_at();

    CHECK(path_is_within("/a/b", "/a"));
    CHECK(path_is_within("/a", "/a"));
    CHECK(!path_is_within("/ab", "/a"));
    CHECK(path_is_within("/x", "/"));
    char out[PATH_MAX];
    path_dirname(out, sizeof out, "/a/b");
    CHECK_STR(out, "/a");
    path_dirname(out, sizeof out, "/a");
    CHECK_STR(out, "/");

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        return 1;
    return check_done("test_path");
}
