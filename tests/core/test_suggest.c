/* test_suggest: the fix chosen for each kind of blocked write (a report to declare, a tool's
 * state redirected, git's global config, the user's own file left to the test), and
 * report.json read with its errors placed. */
#include "check.h"

#include "core/suggest.h"

#include <stdbool.h>

static const char *const pyt = "tests/t.py::test_x";
static const struct suggest_config none = {0};

static struct suggest_fix fix_of(const char *resolved, const char *test, const char *exe,
                                 const struct suggest_config *cfg)
{
    struct suggest_write w = {.test = test, .op = "open64", .resolved = resolved, .exe = exe};
    struct suggest_fix f;
    suggest_fix(&w, "/p", "/home/u", cfg ? cfg : &none, &f);
    return f;
}

static void outputs(void)
{
    struct suggest_fix f = fix_of("/p/junit.xml", NULL, "/usr/bin/python3", NULL);
    CHECK(f.kind == SUGGEST_OUTPUT && !f.in_config);
    CHECK_STR(f.output, "junit.xml");
    f = fix_of("/p/reports/coverage.xml", NULL, NULL, NULL);
    CHECK(f.kind == SUGGEST_OUTPUT);
    CHECK_STR(f.output, "reports/coverage.xml");
    f = fix_of("/p/htmlcov/d/index.html", NULL, NULL, NULL);
    CHECK(f.kind == SUGGEST_OUTPUT);
    CHECK_STR(f.output, "htmlcov/");
    f = fix_of("/p/.benchmarks/Linux-CPython/0001_x.json", NULL, NULL, NULL);
    CHECK(f.kind == SUGGEST_OUTPUT);
    CHECK_STR(f.output, ".benchmarks/");
    f = fix_of("/p/pytest.log", NULL, NULL, NULL);
    CHECK(f.kind == SUGGEST_OUTPUT);
    CHECK_STR(f.output, "pytest.log");
    const char *outs[] = {"junit.xml"};
    struct suggest_config cfg = {.outputs = outs, .noutputs = 1};
    f = fix_of("/p/junit.xml", NULL, NULL, &cfg);
    CHECK(f.kind == SUGGEST_OUTPUT && f.in_config);
}

static void user_files(void)
{
    /* a test writing a report-like name wants its tmp_path; names not clearly a report are
     * the user's whoever writes them */
    struct suggest_fix f = fix_of("/p/junit.xml", pyt, NULL, NULL);
    CHECK(f.kind == SUGGEST_TEST && strstr(f.advice, "tmp_path"));
    const char *mine[] = {"/p/config.toml", "/p/package.json",   "/p/data/sample.csv",
                          "/p/data.xml",    "/p/test-suite.log", "/p/sub/x.log",
                          "/p/.git/config"};
    for (size_t i = 0; i < sizeof mine / sizeof *mine; i++) {
        f = fix_of(mine[i], NULL, NULL, NULL);
        CHECK(f.kind == SUGGEST_TEST || f.kind == SUGGEST_ADVICE);
        f = fix_of(mine[i], pyt, NULL, NULL);
        CHECK(f.kind == SUGGEST_TEST || f.kind == SUGGEST_ADVICE);
    }
    f = fix_of("/p/config.toml", pyt, NULL, NULL);
    CHECK(f.kind == SUGGEST_TEST && strstr(f.advice, "tmp_path"));
    /* a name above the root is not the project's output dir */
    struct suggest_write w = {.op = "open", .resolved = "/htmlcov/p/data.csv"};
    suggest_fix(&w, "/htmlcov/p", NULL, &none, &f);
    CHECK(f.kind != SUGGEST_OUTPUT);
}

static void tool_state(void)
{
    struct suggest_fix f = fix_of("/p/.coverage", NULL, NULL, NULL);
    CHECK(f.kind == SUGGEST_ADVICE && strstr(f.advice, "COVERAGE_FILE"));
    const char *names[] = {"COVERAGE_FILE"}, *values[] = {"{root}/.coverage"};
    struct suggest_config cfg = {.env_names = names, .env_values = values, .nenv = 1};
    f = fix_of("/p/.coverage.host.1.x", pyt, NULL, &cfg);
    CHECK(f.kind == SUGGEST_ENV && !f.in_config);
    CHECK_STR(f.var, "COVERAGE_FILE");
    CHECK_STR(f.value, "{artifacts}/.coverage");
    f = fix_of("/home/u/.cache/pip/http/x", NULL, NULL, NULL);
    CHECK(f.kind == SUGGEST_ADVICE && strstr(f.advice, "variable"));
    f = fix_of("/p/.hypothesis/examples/x", pyt, NULL, NULL);
    CHECK(f.kind == SUGGEST_ADVICE);
}

