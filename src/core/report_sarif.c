#include "report_sarif.h"
#include "path.h"

#include "platform.h"
#include "report_ci.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

/* Code scanning keeps at most 25,000 results of a run and shows 5,000; the rest are counted
 * in a notification (report.json has them all). */
enum { SARIF_MAX = 5000 };

enum rule_index {
    R_ROOT,
    R_ABSOLUTE,
    R_TEMP,
    R_RELATIVE,
    R_GIT,
    R_SHELL,
    R_DELETE,
    R_BLOCKED,
    R_LEFT
};

/* The audit's codes and names (src/audit/audit_rules.c; test_report_sarif checks they
 * agree): what the run saw is what the audit predicts from the source. */
static const struct report_rule rules[] = {
    [R_ROOT] = {"TF101", "write-protected-root-file",
                "a write to a file at the project root was blocked",
                "The files at the project root are the user's (configuration, credentials, "
                "data); a test wrote to one by name. Judged from the resolved path: a file "
                "directly in the root."},
    [R_ABSOLUTE] = {"TF103", "write-absolute-path",
                    "a write to an absolute path outside tests/ was blocked",
                    "The program named an absolute path outside the writable set (HOME, /etc, "
                    "elsewhere in the project). Judged from the path as the program gave it."},
    [R_TEMP] = {"TF104", "fixed-name-in-system-temp",
                "a write in the system temp directory was blocked",
                "The run points TMPDIR at a private directory; a program that names /tmp or "
                "/var/tmp itself shares that name with every other run. Judged from the "
                "resolved path."},
    [R_RELATIVE] = {"TF106", "write-relative-path",
                    "a write to a relative path outside tests/ was blocked",
                    "A relative path resolved outside the writable set, usually against the "
                    "project root the runner starts in. Judged from the path as the program gave "
                    "it."},
    [R_GIT] = {"TF108", "changes-git-configuration", "a change to a git configuration was blocked",
               "git config wrote the user's (~/.gitconfig, ~/.config/git/config), the machine's "
               "or a repository's configuration. Judged from the resolved path."},
    [R_SHELL] = {"TF109", "shell-changes-outside-tests",
                 "a shell's write outside tests/ was blocked",
                 "A shell command or script the test ran wrote or deleted outside tests/. "
                 "Judged from the program that made the call."},
    [R_DELETE] = {"TF110", "deletes-directory-not-created",
                  "the removal of a directory outside tests/ was blocked",
                  "A directory the test did not create (it lies outside the writable set) was "
                  "to be removed. Judged from the operation (rmdir)."},
    [R_BLOCKED] = {"TF900", "blocked-write", "a write outside the writable set was blocked",
                   "A change the fence refused that no audit rule describes: a protected test "
                   "file, a path the program did not name."},
    [R_LEFT] = {"TF901", "process-left-running", "a process the test started outlived the command",
                "The process was still running when the command exited, and was killed: stop "
                "what a test starts before it ends."},
};

const struct report_rule *report_rules(size_t *n)
{
    *n = sizeof rules / sizeof rules[0];
    return rules;
}

/* A git configuration file, or the lock git writes it through. */
static bool git_config(const char *p)
{
    static const char *const tails[] = {"/.gitconfig", "/gitconfig", "/.git/config", "/git/config"};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        char lock[32];
        snprintf(lock, sizeof lock, "%s.lock", tails[i]);
        if (path_ends_with(p, tails[i]) || path_ends_with(p, lock))
            return true;
    }
    return false;
}

static bool under(const char *p, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(p, dir, n) && p[n] == '/';
}

/* Directly in DIR. */
static bool in_dir(const char *p, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return !strncmp(p, dir, n) && p[n] == '/' && p[n + 1] && !strchr(p + n + 1, '/');
}

static bool shell(const char *exe)
{
    static const char *const shells[] = {"sh",  "bash", "dash", "zsh",
                                         "ksh", "mksh", "ash",  "busybox"};
    const char *b = path_base(exe);
    for (size_t i = 0; i < sizeof shells / sizeof shells[0]; i++)
        if (!strcmp(b, shells[i]))
            return true;
    return false;
}

