#include "config.h"
#include "platform.h"

#include "path.h"
#include "toml/toml.h"
#include "workspace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The keys each table accepts; anything else is a typo worth an error. */
static const char *const keys_top[] = {"writable",  "artifacts", "outputs", "retain",
                                       "workspace", "env",       "pytest",  "audit",
                                       "report",    "require",   "protect", NULL};
static const char *const keys_workspace[] = {"files", NULL};
static const char *const keys_pytest[] = {"basetemp", "cache_dir", NULL};
static const char *const keys_audit[] = {"include", "exclude", "protected",        "cwd",
                                         "select",  "ignore",  "per-file-ignores", NULL};
static const char *const keys_report[] = {"test_env", NULL};

/* Where the settings live in the document, for messages: "[tool.testfence]". */
struct scope {
    const toml_doc *doc;
    const char *prefix; /* "tool.testfence." or "" */
};

static unsigned edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 32 || lb > 32)
        return 99;
    unsigned d[33][33];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            unsigned sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            unsigned del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
    return d[la][lb];
}

/* WHERE names the table for people: "[tool.testfence.pytest]" or "the top level". */
static int check_keys(const struct scope *s, const toml_value *t, const char *where,
                      const char *const *allowed, tf_err *err)
{
    for (size_t i = 0; i < toml_table_len(t); i++) {
        const toml_key *k = toml_table_key(t, i);
        const char *best = NULL;
        unsigned best_d = 3;
        bool known = false;
        for (const char *const *a = allowed; *a; a++) {
            known |= strlen(*a) == k->len && !memcmp(*a, k->str, k->len);
            unsigned d = edit_distance(k->str, *a);
            if (d < best_d)
                best = *a, best_d = d;
        }
        if (known)
            continue;
        char hint[64] = "";
        if (best)
            snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", best);
        return toml_errf(s->doc, k->pos, err, "unknown key \"%s\" in %s%s", k->str, where, hint);
    }
    return 0;
}

