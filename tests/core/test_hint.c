/* test_hint: the "How to fix" chosen for a blocked write (by runner, place and tool), the
 * violation line made printable whole, and its painting for a terminal. */
#include "check.h"

#include "core/colour.h"
#include "core/hint.h"

#include <stdbool.h>

static const char *const pyt = "tests/t.py::test_x";

static bool says(const char *hint, const char *words)
{
    return hint && strstr(hint, words) != NULL;
}

static void mounts(void)
{
    CHECK(says(hint_for("mount_setattr", "/p/x", "/p", "/home/u", pyt), "cannot change mounts"));
    CHECK(says(hint_for("open_by_handle_at", "/", "/p", NULL, NULL), "cannot change mounts"));
    CHECK(says(hint_for("chroot", "/", "/p", NULL, NULL), "cannot change mounts, chroot"));
    CHECK(!says(hint_for("open", "/p/x", "/p", NULL, NULL), "mounts"));
    CHECK(!says(hint_for("mounted", "/p/x", "/p", NULL, NULL), "mounts")); /* whole names */
}

static void tools(void)
{
    CHECK(says(hint_for("open", "/p/x/mod.pyc", "/p", NULL, pyt), "bytecode"));
    CHECK(says(hint_for("open", "/p/.pytest_cache/v", "/p", NULL, NULL), "cache_dir"));
    CHECK(says(hint_for("open", "/p/.nyc_output/a", "/p", NULL, NULL), "nyc"));
    CHECK(says(hint_for("open", "/p/.nyc_output/a", "/p", NULL, pyt), "nyc"));
    /* a report at the root: the runner's own (outside a test) is an output to declare; a
     * pytest test writing one wants its tmp_path */
    CHECK(says(hint_for("open", "/p/report.xml", "/p", NULL, NULL), "a report file"));
    CHECK(says(hint_for("open", "/p/report.xml", "/p", NULL, "ctest-test"), "a report file"));
    CHECK(says(hint_for("open", "/p/report.xml", "/p", NULL, pyt), "tmp_path"));
}

static void pytest_places(void)
{
    const char *home = "/home/u";
    CHECK(says(hint_for("open", "/home/u/.cache/tool/x", "/p", home, pyt), "$HOME/.cache"));
    CHECK(says(hint_for("open", "/p/data.txt", "/p", home, pyt), "under tmp_path"));
    CHECK(says(hint_for("open", "/tmp/x", "/p", home, pyt), "hard-coded /tmp"));
    CHECK(says(hint_for("open", "/var/tmp/x", "/p", home, pyt), "hard-coded /tmp"));
    CHECK(!says(hint_for("open", "/tmpx/y", "/p", home, pyt), "hard-coded /tmp"));
    CHECK(says(hint_for("open", "/home/u/.bashrc", "/p", home, pyt), "home directory"));
    CHECK(says(hint_for("open", "/home/u/.bashrc", "/p", home, pyt), "HOME = \"{workspace}\""));
    CHECK(!says(hint_for("open", "/home/user2/x", "/p", home, pyt), "home directory"));
    /* a CI container's HOME under /tmp is a home first */
    CHECK(says(hint_for("open", "/tmp/ci-home/.gitconfig", "/p", "/tmp/ci-home", pyt),
               "home directory"));
    CHECK(says(hint_for("open", "/tmp/ci-home/.npmrc", "/p", "/tmp/ci-home", "make-check"),
               "home directory"));
    CHECK(says(hint_for("open", "/etc/x", "/p", home, pyt), "--allow PATH"));
    CHECK(says(hint_for("open", "/etc/x", "/p", NULL, pyt), "--allow PATH"));
    /* a module being collected counts as a pytest test */
    CHECK(says(hint_for("open", "/tmp/x", "/p", home, "tests/t.py"), "tmp_path"));
}

static void command_places(void)
{
    const char *home = "/home/u";
    CHECK(says(hint_for("open", "/p/build/x.o", "/p", home, NULL), "inside the project"));
    CHECK(says(hint_for("open", "/tmp/x", "/p", home, "make-check"), "$TMPDIR"));
    CHECK(says(hint_for("open", "/home/u/.npmrc", "/p", home, NULL), "home directory"));
    CHECK(says(hint_for("open", "/etc/x", "/p", home, NULL), "--output PATH"));
    CHECK(says(hint_for("open", "/etc/x", NULL, NULL, NULL), "--output PATH"));
    /* HOME relative or empty is no home */
    CHECK(!says(hint_for("open", "/home/u/x", "/p", "home/u", NULL), "home directory"));
    CHECK(!says(hint_for("open", "/home/u/x", "/p", "", NULL), "home directory"));
}

/* An unnamed temp file made in /tmp itself: tmpfile() cannot be pointed anywhere (no
 * "use $TMPDIR"), an O_TMPFILE open names the directory; whoever made it, pytest test or not. */
