/* test_toolstate: whole-component matching, the tool hints and the report-at-the-root hints,
 * and the table's own consistency (docs/run.md prints it). */
#include "check.h"

#include "core/toolstate.h"

#include <stdbool.h>

static void components(void)
{
    CHECK(toolstate_has_components("/p/.git/index.lock", ".git"));
    CHECK(toolstate_has_components("/p/.git", ".git"));
    CHECK(toolstate_has_components("/p/node_modules/.cache/x", "node_modules/.cache"));
    /* a name inside a longer component is not the component */
    CHECK(!toolstate_has_components("/p/.github/x", ".git"));
    CHECK(!toolstate_has_components("/p/my.git/x", ".git"));
    CHECK(!toolstate_has_components("/p/node_modules/.cachex", "node_modules/.cache"));
    /* a relative path's first component has no '/' before it: not matched */
    CHECK(!toolstate_has_components(".git/x", ".git"));
    /* a later whole occurrence counts after an earlier partial one */
    CHECK(toolstate_has_components("/a.git/b/.git/c", ".git"));
    CHECK(!toolstate_has_components("", ".git"));
}

static void tool_hints(void)
{
    const char *h = toolstate_hint("/p/.nyc_output/x.json");
    CHECK(h && strstr(h, "nyc") != NULL);
    h = toolstate_hint("/build/Testing/Temporary/LastTest.log");
    CHECK(h && strstr(h, "ctest") != NULL);
    h = toolstate_hint("/p/.benchmarks/Linux/0001.json");
    CHECK(h && strstr(h, "pytest-benchmark") != NULL);
    h = toolstate_hint("/p/Cargo.lock");
    CHECK(h && strstr(h, "Cargo.lock") != NULL);
    /* coverage.py's data file, whole or a parallel part, wherever it is; not its config */
    static const char *const cov[] = {"/p/.coverage", "/p/.coverage.vm.11097.114524",
                                      "/x/.coverage.h.1.2-journal"};
    for (size_t i = 0; i < sizeof cov / sizeof cov[0]; i++) {
        h = toolstate_hint(cov[i]);
        CHECK(h && strstr(h, "COVERAGE_FILE") != NULL);
    }
    CHECK(toolstate_hint("/p/.coveragerc") == NULL);
    CHECK(toolstate_hint("/p/.coverage_x") == NULL);
    CHECK(toolstate_hint("/p/.coverage/x") == NULL);
    CHECK(toolstate_hint("/p/src/main.c") == NULL);
    CHECK(toolstate_hint("/p/Testingx/y") == NULL);
    CHECK(toolstate_hint("/") == NULL);
}

static void report_hints(void)
{
    const char *h = toolstate_report_hint("/p/test-suite.log", "/p");
    CHECK(h && strstr(h, "automake") != NULL);
    h = toolstate_report_hint("/p/sub/t1.trs", "/p");
    CHECK(h && strstr(h, "automake") != NULL);
    h = toolstate_report_hint("/p/build.log", "/p");
    CHECK(h && strstr(h, "a log at the root") != NULL);
    /* a .log below the root is no runner's log at its end */
    CHECK(toolstate_report_hint("/p/sub/build.log", "/p") == NULL);
    static const char *const reports[] = {"/p/report.xml", "/p/out/cov.json", "/p/lcov.lcov",
                                          "/p/r.html", "/p/x.sarif"};
    for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++) {
        h = toolstate_report_hint(reports[i], "/p");
        CHECK(h && strstr(h, "a report file") != NULL);
    }
    CHECK(toolstate_report_hint("/p/data.bin", "/p") == NULL);
    /* outside the root, the root itself, or no root: nothing to say */
    CHECK(toolstate_report_hint("/q/report.xml", "/p") == NULL);
    CHECK(toolstate_report_hint("/px/report.xml", "/p") == NULL);
    CHECK(toolstate_report_hint("/p", "/p") == NULL);
    CHECK(toolstate_report_hint("/p/report.xml", NULL) == NULL);
}

/* Every row says what the run does with it, the way its kind needs. */
static void table(void)
{
    size_t n = 0;
    for (const struct toolstate *t = toolstate_table; t->tool; t++, n++) {
        CHECK(t->why && t->why[0]);
        CHECK(t->value && t->value[0]);
        if (t->kind == TS_QUIET) {
            CHECK(t->var == NULL);
            CHECK(t->value[0] != '/'); /* below its base, never absolute */
        } else {
            CHECK(t->var && t->var[0]);
            CHECK(t->commands == NULL);
        }
        if (t->kind == TS_REDIRECT)
            CHECK(t->base == TS_ARTIFACTS || t->base == TS_WORKSPACE);
        /* The plan skips a cwd entry when the cwd is the root: the root's twin covers it. */
        bool twin = t->base != TS_CWD;
        for (const struct toolstate *u = toolstate_table; !twin && u->tool; u++)
            twin = u->base == TS_ROOT && u->kind == t->kind && !strcmp(u->value, t->value);
        CHECK(twin);
    }
    CHECK(n > 0);
}

/* What suggest asks: a report's name, an output directory, a redirected tool's default place. */
static void for_suggest(void)
{
    const char *reports[] = {"junit.xml",    "TEST-x.xml",    "report.xml",   "Results.xml",
                             "coverage.xml", "coverage.json", ".report.json", "lcov.info",
                             "x.lcov",       "a.sarif",       "report.html",  "pytest-junit.xml"};
    const char *mine[] = {"package.json", "data.xml",     "config.toml", "index.html",
                          "x.json",       "settings.xml", "report",      ""};
    for (size_t i = 0; i < sizeof reports / sizeof *reports; i++)
        CHECK(toolstate_report_name(reports[i]));
    for (size_t i = 0; i < sizeof mine / sizeof *mine; i++)
        CHECK(!toolstate_report_name(mine[i]));
    const char *end = NULL;
    CHECK_STR(toolstate_output_dir("/htmlcov/a/b", &end), "htmlcov");
    CHECK(end && !strcmp(end, "/a/b"));
    CHECK(toolstate_output_dir("/.benchmarks", &end) && !strcmp(end, ""));
    CHECK(toolstate_output_dir("/node_modules/.cache/x", &end));
    CHECK(!toolstate_output_dir("/htmlcovx/a", &end) &&
          !toolstate_output_dir("/.nyc_output/a", &end));
    CHECK(toolstate_coverage_data("/p/.coverage") && toolstate_coverage_data("/p/.coverage.h.1.x"));
    CHECK(!toolstate_coverage_data("/p/coverage"));
    const struct toolstate *t = toolstate_default_of("/p/.hypothesis/x", "/p", "/home/u");
    CHECK(t && !strcmp(t->var, "HYPOTHESIS_STORAGE_DIRECTORY"));
    t = toolstate_default_of("/p/.coverage", "/p", NULL);
    CHECK(t && !strcmp(t->var, "COVERAGE_FILE"));
    t = toolstate_default_of("/home/u/.cache/pip/x", "/p", "/home/u");
    CHECK(t && !strcmp(t->var, "PIP_CACHE_DIR"));
    CHECK(!toolstate_default_of("/home/u/.cache/other", "/p", "/home/u"));
    CHECK(!toolstate_default_of("/.npm/x", "/p", "/")); /* a daemon's home is no home */
}

int main(void)
{
    for_suggest();
    components();
    tool_hints();
    report_hints();
    table();
    return check_done("test_toolstate");
}
