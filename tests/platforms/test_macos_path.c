/* Unit tests for src/macos/path.c, core/path.h's resolver in the macOS set: built in that set
 * (a Mac, or TESTFENCE_MACOS_SET on Linux: build-macos-posix/test_macos_path, run by
 * tests/platforms/macos_posix.bats). The cases of tests/core/test_path.c that are not Linux's
 * own (procfs, another process's view, openat2), with the same expectations, and the macOS
 * set's own: a file named by its directory, an open pipe, a directory in another case. System
 * paths are expected as realpath(3) gives them (on a Mac /etc is /private/etc). */
#include "check.h"
#include "core/path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
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

/* Resolve IN (relative to DIRFD); expect a file at WANT_REL (relative to base unless
 * absolute: then as realpath gives it, or as written when realpath cannot). */
static void expect_at(int dirfd, const char *in, unsigned flags, const char *want_rel, int line)
{
    char want[PATH_MAX];
    struct path_res r;
    tf_err err = {0};
    if (want_rel[0] == '/') {
        if (!realpath(want_rel, want))
            snprintf(want, sizeof want, "%s", want_rel);
    } else
        at(want, want_rel);
    int rc = path_resolve_at(NULL, dirfd, in, flags, &r, &err);
    check_count++;
    if (rc != 0 || r.kind != PATH_FILE || strcmp(r.path, want) || r.beneath) {
        check_failures++;
        fprintf(stderr,
                "test_macos_path.c:%d: %s: rc %d kind %d beneath %d got \"%s\" want \"%s\" (%s)\n",
                line, in, rc, rc == 0 ? (int)r.kind : -1, r.beneath, rc == 0 ? r.path : "", want,
                err.msg);
    }
}

static void expect_base(const char *in, unsigned flags, const char *want_rel, int line)
{
    char in_abs[PATH_MAX];
    if (in[0] == '/')
        snprintf(in_abs, sizeof in_abs, "%s", in);
    else
        at(in_abs, in);
    expect_at(AT_FDCWD, in_abs, flags, want_rel, line);
}

#define EXPECT(in, want) expect_base(in, 0, want, __LINE__)
#define EXPECT_NF(in, want) expect_base(in, PATH_NOFOLLOW, want, __LINE__)

static int resolve(int dirfd, const char *in, unsigned flags, struct path_res *r)
{
    tf_err err = {0};
    return path_resolve_at(NULL, dirfd, in, flags, r, &err);
}