static void git_global(void)
{
    struct suggest_fix f = fix_of("/home/u/.gitconfig.lock", pyt, "/usr/bin/git", NULL);
    CHECK(f.kind == SUGGEST_GIT_GLOBAL && strstr(f.advice, "GIT_CONFIG_GLOBAL"));
    CHECK(strstr(suggest_git_fixture, "monkeypatch.setenv(\"GIT_CONFIG_GLOBAL\""));
    f = fix_of("/home/u/.config/git/config.lock", NULL, "/usr/bin/git", NULL);
    CHECK(f.kind == SUGGEST_ENV);
    CHECK_STR(f.var, "GIT_CONFIG_GLOBAL");
    CHECK_STR(f.value, "{workspace}/gitconfig");
    f = fix_of("/p/.git/config.lock", NULL, "/usr/bin/git", NULL); /* the repository's own */
    CHECK(f.kind == SUGGEST_ADVICE);
}

static void special(void)
{
    struct suggest_write w = {.op = "open", .resolved = "/p/tests/t.py", .blocked_by = "protect"};
    struct suggest_fix f;
    suggest_fix(&w, "/p", NULL, &none, &f);
    CHECK(f.kind == SUGGEST_ADVICE && strstr(f.advice, "protect"));
    w = (struct suggest_write){.op = "outlived", .resolved = "/usr/bin/sleep"};
    suggest_fix(&w, "/p", NULL, &none, &f);
    CHECK(f.kind == SUGGEST_ADVICE && strstr(f.advice, "teardown"));
}

/* The error reading TEXT, or "" when it was read (N writes). */
static const char *read_error(const char *text, size_t *n)
{
    static tf_err err;
    struct json_value *doc;
    struct suggest_report r;
    memset(&err, 0, sizeof err);
    if (json_parse("r.json", text, strlen(text), &doc, &err) < 0)
        return err.msg;
    int rc = suggest_read("r.json", doc, &r, &err);
    *n = rc == 0 ? r.n : 0;
    if (rc == 0)
        suggest_report_free(&r);
    json_free(doc);
    return rc == 0 ? "" : err.msg;
}

static void reading(void)
{
    size_t n = 0;
    CHECK_STR(
        read_error("{\"schema\": \"testfence-report/1\", \"root\": \"/p\", \"tests\": [\n"
                   " {\"test\": null, \"writes\": [{\"op\": \"open\", \"resolved\": \"/p/x\", "
                   "\"src_line\": 3, \"src_file\": \"tests/a.py\"}]},\n"
                   " {\"test\": \"t::x\", \"writes\": []}]}",
                   &n),
        "");
    CHECK(n == 1);
    CHECK_STR(read_error("[]", &n), "r.json:1:1: not a testfence report (an object was expected)");
    CHECK_STR(read_error("{\"schema\": \"x\"}", &n),
              "r.json:1:1: not a testfence report (\"schema\" is not \"testfence-report/1\")");
    CHECK_STR(read_error("{\"schema\": \"testfence-report/1\", \"root\": \"/p\", \"tests\": "
                         "[{\"writes\": [{\"op\": 1, \"resolved\": \"/p/x\"}]}]}",
                         &n),
              "r.json:1:77: \"op\" must be a string without NUL, or null");
    CHECK_STR(read_error("{\"schema\": \"testfence-report/1\", \"root\": \"/p\", \"tests\": "
                         "[{\"writes\": [{\"op\": \"open\", \"resolved\": \"x\"}]}]}",
                         &n),
              "r.json:1:70: a write needs \"op\" and an absolute, normalised \"resolved\"");
    /* "../" in a path: the output it would make every later run refuses. */
    CHECK_STR(read_error("{\"schema\": \"testfence-report/1\", \"root\": \"/p\", \"tests\": "
                         "[{\"writes\": [{\"op\": \"open\", \"resolved\": \"/p/../h/c.xml\"}]}]}",
                         &n),
              "r.json:1:70: a write needs \"op\" and an absolute, normalised \"resolved\"");
    CHECK_STR(read_error("{\"schema\": \"testfence-report/1\", \"root\": \"/p\"}", &n),
              "r.json:1:1: the report needs \"tests\", an array");
}

int main(void)
{
    outputs();
    user_files();
    tool_state();
    git_global();
    special();
    reading();
    return check_done("test_suggest");
}
