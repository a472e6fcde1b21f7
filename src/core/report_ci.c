#include "report_ci.h"

#include "base/text.h"

#include <stdlib.h>
#include <string.h>

/* GitHub shows at most 10 error annotations per step; more only clutter the log. */
enum { GITHUB_MAX = 50 };

void report_outputs_init(struct report_outputs *o)
{
    memset(o, 0, sizeof *o);
    o->json.dirfd = o->junit.dirfd = -1;
}

void report_outputs_close(struct report_outputs *o)
{
    outpath_close(&o->json);
    outpath_close(&o->junit);
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

static void junit_case(FILE *f, struct report_entry **s, size_t i, size_t end,
                       const struct report_run *run)
{
    char test[700];
    size_t writes = report_group_writes(s, i, end);
    vlog_printable(test, sizeof test, s[i]->test ? s[i]->test : "(outside any test)");
    size_t left = report_group_leftovers(s, i, end);
    char *body = group_text(s, i, end, run);
    fputs("    <testcase classname=\"testfence\" name=\"", f);
    xml_text(f, test);
    fputs("\">\n      <failure type=\"TEST_SANDBOX_VIOLATION\" message=\"", f);
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
            "skipped=\"0\">\n",
            cases + incomplete, tests, incomplete);
    for (size_t i = 0; s && i < r->n; i = report_group_end(s, r->n, i))
        junit_case(f, s, i, report_group_end(s, r->n, i), c->run);
    if (!tests)
        fputs("    <testcase classname=\"testfence\" name=\"no writes outside the writable "
              "set\"/>\n",
              f);
    if (incomplete)
        fputs("    <testcase classname=\"testfence\" name=\"the violation log\">\n      <error "
              "message=\"the violation log could not be read whole; see the run's "
              "output\"/>\n    </testcase>\n",
              f);
    fputs("  </testsuite>\n</testsuites>\n", f);
    free(s);
}

/* ---- GitHub annotations ------------------------------------------------------ */

/* The file of a pytest id ("tests/t.py::test_x"), relative to the repository GitHub
 * checked out (GITHUB_WORKSPACE) when the project root lies inside it. */
static bool gh_file(char *out, size_t len, const char *test, const char *root)
{
    const char *sep = test ? strstr(test, "::") : NULL;
    if (!sep || sep == test)
        return false;
    const char *ws = getenv("GITHUB_WORKSPACE");
    size_t n = ws ? strlen(ws) : 0;
    while (n > 1 && ws[n - 1] == '/')
        n--;
    const char *sub = "";
    if (n && !strncmp(root, ws, n) && root[n] == '/')
        sub = root + n + 1;
    char raw[PATH_MAX];
    int k = snprintf(raw, sizeof raw, "%s%s%.*s", sub, sub[0] ? "/" : "", (int)(sep - test), test);
    if (k <= 0 || (size_t)k >= sizeof raw)
        return false;
    /* as untrusted as the test id it is cut from: no control byte reaches the log */
    vlog_printable(out, len, raw); /* never longer than RAW: it fits when RAW does */
    return (size_t)k < len;
}

static void github(FILE *out, const struct report *r, const struct report_run *run)
{
    struct report_entry **s = report_sorted(r);
    size_t shown = 0;
    for (size_t i = 0; s && i < r->n && shown < GITHUB_MAX; i++, shown++) {
        const struct report_entry *e = s[i];
        char file[PATH_MAX], test[700], path[1100], en[32];
        vlog_printable(test, sizeof test, e->test ? e->test : "(outside any test)");
        vlog_printable(path, sizeof path, e->resolved);
        fputs("::error ", out);
        if (gh_file(file, sizeof file, e->test, run->root)) {
            fputs("file=", out);
            tf_gh_escape(out, file, true);
            fputc(',', out);
        }
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
    if (o->json.dirfd >= 0 && outpath_write(&o->json, fill_json, &c, &err) < 0) {
        fprintf(out, "testfence: %s\n", err.msg);
        rc = -1;
    }
    if (o->junit.dirfd >= 0 && outpath_write(&o->junit, fill_junit, &c, &err) < 0) {
        fprintf(out, "testfence: %s\n", err.msg);
        rc = -1;
    }
    return rc;
}