static void unnamed(void)
{
    const char *home = "/home/u";
    const char *who[] = {pyt, "make-check", NULL};
    for (size_t i = 0; i < sizeof who / sizeof who[0]; i++) {
        const char *h = hint_for("tmpfile", "/tmp", "/p", home, who[i]);
        CHECK(says(h, "tmpfile(), which ignores TMPDIR"));
        CHECK(says(h, "could not use that directory"));
        CHECK(!says(h, "use $TMPDIR") && !says(h, "hard-coded"));
        CHECK(says(hint_for("tmpfile64", "/tmp", "/p", home, who[i]), "tmpfile()"));
        h = hint_for("openat", "/tmp", "/p", home, who[i]);
        CHECK(says(h, "O_TMPFILE") && says(h, "honour TMPDIR") && !says(h, "hard-coded"));
        CHECK(says(hint_for("__open_2", "/var/tmp", "/p", home, who[i]), "O_TMPFILE"));
        /* a file in /tmp, or the directory's metadata, is no unnamed file */
        CHECK(!says(hint_for("openat", "/tmp/x", "/p", home, who[i]), "O_TMPFILE"));
        CHECK(!says(hint_for("chmod", "/tmp", "/p", home, who[i]), "O_TMPFILE"));
        CHECK(!says(hint_for(NULL, "/tmp", "/p", home, who[i]), "O_TMPFILE"));
    }
}

/* HOME with a trailing '/' is the same home; "/" (a daemon's HOME) is no home at all,
 * or every path would be "in your home directory". */
static void odd_homes(void)
{
    CHECK(says(hint_for("open", "/root/.bashrc", "/p", "/root/", NULL), "home directory"));
    CHECK(says(hint_for("open", "/root/.bashrc", "/p", "/root//", pyt), "home directory"));
    CHECK(says(hint_for("open", "/root/.cache/x", "/p", "/root/", pyt), "$HOME/.cache"));
    CHECK(!says(hint_for("open", "/rootx/a", "/p", "/root/", NULL), "home directory"));
    CHECK(!says(hint_for("open", "/etc/passwd", "/p", "/", NULL), "home directory"));
    CHECK(!says(hint_for("open", "/etc/passwd", "/p", "/", pyt), "home directory"));
    CHECK(!says(hint_for("open", "/.cache/x", "/p", "/", pyt), "$HOME/.cache"));
    CHECK(!says(hint_for("open", "/etc/passwd", "/p", "//", NULL), "home directory"));
}

static void violation_line(void)
{
    char line[4096];
    struct hint_who who = {.test = "tests/t.py::test_x", .exe = "/usr/bin/python3", .pid = 7};
    int n = hint_violation_line(line, sizeof line, &who, "/etc/x", "the writable set", "/p", NULL);
    CHECK(n > 0 && (size_t)n == strlen(line));
    static const char head[] = "TEST_SANDBOX_VIOLATION: tests/t.py::test_x attempted to write "
                               "to /etc/x which is outside the writable set. How to fix: ";
    CHECK(!strncmp(line, head, sizeof head - 1));
    CHECK(strstr(line, "How to fix: write under tmp_path") != NULL);

    struct hint_who outside = {.test = NULL, .exe = "/usr/bin/ma\033[2Jke", .pid = 42};
    hint_violation_line(line, sizeof line, &outside, "/etc/x", "F", "/p", NULL);
    CHECK(strstr(line, "VIOLATION: ma?[2Jke (pid 42, outside any test) attempted") != NULL);
    struct hint_who noexe = {.test = NULL, .exe = NULL, .pid = 1};
    hint_violation_line(line, sizeof line, &noexe, "/etc/x", "F", "/p", NULL);
    CHECK(strstr(line, "VIOLATION: ? (pid 1, outside any test)") != NULL);

    /* every field printable: the test, the target, and the fence too */
    struct hint_who evil = {.test = "t.py::x\033]0;pwn\007", .exe = "/bin/sh", .pid = 3};
    hint_violation_line(line, sizeof line, &evil, "/etc/\033[31mx\n", "/p/\033[2J\rfence", "/p",
                        NULL);
    CHECK(strstr(line, "t.py::x?]0;pwn? attempted") != NULL);
    CHECK(strstr(line, "to /etc/?[31mx? which") != NULL);
    CHECK(strstr(line, "outside /p/?[2J?fence. How to fix") != NULL);
    bool clean = true;
    for (const char *c = line; *c; c++)
        clean &= (unsigned char)*c >= 0x20 && *c != 0x7f;
    CHECK(clean);

    /* the call picks the hint: tmpfile() in /tmp is not a path the program chose */
    struct hint_who tmpf = {.test = NULL, .exe = "/usr/bin/make", .pid = 9, .op = "tmpfile"};
    hint_violation_line(line, sizeof line, &tmpf, "/tmp", "F", "/p", NULL);
    CHECK(strstr(line, "How to fix: an unnamed temp file from tmpfile()") != NULL);
    tmpf.op = NULL;
    hint_violation_line(line, sizeof line, &tmpf, "/tmp", "F", "/p", NULL);
    CHECK(strstr(line, "tmpfile()") == NULL);

    /* where it came from, at the end of the line (no such words when unknown) */
    CHECK(strstr(line, " (at ") == NULL);
    struct hint_who at = {.test = NULL,
                          .exe = "/usr/bin/git",
                          .pid = 5,
                          .src_file = "conftest.py",
                          .src_line = 12,
                          .src_func = "pytest_configure"};
    hint_violation_line(line, sizeof line, &at, "/h/.gitconfig", "F", "/p", NULL);
    CHECK(says(line, ". How to fix: ") && says(line, " (at conftest.py:12 in pytest_configure)"));
    CHECK(line[strlen(line) - 1] == ')');

    /* a small buffer: snprintf's answer, cut and terminated */
    char small[16];
    n = hint_violation_line(small, sizeof small, &who, "/etc/x", "F", "/p", NULL);
    CHECK(n > (int)sizeof small && strlen(small) == sizeof small - 1);
}

