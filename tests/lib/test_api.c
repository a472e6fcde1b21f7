/* test_api: libtestfence.so driven through include/testfence.h alone, as a C program (or the
 * plugin through ctypes) uses it: the call sequences of a whole run and what they leave. */
#include "check.h"
#include "testfence.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
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

/* FILE under ROOT made, with CONTENT, or (CONTENT NULL) a directory. */
static void put(const char *root, const char *file, const char *content)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", root, file);
    if (!content) {
        CHECK(mkdir(p, 0755) == 0);
        return;
    }
    FILE *f = fopen(p, "we");
    CHECK(f && fputs(content, f) >= 0);
    if (f)
        fclose(f);
}

/* The tripwire's question for the modules imported before the fence: which files lie where
 * a test could have written them. A link outside pointing inside is inside; a file in an
 * archive, or gone, is judged by the nearest part that exists; no file name is outside. */
static void files_inside_the_writable_set(const char *root)
{
    tf_session *s = tf_open();
    CHECK(s && tf_load(s, root, NULL, NULL, 0) == 0);
    put(root, "src", NULL);
    put(root, "tests/mod.py", "x = 1\n");
    put(root, "src/mod.py", "x = 1\n");
    put(root, "src/lib.zip", "PK");
    put(root, "tests/lib.zip", "PK");
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/tests/mod.py", root);
    snprintf(b, sizeof b, "%s/src/link.py", root);
    CHECK(symlink(a, b) == 0);
    const char *names[] = {"tests/mod.py",  "src/mod.py",           "src/link.py",
                           "tests/gone.py", "src/lib.zip/pkg/m.py", "tests/lib.zip/pkg/m.py",
                           "src/gone/m.py", "tests/mod.py"};
    char buf[16384];
    size_t off = 0, n = sizeof names / sizeof *names;
    for (size_t i = 0; i < n; i++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s/%s", root, names[i]) + 1;
    off += (size_t)snprintf(buf + off, sizeof buf - off, "relative/m.py") + 1;
    buf[off++] = '\0'; /* an empty name */
    unsigned char in[10];
    memset(in, 7, sizeof in);
    CHECK(tf_files_inside(s, buf, off, in, 10) == 0);
    const unsigned char want[10] = {1, 0, 1, 1, 0, 1, 0, 1, 0, 0};
    for (size_t i = 0; i < 10; i++)
        if (in[i] != want[i])
            fprintf(stderr, "test_api: file %zu: got %d, want %d\n", i, in[i], want[i]);
    CHECK(memcmp(in, want, sizeof want) == 0);
    /* Fewer paths than said, or one without its NUL: an error, never a read past LEN. */
    CHECK(tf_files_inside(s, buf, off, in, 11) < 0);
    CHECK(tf_files_inside(s, "/abc", 4, in, 1) < 0);
    tf_close(s);
}

/* Reading the log again after every test phase gives what the shim appended since, also
 * when nothing else of the session changed (the library answers from its last read when the
 * log is as it was). */
static void log_read_again_sees_appends(const char *root)
{
    char ws[4096], outside[4200], log[4200];
    tf_session *s = prepared(root, ws, sizeof ws);
    if (!s)
        return;
    snprintf(outside, sizeof outside, "%s/config.toml", root);
    snprintf(log, sizeof log, "%s/violations.jsonl", ws);
    CHECK(tf_violations_load(s) == 0);
    CHECK(tf_violations_load(s) == 0);
    CHECK(tf_record(s, "open", outside, outside, 13, 0, "tests/test_a.py::test_b", "call") == 0);
    CHECK(tf_violations_load(s) == 1);
    CHECK(tf_violations_load(s) == 1);
    char *first = slurp(log); /* one record, appended again as another process would */
    FILE *f = first ? fopen(log, "a") : NULL;
    CHECK(f != NULL);
    if (f) {
        fputs(first, f);
        fclose(f);
    }
    CHECK(tf_violations_load(s) == 2);
    CHECK_STR(tf_violation_str(s, 1, "test"), "tests/test_a.py::test_b");
    CHECK(unlink(log) == 0); /* gone: nothing is left of it */
    CHECK(tf_violations_load(s) == 0);
    CHECK(tf_violations_load(s) == 0);  /* still none: answered without a read */
    f = first ? fopen(log, "a") : NULL; /* a log made again, after none was seen: read */
    CHECK(f != NULL);
    if (f) {
        fputs(first, f);
        fclose(f);
    }
    free(first);
    CHECK(tf_violations_load(s) == 1);
    tf_close(s);
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
/* Does a directory from DIR up hold a project marker? Then no root can be missing there. */
static bool marker_above(const char *dir)
{
    static const char *const markers[] = {"testfence.toml", "pyproject.toml", ".git"};
    char d[4096], p[4200];
    snprintf(d, sizeof d, "%s", dir);
    for (char *slash;; *slash = '\0') { /* "/tmp/x", "/tmp", "" (the root) */
        for (size_t i = 0; i < 3; i++) {
            snprintf(p, sizeof p, "%s/%s", d, markers[i]);
            if (access(p, F_OK) == 0)
                return true;
        }
        if (!d[0] || !(slash = strrchr(d, '/')))
            return false;
    }
}

/* A project without tests/ and without a configuration was never set up for testfence;
 * with a configuration, the missing tests/ is an ordinary error. */
static void never_set_up(void)
{
    char root[4096], p[4200];
    CHECK(check_tmpdir(root, sizeof root, "tf-api-nosetup") != NULL);
    snprintf(p, sizeof p, "%s/test", root);
    CHECK(mkdir(p, 0755) == 0);
    snprintf(p, sizeof p, "%s/pyproject.toml", root);
    FILE *f = fopen(p, "we");
    CHECK(f != NULL && fputs("[project]\nname = \"x\"\n", f) >= 0 && fclose(f) == 0);
    tf_session *s = tf_open();
    CHECK(tf_load(s, root, NULL, NULL, 0) == -1);
    CHECK(tf_error_kind(s) == TF_ERROR_NOT_SET_UP);
    CHECK(strstr(tf_error(s), "keeps its tests in test/") != NULL);
    tf_close(s);
    f = fopen(p, "ae");
    CHECK(f != NULL && fputs("[tool.testfence]\nretain = 2\n", f) >= 0 && fclose(f) == 0);
    s = tf_open();
    CHECK(tf_load(s, root, NULL, NULL, 0) == -1);
    CHECK(tf_error_kind(s) == TF_ERROR_OTHER);
    tf_close(s);
}

static void error_kinds(const char *root)
{
    char empty[4096], cwd[4096];
    tf_session *s = tf_open();
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(check_tmpdir(empty, sizeof empty, "tf-api-noroot") != NULL);
    if (marker_above(empty)) { /* this machine has a project above $TMPDIR */
        fprintf(stderr, "test_api: skipped the no-root case: a project marker is above %s\n",
                empty);
    } else {
        CHECK(chdir(empty) == 0);
        CHECK(tf_load(s, NULL, NULL, NULL, 0) == -1);
        CHECK(tf_error_kind(s) == TF_ERROR_NO_ROOT);
        CHECK(strstr(tf_error(s), "no project root found") != NULL);
        CHECK(chdir(cwd) == 0);
    }
    tf_close(s);
    s = tf_open();
    CHECK(tf_load(s, root, "missing.toml", NULL, 0) == -1);
    CHECK(tf_error_kind(s) == TF_ERROR_OTHER);
    tf_close(s);
    never_set_up();
}

/* The status a run exits with, decided by the library as `testfence run` decides it. */
static void status_of_the_run(const char *root)
{
    char ws[4096], outside[4200];
    tf_session *s = prepared(root, ws, sizeof ws);
    if (!s)
        return;
    int planted = -1;
    char *text = tf_planted(s, &planted);
    CHECK(text && planted == 0);
    tf_free(text);
    CHECK(tf_status(s, 0) == 0);
    CHECK(tf_status(s, 2) == 2);
    snprintf(outside, sizeof outside, "%s/config.toml", root);
    CHECK(tf_record(s, "open", outside, outside, 13, 0, NULL, NULL) == 0);
    CHECK(tf_status(s, 0) == 120); /* passed, but a write was blocked */
    CHECK(tf_status(s, 1) == 1);   /* the tests' own failure says more */
    tf_close(s);
}

/* At the caller's end its temp dir is emptied, never through a link; kept when asked. */
static void temp_dir_at_the_end(const char *root)
{
    char ws[4096], p[4200], target[4200];
    tf_session *s = prepared(root, ws, sizeof ws);
    if (!s)
        return;
    const char *tmp = tf_tmp(s);
    CHECK(tmp != NULL);
    snprintf(target, sizeof target, "%s/precious.txt", root);
    FILE *f = fopen(target, "we");
    CHECK(f && fputs("keep me", f) >= 0 && fclose(f) == 0);
    snprintf(p, sizeof p, "%s/d", tmp);
    CHECK(mkdir(p, 0700) == 0);
    snprintf(p, sizeof p, "%s/d/f", tmp);
    CHECK(close(open(p, O_WRONLY | O_CREAT, 0600)) == 0);
    snprintf(p, sizeof p, "%s/link", tmp);
    CHECK(symlink(target, p) == 0);
    CHECK(tf_end_tmp(s, 0) == 0);
    struct stat st;
    CHECK(lstat(p, &st) < 0);                         /* the link went */
    CHECK(stat(target, &st) == 0 && st.st_size == 7); /* not what it names */
    snprintf(p, sizeof p, "%s/d", tmp);
    CHECK(lstat(p, &st) < 0);
    CHECK(stat(tmp, &st) == 0); /* the dir stays, for the next run to prune */
    tf_close(s);
    s = prepared(root, ws, sizeof ws);
    if (!s)
        return;
    CHECK(tf_end_tmp(s, 1) == 0);
    snprintf(p, sizeof p, "%s/.testfence-keep", tf_tmp(s));
    CHECK(stat(p, &st) == 0);
    CHECK(tf_warning(s) && strstr(tf_warning(s), "kept the run's temp dir"));
    /* Kept means kept until removed by hand: this test's is, or every run of the suite would
     * leave one in the machine's temp dir for each later run's prune to walk. */
    CHECK(unlink(p) == 0 && rmdir(tf_tmp(s)) == 0);
    tf_close(s);
}

/* The writable set as entries, for a caller that decides writes itself: the project's tests/
 * and the run's temp dir as directories, the system set, then the quiet tool state. */
static void policy_entries_listed(const char *root)
{
    char tests[4200];
    tf_session *s = tf_open();
    CHECK(tf_policy_entry(s, 0, NULL) == NULL); /* nothing loaded: nothing listed */
    CHECK(tf_load(s, root, NULL, NULL, 0) == 0);
    snprintf(tests, sizeof tests, "%s/tests", root);
    bool saw_tests = false, saw_tmp = false, saw_null = false, quiet_last = true, saw_quiet = false;
    const char *e;
    int kind = -1;
    for (size_t i = 0; (e = tf_policy_entry(s, i, &kind)) != NULL; i++) {
        CHECK(e[0] == '/');
        CHECK(kind >= 0 && kind <= (TF_ENTRY_DIR | TF_ENTRY_QUIET | TF_ENTRY_COMMANDS));
        if (strcmp(e, tests) == 0)
            saw_tests = (kind == TF_ENTRY_DIR);
        if (tf_tmp(s) && strcmp(e, tf_tmp(s)) == 0)
            saw_tmp = (kind == TF_ENTRY_DIR);
        if (strcmp(e, "/dev/null") == 0)
            saw_null = (kind == 0);
        if (saw_quiet && !(kind & TF_ENTRY_QUIET))
            quiet_last = false; /* the writable entries come first */
        saw_quiet = saw_quiet || (kind & TF_ENTRY_QUIET);
    }
    CHECK(saw_tests && saw_tmp && saw_null && quiet_last);
    tf_close(s);
}

/* TF_BACKEND_SHIM: the caller fences itself; tf_check and tf_prepare need no kernel fence,
 * and tf_fence refuses. Chosen before tf_load only. */
static void shim_backend(const char *root)
{
    tf_session *s = tf_open();
    CHECK(tf_set_backend(s, 7) == -1);
    CHECK(tf_set_backend(s, TF_BACKEND_SHIM) == 0);
    CHECK(tf_load(s, root, NULL, NULL, 0) == 0);
    CHECK(tf_set_backend(s, TF_BACKEND_KERNEL) == -1);
    CHECK(tf_check(s) == 0);
    CHECK(tf_prepare(s) == 0);
    CHECK(tf_workspace(s) != NULL);
    CHECK(tf_fence(s) == -1);
    CHECK(strstr(tf_error(s), "not the kernel's") != NULL);
    CHECK(tf_fenced(s) == 0); /* nothing fenced this process */
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

/* tf_audit_filter over a stand-in Python: which events reach the callable, what a raising
 * callable returns, the set-once rule (tests/lib/test_pyaudit.py drives a real CPython). */
static struct {
    int calls, decrefs, tracing;
    const char *event;
    void *args;
    void *result;
} py;
static int interp_a, interp_b, object, args_a, args_b;
static void *py_interp = &interp_a;

static void *py_call(void *callable, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    py.event = va_arg(ap, const char *);
    py.args = va_arg(ap, void *);
    va_end(ap);
    CHECK(callable == &object && !strcmp(format, "sO") && py.tracing == 1);
    py.calls++;
    return py.result;
}
static void py_decref(void *o)
{
    CHECK(o == &object);
    py.decrefs++;
}
static void *py_interpreter(void)
{
    return py_interp;
}
static void *py_tstate(void)
{
    return &object;
}
static void py_enter(void *t)
{
    (void)t;
    py.tracing++;
}
static void py_leave(void *t)
{
    (void)t;
    py.tracing--;
}

static void audit_filter_refuses_bad_input(void)
{
    tf_python_api api = {py_call, py_decref, py_interpreter, py_tstate, py_enter, py_leave};
    /* Python 3.9 and 3.10 have no call to keep a hook untraced */
    tf_python_api no_tracing = {py_call, py_decref, py_interpreter, py_tstate, NULL, NULL};
    const char *events[65], *two[] = {"open", "os.remove"};
    char longname[65];
    memset(longname, 'x', 64);
    longname[64] = '\0';
    for (int i = 0; i < 65; i++)
        events[i] = "open";
    CHECK(tf_audit_filter_set(NULL, &interp_a, &object, two, 2) == -1);
    CHECK(tf_audit_filter_set(&no_tracing, &interp_a, &object, two, 2) == -1);
    CHECK(tf_audit_filter_set(&api, &interp_a, &object, events, 65) == -1);
    events[0] = longname;
    CHECK(tf_audit_filter_set(&api, &interp_a, &object, events, 1) == -1);
    CHECK(tf_audit_filter("open", &args_a, NULL) == 0 && py.calls == 0); /* nothing set yet */
}

static void audit_filter(void)
{
    tf_python_api api = {py_call, py_decref, py_interpreter, py_tstate, py_enter, py_leave};
    const char *two[] = {"open", "os.remove"};
    audit_filter_refuses_bad_input();
    CHECK(tf_audit_filter_set(&api, &interp_a, &object, two, 2) == 0);
    CHECK(tf_audit_filter_set(&api, &interp_a, &object, two, 2) == -1); /* once */
    CHECK(tf_audit_filter("builtins.id", &args_a, NULL) == 0);
    CHECK(tf_audit_filter("os.removexattr", &args_a, NULL) == 0);
    CHECK(tf_audit_filter("o", &args_a, NULL) == 0);
    CHECK(py.calls == 0);
    py.result = &object;
    CHECK(tf_audit_filter("os.remove", &args_b, NULL) == 0);
    CHECK(py.calls == 1 && py.decrefs == 1 && py.tracing == 0);
    CHECK_STR(py.event, "os.remove");
    CHECK(py.args == &args_b);
    py.result = NULL; /* the callable raised */
    CHECK(tf_audit_filter("open", &args_a, NULL) == -1);
    CHECK(py.calls == 2 && py.decrefs == 1 && py.tracing == 0);

    py_interp = &interp_b; /* another interpreter: its events are not ours */
    CHECK(tf_audit_filter("open", &args_a, NULL) == 0 && py.calls == 2);
    py_interp = &interp_a; /* no event switches it off, CPython's own names included */
    CHECK(tf_audit_filter("cpython.PyInterpreterState_Clear", &args_a, NULL) == 0);
    CHECK(tf_audit_filter("cpython._PySys_ClearAuditHooks", &args_a, NULL) == 0);
    CHECK(tf_audit_filter("open", &args_a, NULL) == -1 && py.calls == 3);
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
    log_read_again_sees_appends(root);
    out_of_order_calls_fail();
    test_variable_split();
    error_kinds(root);
    status_of_the_run(root);
    temp_dir_at_the_end(root);
    files_inside_the_writable_set(root);
    policy_entries_listed(root);
    shim_backend(root);
    audit_filter();
    return check_done("test_api");
}
