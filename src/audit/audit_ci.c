#include "audit_ci.h"

#include "audit_cache.h"
#include "base/text.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

static const char *shown_path(const tf_finding *f)
{
    return f->rel ? f->rel : f->path;
}

/* ---- GitLab Code Quality ---------------------------------------------------- */

/* GitLab's severities: info, minor, major, critical, blocker. A provable write into the
 * project or HOME destroys data: critical; a likely one: major; style: minor. */
static const char *gitlab_severity(tf_severity s)
{
    return s == TF_SEV_ERROR ? "critical" : s == TF_SEV_WARNING ? "major" : "minor";
}

/* A hash of what the finding says about which file, without its position. */
static void finding_hash(const tf_finding *f, uint64_t h[2])
{
    const char *code = tf_rule_get(f->rule)->code, *path = shown_path(f);
    uint64_t a[2], b[2];
    tf_hash128(code, strlen(code), 0, a);
    tf_hash128(path, strlen(path), a[0], b);
    tf_hash128(f->message, strlen(f->message), b[0] ^ a[1], h);
    h[1] ^= b[1];
}

/* The fingerprint of finding I: its hash, salted with how many findings of its file before it
 * say the same (two identical writes in one file stay two issues). */
static void fingerprint(const tf_audit_result *res, size_t i, char out[33])
{
    uint64_t h[2], g[2];
    finding_hash(&res->findings[i], h);
    uint64_t nth = 0;
    for (size_t j = i; j-- > 0 && !strcmp(res->findings[j].path, res->findings[i].path);) {
        if (res->findings[j].suppressed)
            continue;
        finding_hash(&res->findings[j], g);
        nth += g[0] == h[0] && g[1] == h[1];
    }
    tf_hash128(h, sizeof h, nth, g);
    snprintf(out, 33, "%016" PRIx64 "%016" PRIx64, g[0], g[1]);
}

void tf_audit_print_gitlab(FILE *out, const tf_audit_report *rep)
{
    const tf_audit_result *res = rep->res;
    bool first = true;
    fputc('[', out);
    for (size_t i = 0; i < res->n_findings; i++) {
        const tf_finding *f = &res->findings[i];
        if (f->suppressed)
            continue;
        char fp[33], desc[sizeof f->message + 16];
        fingerprint(res, i, fp);
        snprintf(desc, sizeof desc, "%s %s", tf_rule_get(f->rule)->code, f->message);
        fputs(first ? "\n  {\"description\": " : ",\n  {\"description\": ", out);
        first = false;
        tf_audit_json_str(out, desc);
        fprintf(out, ", \"check_name\": \"%s\", \"fingerprint\": \"%s\", \"severity\": \"%s\", ",
                tf_rule_get(f->rule)->code, fp, gitlab_severity(f->severity));
        fputs("\"location\": {\"path\": ", out);
        tf_audit_json_str(out, shown_path(f));
        fprintf(out, ", \"lines\": {\"begin\": %d}}}", f->line);
    }
    fputs(first ? "]\n" : "\n]\n", out);
}

/* ---- JUnit XML ---------------------------------------------------------------- */

/* S as XML 1.0 character data or attribute value: markup escaped, characters XML cannot
 * hold (C0 controls but tab and newline, U+FFFE, U+FFFF) and invalid UTF-8 as U+FFFD. */
static void xml_str(FILE *out, const char *s)
{
    static const char *const repl = "\xEF\xBF\xBD";
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = tf_utf8_len(p, SIZE_MAX);
        if (*p == '&' || *p == '<' || *p == '>' || *p == '"')
            fputs(*p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" : "&quot;", out);
        else if (n == 0 || (*p < 0x20 && *p != '\t' && *p != '\n') ||
                 (n == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE))
            fputs(repl, out);
        else
            fwrite(p, 1, n, out);
        p += n ? n : 1;
    }
}

/* pytest's classname for a file: "tests/sub/test_x.py" is "tests.sub.test_x". */
static void xml_classname(FILE *out, const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n > 3 && !strcmp(path + n - 3, ".py"))
        n -= 3;
    while (n && (*path == '/' || *path == '.'))
        path++, n--;
    snprintf(buf, sizeof buf, "%.*s", (int)n, path);
    for (char *c = buf; *c; c++)
        if (*c == '/')
            *c = '.';
    xml_str(out, buf);
}

