/* test_report_ci: GitHub annotations (escaped whole, leftovers said as such, at the record's
 * file and line), the JUnit file (pytest's classname and name) and report.json written where
 * asked, write errors told, and where a write points by the source-line contract. */
#include "check.h"

#include "core/report_ci.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];

struct rec {
    const char *test, *op, *path, *resolved, *by;
    int err;
    const char *extra; /* more keys for the line, as JSON ("\"src_line\":3"): the source-line
                          contract's, which vlog_format does not write */
};

static void put(int fd, const struct rec *x)
{
    char line[VLOG_MAX];
    struct vlog_record r = {.time = "t",
                            .pid = 1,
                            .test = x->test,
                            .op = x->op ? x->op : "open",
                            .path = x->path ? x->path : x->resolved,
                            .resolved = x->resolved,
                            .err = x->by ? x->err : 13,
                            .blocked_by = x->by ? x->by : "kernel",
                            .exe = "/bin/sh",
                            .cmdline = "sh"};
    size_t n = vlog_format(line, sizeof line, &r);
    if (x->extra) /* before the closing "}\n" */
        n = (size_t)snprintf(line + n - 2, sizeof line - n + 2, ",%s}\n", x->extra) + n - 2;
    CHECK(write(fd, line, n) == (ssize_t)n);
}

/* A report of the records RECS (N of them), plus a malformed line when BAD. */
static void load(struct report *r, const struct rec *recs, size_t n, bool bad)
{
    static int k;
    char name[32];
    snprintf(name, sizeof name, "log%d", k++);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    for (size_t i = 0; i < n; i++)
        put(fd, &recs[i]);
    if (bad)
        CHECK(write(fd, "{\"forged\":1}\n", 13) == 13);
    close(fd);
    tf_err err = {0};
    CHECK(report_load(r, dfd, name, &err) == 0);
    close(dfd);
}

static struct report_outputs outs;
static struct report_run run = {.run_id = "id",
                                .root = "/ws/proj",
                                .workspace = "/w",
                                .backend = "landlock",
                                .home = "/home/u",
                                .outs = &outs};

/* What report_write_outputs printed for the records, and its return in *RC. */
static char *printed(const struct rec *recs, size_t n, bool bad, int *rc)
{
    struct report r;
    load(&r, recs, n, bad);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    *rc = report_write_outputs(&r, &run, f);
    fclose(f);
    report_free(&r);
    return text;
}

static bool has(const char *text, const char *s)
{
    bool ok = text && strstr(text, s) != NULL;
    if (!ok)
        fprintf(stderr, "  missing \"%s\" in:\n%s\n", s, text ? text : "(null)");
    return ok;
}

static void nothing_asked(void)
{
    struct report_outputs o;
    memset(&o, 0x55, sizeof o);
    report_outputs_init(&o);
    CHECK(o.json.dirfd == -1 && o.junit.dirfd == -1 && !o.github);
    report_outputs_close(&o); /* nothing to close */
    struct report r;
    load(&r, NULL, 0, false);
    struct report_run plain = run;
    plain.outs = NULL;
    CHECK(report_write_outputs(&r, &plain, stderr) == 0);
    report_free(&r);
}

static void github(void)
{
    report_outputs_init(&outs);
    outs.github = true;
    int rc;
    const struct rec one[] = {{.test = "tests/t.py::test_x", .resolved = "/etc/x"}};
    unsetenv("GITHUB_WORKSPACE");
    char *t = printed(one, 1, false, &rc);
    CHECK(rc == 0);
    CHECK(has(t, "::error file=tests/t.py,title=testfence%3A blocked write::tests/t.py::test_x: "
                 "open /etc/x (EACCES). How to fix: "));
    free(t);

    /* relative to the checkout when the root is inside it (trailing '/'s dropped) */
    setenv("GITHUB_WORKSPACE", "/ws//", 1);
    t = printed(one, 1, false, &rc);
    CHECK(has(t, "::error file=proj/tests/t.py,"));
    free(t);
    setenv("GITHUB_WORKSPACE", "/w", 1); /* /ws/proj is not inside /w */
    t = printed(one, 1, false, &rc);
    CHECK(has(t, "::error file=tests/t.py,"));
    free(t);
    unsetenv("GITHUB_WORKSPACE");
    /* GitLab's checkout likewise, GitHub's first when both are set */
    setenv("CI_PROJECT_DIR", "/ws", 1);
    t = printed(one, 1, false, &rc);
    CHECK(has(t, "::error file=proj/tests/t.py,"));
    free(t);
    setenv("GITHUB_WORKSPACE", "/ws/proj", 1);
    t = printed(one, 1, false, &rc);
    CHECK(has(t, "::error file=tests/t.py,"));
    free(t);
    unsetenv("GITHUB_WORKSPACE");
    unsetenv("CI_PROJECT_DIR");

    /* outside any test, or no file in the id: no file= */
    const struct rec bare[] = {{.test = NULL, .resolved = "/etc/x"},
                               {.test = "ctest-name", .resolved = "/etc/y"},
                               {.test = "::odd", .resolved = "/etc/z"}};
    t = printed(bare, 3, false, &rc);
    CHECK(t && !strstr(t, "file="));
    CHECK(has(t, "::(outside any test): open /etc/x"));
    free(t);
}