/* The most telling first: what was written, then where, then how it was named. */
static enum rule_index rule_index_of(const struct report_entry *e, const struct report_run *run)
{
    if (report_outlived(e))
        return R_LEFT;
    if (!strcmp(e->blocked_by, "protect"))
        return R_BLOCKED;
    if (git_config(e->resolved))
        return R_GIT;
    if (in_dir(e->resolved, run->root))
        return R_ROOT;
    bool project = under(e->resolved, run->root); /* which may itself be under /tmp */
    if (!project && (under(e->resolved, "/tmp") || under(e->resolved, "/var/tmp")))
        return R_TEMP;
    if (!strcmp(e->op, "rmdir"))
        return R_DELETE;
    if (shell(e->exe))
        return R_SHELL;
    if (e->path[0] && !platform_is_absolute(e->path))
        return R_RELATIVE;
    return e->path[0] ? R_ABSOLUTE : R_BLOCKED;
}

const struct report_rule *report_rule_of(const struct report_entry *e, const struct report_run *run)
{
    return &rules[rule_index_of(e, run)];
}

/* ---- the log ------------------------------------------------------------------ */

static void rule_descriptor(FILE *f, const struct report_rule *r, bool first)
{
    fprintf(f, "%s\n          {\"id\": \"%s\", \"name\": \"%s\", \"shortDescription\": {\"text\": ",
            first ? "" : ",", r->code, r->name);
    tf_json_write(f, r->summary);
    fputs("}, \"fullDescription\": {\"text\": ", f);
    tf_json_write(f, r->text);
    fputs("}, \"help\": {\"text\": ", f);
    tf_json_write(f, r->text);
    fputs("}, \"defaultConfiguration\": {\"level\": \"error\"}}", f);
}

/* A physicalLocation: the file relative to %SRCROOT% (report_ci_base), or a file: URI for
 * one outside the root; line 1 when only the file is known (code scanning needs a line). */
static void physical(FILE *f, const struct report_loc *loc, const char *root)
{
    char rel[PATH_MAX];
    fputs("{\"artifactLocation\": {\"uri\": ", f);
    if (!loc->absolute && report_ci_path(rel, sizeof rel, loc->file, root)) {
        tf_uri_write(f, "", rel);
        fputs(", \"uriBaseId\": \"%SRCROOT%\"", f);
    } else {
        tf_file_uri_write(f, loc->file);
    }
    fprintf(f, "}, \"region\": {\"startLine\": %ld}}", loc->line > 0 ? loc->line : 1);
}

/* What the write was, as the summary says it, for the result's message. */
static char *message(const struct report_entry *e, const struct report_run *run)
{
    char *text = NULL, en[32];
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return NULL;
    const char *test = e->test ? e->test : "(outside any test)";
    if (report_outlived(e))
        fprintf(m, "%s: %s was still running when the command exited: killed", test, e->path);
    else
        fprintf(m, "%s: %s %s (%s)%s", test, e->op, e->resolved,
                vlog_errname(e->err, en, sizeof en), e->count > 1 ? ", repeated" : "");
    if (e->src_func)
        fprintf(m, " in %s()", e->src_func);
    fprintf(m, ". How to fix: %s", report_hint(e, run));
    fclose(m);
    return text;
}

static void properties(FILE *f, const struct report_entry *e)
{
    fputs(", \"properties\": {\"test\": ", f);
    tf_json_write(f, e->test);
    fputs(", \"op\": ", f);
    tf_json_write(f, e->op);
    fputs(", \"resolved\": ", f);
    tf_json_write(f, e->resolved);
    fputs(", \"blocked_by\": ", f);
    tf_json_write(f, e->blocked_by);
    fprintf(f, ", \"count\": %zu}", e->count);
}

static void result(FILE *f, const struct report_entry *e, const struct report_loc *loc,
                   const struct report_run *run, bool first)
{
    char *msg = message(e, run);
    struct report_loc test;
    fprintf(f, "%s\n        {\"ruleId\": \"%s\", \"ruleIndex\": %d, \"level\": \"error\", ",
            first ? "" : ",", report_rule_of(e, run)->code, (int)rule_index_of(e, run));
    fputs("\"message\": {\"text\": ", f);
    tf_json_write(f, msg ? msg : "(out of memory)");
    fputs("}, \"locations\": [{\"physicalLocation\": ", f);
    physical(f, loc, run->root);
    fputs("}]", f);
    /* the line was a helper's: the test that called it too */
    if (report_test_where(e, run->root, &test) &&
        (strcmp(test.file, loc->file) || test.line != loc->line)) {
        fputs(", \"relatedLocations\": [{\"id\": 1, \"message\": {\"text\": \"the test\"}, "
              "\"physicalLocation\": ",
              f);
        physical(f, &test, run->root);
        fputs("}]", f);
    }
    properties(f, e);
    fputc('}', f);
    free(msg);
}