/* test_path.c's test_plain, /etc through realpath. */
static void test_plain(void)
{
    mk("tests");
    mk("tests/sub");
    touch("tests/sub/file");
    touch("config.toml");
    ln("..", "tests/up");
    ln("../outside.toml", "tests/dangling");
    ln("/", "tests/slash");
    ln("sub/file", "tests/tofile");
    ln("loop", "tests/loop");
    ln("sub/../../config.toml", "tests/dotdot"); /* ".." after a directory, in a link */
    ln("up/tests/sub", "tests/viaup");           /* a link through a link */

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
    EXPECT("tests/dotdot", "config.toml");
    EXPECT("tests/viaup/file", "tests/sub/file");
    EXPECT("tests/viaup/../x", "tests/x"); /* ".." after a link: the parent of its target */
    EXPECT("tests/tofile", "tests/sub/file");

    EXPECT_NF("tests/dangling", "tests/dangling");
    EXPECT_NF("tests/up", "tests/up");
    char parent[PATH_MAX];
    path_dirname(parent, sizeof parent, base);
    EXPECT_NF("tests/up/..", parent);
    EXPECT_NF("tests/up/.", "");

    EXPECT_NF("tests/up/", "");
    EXPECT_NF("tests/up//", "");
    EXPECT("tests/sub/", "tests/sub");

    struct path_res r;
    char p[PATH_MAX];
    at(p, "tests/tofile/");
    CHECK(resolve(AT_FDCWD, p, PATH_NOFOLLOW, &r) == 0 && r.errnum == ENOTDIR);
    at(p, "tests/sub/file/");
    CHECK(resolve(AT_FDCWD, p, 0, &r) == 0 && r.errnum == ENOTDIR);

    at(p, "tests/nope/../x");
    CHECK(resolve(AT_FDCWD, p, 0, &r) == 0 && r.kind == PATH_FILE && r.errnum == ENOENT);
    at(p, "tests/x");
    CHECK_STR(r.path, p);
    at(p, "tests/missing/deeper/f");
    CHECK(resolve(AT_FDCWD, p, 0, &r) == 0 && r.errnum == ENOENT);
    CHECK_STR(r.path, p);
    at(p, "tests/sub/file/x");
    CHECK(resolve(AT_FDCWD, p, 0, &r) == 0 && r.errnum == ENOTDIR);
    at(p, "tests/sub/new.txt");
    CHECK(resolve(AT_FDCWD, p, 0, &r) == 0 && r.errnum == 0);

    at(p, "tests/loop");
    CHECK(resolve(AT_FDCWD, p, 0, &r) == 0 && r.kind == PATH_REJECTED && r.errnum == ELOOP);
    CHECK(resolve(AT_FDCWD, "", 0, &r) == 0 && r.kind == PATH_REJECTED && r.errnum == ENOENT);
    CHECK(resolve(12345, "x", 0, &r) == 0 && r.kind == PATH_REJECTED && r.errnum == EBADF);

    at(p, "tests");
    int d = open(p, O_RDONLY | O_DIRECTORY);
    expect_at(d, "sub/file", 0, "tests/sub/file", __LINE__);
    expect_at(d, "../config.toml", 0, "config.toml", __LINE__);
    expect_at(d, "/etc", 0, "/etc", __LINE__);
    expect_at(d, "", PATH_EMPTY, "tests", __LINE__);
    int saved = open(".", O_RDONLY | O_DIRECTORY);
    CHECK(fchdir(d) == 0);
    char out[PATH_MAX];
    tf_err err = {0};
    CHECK(path_resolve("sub/../../config.toml", out, sizeof out, &err) == 0);
    at(p, "config.toml");
    CHECK_STR(out, p);
    expect_at(AT_FDCWD, "", PATH_EMPTY, "tests", __LINE__);
    CHECK(fchdir(saved) == 0);
    close(saved);
    close(d);

    CHECK(path_resolve("", out, sizeof out, &err) < 0);
}

/* What a descriptor names (AT_EMPTY_PATH): a file by one of its names, a pipe no file, a file
 * with no name left no file. */
static void test_fds(void)
{
    char p[PATH_MAX];
    struct path_res r;
    at(p, "tests/sub/file");
    int fd = open(p, O_RDONLY);
    CHECK(fd >= 0 && resolve(fd, "", PATH_EMPTY, &r) == 0 && r.kind == PATH_FILE);
    CHECK_STR(r.path, p);
    close(fd);
    int pp[2];
    CHECK(pipe(pp) == 0);
    CHECK(resolve(pp[1], "", PATH_EMPTY, &r) == 0 && r.kind == PATH_NO_FILE);
    close(pp[0]);
    close(pp[1]);
    at(p, "tests/sub/gone");
    fd = open(p, O_WRONLY | O_CREAT, 0644);
    unlink(p);
    CHECK(fd >= 0 && resolve(fd, "", PATH_EMPTY, &r) == 0 && r.kind == PATH_NO_FILE);
    close(fd);
}

/* A directory spelled in another case, where the volume compares names without it (APFS and
 * HFS+ by default on a Mac; never on Linux): both spellings name it the same (F_GETPATH names
 * the directory, not the text), so a path under it matches the writable set's entry however
 * the entry and the path were spelled. */
static void test_case(void)
{
    char p[PATH_MAX], q[PATH_MAX];
    struct stat a, b;
    struct path_res r1, r2;
    mk("tests/Mixed");
    at(p, "tests/Mixed");
    at(q, "tests/mIXED");
    if (stat(q, &b) < 0 || stat(p, &a) < 0 || a.st_ino != b.st_ino) {
        printf("test_macos_path: this volume is case-sensitive: case not tested\n");
        return;
    }
    CHECK(resolve(AT_FDCWD, p, 0, &r1) == 0 && r1.kind == PATH_FILE);
    CHECK(resolve(AT_FDCWD, q, 0, &r2) == 0 && r2.kind == PATH_FILE);
    CHECK_STR(r2.path, r1.path);
    at(q, "tests/mIXED/new.txt");
    CHECK(resolve(AT_FDCWD, q, 0, &r2) == 0 && r2.kind == PATH_FILE);
    CHECK(path_is_within(r2.path, r1.path));
    printf("test_macos_path: tests/mIXED is %s\n", r1.path);
}

