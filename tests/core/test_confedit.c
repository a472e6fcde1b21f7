/* test_confedit: outputs and [env] variables added to testfence.toml and pyproject.toml with
 * every other byte kept (arrays one a line or not, tables after, a table made by a deeper
 * header, a new file), what cannot be edited refused, and the unified diff. */
#include "check.h"

#include "core/confedit.h"

#include <stdlib.h>

static const char *outs1[] = {"junit.xml"};
static const char *outs2[] = {"junit.xml", "htmlcov/"};
static const char *cov[] = {"COVERAGE_FILE"}, *cov_v[] = {"{artifacts}/.coverage"};

/* OLD edited in TABLE by C: the new text, or "ERROR: message". */
static const char *edit(const char *old, const char *table, const struct confedit_change *c)
{
    static char buf[4096];
    char *out;
    size_t n;
    tf_err err;
    if (confedit_apply("f.toml", old, strlen(old), table, c, &out, &n, &err) < 0) {
        snprintf(buf, sizeof buf, "ERROR: %s", err.msg);
        return buf;
    }
    snprintf(buf, sizeof buf, "%s", out);
    CHECK(strlen(out) == n);
    free(out);
    return buf;
}

static void outputs(void)
{
    struct confedit_change one = {.outputs = outs1, .noutputs = 1};
    struct confedit_change two = {.outputs = outs2, .noutputs = 2};
    CHECK_STR(
        edit("# top\nwritable = [\"tests\"]\nretain = 3 # keep\n\n[env]\nA = \"x\"\n", "", &one),
        "# top\nwritable = [\"tests\"]\nretain = 3 # keep\noutputs = [\"junit.xml\"]\n\n"
        "[env]\nA = \"x\"\n");
    CHECK_STR(edit("outputs = [\"a\"] # c\n", "", &two),
              "outputs = [\"a\", \"junit.xml\", \"htmlcov/\"] # c\n");
    CHECK_STR(edit("outputs = [\n  \"a\",  # first\n    \"b\", # second\n]\n", "", &two),
              "outputs = [\n  \"a\",  # first\n    \"b\", # second\n    \"junit.xml\",\n    "
              "\"htmlcov/\",\n]\n");
    CHECK_STR(edit("outputs = [\n  \"a\" # first\n]\n", "", &two),
              "outputs = [\n  \"a\", # first\n  \"junit.xml\",\n  \"htmlcov/\"\n]\n");
    CHECK_STR(edit("outputs = [\n  \"a\",\n  \"b\"]\n", "", &one),
              "outputs = [\n  \"a\",\n  \"b\", \"junit.xml\"]\n");
    CHECK_STR(edit("outputs = [ ]\n", "", &two), "outputs = [\"junit.xml\", \"htmlcov/\" ]\n");
    CHECK_STR(edit("[env]\nA = \"x\"\n", "", &one),
              "outputs = [\"junit.xml\"]\n[env]\nA = \"x\"\n");
    CHECK_STR(edit("", "", &one), "outputs = [\"junit.xml\"]\n");
    CHECK_STR(edit("retain = 3", "", &one), "retain = 3\noutputs = [\"junit.xml\"]\n");
}

static void pyproject(void)
{
    struct confedit_change one = {.outputs = outs1, .noutputs = 1};
    CHECK_STR(edit("[project]\nname = \"x\"\n\n[tool.testfence]\nwritable = [\"tests\"]\n\n"
                   "[tool.testfence.env]\nA = \"1\"\n\n[tool.ruff]\nline-length = 100\n",
                   "tool.testfence", &one),
              "[project]\nname = \"x\"\n\n[tool.testfence]\nwritable = [\"tests\"]\n"
              "outputs = [\"junit.xml\"]\n\n[tool.testfence.env]\nA = \"1\"\n\n[tool.ruff]\n"
              "line-length = 100\n");
    CHECK_STR(edit("[tool.testfence]\n\n[tool.ruff]\nx = 1\n", "tool.testfence", &one),
              "[tool.testfence]\noutputs = [\"junit.xml\"]\n\n[tool.ruff]\nx = 1\n");
    CHECK_STR(edit("[project]\nname = \"x\"", "tool.testfence", &one),
              "[project]\nname = \"x\"\n\n[tool.testfence]\noutputs = [\"junit.xml\"]\n");
    /* [tool.testfence] made only by its env's header: the header is added at the end */
    CHECK_STR(edit("[tool.testfence.env]\nA = \"1\"\n", "tool.testfence", &one),
              "[tool.testfence.env]\nA = \"1\"\n\n[tool.testfence]\noutputs = [\"junit.xml\"]\n");
}

