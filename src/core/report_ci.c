#include "report_ci.h"

#include "report_sarif.h"

#include "platform.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* GitHub shows at most 10 error annotations per step; more only clutter the log. */
enum { GITHUB_MAX = 50 };

void report_outputs_init(struct report_outputs *o)
{
    memset(o, 0, sizeof *o);
    o->json.dirfd = o->junit.dirfd = o->sarif.dirfd = -1;
}

void report_outputs_close(struct report_outputs *o)
{
    outpath_close(&o->json);
    outpath_close(&o->junit);
    outpath_close(&o->sarif);
}

struct ctx {
    const struct report *r;
    const struct report_run *run;
};

static void fill_json(FILE *f, const void *p)
{
    const struct ctx *c = p;
    report_json(f, c->r, c->run);
}

static void fill_sarif(FILE *f, const void *p)
{
    const struct ctx *c = p;
    report_sarif(f, c->r, c->run);
}

/* ---- JUnit ------------------------------------------------------------------ */

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            /* vlog_printable left no control characters but tab and newline */
            fputc((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t' ? '?' : *s, f);
        }
    }
}

/* The summary's text for one test, without colour, as the failure's body. */
static char *group_text(struct report_entry **s, size_t i, size_t end, const struct report_run *run)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return NULL;
    struct report_run plain = *run;
    plain.colour = false;
    report_print_group(m, s, i, end, &plain);
    fclose(m);
    return text;
}

/* The classname and name of a test id as pytest's junitxml makes them, so this file's cases
 * merge with pytest's own in a CI's test view: "tests/test_x.py::TestA::test_b[p]" is
 * "tests.test_x.TestA" and "test_b[p]" (the parameters, which may hold anything, kept
 * whole). An id that is not pytest's (no "::": another runner's name) is the name, in the
 * class "testfence", as is a write outside any test. */
static void junit_names(const char *id, char *cls, size_t clen, char *name, size_t nlen)
{
    const char *params = id ? id + strcspn(id, "[") : NULL; /* may hold "::" and "/" */
    const char *first = id ? strstr(id, "::") : NULL, *last = first;
    for (const char *p = first; p && (p = strstr(p + 2, "::")) && p < params;)
        last = p;
    if (!first || first == id || first >= params) {
        snprintf(cls, clen, "testfence");
        snprintf(name, nlen, "%s", id ? id : "(outside any test)");
        return;
    }
    /* the file as a dotted module ("/" -> ".", ".py" dropped), then the classes */
    size_t flen = (size_t)(first - id), k = 0;
    if (flen > 3 && !strncmp(first - 3, ".py", 3))
        flen -= 3;
    for (size_t i = 0; i < flen && k + 1 < clen; i++)
        cls[k++] = id[i] == '/' ? '.' : id[i];
    for (const char *p = first; p < last && k + 1 < clen; p++) {
        bool sep = p[0] == ':' && p[1] == ':';
        cls[k++] = sep ? '.' : *p;
        p += sep;
    }
    cls[k] = '\0';
    snprintf(name, nlen, "%s", last + 2);
}

/* file="F" line="N" of the test (pytest's xunit1 attributes, which GitLab and the GitHub
 * test reporters use to link a case to its source). */
static void junit_where(FILE *f, const struct report_entry *e, const struct report_run *run)
{
    struct report_loc loc;
    char file[PATH_MAX];
    bool known = e->test ? report_test_where(e, run->root, &loc) : report_where(e, run->root, &loc);
    if (!known || loc.absolute || !report_ci_path(file, sizeof file, loc.file, run->root))
        return;
    fputs(" file=\"", f);
    xml_text(f, file);
    fputc('"', f);
    if (loc.line)
        fprintf(f, " line=\"%ld\"", loc.line);
}

static void junit_case(FILE *f, struct report_entry **s, size_t i, size_t end,
                       const struct report_run *run)
{
    char raw[700], cls[700], name[700];
    size_t writes = report_group_writes(s, i, end);
    vlog_printable(raw, sizeof raw, s[i]->test ? s[i]->test : "(outside any test)");
    junit_names(s[i]->test ? raw : NULL, cls, sizeof cls, name, sizeof name);
    size_t left = report_group_leftovers(s, i, end);
    char *body = group_text(s, i, end, run);
    fputs("    <testcase classname=\"", f);
    xml_text(f, cls);
    fputs("\" name=\"", f);
    xml_text(f, name);
    fputc('"', f);
    junit_where(f, s[i], run);
    /* testfence does not time tests (pytest's own junitxml does); 0 for the readers that
     * require the attribute */
    fputs(" time=\"0\">\n      <failure type=\"TEST_SANDBOX_VIOLATION\" message=\"", f);
    /* what the summary's group line says: a test may only have left a process running */
    if (writes)
        fprintf(f, "%zu blocked write%s outside the writable set%s", writes, writes == 1 ? "" : "s",
                left ? ", " : "");
    if (left)
        fprintf(f, "%zu process%s left running", left, left == 1 ? "" : "es");
    fputs("\">", f);
    xml_text(f, body ? body : "(out of memory)");
    fputs("</failure>\n    </testcase>\n", f);
    free(body);
}

