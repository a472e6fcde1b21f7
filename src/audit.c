#include "audit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A `# testfence: ignore[...]` comment: applies to its own line, and to the
 * next line when the comment stands alone on its line. */
typedef struct audit_supp {
    int line;
    bool own_line;
    unsigned rules;
} audit_supp;

struct tf_audit_file {
    const tf_audit_cfg *cfg;
    tf_audit_result *res;
    const char *path, *rel;
    char absdir[PATH_MAX]; /* the file's directory, absolute and normalised */
    char anchor[PATH_MAX]; /* the tests directory the file belongs to */
    size_t first;          /* index of this file's first finding in res */
    audit_supp *supp;
    size_t n_supp, cap_supp;
    bool syntax_seen, oom;
};

/* Double *cap until it holds n + 1 elements of SIZE. */
static bool grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *nv = realloc(*v, ncap * size);
    if (!nv)
        return false;
    *v = nv;
    *cap = ncap;
    return true;
}

static char *res_keep(tf_audit_result *res, const char *s)
{
    if (!grow((void **)&res->strings, &res->cap_strings, res->n_strings, sizeof(char *)))
        return NULL;
    char *copy = strdup(s);
    if (copy)
        res->strings[res->n_strings++] = copy;
    return copy;
}

static void res_error(tf_audit_result *res, const char *msg)
{
    if (!grow((void **)&res->errors, &res->cap_errors, res->n_errors, sizeof(char *)))
        return;
    char *copy = strdup(msg);
    if (copy)
        res->errors[res->n_errors++] = copy;
}

/* Findings of rules the configuration disabled are never created. */
static tf_finding *add_finding(tf_audit_file *af, tf_pos pos, tf_rule_id rule)
{
    tf_audit_result *res = af->res;
    if (!(af->cfg->rules & (1u << rule)))
        return NULL;
    if (!grow((void **)&res->findings, &res->cap_findings, res->n_findings, sizeof(tf_finding))) {
        af->oom = true;
        return NULL;
    }
    tf_finding *f = &res->findings[res->n_findings++];
    memset(f, 0, sizeof *f);
    f->path = af->path;
    f->rel = af->rel;
    f->line = pos.line;
    f->col = pos.col;
    f->rule = rule;
    return f;
}

/* Copy S for a one-line message: control characters become '?', long text is cut. */
static void display(char *out, size_t outlen, const char *s, size_t len)
{
    size_t max = outlen - 1 < 120 ? outlen - 1 : 120, n = 0;
    for (size_t i = 0; i < len && n < max; i++)
        out[n++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    if (len > max && n >= 3)
        memcpy(out + n - 3, "...", 3);
    out[n] = '\0';
}

static bool is_protected(const tf_audit_cfg *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->n_protected; i++)
        if (!strcmp(cfg->protected_names[i], name))
            return true;
    return false;
}

/* The writable system paths of the fence hold no user data: never a finding. */
static bool is_system_sink(const char *abs)
{
    static const char *const sinks[] = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty",
                                        "/dev/shm",  "/dev/fd",     "/dev/pts",    "/proc/self/fd"};
    for (size_t i = 0; i < sizeof sinks / sizeof sinks[0]; i++)
        if (tf_path_within(abs, sinks[i]))
            return true;
    return false;
}

/* out = root + "/" + rel, normalised. */
static bool under_root(const tf_audit_cfg *cfg, const char *rel, char *out, size_t outlen)
{
    char joined[PATH_MAX * 2];
    snprintf(joined, sizeof joined, "%s/%s", cfg->root, rel);
    return tf_path_normalise(joined, out, outlen);
}

/* Is the absolute, normalised ABS inside the project's tests dir? */
static bool abs_in_tests(const tf_audit_cfg *cfg, const char *abs)
{
    char tests[PATH_MAX];
    return under_root(cfg, cfg->tests_dir, tests, sizeof tests) && tf_path_within(abs, tests);
}

/* Relative paths are judged with '/' separators: "tests\\x" means tests/x. */
static void slashes(char *s)
{
    for (; *s; s++)
        if (*s == '\\')
            *s = '/';
}

/* A path inside the root is shown relative to it, like the rest of the output. */
static void show_abs(const tf_audit_cfg *cfg, const char *abs, char *out, size_t outlen)
{
    size_t n = strlen(cfg->root);
    if (tf_path_within(abs, cfg->root) && abs[n] == '/')
        display(out, outlen, abs + n + 1, strlen(abs + n + 1));
    else
        display(out, outlen, abs, strlen(abs));
}

/* Where a FILE value points, absolute and normalised. */
static bool resolve_file(const tf_audit_file *af, const tf_pathval *pv, char *out, size_t outlen)
{
    char buf[PATH_MAX * 2];
    if (pv->up < 0)
        return false; /* the file itself: inside its own directory by definition */
    size_t n = (size_t)snprintf(buf, sizeof buf, "%s", af->absdir);
    for (int i = 0; i < pv->up && n + 4 < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "/..");
    if (pv->text[0])
        snprintf(buf + n, sizeof buf - n, "/%s", pv->text);
    return tf_path_normalise(buf, out, outlen);
}

typedef enum { WHERE_INSIDE, WHERE_UNKNOWN, WHERE_ABSOLUTE, WHERE_CLIMB, WHERE_RELATIVE } where_t;