static void env(void)
{
    struct confedit_change c = {.env_names = cov, .env_values = cov_v, .nenv = 1};
    CHECK_STR(edit("[env]\nCOVERAGE_FILE = \"{root}/.coverage\"  # why\nB = 'y'\n", "", &c),
              "[env]\nCOVERAGE_FILE = \"{artifacts}/.coverage\"  # why\nB = 'y'\n");
    CHECK_STR(edit("[env]\nB = 'y'\n\n[pytest]\ncache_dir = true\n", "", &c),
              "[env]\nB = 'y'\nCOVERAGE_FILE = \"{artifacts}/.coverage\"\n\n[pytest]\n"
              "cache_dir = true\n");
    CHECK_STR(edit("retain = 3\n", "", &c),
              "retain = 3\n\n[env]\nCOVERAGE_FILE = \"{artifacts}/.coverage\"\n");
    CHECK_STR(edit("[tool.testfence]\nretain = 3\n", "tool.testfence", &c),
              "[tool.testfence]\nretain = 3\n\n[tool.testfence.env]\nCOVERAGE_FILE = "
              "\"{artifacts}/.coverage\"\n");
    struct confedit_change both = {
        .outputs = outs1, .noutputs = 1, .env_names = cov, .env_values = cov_v, .nenv = 1};
    CHECK_STR(edit("", "", &both),
              "outputs = [\"junit.xml\"]\n\n[env]\nCOVERAGE_FILE = \"{artifacts}/.coverage\"\n");
    const char *odd[] = {"a\"b\\c\n"};
    struct confedit_change q = {.outputs = odd, .noutputs = 1};
    CHECK_STR(edit("", "", &q), "outputs = [\"a\\\"b\\\\c\\n\"]\n");
}

static void refused(void)
{
    struct confedit_change one = {.outputs = outs1, .noutputs = 1};
    struct confedit_change c = {.env_names = cov, .env_values = cov_v, .nenv = 1};
    CHECK(!strncmp(edit("outputs = \"x\"\n", "", &one), "ERROR: f.toml: \"outputs\" is not", 31));
    CHECK(!strncmp(edit("env = 1\n", "", &c), "ERROR: f.toml: \"env\" is not a table", 35));
    CHECK(!strncmp(edit("[tool]\ntestfence = {writable = [\"tests\"]}\n", "tool.testfence", &one),
                   "ERROR: editing f.toml", 21));
    CHECK(!strncmp(edit("env = {B = \"1\"}\n", "", &c), "ERROR: editing f.toml", 21));
    CHECK(!strncmp(edit("a = \n", "", &one), "ERROR: f.toml:1:", 16));
}

static const char *diff(const char *a, const char *b)
{
    static char buf[4096];
    memset(buf, 0, sizeof buf);
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    tf_err err = {0};
    CHECK(confedit_diff(f, "a/t.toml", "b/t.toml", a, strlen(a), b, strlen(b), &err) == 0);
    fclose(f);
    return buf;
}

/* A long file with a line added in the middle: the hunk, at once (the lines shared at the
 * start and the end never enter the table, which was 20,000 x 20,000 cells). */
static void long_file(void)
{
    enum { LINES = 20000 };
    char *a = malloc(LINES * 8 + 1), *b = malloc(LINES * 8 + 16);
    size_t na = 0, nb = 0;
    for (int i = 0; i < LINES; i++) {
        na += (size_t)sprintf(a + na, "k%05d\n", i);
        nb += (size_t)sprintf(b + nb, "k%05d\n", i);
        if (i == LINES / 2)
            nb += (size_t)sprintf(b + nb, "new = 1\n");
    }
    CHECK_STR(diff(a, b), "--- a/t.toml\n+++ b/t.toml\n@@ -9999,6 +9999,7 @@\n k09998\n k09999\n"
                          " k10000\n+new = 1\n k10001\n k10002\n k10003\n");
    free(a);
    free(b);
}

static void diffs(void)
{
    CHECK_STR(diff("a\nb\n", "a\nb\n"), "");
    CHECK_STR(diff("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nx\n5\n6\n7\n8\n9\n"),
              "--- a/t.toml\n+++ b/t.toml\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+x\n 5\n 6\n 7\n");
    CHECK_STR(diff("a = [1]\n", "a = [1, 2]\n"),
              "--- a/t.toml\n+++ b/t.toml\n@@ -1,1 +1,1 @@\n-a = [1]\n+a = [1, 2]\n");
    CHECK_STR(diff("", "x\n"), "--- a/t.toml\n+++ b/t.toml\n@@ -0,0 +1,1 @@\n+x\n");
    CHECK_STR(diff("x", "x\ny\n"), "--- a/t.toml\n+++ b/t.toml\n@@ -1,1 +1,2 @@\n-x\n\\ No newline "
                                   "at end of file\n+x\n+y\n");
    /* two changes far apart: two hunks */
    CHECK_STR(diff("a\n1\n2\n3\n4\n5\n6\n7\n8\nz\n", "A\n1\n2\n3\n4\n5\n6\n7\n8\nZ\n"),
              "--- a/t.toml\n+++ b/t.toml\n@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -7,4 +7,4 @@\n"
              " 6\n 7\n 8\n-z\n+Z\n");
}

int main(void)
{
    outputs();
    pyproject();
    env();
    refused();
    diffs();
    long_file();
    return check_done("test_confedit");
}