/* What the results leave out, said where a SARIF reader looks for the tool's own messages. */
static void notification(FILE *f, bool *first, const char *level, const char *text)
{
    fprintf(f, "%s{\"level\": \"%s\", \"message\": {\"text\": ", *first ? "" : ", ", level);
    tf_json_write(f, text);
    fputs("}}", f);
    *first = false;
}

static void notifications(FILE *f, const struct report *r, struct report_entry **s,
                          const struct report_run *run)
{
    bool first = true;
    char line[2400];
    size_t placed = 0, unplaced = 0;
    for (size_t i = 0; s && i < r->n; i++) {
        struct report_loc loc;
        if (report_where(s[i], run->root, &loc)) {
            placed++;
            continue;
        }
        if (unplaced++ >= SARIF_MAX)
            continue;
        char *msg = message(s[i], run);
        snprintf(line, sizeof line, "not placed at a line: %s", msg ? msg : "(out of memory)");
        free(msg);
        notification(f, &first, "warning", line);
    }
    size_t more = (placed > SARIF_MAX ? placed - SARIF_MAX : 0) +
                  (unplaced > SARIF_MAX ? unplaced - SARIF_MAX : 0) + r->dropped;
    if (more) {
        snprintf(line, sizeof line, "%zu more blocked writes are in report.json", more);
        notification(f, &first, "warning", line);
    }
    if (r->log_unreadable || r->stats.malformed || r->stats.cut || !s)
        notification(f, &first, "error",
                     "the violation log could not be read whole; see the run's output");
}

static void header(FILE *f, const struct report_run *run)
{
    size_t n;
    const struct report_rule *all = report_rules(&n);
    char base[PATH_MAX], uri[PATH_MAX + 1];
    fputs("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
          "  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n      \"tool\": {\"driver\": {"
          "\"name\": \"testfence\", \"version\": \"" TESTFENCE_VERSION "\", \"rules\": [",
          f);
    for (size_t i = 0; i < n; i++)
        rule_descriptor(f, &all[i], i == 0);
    /* code scanning's category is the id up to its last '/': the audit's upload has its own */
    char id[128];
    snprintf(id, sizeof id, "testfence-run/%s", run->run_id ? run->run_id : "");
    fputs("\n      ]}},\n      \"automationDetails\": {\"id\": ", f);
    tf_json_write(f, id);
    fputs("},\n      \"originalUriBaseIds\": {\"%SRCROOT%\": {\"uri\": ", f);
    if (!report_ci_base(base, sizeof base, run->root))
        snprintf(base, sizeof base, "/");
    /* a base URI ends in '/', or the relative ones replace its last segment */
    snprintf(uri, sizeof uri, "%s%s", base, path_ends_with(base, "/") ? "" : "/");
    tf_file_uri_write(f, uri);
    fputs("}},\n", f);
}

void report_sarif(FILE *f, const struct report *r, const struct report_run *run)
{
    struct report_entry **s = report_sorted(r);
    header(f, run);
    fprintf(f,
            "      \"invocations\": [{\"executionSuccessful\": %s, \"exitCode\": %d, "
            "\"toolExecutionNotifications\": [",
            s && !r->log_unreadable ? "true" : "false", run->status);
    notifications(f, r, s, run);
    fputs("]}],\n      \"results\": [", f);
    size_t shown = 0;
    for (size_t i = 0; s && i < r->n && shown < SARIF_MAX; i++) {
        struct report_loc loc;
        if (report_where(s[i], run->root, &loc))
            result(f, s[i], &loc, run, shown++ == 0);
    }
    fputs(shown ? "\n      ]\n    }\n  ]\n}\n" : "]\n    }\n  ]\n}\n", f);
    free(s);
}