/* The file cut from the test id is as untrusted as the id: control bytes and the
 * property specials escaped, never a raw escape sequence or a new command. */
static void github_escaped(void)
{
    int rc;
    const struct rec evil[] = {
        {.test = "tests/\033[2Ja,b:c%d\nx.py::t", .resolved = "/etc/\033]x%"}};
    char *t = printed(evil, 1, false, &rc);
    CHECK(has(t, "::error file=tests/?[2Ja%2Cb%3Ac%25d?x.py,title="));
    CHECK(has(t, "/etc/?]x%25"));
    CHECK(t && !strchr(t, '\033'));
    CHECK(t && strchr(t, '\n') == t + strlen(t) - 1); /* one line, one annotation */
    free(t);
}

static void github_many(void)
{
    int rc;
    static struct rec many[60];
    static char names[60][32];
    for (int i = 0; i < 60; i++) {
        snprintf(names[i], sizeof names[i], "/etc/f%d", i);
        many[i] = (struct rec){.test = "t.py::a", .resolved = names[i]};
    }
    char *t = printed(many, 60, false, &rc);
    size_t errors = 0;
    for (const char *p = t; p && (p = strstr(p, "::error ")); p++)
        errors++;
    CHECK(errors == 50);
    CHECK(has(t, "::warning title=testfence::10 more blocked writes; see the summary\n"));
    free(t);
    const struct rec twice[] = {{.test = "t.py::a", .resolved = "/etc/x"},
                                {.test = "t.py::a", .resolved = "/etc/x"}};
    t = printed(twice, 2, false, &rc);
    CHECK(has(t, "(EACCES), repeated."));
    free(t);
}

/* A process left running is not a blocked write: the annotation says what it is. */
static const struct rec left = {.test = "tests/t.py::test_srv",
                                .op = "outlived",
                                .path = "python -m http.server",
                                .resolved = "/usr/bin/python3",
                                .by = "testfence",
                                .err = 0};

static void github_leftover(void)
{
    int rc;
    char *t = printed(&left, 1, false, &rc);
    CHECK(t && !strstr(t, "blocked write"));
    CHECK(has(t, "title=testfence%3A process left running::"));
    CHECK(has(t, "tests/t.py::test_srv: python -m http.server was still running when the "
                 "command exited: killed. How to fix: stop what the test starts"));
    free(t);
    outs.github = false;
}

static char *slurp(const char *name)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    char *buf = calloc(1, 1 << 16);
    if (f && buf)
        buf[fread(buf, 1, (1 << 16) - 1, f)] = '\0';
    if (f)
        fclose(f);
    return buf;
}

static void want_file(struct outpath *o, const char *name)
{
    o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    snprintf(o->name, sizeof o->name, "%s", name);
    snprintf(o->shown, sizeof o->shown, "out/%s", name);
}

static void junit(void)
{
    report_outputs_init(&outs);
    want_file(&outs.junit, "junit.xml");
    int rc;
    const struct rec recs[] = {{.test = "t.py::a<&\">", .resolved = "/etc/x"},
                               {.test = "t.py::a<&\">", .resolved = "/etc/y"},
                               left};
    free(printed(recs, 3, false, &rc));
    CHECK(rc == 0);
    char *x = slurp("junit.xml");
    CHECK(has(x, "<testsuites name=\"testfence\" tests=\"2\" failures=\"2\" errors=\"0\">"));
    CHECK(has(x, "<testcase classname=\"t\" name=\"a&lt;&amp;&quot;&gt;\" file=\"t.py\" "
                 "time=\"0\">"));
    CHECK(has(x, "message=\"2 blocked writes outside the writable set\""));
    /* the leftover's group says it left a process running, not "0 blocked writes" */
    CHECK(x && !strstr(x, "0 blocked writes"));
    CHECK(has(x, "message=\"1 process left running\""));
    free(x);

    /* a clean run is one passing case; an unreadable log an error */
    free(printed(NULL, 0, false, &rc));
    x = slurp("junit.xml");
    CHECK(has(x, "tests=\"1\" failures=\"0\" errors=\"0\""));
    CHECK(has(x, "name=\"no writes outside the writable set\" time=\"0\"/>"));
    free(x);
    free(printed(recs, 1, true, &rc));
    x = slurp("junit.xml");
    CHECK(has(x, "tests=\"2\" failures=\"1\" errors=\"1\""));
    CHECK(has(x, "name=\"the violation log\""));
    free(x);
    report_outputs_close(&outs);
    CHECK(outs.junit.dirfd == -1);
}