/* The command's wall time and when it started (UTC), as pytest writes them for its suite. */
static void suite_time(FILE *f, const struct report_run *run)
{
    char when[40];
    time_t t = (time_t)run->started;
    struct tm tm;
    fprintf(f, " time=\"%.3f\"", run->started > 0 && run->seconds > 0 ? run->seconds : 0.0);
    const struct tm *utc = run->started > 0 ? gmtime_r(&t, &tm) : NULL;
    if (utc && strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S+00:00", utc))
        fprintf(f, " timestamp=\"%s\"", when);
}

static void fill_junit(FILE *f, const void *p)
{
    const struct ctx *c = p;
    const struct report *r = c->r;
    struct report_entry **s = report_sorted(r);
    size_t tests = 0;
    for (size_t i = 0; s && i < r->n; i = report_group_end(s, r->n, i))
        tests++;
    bool incomplete = r->log_unreadable || r->stats.malformed || r->stats.cut || !s;
    size_t cases = tests ? tests : 1;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<testsuites name=\"testfence\" tests=\"%zu\" failures=\"%zu\" errors=\"%d\">\n",
            cases + incomplete, tests, incomplete);
    fprintf(f,
            "  <testsuite name=\"testfence\" tests=\"%zu\" failures=\"%zu\" errors=\"%d\" "
            "skipped=\"0\"",
            cases + incomplete, tests, incomplete);
    suite_time(f, c->run);
    fputs(">\n", f);
    for (size_t i = 0; s && i < r->n; i = report_group_end(s, r->n, i))
        junit_case(f, s, i, report_group_end(s, r->n, i), c->run);
    if (!tests)
        fputs("    <testcase classname=\"testfence\" name=\"no writes outside the writable "
              "set\" time=\"0\"/>\n",
              f);
    if (incomplete)
        fputs("    <testcase classname=\"testfence\" name=\"the violation log\" time=\"0\">\n      "
              "<error "
              "message=\"the violation log could not be read whole; see the run's "
              "output\"/>\n    </testcase>\n",
              f);
    fputs("  </testsuite>\n</testsuites>\n", f);
    free(s);
}

/* ---- where a write points ---------------------------------------------------- */