/* test_path.c's test_long_path: PATH_MAX - 1 bytes resolve, PATH_MAX are ENAMETOOLONG. */
static void test_long_path(void)
{
    char p[PATH_MAX + 8];
    const char *name = "config.toml";
    size_t n = (size_t)snprintf(p, sizeof p, "%s/", base);
    size_t fill = PATH_MAX - 1 - n - strlen(name);
    for (size_t i = 0; i + 1 < fill; i += 2)
        memcpy(p + n + i, "./", 2);
    if (fill % 2)
        p[n + fill - 1] = '/';
    snprintf(p + n + fill, sizeof p - n - fill, "%s", name);
    CHECK(strlen(p) == PATH_MAX - 1);
    EXPECT(p, "config.toml");
    memmove(p + n + 1, p + n, strlen(p + n) + 1);
    p[n] = '/';
    struct path_res r;
    CHECK(resolve(AT_FDCWD, p, 0, &r) == 0 && r.kind == PATH_REJECTED && r.errnum == ENAMETOOLONG);
}

/* test_path.c's test_deep_cwd: a cwd deeper than PATH_MAX is named by its deepest ancestor
 * that fits, marked beneath it; ".." climbs out by descriptors. */
static void test_deep_cwd(void)
{
    char name[201];
    memset(name, 'd', 200);
    name[200] = '\0';
    char p[PATH_MAX];
    at(p, "tests/deep");
    mkdir(p, 0755);
    int fd = open(p, O_RDONLY | O_DIRECTORY), levels;
    for (levels = 0; fd >= 0 && levels < 25; levels++) {
        mkdirat(fd, name, 0755);
        int next = openat(fd, name, O_RDONLY | O_DIRECTORY);
        close(fd);
        fd = next;
    }
    CHECK(fd >= 0);
    int saved = open(".", O_RDONLY | O_DIRECTORY);
    CHECK(fchdir(fd) == 0);
    struct path_res r;
    CHECK(resolve(AT_FDCWD, "f", 0, &r) == 0 && r.kind == PATH_FILE && r.beneath);
    char want[PATH_MAX];
    at(want, "tests/deep");
    CHECK(path_is_within(r.path, want));
    char up[PATH_MAX] = "";
    for (int i = 0; i <= levels; i++)
        memcpy(up + 3 * i, "../", 4);
    size_t l = strlen(up);
    snprintf(up + l, sizeof up - l, "../config.toml");
    expect_at(AT_FDCWD, up, 0, "config.toml", __LINE__);
    CHECK(fchdir(saved) == 0);
    close(saved);
    expect_at(fd, up, 0, "config.toml", __LINE__);
    CHECK(resolve(fd, "", PATH_EMPTY, &r) == 0 && r.beneath && path_is_within(r.path, want));
    close(fd);
}

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

/* test_path.c's test_open_at. */
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
    CHECK(path_open_at(p, &po, &res, &err) == 0 && po.dirfd < 0);
    at(p, "o/missing");
    CHECK(path_open_at(p, &po, &res, &err) == 0 && po.dirfd < 0);
}

int main(void)
{
    char buf[PATH_MAX];
    char *d = check_tmpdir(buf, sizeof buf, "tf-mpath");
    if (!d || !realpath(d, base))
        return perror("mkdtemp"), 1;
    /* The temp dir as the system names it: on a Mac /var/folders/... is /private/var/... */
    struct path_res r;
    CHECK(resolve(AT_FDCWD, d, 0, &r) == 0 && r.kind == PATH_FILE);
    CHECK_STR(r.path, base);
    test_plain();
    test_fds();
    test_case();
    test_long_path();
    test_deep_cwd();
    test_open_at();

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        return 1;
    return check_done("test_macos_path");
}
