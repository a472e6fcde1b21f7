/* test_api: libtestfence.so driven through include/testfence.h alone, as a C program (or the
 * plugin through ctypes) uses it: the call sequences of a whole run and what they leave. */
#include "check.h"
#include "testfence.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A throwaway project: ROOT/.git and ROOT/tests. */
static int make_project(char *root, size_t len)
{
    char p[4096];
    if (!check_tmpdir(root, len, "tf-api"))
        return -1;
    snprintf(p, sizeof p, "%s/.git", root);
    if (mkdir(p, 0755) < 0)
        return -1;
    snprintf(p, sizeof p, "%s/tests", root);
    return mkdir(p, 0755);
}

/* The whole of FILE (malloc'd), or NULL. */
static char *slurp(const char *file)
{
    FILE *f = fopen(file, "re");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 16); /* zeroed: what is read stays a string */
    if (buf && fread(buf, 1, (1 << 16) - 1, f) == 0 && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* report.json of the run WORKSPACE names, after tf_close. */
static char *report_of(const char *workspace)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/report.json", workspace);
    return slurp(p);
}

/* tf_load, tf_prepare on ROOT; the workspace's path copied to WS. NULL on failure. */
static tf_session *prepared(const char *root, char *ws, size_t len)
{
    tf_session *s = tf_open();
    CHECK(s != NULL);
    if (!s)
        return NULL;
    int rc = tf_load(s, root, NULL, NULL, 0);
    CHECK(rc == 0);
    if (rc == 0) {
        rc = tf_prepare(s);
        CHECK(rc == 0);
    }
    if (rc < 0) {
        fprintf(stderr, "test_api: %s\n", tf_error(s));
        tf_close(s);
        return NULL;
    }
    snprintf(ws, len, "%s", tf_workspace(s));
    return s;
}

/* The bug of issue 26: tf_summary wrote a correct report.json, which tf_close then rewrote
 * as a run that stopped on testfence's own error (125). */
static void summary_then_close_keeps_the_report(const char *root)
{
    char ws[4096];
    tf_session *s = prepared(root, ws, sizeof ws);
    if (!s)
        return;
    char *text = tf_summary(s, 3);
    CHECK(text != NULL);
    CHECK(text && text[0] == '\0'); /* a clean run says nothing */
    tf_free(text);
    tf_close(s);
    char *r = report_of(ws);
    CHECK(r != NULL);
    CHECK(r && strstr(r, "\"command_status\": 3,"));
    CHECK(r && strstr(r, "\"status\": 3,"));
    free(r);
}

/* A run closed without its summary stopped on an error of its caller's: its report says so
 * (the next run tells a run cut short from one that finished by it). */
static void close_without_summary_says_so(const char *root)
{
    char ws[4096];
    tf_session *s = prepared(root, ws, sizeof ws);
    if (!s)
        return;
    tf_close(s);
    char *r = report_of(ws);
    CHECK(r != NULL);
    CHECK(r && strstr(r, "\"status\": 125,"));
    free(r);
}

/* A blocked write recorded by the caller is in the summary, the report and the status the
 * caller gives. */
static void recorded_write_is_reported(const char *root)
{
    char ws[4096], outside[4200];
    tf_session *s = prepared(root, ws, sizeof ws);
    if (!s)
        return;
    snprintf(outside, sizeof outside, "%s/config.toml", root);
    CHECK(tf_record(s, "open", outside, outside, 13, 0, "tests/test_a.py::test_b", "call") == 0);
    CHECK(tf_violations_load(s) == 1);
    CHECK_STR(tf_violation_str(s, 0, "test"), "tests/test_a.py::test_b");
    CHECK_STR(tf_violation_str(s, 0, "phase"), "call");
    char *text = tf_summary(s, 120);
    CHECK(text && strstr(text, "tests/test_a.py::test_b"));
    CHECK(text && strstr(text, outside));
    tf_free(text);
    tf_close(s);
    char *r = report_of(ws);
    CHECK(r && strstr(r, "\"status\": 120,"));
    CHECK(r && strstr(r, "config.toml"));
    free(r);
}

/* The test variable split as the shim splits it, collection included. */
static void test_variable_split(void)
{
    size_t n = 99;
    CHECK_STR(tf_test_split("tests/t.py::test_x (call)", &n), "call");
    CHECK(n == strlen("tests/t.py::test_x"));
    CHECK_STR(tf_test_split("tests/t.py (collect)", &n), "collect");
    CHECK(n == strlen("tests/t.py"));
    CHECK(tf_test_split("tests/t.py::test_x", &n) == NULL && n == strlen("tests/t.py::test_x"));
    CHECK(tf_test_split(NULL, &n) == NULL && n == 0);
}

/* No project root from here is a kind a caller can act on (the plugin stands aside), not a
 * message to match; any other failure is TF_ERROR_OTHER. */
static void error_kinds(const char *root)
{
    char empty[4096], cwd[4096];
    tf_session *s = tf_open();
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(check_tmpdir(empty, sizeof empty, "tf-api-noroot") != NULL);
    CHECK(chdir(empty) == 0);
    CHECK(tf_load(s, NULL, NULL, NULL, 0) == -1);
    CHECK(tf_error_kind(s) == TF_ERROR_NO_ROOT);
    CHECK(strstr(tf_error(s), "no project root found") != NULL);
    CHECK(chdir(cwd) == 0);
    tf_close(s);
    s = tf_open();
    CHECK(tf_load(s, root, "missing.toml", NULL, 0) == -1);
    CHECK(tf_error_kind(s) == TF_ERROR_OTHER);
    tf_close(s);
}

/* Calls out of order fail with a message, never a crash. */
static void out_of_order_calls_fail(void)
{
    tf_session *s = tf_open();
    CHECK(tf_prepare(s) == -1);
    CHECK(strstr(tf_error(s), "before tf_load") != NULL);
    CHECK(tf_fence(s) == -1);
    CHECK(tf_summary(s, 0) == NULL);
    CHECK(tf_violations_load(s) == -1);
    tf_close(s);
    tf_close(NULL);
}

int main(void)
{
    char root[4096];
    CHECK(tf_api_version() == TF_API_VERSION);
    if (make_project(root, sizeof root) < 0) {
        perror("test_api: cannot make a project");
        return 1;
    }
    summary_then_close_keeps_the_report(root);
    close_without_summary_says_so(root);
    recorded_write_is_reported(root);
    out_of_order_calls_fail();
    test_variable_split();
    error_kinds(root);
    return check_done("test_api");
}