/* Does the relative path P have a ".." component (it would point out of the root)? */
static bool climbs(const char *p)
{
    for (const char *c = p; (c = strstr(c, "..")); c += 2)
        if ((c == p || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
            return true;
    return false;
}

/* FILE, LINE into LOC if FILE names a usable place: relative to ROOT (made so when it is
 * inside), or, when ABSOLUTE_OK, absolute outside it. */
static bool place(struct report_loc *loc, const char *file, long line, const char *root,
                  bool absolute_ok)
{
    if (!file || !file[0])
        return false;
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    bool abs = platform_is_absolute(file);
    if (abs && !strncmp(file, root, n) && file[n] == '/') {
        file += n + 1; /* inside the root: as a relative path */
        abs = false;
    }
    if ((abs && !absolute_ok) || (!abs && (climbs(file) || !file[0])))
        return false;
    int k = snprintf(loc->file, sizeof loc->file, "%s", file);
    if (k < 0 || (size_t)k >= sizeof loc->file)
        return false;
    loc->line = line;
    loc->absolute = abs;
    return true;
}

/* The file of a pytest id ("tests/t.py::test_x" -> "tests/t.py"); false when it has none. */
static bool id_place(struct report_loc *loc, const char *test, const char *root)
{
    const char *sep = test ? strstr(test, "::") : NULL;
    char file[PATH_MAX];
    if (!sep || sep == test || (size_t)(sep - test) >= sizeof file)
        return false;
    memcpy(file, test, (size_t)(sep - test));
    file[sep - test] = '\0';
    return place(loc, file, 0, root, false);
}

bool report_test_where(const struct report_entry *e, const char *root, struct report_loc *loc)
{
    return place(loc, e->test_file, e->test_line, root, false) || id_place(loc, e->test, root);
}

bool report_where(const struct report_entry *e, const char *root, struct report_loc *loc)
{
    /* the project's own lines first; a frame outside it only when nothing else is known */
    return place(loc, e->src_file, e->src_line, root, false) || report_test_where(e, root, loc) ||
           place(loc, e->src_file, e->src_line, root, true) ||
           place(loc, e->test_file, e->test_line, root, true);
}

/* The length of the checkout the variable NAME names when ROOT lies inside it, else 0. */
static size_t checkout_len(const char *name, const char *root)
{
    const char *ws = getenv(name);
    size_t n = ws ? strlen(ws) : 0;
    while (n > 1 && ws[n - 1] == '/')
        n--;
    return n && !strncmp(root, ws, n) && (root[n] == '/' || root[n] == '\0') ? n : 0;
}

bool report_ci_base(char *base, size_t len, const char *root)
{
    /* GitHub's checkout, else GitLab's: where the CI resolves a file the outputs name */
    size_t n = checkout_len("GITHUB_WORKSPACE", root);
    if (!n)
        n = checkout_len("CI_PROJECT_DIR", root);
    int k = snprintf(base, len, "%.*s", n ? (int)n : (int)strlen(root), root);
    return k >= 0 && (size_t)k < len;
}

bool report_ci_path(char *out, size_t len, const char *file, const char *root)
{
    char base[PATH_MAX];
    if (!report_ci_base(base, sizeof base, root))
        return false;
    size_t n = strlen(base);
    const char *sub = root[n] == '/' ? root + n + 1 : ""; /* the root below the base */
    int k = snprintf(out, len, "%s%s%s", sub, sub[0] ? "/" : "", file);
    return k >= 0 && (size_t)k < len;
}

/* ---- GitHub annotations ------------------------------------------------------ */

/* file=F,line=N, of E for an annotation (nothing when not known, or outside the checkout).
 * The file is as untrusted as the record it comes from: no control byte reaches the log. */
static void gh_where(FILE *out, const struct report_entry *e, const char *root)
{
    struct report_loc loc;
    char raw[PATH_MAX], file[PATH_MAX];
    if (!report_where(e, root, &loc) || loc.absolute ||
        !report_ci_path(raw, sizeof raw, loc.file, root))
        return;
    vlog_printable(file, sizeof file, raw);
    fputs("file=", out);
    tf_gh_escape(out, file, true);
    if (loc.line)
        fprintf(out, ",line=%ld", loc.line);
    fputc(',', out);
}

static void github(FILE *out, const struct report *r, const struct report_run *run)
{
    struct report_entry **s = report_sorted(r);
    size_t shown = 0;
    for (size_t i = 0; s && i < r->n && shown < GITHUB_MAX; i++, shown++) {
        const struct report_entry *e = s[i];
        char test[700], path[1100], en[32];
        vlog_printable(test, sizeof test, e->test ? e->test : "(outside any test)");
        vlog_printable(path, sizeof path, e->resolved);
        fputs("::error ", out);
        gh_where(out, e, run->root);
        bool left = report_outlived(e);
        fputs("title=", out);
        tf_gh_escape(out, left ? "testfence: process left running" : "testfence: blocked write",
                     true);
        char msg[2200];
        if (left) { /* its path is the process's command line */
            vlog_printable(path, sizeof path, e->path);
            snprintf(msg, sizeof msg,
                     "%s: %s was still running when the command exited: killed. How to fix: %s",
                     test, path, report_hint(e, run));
        } else {
            snprintf(msg, sizeof msg, "%s: %s %s (%s)%s. How to fix: %s", test, e->op, path,
                     vlog_errname(e->err, en, sizeof en), e->count > 1 ? ", repeated" : "",
                     report_hint(e, run));
        }
        fputs("::", out);
        tf_gh_escape(out, msg, false);
        fputc('\n', out);
    }
    if (r->n > GITHUB_MAX)
        fprintf(out, "::warning title=testfence::%zu more blocked writes; see the summary\n",
                r->n - GITHUB_MAX);
    free(s);
}

int report_write_outputs(const struct report *r, const struct report_run *run, FILE *out)
{
    const struct report_outputs *o = run->outs;
    struct ctx c = {r, run};
    tf_err err = {0};
    int rc = 0;
    if (!o)
        return 0;
    if (o->github)
        github(out, r, run);
    const struct {
        const struct outpath *at;
        void (*fill)(FILE *, const void *);
    } files[] = {{&o->json, fill_json}, {&o->junit, fill_junit}, {&o->sarif, fill_sarif}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (files[i].at->dirfd >= 0 && outpath_write(files[i].at, files[i].fill, &c, &err) < 0) {
            fprintf(out, "testfence: %s\n", err.msg);
            rc = -1;
        }
    return rc;
}