static void junit_case(FILE *out, const tf_finding *f)
{
    const char *code = tf_rule_get(f->rule)->code;
    fprintf(out, "    <testcase name=\"%s line %d, column %d\" classname=\"", code, f->line,
            f->col);
    xml_classname(out, shown_path(f));
    fputs("\" file=\"", out);
    xml_str(out, shown_path(f));
    fprintf(out, "\" line=\"%d\">\n      <failure type=\"%s\" message=\"", f->line, code);
    xml_str(out, f->message);
    fputs("\">", out);
    xml_str(out, shown_path(f));
    fprintf(out, ":%d:%d: %s %s: ", f->line, f->col, code, tf_audit_severity_name(f->severity));
    xml_str(out, f->message);
    fputs("</failure>\n    </testcase>\n", out);
}

/* The findings of one file, [I, END), as a testsuite named after it. */
static void junit_file(FILE *out, const tf_audit_result *res, size_t i, size_t end, size_t n)
{
    fputs("  <testsuite name=\"", out);
    xml_str(out, shown_path(&res->findings[i]));
    fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n", n, n);
    for (; i < end; i++)
        if (!res->findings[i].suppressed)
            junit_case(out, &res->findings[i]);
    fputs("  </testsuite>\n", out);
}

/* The files that could not be read, or the one passing case of a clean audit. */
static void junit_rest(FILE *out, const tf_audit_result *res, size_t active)
{
    if (active && !res->n_errors)
        return;
    size_t n = res->n_errors ? res->n_errors : 1;
    fprintf(out,
            "  <testsuite name=\"testfence audit\" tests=\"%zu\" failures=\"0\" errors=\"%zu\" "
            "skipped=\"0\">\n",
            n, res->n_errors);
    if (!res->n_errors)
        fputs("    <testcase name=\"no findings\" classname=\"testfence.audit\"/>\n", out);
    for (size_t i = 0; i < res->n_errors; i++) {
        fputs("    <testcase name=\"cannot read ", out);
        xml_str(out, res->errors[i]);
        fputs("\" classname=\"testfence.audit\">\n      <error message=\"", out);
        xml_str(out, res->errors[i]);
        fputs("\"/>\n    </testcase>\n", out);
    }
    fputs("  </testsuite>\n", out);
}

void tf_audit_print_junit(FILE *out, const tf_audit_report *rep)
{
    const tf_audit_result *res = rep->res;
    size_t active = res->n_findings - res->n_suppressed;
    size_t tests = active + res->n_errors + (!active && !res->n_errors);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out,
            "<testsuites name=\"testfence audit\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
            tests, active, res->n_errors);
    for (size_t i = 0, end; i < res->n_findings; i = end) {
        size_t n = 0;
        for (end = i;
             end < res->n_findings && !strcmp(res->findings[end].path, res->findings[i].path);
             end++)
            n += !res->findings[end].suppressed;
        if (n)
            junit_file(out, res, i, end, n);
    }
    junit_rest(out, res, active);
    fputs("</testsuites>\n", out);
}

/* ---- statistics --------------------------------------------------------------- */

void tf_audit_print_statistics(FILE *out, bool json, const tf_audit_result *res)
{
    size_t count[TF_RULE_COUNT] = {0}, widest = 0;
    int order[TF_RULE_COUNT], n = 0;
    for (size_t i = 0; i < res->n_findings; i++)
        count[res->findings[i].rule] += !res->findings[i].suppressed;
    for (int r = 0; r < TF_RULE_COUNT; r++) {
        if (!count[r])
            continue;
        int k = n++; /* insertion: the most frequent first, then by code */
        for (; k > 0 && count[order[k - 1]] < count[r]; k--)
            order[k] = order[k - 1];
        order[k] = r;
        widest = count[r] > widest ? count[r] : widest;
    }
    int w = snprintf(NULL, 0, "%zu", widest);
    fputs(json ? "[" : "", out);
    for (int k = 0; k < n; k++) {
        const tf_rule *r = tf_rule_get((tf_rule_id)order[k]);
        if (json)
            fprintf(out, "%s\n  {\"code\": \"%s\", \"name\": \"%s\", \"count\": %zu}", k ? "," : "",
                    r->code, r->name, count[order[k]]);
        else
            fprintf(out, "%*zu\t%s\t%s\n", w, count[order[k]], r->code, r->name);
    }
    fputs(!json ? "" : n ? "\n]\n" : "]\n", out);
}
