#include "audit_output.h"

#include "audit_ci.h"
#include "base/text.h"

#include <string.h>

bool tf_audit_format_parse(const char *name, tf_audit_format *fmt)
{
    static const char *const names[TF_AUDIT_FORMAT_COUNT] = {"text",   "json",   "sarif",
                                                             "github", "gitlab", "junit"};
    for (int i = 0; i < TF_AUDIT_FORMAT_COUNT; i++)
        if (!strcmp(name, names[i])) {
            *fmt = (tf_audit_format)i;
            return true;
        }
    return false;
}

void tf_audit_json_str(FILE *out, const char *s)
{
    tf_json_write(out, s);
}

const char *tf_audit_severity_name(tf_severity s)
{
    return s == TF_SEV_ERROR ? "error" : s == TF_SEV_WARNING ? "warning" : "style";
}

static void print_text(FILE *out, const tf_audit_report *rep)
{
    const char *bold = rep->color ? "\033[1m" : "", *off = rep->color ? "\033[0m" : "";
    for (size_t i = 0; i < rep->res->n_findings; i++) {
        const tf_finding *f = &rep->res->findings[i];
        const char *hue = !rep->color                     ? ""
                          : f->severity == TF_SEV_ERROR   ? "\033[31m"
                          : f->severity == TF_SEV_WARNING ? "\033[33m"
                                                          : "\033[36m";
        if (!f->suppressed)
            fprintf(out, "%s%s%s:%d:%d: %s%s %s:%s %s\n", bold, f->path, off, f->line, f->col, hue,
                    tf_rule_get(f->rule)->code, tf_audit_severity_name(f->severity), off,
                    f->message);
    }
}

static void json_finding(FILE *out, const tf_finding *f, bool *first)
{
    fprintf(out, "%s\n    {\"path\": ", *first ? "" : ",");
    *first = false;
    tf_audit_json_str(out, f->path);
    fprintf(out,
            ", \"line\": %d, \"column\": %d, \"code\": \"%s\", \"rule\": \"%s\", "
            "\"severity\": \"%s\", \"message\": ",
            f->line, f->col, tf_rule_get(f->rule)->code, tf_rule_get(f->rule)->name,
            tf_audit_severity_name(f->severity));
    tf_audit_json_str(out, f->message);
    fputc('}', out);
}

static void json_findings(FILE *out, const tf_audit_result *res, bool suppressed)
{
    bool first = true;
    fputc('[', out);
    for (size_t i = 0; i < res->n_findings; i++)
        if (res->findings[i].suppressed == suppressed)
            json_finding(out, &res->findings[i], &first);
    fputs(first ? "]" : "\n  ]", out);
}

static void print_json(FILE *out, const tf_audit_report *rep)
{
    const tf_audit_result *res = rep->res;
    fprintf(out, "{\n  \"version\": 1,\n  \"tool\": {\"name\": \"testfence\", \"version\": ");
    tf_audit_json_str(out, rep->version);
    fprintf(out, "},\n  \"root\": ");
    tf_audit_json_str(out, rep->cfg->root);
    fprintf(out,
            ",\n  \"summary\": {\"files\": %zu, \"bytes\": %zu, \"findings\": %zu, "
            "\"suppressed\": %zu, \"io_errors\": %zu, \"errors\": %zu, \"not_collected\": %zu, "
            "\"cached\": %zu},\n  \"findings\": ",
            res->n_files, res->n_bytes, res->n_findings - res->n_suppressed, res->n_suppressed,
            res->n_errors, res->n_errors, res->n_skipped, res->n_cached);
    json_findings(out, res, false);
    fputs(",\n  \"suppressed\": ", out);
    json_findings(out, res, true);
    /* "errors" is the old name of "io_errors", kept for one release (docs/audit.md) */
    for (int k = 0; k < 2; k++) {
        fputs(k ? ",\n  \"errors\": [" : ",\n  \"io_errors\": [", out);
        for (size_t i = 0; i < res->n_errors; i++) {
            fputs(i ? ", " : "", out);
            tf_audit_json_str(out, res->errors[i]);
        }
        fputc(']', out);
    }
    fputs("\n}\n", out);
}

static void sarif_rule(FILE *out, tf_rule_id id)
{
    const tf_rule *r = tf_rule_get(id);
    char help[2048];
    fprintf(out,
            "%s\n          {\"id\": \"%s\", \"name\": \"%s\", \"shortDescription\": {\"text\": ",
            id ? "," : "", r->code, r->name);
    tf_audit_json_str(out, r->summary);
    fputs("}, \"fullDescription\": {\"text\": ", out);
    tf_audit_json_str(out, r->explanation);
    snprintf(help, sizeof help, "%s\n\nExample:\n%s\n\nFix: %s", r->explanation, r->example,
             r->fix);
    fputs("}, \"help\": {\"text\": ", out);
    tf_audit_json_str(out, help);
    snprintf(help, sizeof help, "%s\n\nExample:\n\n```python\n%s\n```\n\n**Fix:** %s",
             r->explanation, r->example, r->fix);
    fputs(", \"markdown\": ", out);
    tf_audit_json_str(out, help);
    fprintf(out, "}, \"defaultConfiguration\": {\"level\": \"%s\", \"enabled\": %s}}",
            id == TF_RULE_SYNTAX ? "error"
            : r->style           ? "note"
                                 : "warning",
            r->style ? "false" : "true");
}

static const char *sarif_level(tf_severity s)
{
    return s == TF_SEV_ERROR ? "error" : s == TF_SEV_WARNING ? "warning" : "note";
}

