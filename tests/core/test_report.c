/* test_report: grouping, deduplication and counts, the summary's limits, report.json. */
#include "check.h"

#include <limits.h>
#include "core/report.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

static void put(int fd, const char *test, const char *resolved)
{
    char line[VLOG_MAX];
    struct vlog_record r = {.time = "t",
                            .pid = 1,
                            .test = test,
                            .op = "open",
                            .path = resolved,
                            .resolved = resolved,
                            .err = 13,
                            .blocked_by = "kernel",
                            .exe = "/bin/sh",
                            .cmdline = "sh"};
    size_t n = vlog_format(line, sizeof line, &r);
    CHECK(write(fd, line, n) == (ssize_t)n);
}

static char *slurp(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_RDONLY);
    char *buf = calloc(1, 1 << 20);
    if (fd >= 0 && buf && read(fd, buf, (1 << 20) - 1) < 0)
        buf[0] = '\0';
    if (fd >= 0)
        close(fd);
    return buf;
}

/* A process left running is in report.json with the hint the summary gives it, not a
 * write's. */
static void leftover_in_json(int dfd, const struct report_run *run)
{
    char line[VLOG_MAX];
    struct vlog_record rec = {.time = "t",
                              .pid = 9,
                              .test = "t.py::srv",
                              .op = "outlived",
                              .path = "python -m http.server",
                              .resolved = "/usr/bin/python3",
                              .err = 0,
                              .blocked_by = "testfence",
                              .exe = "/usr/bin/python3",
                              .cmdline = "python -m http.server"};
    size_t n = vlog_format(line, sizeof line, &rec);
    int fd = openat(dfd, "left", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(write(fd, line, n) == (ssize_t)n);
    close(fd);
    struct report r;
    tf_err err;
    CHECK(report_load(&r, dfd, "left", &err) == 0 && r.n == 1);
    CHECK(report_outlived(&r.v[0]));
    CHECK(report_write_json(&r, run, dfd, "left.json", &err) == 0);
    char *json = slurp(dfd, "left.json");
    CHECK(strstr(json, "\"hint\": \"stop what the test starts") != NULL);
    free(json);
    report_free(&r);
}

/* The summary of a run whose only refusals were protected files says so, file and directory
 * told apart, with the snapshot tool's hint from the record's command line. */
static void protected_summary(int dfd, const struct report_run *run)
{
    char line[VLOG_MAX];
    struct vlog_record rec = {.time = "t",
                              .pid = 9,
                              .test = "t.py::snap",
                              .op = "open",
                              .path = "tests/__snapshots__/t.ambr",
                              .resolved = "/p/tests/__snapshots__/t.ambr",
                              .err = 13,
                              .blocked_by = "protect",
                              .exe = "/usr/bin/python3",
                              .cmdline = "python3 -m pytest --snapshot-update"};
    int fd = openat(dfd, "prot", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    size_t n = vlog_format(line, sizeof line, &rec);
    CHECK(write(fd, line, n) == (ssize_t)n);
    rec.op = "rename";
    rec.path = "tests/sub";
    rec.resolved = "/p/tests/sub/";
    n = vlog_format(line, sizeof line, &rec);
    CHECK(write(fd, line, n) == (ssize_t)n);
    close(fd);
    struct report r;
    tf_err err;
    CHECK(report_load(&r, dfd, "prot", &err) == 0 && r.n == 2);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    report_print(f, &r, run);
    fclose(f);
    CHECK(strstr(out, "2 changes to your protected test files (protect in the config) were "
                      "refused (2 distinct)") != NULL);
    CHECK(strstr(out, "outside the writable set") == NULL);
    CHECK(strstr(out, "  t.py::snap: 2 refused changes to protected files\n") != NULL);
    CHECK(strstr(out, "t.ambr (EACCES, your protected test file)") != NULL);
    CHECK(strstr(out, "/p/tests/sub/ (EACCES, a directory of your protected test files)") != NULL);
    CHECK(strstr(out, "syrupy rewrote one of your snapshots") != NULL);
    CHECK(strstr(out, "testfence run --update-snapshots -- pytest --snapshot-update") != NULL);
    CHECK(strstr(out, "because changes to your protected test files were refused") != NULL);
    free(out);
    report_free(&r);
}

/* Where a write came from: in the summary under it and in report.json; the same write from
 * another line (or from none known) is another entry, a repeat from the same line one. */
static void where_shown(int dfd, const struct report_run *run)
{
    char line[VLOG_MAX];
    struct vlog_record rec = {.time = "t",
                              .pid = 9,
                              .op = "open",
                              .path = "/h/.gitconfig",
                              .resolved = "/h/.gitconfig",
                              .err = 13,
                              .blocked_by = "kernel",
                              .exe = "/usr/bin/git"};
    int fd = openat(dfd, "where", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    size_t n = vlog_format(line, sizeof line, &rec);
    CHECK(write(fd, line, n) == (ssize_t)n);
    rec.src_file = "conftest.py";
    rec.src_line = 12;
    rec.src_func = "pytest_configure";
    n = vlog_format(line, sizeof line, &rec);
    CHECK(write(fd, line, n) == (ssize_t)n);
    CHECK(write(fd, line, n) == (ssize_t)n); /* again: counted, not listed twice */
    rec.src_line = 13;
    n = vlog_format(line, sizeof line, &rec);
    CHECK(write(fd, line, n) == (ssize_t)n);
    rec.test = "tests/t.py::test_x";
    rec.src_file = "tests/helper.py";
    rec.src_line = 3;
    rec.src_func = "save";
    rec.test_file = "tests/t.py";
    rec.test_line = 20;
    n = vlog_format(line, sizeof line, &rec);
    CHECK(write(fd, line, n) == (ssize_t)n);
    close(fd);
    struct report r;
    tf_err err;
    CHECK(report_load(&r, dfd, "where", &err) == 0 && r.n == 4 && r.total == 5);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    report_print(f, &r, run);
    fclose(f);
    CHECK(strstr(text, "by git\n      at conftest.py:12 in pytest_configure\n") != NULL);
    CHECK(strstr(text, "EACCES) x2 by git\n      at conftest.py:12 in") != NULL);
    CHECK(strstr(text, "by git\n      at conftest.py:13 in pytest_configure\n") != NULL);
    CHECK(strstr(text, "      at tests/helper.py:3 in save, from tests/t.py:20\n") != NULL);
    free(text);
    CHECK(report_write_json(&r, run, dfd, "where.json", &err) == 0);
    char *json = slurp(dfd, "where.json");
    CHECK(strstr(json, "\"src_file\": \"conftest.py\",\n        \"src_line\": 12,\n"
                       "        \"src_func\": \"pytest_configure\",\n") != NULL);
    CHECK(strstr(json, "\"test_file\": \"tests/t.py\",\n        \"test_line\": 20,\n") != NULL);
    free(json);
    report_free(&r);
}

int main(void)
{
    char dir[PATH_MAX];
    if (!check_tmpdir(dir, sizeof dir, "tf_report"))
        return perror("mkdtemp"), 1;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    int fd = openat(dfd, "log", O_WRONLY | O_CREAT, 0644);
    for (int i = 0; i < 3; i++)
        put(fd, "t.py::a", "/p/config.toml");
    put(fd, "t.py::b", "/p/x");
    put(fd, NULL, "/tmp/y");
    for (int i = 0; i < 30; i++) {
        char p[32], t[32];
        snprintf(p, sizeof p, "/p/f%d", i);
        snprintf(t, sizeof t, "t.py::many%d", i);
        put(fd, t, p);
        put(fd, "t.py::b", p);
    }
    CHECK(write(fd, "{\"forged\":1}\n", 13) == 13);
    close(fd);

    struct report r;
    tf_err err;
    CHECK(report_load(&r, dfd, "log", &err) == 0);
    CHECK(r.total == 65 && r.n == 63 && r.unattributed == 1 && r.stats.malformed == 1);
    char a0[] = "pytest", a1[] = "-q";
    char *argv[] = {a0, a1, NULL};
    struct report_run run = {.run_id = "id",
                             .root = "/p",
                             .workspace = dir,
                             .backend = "landlock",
                             .argv = argv,
                             .command_status = 0,
                             .status = 120};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    report_print(f, &r, &run);
    fclose(f);
    CHECK(strstr(out, "65 writes outside the writable set were blocked") != NULL);
    CHECK(strstr(out, "  t.py::a: 3 blocked writes\n    open       /p/config.toml (EACCES) x3") !=
          NULL);
    CHECK(strstr(out, "(outside any test)") == NULL); /* the 33rd group: past the limit */
    CHECK(strstr(out, "... and 21 more distinct writes") != NULL); /* t.py::b has 31 */
    CHECK(strstr(out, "... and 13 more tests") != NULL);
    CHECK(strstr(out, "1 malformed line") != NULL);
    CHECK(strstr(out, "exiting 120") != NULL);
    free(out);

    protected_summary(dfd, &run);
    CHECK(report_write_json(&r, &run, dfd, "report.json", &err) == 0);
    char *json = slurp(dfd, "report.json");
    CHECK(strstr(json, "\"schema\": \"testfence-report/1\"") != NULL);
    CHECK(strstr(json, "\"command\": [\"pytest\", \"-q\"]") != NULL);
    CHECK(strstr(json, "\"blocked\": 65,") != NULL);
    CHECK(strstr(json, "\"test\": null") != NULL);
    CHECK(strstr(json, "\"count\": 3,") != NULL);
    free(json);
    /* A symlink planted where the report goes is replaced, not followed. */
    CHECK(symlinkat("/nonexistent/target", dfd, "planted") == 0);
    CHECK(report_write_json(&r, &run, dfd, "planted", &err) == 0);
    struct stat st;
    CHECK(fstatat(dfd, "planted", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode));
    report_free(&r);

    /* A clean run prints nothing. */
    fd = openat(dfd, "empty", O_WRONLY | O_CREAT, 0644);
    close(fd);
    CHECK(report_load(&r, dfd, "empty", &err) == 0 && r.total == 0);
    f = open_memstream(&out, &len);
    report_print(f, &r, &run);
    fclose(f);
    CHECK(len == 0);
    free(out);
    report_free(&r);
    where_shown(dfd, &run);
    leftover_in_json(dfd, &run);
    const char *names[] = {"log", "report.json", "planted", "empty", "left", "left.json"};
    for (size_t i = 0; i < 6; i++)
        unlinkat(dfd, names[i], 0);
    close(dfd);
    rmdir(dir);
    return check_done("test_report");
}