static void json_and_errors(void)
{
    report_outputs_init(&outs);
    want_file(&outs.json, "r.json");
    int rc;
    const struct rec one[] = {{.test = "t.py::a", .resolved = "/etc/x"}};
    free(printed(one, 1, false, &rc));
    CHECK(rc == 0);
    char *j = slurp("r.json");
    CHECK(has(j, "\"schema\": \"testfence-report/1\""));
    CHECK(has(j, "\"resolved\": \"/etc/x\""));
    free(j);
    report_outputs_close(&outs);

    /* a directory gone since it was opened: told on OUT, -1, the other output still made */
    char gone[PATH_MAX + 8];
    snprintf(gone, sizeof gone, "%s/gone", dir);
    CHECK(mkdir(gone, 0755) == 0);
    report_outputs_init(&outs);
    outs.json.dirfd = open(gone, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    snprintf(outs.json.name, sizeof outs.json.name, "r.json");
    snprintf(outs.json.shown, sizeof outs.json.shown, "gone/r.json");
    CHECK(rmdir(gone) == 0);
    want_file(&outs.junit, "j2.xml");
    char *t = printed(one, 1, false, &rc);
    CHECK(rc == -1);
    CHECK(has(t, "testfence: cannot write gone/r.json: "));
    free(t);
    t = slurp("j2.xml");
    CHECK(has(t, "<testsuites"));
    free(t);
    report_outputs_close(&outs);
}

/* The first entry of the report of one record X, for report_where. */
static bool where_of(const struct rec *x, struct report_loc *loc)
{
    struct report r;
    load(&r, x, 1, false);
    bool ok = r.n == 1 && report_where(&r.v[0], run.root, loc);
    report_free(&r);
    return ok;
}

/* The source-line contract: src_file/src_line, else test_file/test_line, else the id's file,
 * else nothing; made relative to the root; nothing a record names leads out of it. */
static void where(void)
{
    struct report_loc loc;
    struct rec x = {.test = "tests/t.py::test_a", .resolved = "/etc/x"};
    x.extra = "\"src_file\":\"slop/settings.py\",\"src_line\":12,\"src_func\":\"save\","
              "\"test_file\":\"tests/t.py\",\"test_line\":30";
    CHECK(where_of(&x, &loc) && !strcmp(loc.file, "slop/settings.py") && loc.line == 12 &&
          !loc.absolute);
    x.extra = "\"src_file\":\"/ws/proj/slop/a.py\",\"src_line\":3";
    CHECK(where_of(&x, &loc) && !strcmp(loc.file, "slop/a.py") && loc.line == 3);
    /* a frame outside the project gives way to the test's own */
    x.extra = "\"src_file\":\"/usr/lib/python3/x.py\",\"src_line\":3,\"test_file\":\"tests/t.py\","
              "\"test_line\":30";
    CHECK(where_of(&x, &loc) && !strcmp(loc.file, "tests/t.py") && loc.line == 30);
    x.extra = "\"src_file\":\"../../etc/passwd\",\"src_line\":3";
    CHECK(where_of(&x, &loc) && !strcmp(loc.file, "tests/t.py") && loc.line == 0);
    x.extra = "\"test_file\":\"tests/t.py\",\"test_line\":7";
    CHECK(where_of(&x, &loc) && !strcmp(loc.file, "tests/t.py") && loc.line == 7);
    x.extra = NULL; /* the keys absent (before h-line's records): the id's file, no line */
    CHECK(where_of(&x, &loc) && !strcmp(loc.file, "tests/t.py") && loc.line == 0);
    /* a file without its line (vlog drops the half pair): the test's file, the record kept */
    x.extra = "\"src_file\":\"a.py\"";
    CHECK(where_of(&x, &loc) && !strcmp(loc.file, "tests/t.py") && loc.line == 0);
    x.extra = "\"src_file\":\"a.py\",\"src_line\":-4";
    CHECK(where_of(&x, &loc) && !strcmp(loc.file, "tests/t.py") && loc.line == 0);
    /* outside any test: its own line, or nothing; outside the root only as a last resort */
    struct rec out = {.resolved = "/etc/x", .extra = "\"src_file\":\"conftest.py\",\"src_line\":5"};
    CHECK(where_of(&out, &loc) && !strcmp(loc.file, "conftest.py") && loc.line == 5);
    out.extra = "\"src_file\":\"/opt/tool/run.py\",\"src_line\":9";
    CHECK(where_of(&out, &loc) && loc.absolute && !strcmp(loc.file, "/opt/tool/run.py"));
    out.extra = NULL;
    CHECK(!where_of(&out, &loc));
    x = (struct rec){.test = "ctest-name", .resolved = "/etc/x"};
    CHECK(!where_of(&x, &loc));
}

/* Annotations at the line that wrote, and outside any test at its file when known. */
static void github_lines(void)
{
    report_outputs_init(&outs);
    outs.github = true;
    int rc;
    const struct rec recs[] = {
        {.test = "tests/t.py::test_a",
         .resolved = "/etc/x",
         .extra = "\"src_file\":\"slop/settings.py\",\"src_line\":12"},
        {.resolved = "/etc/y", .extra = "\"src_file\":\"conftest.py\",\"src_line\":5"},
        {.resolved = "/etc/z"}};
    setenv("GITHUB_WORKSPACE", "/ws", 1);
    char *t = printed(recs, 3, false, &rc);
    CHECK(has(t, "::error file=proj/slop/settings.py,line=12,title=testfence%3A blocked "
                 "write::tests/t.py::test_a: open /etc/x"));
    CHECK(has(t, "::error file=proj/conftest.py,line=5,title=testfence%3A blocked "
                 "write::(outside any test): open /etc/y"));
    CHECK(has(t, "::error title=testfence%3A blocked write::(outside any test): open /etc/z"));
    free(t);
    unsetenv("GITHUB_WORKSPACE");
    outs.github = false;
}

/* pytest's junitxml names, the test's file and line, the run's time. */
static void junit_names(void)
{
    report_outputs_init(&outs);
    want_file(&outs.junit, "names.xml");
    int rc;
    const struct rec recs[] = {
        {.test = "tests/sub/test_x.py::TestA::test_b[p::q/r.py]",
         .resolved = "/etc/x",
         .extra = "\"src_file\":\"slop/a.py\",\"src_line\":3,\"test_file\":\"tests/sub/test_x.py\","
                  "\"test_line\":40"},
        {.test = "tests/t.py::test_c", .resolved = "/etc/x"},
        {.test = "ctest-name", .resolved = "/etc/x"},
        {.resolved = "/etc/x", .extra = "\"src_file\":\"conftest.py\",\"src_line\":5"}};
    struct report_run timed = run;
    timed.started = 1796600000; /* 2026-12-06T23:33:20Z */
    timed.seconds = 2.5;
    struct report r;
    load(&r, recs, 4, false);
    FILE *f = fopen("/dev/null", "w");
    rc = report_write_outputs(&r, &timed, f);
    fclose(f);
    report_free(&r);
    CHECK(rc == 0);
    char *x = slurp("names.xml");
    CHECK(has(x, "<testcase classname=\"tests.sub.test_x.TestA\" name=\"test_b[p::q/r.py]\" "
                 "file=\"tests/sub/test_x.py\" line=\"40\" time=\"0\">"));
    CHECK(has(x, "<testcase classname=\"tests.t\" name=\"test_c\" file=\"tests/t.py\" "
                 "time=\"0\">"));
    CHECK(has(x, "<testcase classname=\"testfence\" name=\"ctest-name\" time=\"0\">"));
    CHECK(has(x, "<testcase classname=\"testfence\" name=\"(outside any test)\" "
                 "file=\"conftest.py\" line=\"5\" time=\"0\">"));
    CHECK(has(x, "skipped=\"0\" time=\"2.500\" timestamp=\"2026-12-06T23:33:20+00:00\">"));
    free(x);
    report_outputs_close(&outs);
}

int main(void)
{
    char tmp[PATH_MAX];
    if (!check_tmpdir(tmp, sizeof tmp, "tf_report_ci") || !realpath(tmp, dir))
        return perror("mkdtemp"), 1;
    unsetenv("GITHUB_WORKSPACE"); /* the CI this suite may run in is not the one tested */
    unsetenv("CI_PROJECT_DIR");
    nothing_asked();
    github();
    github_escaped();
    github_many();
    github_leftover();
    junit();
    json_and_errors();
    where();
    github_lines();
    junit_names();
    return check_done("test_report_ci");
}
