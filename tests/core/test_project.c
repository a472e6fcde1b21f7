/* test_project: the root is --root (resolved) or the nearest marked directory upward;
 * the test directory proposed when it is not tests/. */
#include "check.h"

#include "core/project.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];

static const char *at(const char *rel)
{
    static char buf[4][PATH_MAX + 64];
    static int k;
    char *b = buf[k++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", dir, rel);
    return b;
}

static void mkdirs(const char *rel)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); *s++ = '/') {
        *s = '\0';
        mkdir(p, 0755);
    }
    CHECK(mkdir(p, 0755) == 0);
}

static void touch(const char *rel)
{
    int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
}

static void markers(void)
{
    CHECK_STR(project_markers[0], "testfence.toml");
    CHECK_STR(project_markers[1], "pyproject.toml");
    CHECK_STR(project_markers[2], ".git");
    CHECK(project_markers[3] == NULL);
}

/* ROOT found from the directory FROM (relative to DIR), compared with DIR/WANT. */
static void found_from(const char *from, const char *want)
{
    char cwd[PATH_MAX], root[PATH_MAX] = "";
    tf_err err = {0};
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(at(from)) == 0);
    CHECK(project_find_root(NULL, root, sizeof root, &err) == 0);
    CHECK_STR(root, at(want));
    CHECK(chdir(cwd) == 0);
}

static void walk_up(void)
{
    mkdirs("p/a/b");
    touch("p/pyproject.toml");
    found_from("p/a/b", "p");
    found_from("p", "p");
    /* the nearest marker wins; .git may be a file (a worktree) or even a dangling link */
    mkdirs("p/a/inner/x");
    touch("p/a/inner/.git");
    found_from("p/a/inner/x", "p/a/inner");
    mkdirs("p/a/linked");
    CHECK(symlink("nowhere", at("p/a/linked/testfence.toml")) == 0);
    found_from("p/a/linked", "p/a/linked");
    /* a directory named like a marker counts as well (.git is one) */
    mkdirs("p/a/repo/.git");
    found_from("p/a/repo", "p/a/repo");
}

static void given_root(void)
{
    char root[PATH_MAX], cwd[PATH_MAX];
    tf_err err = {0};
    /* resolved: a symlink and ".." are gone; no marker is needed */
    mkdirs("g/real/sub");
    CHECK(symlink("real", at("g/link")) == 0);
    CHECK(project_find_root(at("g/link/sub/.."), root, sizeof root, &err) == 0);
    CHECK_STR(root, at("g/real"));
    /* relative to the current directory */
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(at("g")) == 0);
    CHECK(project_find_root("real", root, sizeof root, &err) == 0);
    CHECK_STR(root, at("g/real"));
    CHECK(chdir(cwd) == 0);

    CHECK(project_find_root(at("g/missing"), root, sizeof root, &err) == -1);
    CHECK(strstr(err.msg, "--root") != NULL && strstr(err.msg, "g/missing") != NULL);
    touch("g/file");
    CHECK(project_find_root(at("g/file"), root, sizeof root, &err) == -1);
    CHECK(strstr(err.msg, "is not a directory") != NULL);
    /* too small a buffer is an error, never a cut path */
    char tiny[4];
    CHECK(project_find_root(at("g/real"), tiny, sizeof tiny, &err) == -1);
    CHECK(strstr(err.msg, "too long") != NULL);
}

/* The test directory proposed for the project at DIR/REL. */
static int tests_of(const char *rel, char *out, size_t len)
{
    return project_find_tests(at(rel), out, len);
}

static void test_dirs(void)
{
    char out[PATH_MAX];
    mkdirs("t0");
    CHECK(tests_of("t0", out, sizeof out) == -1);
    CHECK(tests_of("nonexistent", out, sizeof out) == -1);

    /* the top-level names, in their order; files and symlinks are not directories */
    mkdirs("t1/spec");
    mkdirs("t1/t");
    touch("t1/test");
    CHECK(symlink("spec", at("t1/testing")) == 0);
    CHECK(tests_of("t1", out, sizeof out) == 0);
    CHECK_STR(out, "t");
    mkdirs("t1/tests");
    CHECK(tests_of("t1", out, sizeof out) == 0);
    CHECK_STR(out, "tests");

    /* a package's own, packages in sorted order, hidden ones and node_modules passed over */
    mkdirs("t2/zpkg/tests");
    mkdirs("t2/apkg/test");
    mkdirs("t2/.hidden/tests");
    mkdirs("t2/node_modules/tests");
    CHECK(tests_of("t2", out, sizeof out) == 0);
    CHECK_STR(out, "apkg/test");
    mkdirs("t3/.hidden/tests");
    mkdirs("t3/node_modules/tests");
    CHECK(tests_of("t3", out, sizeof out) == -1);

    /* then src/<pkg>/tests */
    mkdirs("t4/src/mypkg/__tests__");
    CHECK(tests_of("t4", out, sizeof out) == 0);
    CHECK_STR(out, "src/mypkg/__tests__");

    /* an answer that does not fit is none, never a cut one */
    CHECK(tests_of("t4", out, 5) == -1);
    CHECK(tests_of("t1", out, 5) == -1);
    CHECK(tests_of("t1", out, 6) == 0);
    CHECK_STR(out, "tests");
}

int main(void)
{
    char tmp[PATH_MAX];
    if (!check_tmpdir(tmp, sizeof tmp, "tf_project") || !realpath(tmp, dir))
        return perror("mkdtemp"), 1;
    markers();
    walk_up();
    given_root();
    test_dirs();
    return check_done("test_project");
}