/* A protected file's hint names the snapshot tool that rewrote it, by its switch or where it
 * keeps its files, and the switch to use; git by its program; else the general one. */
static void snapshot_tools(void)
{
    const char *py = "/usr/bin/python3.11";
    CHECK(says(hint_protected(py, "/p/tests/x.txt", "python3 -m pytest --snapshot-update"),
               "syrupy"));
    CHECK(says(hint_protected(py, "/p/tests/__snapshots__/test_a.ambr", "python3 -m pytest"),
               "--update-snapshots -- pytest --snapshot-update"));
    CHECK(says(hint_protected(py, "/p/tests/test_a/x.yml", "pytest --force-regen"),
               "pytest-regressions"));
    CHECK(says(hint_protected(py, "/p/tests/test_a/x.yml", "pytest --regen-all -x"),
               "--force-regen"));
    CHECK(says(hint_protected(py, "/p/tests/test_a.py", "pytest --inline-snapshot=fix"),
               "inline-snapshot"));
    CHECK(says(hint_protected("/usr/bin/node", "/p/tests/__snapshots__/a.test.js.snap",
                              "node /p/node_modules/.bin/jest"),
               "npx jest -u"));
    CHECK(says(hint_protected("/usr/bin/node", "/p/tests/a.txt", "node node_modules/.bin/jest -u"),
               "Jest"));
    CHECK(says(hint_protected("/usr/bin/git", "/p/tests/a.py", "git clean -fdx"), "git init"));
    /* words, not parts of words; no tool: the general hint */
    CHECK(!says(hint_protected(py, "/p/tests/a.txt", "pytest --snapshot-updates"), "syrupy"));
    CHECK(!says(hint_protected("/usr/bin/node", "/p/tests/a.txt", "node run -u"), "Jest"));
    CHECK(says(hint_protected(NULL, NULL, NULL), "one of your own test files"));
    CHECK(hint_protected_dir("/p/tests/sub/") && !hint_protected_dir("/p/tests/a.py"));
}

static void where(void)
{
    char out[256];
    CHECK(hint_where(out, sizeof out, NULL, 0, NULL, NULL, 0) == 0 && !out[0]);
    hint_where(out, sizeof out, "conftest.py", 12, "pytest_configure", NULL, 0);
    CHECK_STR(out, "conftest.py:12 in pytest_configure");
    hint_where(out, sizeof out, "tests/h.py", 3, "save", "tests/t.py", 20);
    CHECK_STR(out, "tests/h.py:3 in save, from tests/t.py:20");
    hint_where(out, sizeof out, "tests/t.py", 20, "test_x", "tests/t.py", 20);
    CHECK_STR(out, "tests/t.py:20 in test_x"); /* the test's own line: once */
    hint_where(out, sizeof out, NULL, 0, NULL, "tests/t.py", 20);
    CHECK_STR(out, "tests/t.py:20");
    hint_where(out, sizeof out, "a\033[2J.py", 1, "f\n", NULL, 0);
    CHECK_STR(out, "a?[2J.py:1 in f?");
    char small[8];
    int n = hint_where(small, sizeof small, "tests/h.py", 3, "save", "tests/t.py", 20);
    CHECK(n == (int)sizeof small - 1 && strlen(small) == sizeof small - 1);
}

static void paint(void)
{
    char out[512];
    const char *line = "TEST_SANDBOX_VIOLATION: t wrote /x. How to fix: do y";
    int n = hint_paint(out, sizeof out, line);
    CHECK_STR(out, COLOUR_RED "TEST_SANDBOX_VIOLATION:" COLOUR_OFF " t wrote /x." COLOUR_CYAN
                              " How to fix:" COLOUR_OFF " do y");
    CHECK(n == (int)strlen(out));
    /* anything else is copied as it is */
    hint_paint(out, sizeof out, "TEST_SANDBOX_VIOLATION: no fix here");
    CHECK_STR(out, "TEST_SANDBOX_VIOLATION: no fix here");
    hint_paint(out, sizeof out, "other line. How to fix: x");
    CHECK_STR(out, "other line. How to fix: x");
    hint_paint(out, sizeof out, "");
    CHECK_STR(out, "");
}

int main(void)
{
    mounts();
    tools();
    pytest_places();
    command_places();
    unnamed();
    odd_homes();
    violation_line();
    snapshot_tools();
    where();
    paint();
    return check_done("test_hint");
}
