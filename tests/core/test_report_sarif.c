/* test_report_sarif: run's SARIF: each blocked write under the audit's rule that fits (codes and
 * names as the audit's table has them), at the line the record names, the writes no line can
 * be given for said as notifications. With TF_SARIF_OUT=DIR the logs are also left there for
 * tests/core/sarif_schema.py, which validates them against the SARIF 2.1.0 schema. */
#include "check.h"

#include "audit/audit_rules.h"
#include "core/report_ci.h"
#include "core/report_sarif.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[PATH_MAX];

struct rec {
    const char *test, *op, *path, *resolved, *by, *exe;
    const char *extra; /* the source-line keys, as JSON */
};

static void put(int fd, const struct rec *x)
{
    char line[VLOG_MAX];
    bool own = x->by && !strcmp(x->by, "testfence");
    struct vlog_record r = {.time = "t",
                            .pid = 1,
                            .test = x->test,
                            .op = x->op ? x->op : "open",
                            .path = x->path ? x->path : x->resolved,
                            .resolved = x->resolved,
                            .err = own ? 0 : 13,
                            .blocked_by = x->by ? x->by : "kernel",
                            .exe = x->exe ? x->exe : "/usr/bin/python3",
                            .cmdline = "python3"};
    size_t n = vlog_format(line, sizeof line, &r);
    if (x->extra)
        n = (size_t)snprintf(line + n - 2, sizeof line - n + 2, ",%s}\n", x->extra) + n - 2;
    CHECK(write(fd, line, n) == (ssize_t)n);
}

static void load(struct report *r, const struct rec *recs, size_t n)
{
    static int k;
    char name[32];
    snprintf(name, sizeof name, "log%d", k++);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    for (size_t i = 0; i < n; i++)
        put(fd, &recs[i]);
    close(fd);
    tf_err err = {0};
    CHECK(report_load(r, dfd, name, &err) == 0);
    close(dfd);
}

static const struct report_run run = {.run_id = "20261207T000000Z-0000001",
                                      .root = "/tmp/ws/proj",
                                      .workspace = "/w",
                                      .backend = "landlock",
                                      .home = "/home/u",
                                      .status = 120};

static bool has(const char *text, const char *s)
{
    bool ok = text && strstr(text, s) != NULL;
    if (!ok)
        fprintf(stderr, "  missing \"%s\" in:\n%s\n", s, text ? text : "(null)");
    return ok;
}

/* The run's rules are the audit's where they share a code: one name per code. */
static void rules_agree(void)
{
    size_t n;
    const struct report_rule *all = report_rules(&n);
    CHECK(n >= 8);
    for (size_t i = 0; i < n; i++) {
        int id = tf_rule_find(all[i].code, strlen(all[i].code));
        if (strncmp(all[i].code, "TF9", 3)) {
            CHECK(id >= 0);
            if (id >= 0)
                CHECK_STR(all[i].name, tf_rule_get((tf_rule_id)id)->name);
        } else {
            CHECK(id < 0); /* the run's own codes are none of the audit's */
        }
    }
}

static const char *code_of(const struct rec *x)
{
    static char code[16];
    struct report r;
    load(&r, x, 1);
    snprintf(code, sizeof code, "%s", r.n == 1 ? report_rule_of(&r.v[0], &run)->code : "?");
    report_free(&r);
    return code;
}

static void rule_choice(void)
{
    const char *t = "tests/t.py::test_a";
    struct rec x = {.test = t, .resolved = "/tmp/ws/proj/config.toml", .path = "config.toml"};
    CHECK_STR(code_of(&x), "TF101"); /* the root lies under /tmp: still the root's file */
    x = (struct rec){.test = t, .resolved = "/tmp/ws/proj/data/x.csv", .path = "data/x.csv"};
    CHECK_STR(code_of(&x), "TF106");
    x = (struct rec){.test = t, .resolved = "/tmp/ws/proj/data/x.csv"};
    CHECK_STR(code_of(&x), "TF103");
    x = (struct rec){.test = t, .resolved = "/tmp/fixed.txt"};
    CHECK_STR(code_of(&x), "TF104");
    x = (struct rec){.test = t, .resolved = "/var/tmp/a/b"};
    CHECK_STR(code_of(&x), "TF104");
    x = (struct rec){.test = t, .resolved = "/home/u/.gitconfig.lock", .exe = "/usr/bin/git"};
    CHECK_STR(code_of(&x), "TF108");
    x = (struct rec){.test = t, .resolved = "/tmp/ws/proj/.git/config.lock"};
    CHECK_STR(code_of(&x), "TF108");
    x = (struct rec){.test = t, .resolved = "/home/u/.config/git/config"};
    CHECK_STR(code_of(&x), "TF108");
    x = (struct rec){.test = t, .resolved = "/home/u/.bashrc", .exe = "/usr/bin/dash"};
    CHECK_STR(code_of(&x), "TF109");
    x = (struct rec){.test = t, .resolved = "/home/u/data", .op = "rmdir"};
    CHECK_STR(code_of(&x), "TF110");
    x = (struct rec){.test = t, .resolved = "/home/u/x"};
    CHECK_STR(code_of(&x), "TF103");
    x = (struct rec){.test = t, .resolved = "/tmp/ws/proj/tests/data.csv", .by = "protect"};
    CHECK_STR(code_of(&x), "TF900");
    x = (struct rec){.test = t,
                     .op = "outlived",
                     .path = "sleep 100",
                     .resolved = "/bin/sleep",
                     .by = "testfence"};
    CHECK_STR(code_of(&x), "TF901");
}