static int copy_list(struct config_list *l, const char *const *v, size_t n, tf_err *err)
{
    char **nv = calloc(n + 1, sizeof *nv);
    if (!nv)
        return tf_errf(err, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (!(nv[i] = strdup(v[i]))) {
            for (size_t j = 0; j < i; j++)
                free(nv[j]);
            free(nv);
            return tf_errf(err, "out of memory");
        }
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = nv;
    l->n = n;
    return 0;
}

/* "FILE:LINE:COL" of V, for errors found later (a writable entry that does not exist). */
static char *where_of(const struct scope *s, const toml_value *v)
{
    char *w = NULL;
    toml_pos pos = toml_pos_of(v);
    if (asprintf(&w, "%s:%u:%u", toml_doc_name(s->doc), pos.line, pos.col) < 0)
        return NULL;
    return w;
}

static void free_where(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* A project-relative path: not empty, not absolute, not climbing out with "..". */
static int check_relative(const struct scope *s, const toml_value *v, const char *key,
                          const char *path, tf_err *err)
{
    const char *why = NULL;
    if (!path[0])
        why = "must not be empty";
    else if (platform_is_absolute(path))
        why = "must be relative to the project root";
    else if (!strcmp(path, "..") || !strncmp(path, "../", 3) || strstr(path, "/../") ||
             (strlen(path) >= 3 && !strcmp(path + strlen(path) - 3, "/..")))
        why = "must not climb out of the project root with \"..\"";
    if (!why)
        return 0;
    return toml_errf(s->doc, toml_pos_of(v), err, "%s%s \"%s\" %s", s->prefix, key, path, why);
}

/* outputs: files (and, with a trailing '/', directories) outside the writable set. */
static int load_outputs(struct config *c, const struct scope *s, const toml_value *t, tf_err *err)
{
    const char *const *list;
    size_t n;
    int r = toml_get_string_array(s->doc, t, "outputs", &list, &n, err);
    if (r <= 0)
        return r;
    const toml_value *arr = toml_get(t, "outputs");
    for (size_t i = 0; i < n; i++)
        if (check_relative(s, toml_array_at(arr, i), "outputs entry", list[i], err) < 0)
            return -1;
    return copy_list(&c->outputs, list, n, err);
}

/* artifacts follows the first writable entry unless it is set: a project whose tests
 * live in testing/ gets testing/artifacts. */
static int artifacts_default(struct config *c, tf_err *err)
{
    char buf[PATH_MAX];
    const char *w = c->writable.v[0];
    size_t n = strlen(w);
    while (n > 1 && w[n - 1] == '/')
        n--;
    if (snprintf(buf, sizeof buf, "%.*s/artifacts", (int)n, w) >= (int)sizeof buf)
        return tf_errf(err, "writable entry too long: %s", w);
    free(c->artifacts);
    return (c->artifacts = strdup(buf)) ? 0 : tf_errf(err, "out of memory");
}

static int load_paths(struct config *c, const struct scope *s, const toml_value *t, tf_err *err)
{
    const char *const *list;
    size_t n;
    if (load_outputs(c, s, t, err) < 0)
        return -1;
    int r = toml_get_string_array(s->doc, t, "writable", &list, &n, err);
    if (r < 0)
        return -1;
    if (r == 1) {
        const toml_value *arr = toml_get(t, "writable");
        if (n == 0)
            return toml_errf(s->doc, toml_pos_of(arr), err,
                             "%swritable must name at least one directory", s->prefix);
        for (size_t i = 0; i < n; i++)
            if (check_relative(s, toml_array_at(arr, i), "writable entry", list[i], err) < 0)
                return -1;
        char **at = calloc(n + 1, sizeof *at);
        for (size_t i = 0; at && i < n; i++)
            at[i] = where_of(s, toml_array_at(arr, i));
        free_where(c->writable_at, c->writable.n);
        c->writable_at = at;
        if (!at || copy_list(&c->writable, list, n, err) < 0)
            return tf_errf(err, "out of memory");
    }
    bool writable_set = r == 1;
    const char *art = NULL;
    if ((r = toml_get_string(s->doc, t, "artifacts", &art, err)) < 0)
        return -1;
    if (r == 0 && writable_set)
        return artifacts_default(c, err);
    if (r == 1) {
        if (check_relative(s, toml_get(t, "artifacts"), "artifacts", art, err) < 0)
            return -1;
        free(c->artifacts);
        free(c->artifacts_at);
        c->artifacts_at = where_of(s, toml_get(t, "artifacts"));
        if (!(c->artifacts = strdup(art)))
            return tf_errf(err, "out of memory");
    }
    return 0;
}

static int load_retain(struct config *c, const struct scope *s, const toml_value *t, tf_err *err)
{
    int64_t v = c->retain;
    int r = toml_get_int(s->doc, t, "retain", &v, err);
    if (r < 0)
        return -1;
    if (r == 1 && (v < 1 || v > 10000))
        return toml_errf(s->doc, toml_pos_of(toml_get(t, "retain")), err,
                         "%sretain must be from 1 to 10000, not %lld", s->prefix, (long long)v);
    c->retain = (unsigned)v;
    return 0;
}

/* require: layers the run must have, or refuse (125) rather than fall back. */
static int load_require(struct config *c, const struct scope *s, const toml_value *t, tf_err *err)
{
    const char *const *list;
    size_t n;
    int r = toml_get_string_array(s->doc, t, "require", &list, &n, err);
    for (size_t i = 0; r == 1 && i < n; i++) {
        if (strcmp(list[i], "namespace"))
            return toml_errf(s->doc, toml_pos_of(toml_array_at(toml_get(t, "require"), i)), err,
                             "%srequire: unknown layer \"%s\" (the one that can be required: "
                             "namespace)",
                             s->prefix, list[i]);
        c->require_namespace = true;
    }
    return r < 0 ? -1 : 0;
}

/* protect: which of the user's files under the writable set the run may not change. */
static int load_protect(struct config *c, const struct scope *s, const toml_value *t, tf_err *err)
{
    static const char *const names[] = {"none", "tracked", "existing"};
    const char *v = NULL;
    int r = toml_get_string(s->doc, t, "protect", &v, err);
    if (r != 1)
        return r < 0 ? -1 : 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(v, names[i])) {
            c->protect = (enum config_protect)i;
            return 0;
        }
    return toml_errf(s->doc, toml_pos_of(toml_get(t, "protect")), err,
                     "%sprotect must be \"tracked\", \"existing\" or \"none\", not \"%s\"",
                     s->prefix, v);
}

static bool is_env_name(const char *s)
{
    if (!s[0] || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
              (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

/* Why NAME cannot be a placeholder file in the run workspace, or NULL. */
static const char *bad_file_name(const char *name)
{
    if (!name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
        return "is not a file name";
    if (strchr(name, '/'))
        return "must be a plain file name, without '/'";
    for (const char *const *r = ws_reserved_names; *r; r++)
        if (!strcmp(name, *r))
            return "is a file testfence writes in the workspace itself; name the placeholder "
                   "otherwise";
    return NULL;
}

/* Why NAME cannot be set from [env], or NULL. */
static const char *bad_env_name(const char *name)
{
    if (!is_env_name(name))
        return "is not a valid environment variable name";
    if (!strncmp(name, "TESTFENCE_", 10) || !strcmp(name, "LD_PRELOAD"))
        return "is set by testfence itself";
    return NULL;
}

/* A table of string values, in document order: [workspace.files] or [env]. */
static int load_pairs(const struct scope *s, const toml_value *t, const char *table,
                      const char *(*bad_name)(const char *), struct config_pair **out, size_t *n,
                      tf_err *err)
{
    size_t len = toml_table_len(t);
    struct config_pair *v = calloc(len + 1, sizeof *v);
    if (!v)
        return tf_errf(err, "out of memory");
    *out = v;
    for (size_t i = 0; i < len; i++) {
        const toml_key *k = toml_table_key(t, i);
        const toml_value *val = toml_table_value(t, i);
        const char *why = strlen(k->str) != k->len ? "contains a NUL character" : bad_name(k->str);
        if (why)
            return toml_errf(s->doc, k->pos, err, "[%s%s] key \"%s\" %s", s->prefix, table, k->str,
                             why);
        size_t slen;
        const char *str = toml_string(val, &slen);
        if (toml_type_of(val) != TOML_STRING || strlen(str) != slen)
            return toml_errf(s->doc, toml_pos_of(val), err,
                             "[%s%s] \"%s\" must be a string, not %s", s->prefix, table, k->str,
                             toml_type_name(toml_type_of(val)));
        if (!(v[i].name = strdup(k->str)) || !(v[i].value = strdup(str)))
            return tf_errf(err, "out of memory");
        *n = i + 1;
    }
    return 0;
}

/* Sub-table NAME of T: absent is fine, anything but a table is not. */
static int subtable(const struct scope *s, const toml_value *t, const char *name,
                    const char *const *keys, const toml_value **out, tf_err *err)
{
    *out = NULL;
    int r = toml_get_table(s->doc, t, name, out, err);
    if (r <= 0)
        return r;
    char where[128];
    snprintf(where, sizeof where, "[%s%s]", s->prefix, name);
    return keys ? check_keys(s, *out, where, keys, err) : 0;
}

static int load_env(struct config *c, const struct scope *s, const toml_value *t, tf_err *err)
{
    const toml_value *env;
    if (subtable(s, t, "env", NULL, &env, err) < 0)
        return -1;
    if (!env || load_pairs(s, env, "env", bad_env_name, &c->env, &c->nenv, err) < 0)
        return env ? -1 : 0;
    /* Check every template now, so a typo stops the run before anything exists. */
    struct config_vars probe = {"r", "w", "a", "i", "t"};
    for (size_t i = 0; i < c->nenv; i++) {
        char buf[PATH_MAX];
        tf_err e;
        if (config_expand(c->env[i].value, &probe, buf, sizeof buf, &e) < 0)
            return toml_errf(s->doc, toml_pos_of(toml_table_value(env, i)), err, "[%senv] %s: %s",
                             s->prefix, c->env[i].name, e.msg);
    }
    return 0;
}

/* Letters, then digits: the shape of a rule code or a prefix of one ("TF101", "TF1", "TF"). */
static bool code_shaped(const char *s)
{
    size_t k = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
    return k && !s[k + strspn(s + k, "0123456789")];
}

/* The array of rule codes V (KEY names it in messages) into OUT, with where each one is. */
static int load_codes(const struct scope *s, const toml_value *v, const char *key,
                      struct config_codes *out, tf_err *err)
{
    if (toml_type_of(v) != TOML_ARRAY)
        return toml_errf(s->doc, toml_pos_of(v), err,
                         "[%saudit] %s must be an array of rule codes, not %s", s->prefix, key,
                         toml_type_name(toml_type_of(v)));
    size_t n = toml_array_len(v), len;
    const char **list = calloc(n + 1, sizeof *list);
    if (!list || !(out->at = calloc(n + 1, sizeof *out->at))) {
        free(list);
        return tf_errf(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const toml_value *e = toml_array_at(v, i);
        const char *str = toml_string(e, &len);
        const char *why = toml_type_of(e) != TOML_STRING ? toml_type_name(toml_type_of(e))
                          : strlen(str) != len || !code_shaped(str) ? ""
                                                                    : NULL;
        if (why) {
            free(list);
            if (why[0])
                return toml_errf(s->doc, toml_pos_of(e), err,
                                 "[%saudit] %s: a rule code is a string, not %s", s->prefix, key,
                                 why);
            return toml_errf(s->doc, toml_pos_of(e), err,
                             "[%saudit] %s: \"%s\" is not a rule code (like \"TF101\", or \"TF1\" "
                             "for every TF1..)",
                             s->prefix, key, str);
        }
        list[i] = str;
        if (!(out->at[i] = where_of(s, e))) {
            free(list);
            return tf_errf(err, "out of memory");
        }
    }
    int rc = copy_list(&out->codes, list, n, err);
    free(list);
    out->set = true;
    return rc;
}

/* A per-file-ignores glob: relative to the root, as every path in the config is. */
static const char *bad_glob(const char *g)
{
    g += g[0] == '!';
    if (!g[0])
        return "is empty";
    if (platform_is_absolute(g))
        return "must be relative to the project root";
    if (!strcmp(g, "..") || !strncmp(g, "../", 3) || strstr(g, "/../"))
        return "must not climb out of the project root with \"..\"";
    return NULL;
}

/* [audit] per-file-ignores = {"GLOB" = ["CODE", ...], ...} (or its own table). */
static int load_per_file(struct config *c, const struct scope *s, const toml_value *audit,
                         tf_err *err)
{
    const toml_value *t = toml_get(audit, "per-file-ignores");
    if (!t)
        return 0;
    if (toml_type_of(t) != TOML_TABLE)
        return toml_errf(s->doc, toml_pos_of(t), err,
                         "[%saudit] per-file-ignores must be a table of patterns and their rule "
                         "codes, not %s",
                         s->prefix, toml_type_name(toml_type_of(t)));
    size_t n = toml_table_len(t);
    if (!(c->audit_per_file = calloc(n + 1, sizeof *c->audit_per_file)))
        return tf_errf(err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const toml_key *k = toml_table_key(t, i);
        const char *why = strlen(k->str) != k->len ? "contains a NUL character" : bad_glob(k->str);
        if (why)
            return toml_errf(s->doc, k->pos, err, "[%saudit] per-file-ignores: pattern \"%s\" %s",
                             s->prefix, k->str, why);
        struct config_file_ignore *e = &c->audit_per_file[i];
        c->n_audit_per_file = i + 1;
        if (!(e->glob = strdup(k->str)))
            return tf_errf(err, "out of memory");
        char key[200];
        snprintf(key, sizeof key, "per-file-ignores \"%s\"", k->str);
        if (load_codes(s, toml_table_value(t, i), key, &e->codes, err) < 0)
            return -1;
    }
    return 0;
}

/* [audit] select, ignore, per-file-ignores: the rules, as ruff's settings of those names. */
static int load_rule_choice(struct config *c, const struct scope *s, const toml_value *audit,
                            tf_err *err)
{
    const toml_value *v;
    if ((v = toml_get(audit, "select")) && load_codes(s, v, "select", &c->audit_select, err) < 0)
        return -1;
    if (v && c->audit_select.codes.n == 0)
        return toml_errf(s->doc, toml_pos_of(v), err,
                         "[%saudit] select must name at least one rule code", s->prefix);
    if ((v = toml_get(audit, "ignore")) && load_codes(s, v, "ignore", &c->audit_ignore, err) < 0)
        return -1;
    return load_per_file(c, s, audit, err);
}

static int load_tables(struct config *c, const struct scope *s, const toml_value *t, tf_err *err)
{
    const toml_value *ws, *files = NULL, *py, *audit, *report;
    if (subtable(s, t, "workspace", keys_workspace, &ws, err) < 0 ||
        (ws && subtable(s, ws, "files", NULL, &files, err) < 0) ||
        (files &&
         load_pairs(s, files, "workspace.files", bad_file_name, &c->files, &c->nfiles, err) < 0) ||
        load_env(c, s, t, err) < 0 || subtable(s, t, "pytest", keys_pytest, &py, err) < 0 ||
        subtable(s, t, "audit", keys_audit, &audit, err) < 0 ||
        subtable(s, t, "report", keys_report, &report, err) < 0)
        return -1;
    if (py && (toml_get_bool(s->doc, py, "basetemp", &c->pytest_basetemp, err) < 0 ||
               toml_get_bool(s->doc, py, "cache_dir", &c->pytest_cache_dir, err) < 0))
        return -1;
    const char *const *l;
    size_t n;
    struct {
        const char *key;
        struct config_list *dst;
    } lists[] = {{"include", &c->audit_include},
                 {"exclude", &c->audit_exclude},
                 {"protected", &c->audit_protected}};
    for (size_t i = 0; audit && i < 3; i++) {
        int r = toml_get_string_array(s->doc, audit, lists[i].key, &l, &n, err);
        if (r < 0 || (r == 1 && copy_list(lists[i].dst, l, n, err) < 0))
            return -1;
    }
    const char *cwd = NULL;
    int rc = audit ? toml_get_string(s->doc, audit, "cwd", &cwd, err) : 0;
    if (rc < 0)
        return -1;
    if (rc == 1 && strcmp(cwd, "root") && strcmp(cwd, "temporary"))
        return toml_errf(s->doc, toml_pos_of(toml_get(audit, "cwd")), err,
                         "[%saudit] cwd must be \"root\" or \"temporary\", not \"%s\"", s->prefix,
                         cwd);
    c->audit_cwd_temporary = rc == 1 && !strcmp(cwd, "temporary");
    if (audit && load_rule_choice(c, s, audit, err) < 0)
        return -1;
    const char *te = NULL;
    int r = report ? toml_get_string(s->doc, report, "test_env", &te, err) : 0;
    if (r < 0)
        return -1;
    if (r == 1 && !is_env_name(te))
        return toml_errf(s->doc, toml_pos_of(toml_get(report, "test_env")), err,
                         "[%sreport] test_env \"%s\" is not a valid environment variable name",
                         s->prefix, te);
    if (r == 1 && (free(c->test_env), !(c->test_env = strdup(te))))
        return tf_errf(err, "out of memory");
    return 0;
}

static int load_table(struct config *c, const toml_doc *doc, const toml_value *t,
                      const char *prefix, tf_err *err)
{
    struct scope s = {doc, prefix};
    if (check_keys(&s, t, prefix[0] ? "[tool.testfence]" : "the top level", keys_top, err) < 0)
        return -1;
    return load_paths(c, &s, t, err) < 0 || load_retain(c, &s, t, err) < 0 ||
                   load_require(c, &s, t, err) < 0 || load_protect(c, &s, t, err) < 0 ||
                   load_tables(c, &s, t, err) < 0
               ? -1
               : 0;
}

static int set_defaults(struct config *c, tf_err *err)
{
    static const char *const tests[] = {"tests"};
    memset(c, 0, sizeof *c);
    snprintf(c->source, sizeof c->source, "built-in defaults");
    c->retain = 3;
    c->pytest_basetemp = true;
    c->pytest_cache_dir = true;
    if (copy_list(&c->writable, tests, 1, err) < 0 ||
        !(c->writable_at = calloc(2, sizeof(char *))) ||
        !(c->artifacts = strdup("tests/artifacts")) ||
        !(c->test_env = strdup("PYTEST_CURRENT_TEST")))
        return tf_errf(err, "out of memory");
    return 0;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool config_is_pyproject(const char *path)
{
    return !strcmp(path_base(path), "pyproject.toml");
}

/* Parse PATH; from a pyproject.toml take [tool.testfence] (absent: defaults). */
static int load_file(struct config *c, const char *path, tf_err *err)
{
    toml_doc *doc = NULL;
    snprintf(c->path, sizeof c->path, "%s", path);
    if (toml_parse_file(path, 0, &doc, err) < 0)
        return -1;
    const toml_value *t = toml_root(doc);
    const char *prefix = "";
    int rc = 0;
    if (config_is_pyproject(path)) {
        prefix = "tool.testfence.";
        rc = toml_get_table(doc, t, "tool.testfence", &t, err);
        if (rc == 0)
            snprintf(c->source, sizeof c->source, "built-in defaults (%s has no [tool.testfence])",
                     path);
    }
    if (rc == 1)
        snprintf(c->source, sizeof c->source, "%s [tool.testfence]", path);
    else if (rc == 0 && !prefix[0])
        snprintf(c->source, sizeof c->source, "%s", path);
    if (rc == 1 || (rc == 0 && !prefix[0]))
        rc = load_table(c, doc, t, prefix, err);
    toml_free(doc);
    return rc < 0 ? -1 : 0;
}

int config_load(struct config *c, const char *root, const char *opt_config, tf_err *err)
{
    char path[PATH_MAX];
    if (set_defaults(c, err) < 0)
        return -1;
    if (opt_config) {
        if (!is_file(opt_config))
            return tf_errf(err, "--config %s: %s", opt_config,
                           access(opt_config, F_OK) == 0 ? "not a regular file" : strerror(errno));
        return load_file(c, opt_config, err);
    }
    if (path_join(path, sizeof path, root, "testfence.toml", err) < 0)
        return -1;
    if (is_file(path))
        return load_file(c, path, err);
    if (path_join(path, sizeof path, root, "pyproject.toml", err) < 0)
        return -1;
    if (is_file(path))
        return load_file(c, path, err);
    return 0;
}

static const char *var_value(const struct config_vars *v, const char *name, size_t n)
{
    const struct {
        const char *name;
        const char *value;
    } t[] = {{"root", v->root},
             {"workspace", v->workspace},
             {"artifacts", v->artifacts},
             {"run_id", v->run_id},
             {"tmp", v->tmp}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strlen(t[i].name) == n && !strncmp(t[i].name, name, n))
            return t[i].value;
    return NULL;
}

int config_expand(const char *tpl, const struct config_vars *vars, char *out, size_t len,
                  tf_err *err)
{
    size_t k = 0;
    for (const char *p = tpl; *p;) {
        const char *piece = p;
        size_t n = 1;
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            p += 2;
        } else if (p[0] == '{') {
            const char *end = strchr(p, '}');
            if (!end)
                return tf_errf(err, "unclosed \"{\" in \"%s\" (write \"{{\" for a brace)", tpl);
            piece = var_value(vars, p + 1, (size_t)(end - p - 1));
            if (!piece)
                return tf_errf(err,
                               "unknown placeholder \"%.*s\" (known: {root} {workspace} "
                               "{artifacts} {run_id} {tmp})",
                               (int)(end - p + 1), p);
            n = strlen(piece);
            p = end + 1;
        } else if (p[0] == '}') {
            return tf_errf(err, "stray \"}\" in \"%s\" (write \"}}\" for a brace)", tpl);
        } else {
            p++;
        }
        if (k + n >= len)
            return tf_errf(err, "value too long after expansion: \"%s\"", tpl);
        memcpy(out + k, piece, n);
        k += n;
    }
    out[k] = '\0';
    return 0;
}

static void free_list(struct config_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static void free_pairs(struct config_pair *v, size_t n)
{
    for (size_t i = 0; v && i <= n; i++) {
        free(v[i].name);
        free(v[i].value);
    }
    free(v);
}

static void free_codes(struct config_codes *k)
{
    for (size_t i = 0; k->at && k->at[i]; i++) /* NULL-terminated: whole even after an error */
        free(k->at[i]);
    free(k->at);
    free_list(&k->codes);
}

void config_free(struct config *c)
{
    free_codes(&c->audit_select);
    free_codes(&c->audit_ignore);
    for (size_t i = 0; i < c->n_audit_per_file; i++) {
        free(c->audit_per_file[i].glob);
        free_codes(&c->audit_per_file[i].codes);
    }
    free(c->audit_per_file);
    free_where(c->writable_at, c->writable.n);
    free(c->artifacts_at);
    free_list(&c->writable);
    free_list(&c->outputs);
    free_list(&c->audit_include);
    free_list(&c->audit_exclude);
    free_list(&c->audit_protected);
    free_pairs(c->files, c->nfiles);
    free_pairs(c->env, c->nenv);
    free(c->artifacts);
    free(c->test_env);
    memset(c, 0, sizeof *c);
}

const char *config_protect_name(enum config_protect p)
{
    return p == CONFIG_PROTECT_TRACKED    ? "tracked"
           : p == CONFIG_PROTECT_EXISTING ? "existing"
                                          : "none";
}