static void sarif_result(FILE *out, const tf_finding *f, bool first)
{
    fprintf(out,
            "%s\n        {\"ruleId\": \"%s\", \"ruleIndex\": %d, \"level\": \"%s\", "
            "\"message\": {\"text\": ",
            first ? "" : ",", tf_rule_get(f->rule)->code, (int)f->rule, sarif_level(f->severity));
    tf_audit_json_str(out, f->message);
    fputs("}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ", out);
    if (f->rel) {
        tf_uri_write(out, "", f->rel);
        fputs(", \"uriBaseId\": \"%SRCROOT%\"", out);
    } else {
        if (f->path[0] == '/' || tf_drive_path(f->path))
            tf_file_uri_write(out, f->path);
        else
            tf_uri_write(out, "", f->path);
    }
    fprintf(out, "}, \"region\": {\"startLine\": %d, \"startColumn\": %d}}}]", f->line, f->col);
    if (f->suppressed)
        fputs(", \"suppressions\": [{\"kind\": \"inSource\"}]", out);
    fputc('}', out);
}

static void print_sarif(FILE *out, const tf_audit_report *rep)
{
    fputs("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
          "  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n      \"tool\": {\"driver\": {"
          "\"name\": \"testfence\", \"version\": ",
          out);
    tf_audit_json_str(out, rep->version);
    fputs(", \"rules\": [", out);
    for (int i = 0; i < TF_RULE_COUNT; i++)
        sarif_rule(out, (tf_rule_id)i);
    fputs("\n      ]}},\n      \"originalUriBaseIds\": {\"%SRCROOT%\": {\"uri\": ", out);
    char root[4200];
    snprintf(root, sizeof root, "%s/", rep->cfg->root);
    tf_file_uri_write(out, strcmp(rep->cfg->root, "/") ? root : "/");
    fprintf(out,
            "}},\n      \"invocations\": [{\"executionSuccessful\": %s, "
            "\"toolExecutionNotifications\": [",
            rep->res->n_errors ? "false" : "true");
    for (size_t i = 0; i < rep->res->n_errors; i++) {
        fputs(i ? ", " : "", out);
        fputs("{\"level\": \"error\", \"message\": {\"text\": ", out);
        tf_audit_json_str(out, rep->res->errors[i]);
        fputs("}}", out);
    }
    fputs("]}],\n      \"results\": [", out);
    for (size_t i = 0; i < rep->res->n_findings; i++)
        sarif_result(out, &rep->res->findings[i], i == 0);
    fputs(rep->res->n_findings ? "\n      ]\n    }\n  ]\n}\n" : "]\n    }\n  ]\n}\n", out);
}

static void print_github(FILE *out, const tf_audit_report *rep)
{
    for (size_t i = 0; i < rep->res->n_findings; i++) {
        const tf_finding *f = &rep->res->findings[i];
        if (f->suppressed)
            continue;
        fprintf(out, "::%s file=",
                f->severity == TF_SEV_ERROR     ? "error"
                : f->severity == TF_SEV_WARNING ? "warning"
                                                : "notice");
        tf_gh_escape(out, f->rel ? f->rel : f->path, true);
        fprintf(out, ",line=%d,col=%d,title=testfence %s::", f->line, f->col,
                tf_rule_get(f->rule)->code);
        tf_gh_escape(out, f->message, false);
        fputc('\n', out);
    }
}

int tf_audit_print(FILE *out, tf_audit_format fmt, const tf_audit_report *rep)
{
    if (rep->statistics) {
        tf_audit_print_statistics(out, fmt == TF_AUDIT_JSON, rep->res);
        return fflush(out) == 0 && !ferror(out) ? 0 : -1;
    }
    switch (fmt) {
    case TF_AUDIT_TEXT:
        print_text(out, rep);
        break;
    case TF_AUDIT_JSON:
        print_json(out, rep);
        break;
    case TF_AUDIT_SARIF:
        print_sarif(out, rep);
        break;
    case TF_AUDIT_GITHUB:
        print_github(out, rep);
        break;
    case TF_AUDIT_GITLAB:
        tf_audit_print_gitlab(out, rep);
        break;
    case TF_AUDIT_JUNIT:
    case TF_AUDIT_FORMAT_COUNT:
        tf_audit_print_junit(out, rep);
        break;
    }
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

void tf_audit_print_summary(FILE *out, const tf_audit_report *rep)
{
    const tf_audit_result *res = rep->res;
    size_t active = res->n_findings - res->n_suppressed;
    fprintf(out, "testfence audit: %zu finding%s, %zu suppressed by comments; %zu file%s (%.1f MB)",
            active, active == 1 ? "" : "s", res->n_suppressed, res->n_files,
            res->n_files == 1 ? "" : "s", (double)res->n_bytes / 1e6);
    if (res->n_skipped)
        fprintf(out, "; %zu not collected or imported by tests", res->n_skipped);
    if (res->n_cached)
        fprintf(out, "; %zu from the cache", res->n_cached);
    if (res->n_errors)
        fprintf(out, "; %zu could not be read", res->n_errors);
    fputc('\n', out);
}

void tf_audit_print_rule(FILE *out, tf_rule_id id)
{
    const tf_rule *r = tf_rule_get(id);
    fprintf(out, "%s %s: %s\n\n%s\n\nExample:\n", r->code, r->name, r->summary, r->explanation);
    for (const char *p = r->example; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(out, "    %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    fprintf(out, "\nFix: %s\n\nSuppress one line with: # testfence: ignore[%s] (or # noqa: %s)\n",
            r->fix, r->code, r->code);
}