/* The log of RECS as text, also left in TF_SARIF_OUT as NAME. */
static char *sarif_of(const struct rec *recs, size_t n, const char *name)
{
    struct report r;
    load(&r, recs, n);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    report_sarif(m, &r, &run);
    fclose(m);
    report_free(&r);
    const char *out = getenv("TF_SARIF_OUT");
    char path[PATH_MAX];
    if (out && snprintf(path, sizeof path, "%s/%s", out, name) < (int)sizeof path) {
        FILE *f = fopen(path, "w");
        CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
    }
    return text;
}

static void log_shape(void)
{
    const struct rec recs[] = {
        {.test = "tests/t.py::test_a",
         .resolved = "/tmp/ws/proj/config.toml",
         .path = "config.toml",
         .extra = "\"src_file\":\"slop/settings.py\",\"src_line\":12,\"src_func\":\"save\","
                  "\"test_file\":\"tests/t.py\",\"test_line\":30"},
        {.test = "tests/t.py::test_b", .resolved = "/home/u/x y%"},
        {.resolved = "/etc/z"}, /* outside any test, no line: a notification */
        {.test = "tests/t.py::test_c",
         .resolved = "/etc/q",
         .extra = "\"src_file\":\"/opt/lib/w.py\",\"src_line\":4"}};
    unsetenv("GITHUB_WORKSPACE");
    char *t = sarif_of(recs, 4, "shape.sarif");
    CHECK(has(t, "\"version\": \"2.1.0\""));
    CHECK(has(t, "\"automationDetails\": {\"id\": \"testfence-run/20261207T000000Z-0000001\"}"));
    CHECK(has(t, "\"originalUriBaseIds\": {\"%SRCROOT%\": {\"uri\": \"file:///tmp/ws/proj/\"}}"));
    CHECK(has(t, "\"exitCode\": 120"));
    /* at the helper's line, the test's own as a related location */
    CHECK(has(t, "{\"ruleId\": \"TF101\", \"ruleIndex\": 0, \"level\": \"error\", \"message\": "
                 "{\"text\": \"tests/t.py::test_a: open /tmp/ws/proj/config.toml (EACCES) in "
                 "save(). How to fix: "));
    CHECK(has(t, "{\"artifactLocation\": {\"uri\": \"slop/settings.py\", \"uriBaseId\": "
                 "\"%SRCROOT%\"}, \"region\": {\"startLine\": 12}}"));
    CHECK(has(t, "\"relatedLocations\": [{\"id\": 1, \"message\": {\"text\": \"the test\"}, "
                 "\"physicalLocation\": {\"artifactLocation\": {\"uri\": \"tests/t.py\", "
                 "\"uriBaseId\": \"%SRCROOT%\"}, \"region\": {\"startLine\": 30}}}]"));
    /* only the id's file known: line 1, as code scanning needs a line */
    CHECK(has(t, "{\"uri\": \"tests/t.py\", \"uriBaseId\": \"%SRCROOT%\"}, \"region\": "
                 "{\"startLine\": 1}}}]"));
    CHECK(has(t, "\"resolved\": \"/home/u/x y%\""));
    /* a frame outside the project gives way to the test's file */
    CHECK(has(t, "tests/t.py::test_c: open /etc/q (EACCES)"));
    CHECK(t && !strstr(t, "/opt/lib/w.py"));
    CHECK(has(t, "\"toolExecutionNotifications\": [{\"level\": \"warning\", \"message\": "
                 "{\"text\": \"not placed at a line: (outside any test): open /etc/z (EACCES)."));
    free(t);

    /* the project in a subdirectory of GitHub's checkout: paths from the checkout */
    setenv("GITHUB_WORKSPACE", "/tmp/ws", 1);
    t = sarif_of(recs, 1, "checkout.sarif");
    CHECK(has(t, "\"%SRCROOT%\": {\"uri\": \"file:///tmp/ws/\"}"));
    CHECK(has(t, "\"uri\": \"proj/slop/settings.py\""));
    free(t);
    unsetenv("GITHUB_WORKSPACE");

    t = sarif_of(NULL, 0, "clean.sarif"); /* a clean run: no result, no notification */
    CHECK(has(t, "\"toolExecutionNotifications\": []}],\n      \"results\": []"));
    free(t);
}

int main(void)
{
    char tmp[PATH_MAX];
    if (!check_tmpdir(tmp, sizeof tmp, "tf_report_sarif") || !realpath(tmp, dir))
        return perror("mkdtemp"), 1;
    unsetenv("GITHUB_WORKSPACE"); /* the CI this suite may run in is not the one tested */
    unsetenv("CI_PROJECT_DIR");
    rules_agree();
    rule_choice();
    log_shape();
    return check_done("test_report_sarif");
}
