/* Unit tests for src/core/path.c: resolution as the kernel sees paths. */
#include "check.h"
#include "core/path.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[PATH_MAX];

static void mk(const char *rel)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    mkdir(p, 0755);
}

static void ln(const char *target, const char *rel)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    if (symlink(target, p) < 0)
        perror("symlink");
}

static void expect(const char *in, const char *want_rel)
{
    char out[PATH_MAX], want[PATH_MAX], in_abs[PATH_MAX];
    tf_err err = {{0}};
    snprintf(in_abs, sizeof in_abs, "%s/%s", base, in);
    snprintf(want, sizeof want, "%s%s%s", base, want_rel[0] ? "/" : "", want_rel);
    CHECK(path_resolve(in_abs, out, sizeof out, &err) == 0);
    CHECK_STR(out, want);
}

int main(void)
{
    char tmpl[] = "/tmp/tf-path-XXXXXX";
    const char *t = getenv("TMPDIR");
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s/tf-path-XXXXXX", t ? t : "/tmp");
    char *d = mkdtemp(t ? buf : tmpl);
    if (!d || !realpath(d, base))
        return perror("mkdtemp"), 1;
    mk("tests");
    mk("tests/sub");
    ln("..", "tests/up");                    /* tests/up -> the project */
    ln("../outside.toml", "tests/dangling"); /* dangling, points out of tests */
    ln("/", "tests/slash");

    expect("tests/sub/new.txt", "tests/sub/new.txt");
    expect("tests/sub/../x", "tests/x");
    expect("tests/nope/../x", "tests/x");
    expect("tests/up/config.toml", "config.toml");
    expect("tests/dangling", "outside.toml");
    expect("tests/./sub//y", "tests/sub/y");
    expect("tests/missing/deeper/f", "tests/missing/deeper/f");

    char out[PATH_MAX];
    tf_err err = {{0}};
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/tests/slash/etc/passwd", base);
    CHECK(path_resolve(p, out, sizeof out, &err) == 0);
    CHECK_STR(out, "/etc/passwd");
    CHECK(path_resolve("", out, sizeof out, &err) < 0);
    CHECK(path_resolve("/", out, sizeof out, &err) == 0);
    CHECK_STR(out, "/");

    CHECK(path_is_within("/a/b", "/a"));
    CHECK(path_is_within("/a", "/a"));
    CHECK(!path_is_within("/ab", "/a"));
    CHECK(path_is_within("/x", "/"));
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