/* Classify a known path: inside tests/, or how it escapes. SHOWN gets the display text. */
static where_t locate(const tf_audit_file *af, const tf_pathval *pv, char *shown, size_t len)
{
    char norm[PATH_MAX];
    if (pv->kind == TF_PATH_FILE) {
        if (!resolve_file(af, pv, norm, sizeof norm) || tf_path_within(norm, af->anchor))
            return WHERE_INSIDE;
        show_abs(af->cfg, norm, shown, len);
        return WHERE_CLIMB;
    }
    if (pv->kind != TF_PATH_LITERAL)
        return WHERE_UNKNOWN;
    display(shown, len, pv->text, strlen(pv->text));
    if (tf_path_is_absolute(pv->text)) {
        if (pv->text[0] != '/' || !tf_path_normalise(pv->text, norm, sizeof norm))
            return WHERE_ABSOLUTE;
        return abs_in_tests(af->cfg, norm) || is_system_sink(norm) ? WHERE_INSIDE : WHERE_ABSOLUTE;
    }
    char rel[sizeof pv->text];
    strcpy(rel, pv->text);
    slashes(rel);
    if (!tf_path_normalise(rel, norm, sizeof norm))
        return WHERE_UNKNOWN;
    return tf_path_within(norm, af->cfg->tests_dir) ? WHERE_INSIDE : WHERE_RELATIVE;
}

void tf_audit_write(tf_audit_file *af, tf_pos pos, const char *op, const tf_pathval *target)
{
    char shown[160], norm[PATH_MAX], rel[sizeof target->text];
    tf_finding *f = NULL;
    switch (locate(af, target, shown, sizeof shown)) {
    case WHERE_INSIDE:
    case WHERE_UNKNOWN:
        return;
    case WHERE_ABSOLUTE:
        if ((f = add_finding(af, pos, TF_RULE_ABSOLUTE)))
            snprintf(f->message, sizeof f->message,
                     "%s writes to absolute path \"%s\" outside tests/", op, shown);
        return;
    case WHERE_CLIMB:
        if ((f = add_finding(af, pos, TF_RULE_CLIMB)))
            snprintf(f->message, sizeof f->message,
                     "%s writes to \"%s\": a path from __file__ that climbs out of tests/", op,
                     shown);
        return;
    case WHERE_RELATIVE:
        break;
    }
    strcpy(rel, target->text);
    slashes(rel);
    if (tf_path_normalise(rel, norm, sizeof norm) && !strchr(norm, '/') &&
        is_protected(af->cfg, norm)) {
        if ((f = add_finding(af, pos, TF_RULE_PROTECTED)))
            snprintf(f->message, sizeof f->message, "writes to protected root file \"%s\" (%s)",
                     shown, op);
        return;
    }
    if ((f = add_finding(af, pos, TF_RULE_RELATIVE)))
        snprintf(f->message, sizeof f->message, "%s writes to relative path \"%s\" outside tests/",
                 op, shown);
}

void tf_audit_temp(tf_audit_file *af, tf_pos pos, const char *func, tf_temp_kind kind, bool has_dir,
                   const tf_pathval *dir)
{
    char shown[160];
    tf_finding *f;
    if (kind == TF_TEMP_DIRNAME) {
        if ((f = add_finding(af, pos, TF_RULE_SYSTEMP)))
            snprintf(f->message, sizeof f->message,
                     "%s() returns the system temp directory; use tmp_path", func);
        return;
    }
    if (!has_dir) {
        if ((f = add_finding(af, pos, TF_RULE_SYSTEMP)))
            snprintf(f->message, sizeof f->message,
                     "%s() without dir= uses the system temp directory; pass dir=tmp_path", func);
        return;
    }
    where_t w = locate(af, dir, shown, sizeof shown);
    if (w != WHERE_INSIDE && w != WHERE_UNKNOWN && (f = add_finding(af, pos, TF_RULE_SYSTEMP)))
        snprintf(f->message, sizeof f->message, "%s(dir=\"%s\") creates it outside tests/", func,
                 shown);
}

/* Does TEXT name DIR as a whole path component sequence ("tests/artifacts/x",
 * "./tests/artifacts", "/abs/tests/artifacts/")? */
static bool mentions_dir(const char *text, const char *dir)
{
    size_t n = strlen(dir);
    for (const char *p = strstr(text, dir); p; p = strstr(p + 1, dir))
        if ((p == text || p[-1] == '/') && (p[n] == '\0' || p[n] == '/'))
            return true;
    return false;
}

void tf_audit_literal(tf_audit_file *af, tf_pos pos, const char *text, size_t len)
{
    char buf[512], shown[160];
    if (len >= sizeof buf || !af->cfg->artifacts_dir[0])
        return;
    memcpy(buf, text, len);
    buf[len] = '\0';
    slashes(buf);
    if (!mentions_dir(buf, af->cfg->artifacts_dir))
        return;
    display(shown, sizeof shown, text, len);
    tf_finding *f = add_finding(af, pos, TF_RULE_ARTIFACTS);
    if (f)
        snprintf(f->message, sizeof f->message,
                 "hard-coded \"%s\" path; use a fixture (tmp_path) or $TESTFENCE_WORKSPACE", shown);
}

void tf_audit_syntax_error(tf_audit_file *af, tf_pos pos, const char *near, size_t len)
{
    char shown[48];
    if (af->syntax_seen)
        return;
    af->syntax_seen = true;
    display(shown, sizeof shown, near, len > 20 ? 20 : len);
    tf_finding *f = add_finding(af, pos, TF_RULE_SYNTAX);
    if (f && shown[0])
        snprintf(f->message, sizeof f->message,
                 "syntax error near \"%s\"; the rest of the file is audited as far as it parses",
                 shown);
    else if (f)
        snprintf(f->message, sizeof f->message,
                 "syntax error; the rest of the file is audited as far as it parses");
}
