#include "suggest.h"

#include "hint.h"
#include "path.h"
#include "platform.h"
#include "toolstate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading report.json ---------------------------------------------------------- */

/* "NAME:LINE:COL: WHAT" at V (or at PARENT when V is missing). Returns -1. */
static int bad(const char *name, const struct json_value *v, const char *what, tf_err *err)
{
    return tf_errf(err, "%s:%u:%u: %s", name, v->line, v->col, what);
}

/* KEY of OBJ as a string or null (*OUT NULL); anything else is an error. Missing: NULL. */
static int opt_text(const char *name, const struct json_value *obj, const char *key,
                    const char **out, tf_err *err)
{
    const struct json_value *v = json_get(obj, key);
    *out = json_text(v);
    if (v && v->type != JSON_NULL && !*out) {
        char what[128];
        snprintf(what, sizeof what, "\"%s\" must be a string without NUL, or null", key);
        return bad(name, v, what, err);
    }
    return 0;
}

static int opt_whole(const char *name, const struct json_value *obj, const char *key,
                     long long *out, tf_err *err)
{
    const struct json_value *v = json_get(obj, key);
    *out = 0;
    if (v && v->type != JSON_NULL && !json_whole(v, 0, 1LL << 53, out)) {
        char what[128];
        snprintf(what, sizeof what, "\"%s\" must be a whole number", key);
        return bad(name, v, what, err);
    }
    return 0;
}

/* One object of a test's "writes". */
static int read_write(const char *name, const struct json_value *o, const char *test,
                      struct suggest_write *w, tf_err *err)
{
    if (o->type != JSON_OBJECT)
        return bad(name, o, "a write must be an object", err);
    w->test = test;
    if (opt_text(name, o, "op", &w->op, err) < 0 ||
        opt_text(name, o, "resolved", &w->resolved, err) < 0 ||
        opt_text(name, o, "exe", &w->exe, err) < 0 ||
        opt_text(name, o, "blocked_by", &w->blocked_by, err) < 0 ||
        opt_text(name, o, "src_file", &w->src_file, err) < 0 ||
        opt_text(name, o, "src_func", &w->src_func, err) < 0 ||
        opt_text(name, o, "test_file", &w->test_file, err) < 0 ||
        opt_whole(name, o, "count", &w->count, err) < 0 ||
        opt_whole(name, o, "src_line", &w->src_line, err) < 0 ||
        opt_whole(name, o, "test_line", &w->test_line, err) < 0)
        return -1;
    /* Normalised: testfence writes it so, and a "../" would make a config entry every later
     * run refuses (an output must not climb out of the root). */
    if (!w->op || !w->resolved || !platform_is_absolute(w->resolved) ||
        !path_is_normal(w->resolved))
        return bad(name, o, "a write needs \"op\" and an absolute, normalised \"resolved\"", err);
    return 0;
}

/* One entry of "tests": its writes appended to R. */
static int read_test(const char *name, const struct json_value *t, struct suggest_report *r,
                     tf_err *err)
{
    const char *test;
    if (t->type != JSON_OBJECT)
        return bad(name, t, "an entry of \"tests\" must be an object", err);
    if (opt_text(name, t, "test", &test, err) < 0)
        return -1;
    const struct json_value *ws = json_get(t, "writes");
    if (!ws || ws->type != JSON_ARRAY)
        return bad(name, ws ? ws : t, "a test needs \"writes\", an array", err);
    struct suggest_write *nv = realloc(r->w, (r->n + ws->len + 1) * sizeof *nv);
    if (!nv)
        return tf_errf(err, "out of memory");
    r->w = nv;
    for (size_t i = 0; i < ws->len; i++) {
        memset(&r->w[r->n], 0, sizeof r->w[r->n]);
        if (read_write(name, &ws->items[i], test, &r->w[r->n], err) < 0)
            return -1;
        r->n++;
    }
    return 0;
}

int suggest_read(const char *name, const struct json_value *doc, struct suggest_report *r,
                 tf_err *err)
{
    memset(r, 0, sizeof *r);
    if (doc->type != JSON_OBJECT)
        return bad(name, doc, "not a testfence report (an object was expected)", err);
    const char *schema = json_text(json_get(doc, "schema"));
    if (!schema || strcmp(schema, "testfence-report/1"))
        return bad(name, doc, "not a testfence report (\"schema\" is not \"testfence-report/1\")",
                   err);
    r->run_id = json_text(json_get(doc, "run_id"));
    r->root = json_text(json_get(doc, "root"));
    if (!r->root || !platform_is_absolute(r->root))
        return bad(name, doc, "the report needs \"root\", an absolute path", err);
    const struct json_value *tests = json_get(doc, "tests");
    if (!tests || tests->type != JSON_ARRAY)
        return bad(name, tests ? tests : doc, "the report needs \"tests\", an array", err);
    for (size_t i = 0; i < tests->len; i++)
        if (read_test(name, &tests->items[i], r, err) < 0) {
            suggest_report_free(r);
            return -1;
        }
    return 0;
}

void suggest_report_free(struct suggest_report *r)
{
    free(r->w);
    memset(r, 0, sizeof *r);
}

/* ---- the fix -------------------------------------------------------------------------- */

const char suggest_git_fixture[] =
    "# conftest.py: git config --global in a test writes a file of the test's own\n"
    "import pytest\n"
    "\n"
    "@pytest.fixture(autouse=True)\n"
    "def git_global_config(tmp_path, monkeypatch):\n"
    "    monkeypatch.setenv(\"GIT_CONFIG_GLOBAL\", str(tmp_path / \"gitconfig\"))";

/* A pytest node id or a module being collected, as hint.c tells them. */
static bool pytest_test(const char *test)
{
    size_t n = test ? strlen(test) : 0;
    return n && (strstr(test, "::") || (n > 3 && !strcmp(test + n - 3, ".py")));
}

/* git's global config (or its lock): ~/.gitconfig, $XDG_CONFIG_HOME/git/config. */
static bool git_global(const char *resolved, const char *exe)
{
    const char *b = path_base(resolved);
    if (!strcmp(b, ".gitconfig") || !strcmp(b, ".gitconfig.lock"))
        return true;
    bool git = exe && !strcmp(path_base(exe), "git");
    return git && (path_ends_with(resolved, "/git/config") ||
                   path_ends_with(resolved, "/git/config.lock"));
}

/* The config's [env] value of VAR, or NULL. */
static const char *config_env(const struct suggest_config *cfg, const char *var)
{
    for (size_t i = 0; i < cfg->nenv; i++)
        if (!strcmp(cfg->env_names[i], var))
            return cfg->env_values[i];
    return NULL;
}

static bool config_has_output(const struct suggest_config *cfg, const char *out)
{
    for (size_t i = 0; i < cfg->noutputs; i++)
        if (!strcmp(cfg->outputs[i], out))
            return true;
    return false;
}

static void set_env(struct suggest_fix *fix, const struct suggest_config *cfg, const char *var,
                    const char *value, const char *advice)
{
    const char *cur = config_env(cfg, var);
    fix->kind = SUGGEST_ENV;
    fix->var = var;
    snprintf(fix->value, sizeof fix->value, "%s", value);
    fix->in_config = cur && !strcmp(cur, value);
    fix->advice = advice;
}

/* A tool's state where the tool keeps it by default: the run redirects it, so the redirect
 * did not reach the tool. The config's own [env] may be what undid it. */
static bool tool_state(const struct suggest_write *w, const char *root, const char *home,
                       const struct suggest_config *cfg, struct suggest_fix *fix)
{
    const struct toolstate *t = toolstate_default_of(w->resolved, root, home);
    if (!t)
        return false;
    const char *cur = config_env(cfg, t->var);
    char value[PATH_MAX];
    snprintf(value, sizeof value, "{%s}/%s", t->base == TS_ARTIFACTS ? "artifacts" : "workspace",
             t->value);
    const char *tool = toolstate_hint(w->resolved);
    if (cur && strcmp(cur, value)) {
        set_env(fix, cfg, t->var, value,
                "the config's [env] points this tool's state outside the writable set: "
                "give it back the place testfence chose");
        return true;
    }
    fix->kind = SUGGEST_ADVICE;
    fix->advice = tool ? tool
                       : "a tool's state in its default place: testfence points the tool's "
                         "variable into the run, and the command reset or dropped it (env -i, "
                         "tox without passenv, a test's monkeypatch.delenv); keep the variable "
                         "testfence sets.";
    return true;
}

/* A tool's output the config may declare: a report file, a log at the root, an output
 * directory (htmlcov/). Only what the runner writes, not a test: a test writing junit.xml
 * wants its tmp_path. */
static bool tool_output(const struct suggest_write *w, const char *root,
                        const struct suggest_config *cfg, struct suggest_fix *fix)
{
    size_t rn = strlen(root);
    if (pytest_test(w->test) || !path_is_within(w->resolved, root) || !w->resolved[rn] ||
        toolstate_has_components(w->resolved, ".git"))
        return false;
    /* FROM: the path below the root, from its '/' (so no component above the root counts) */
    const char *from = rn > 1 ? w->resolved + rn : w->resolved, *rel = from + 1, *end = NULL;
    const char *b = path_base(rel);
    bool at_root = !strchr(rel, '/');
    if (toolstate_output_dir(from, &end))
        snprintf(fix->output, sizeof fix->output, "%.*s/", (int)(end - rel), rel);
    else if (toolstate_report_name(b) ||
             (at_root && path_ends_with(b, ".log") && strncmp(b, "test-suite.log", 14)))
        snprintf(fix->output, sizeof fix->output, "%s", rel);
    else
        return false;
    fix->kind = SUGGEST_OUTPUT;
    fix->in_config = config_has_output(cfg, fix->output);
    fix->advice = fix->in_config ? "already declared in the config (the run was before it was)."
                                 : "a report the runner writes: declare it an output";
    return true;
}

/* automake's test log, which a declared file cannot allow (hint.c's advice says why). */
static bool automake_log(const char *resolved)
{
    const char *b = path_base(resolved);
    return !strncmp(b, "test-suite.log", 14) || path_ends_with(b, ".trs");
}

/* Any other write: a tool's own advice when hint.c knows the tool; else the path is the user's,
 * and the test (or the command) is what changes. The runner's hint for a file in the project
 * says "add it to outputs": not for a file nobody knows is not the user's. */
static void other(const struct suggest_write *w, const char *root, const char *home,
                  struct suggest_fix *fix)
{
    bool tool =
        hint_known_tool(w->op, w->resolved) || (!pytest_test(w->test) && automake_log(w->resolved));
    fix->kind = tool ? SUGGEST_ADVICE : SUGGEST_TEST;
    fix->advice = hint_for(w->op, w->resolved, root, home, w->test);
    if (!tool && !pytest_test(w->test) && path_is_within(w->resolved, root))
        fix->advice = "if a test of the command writes it, make the test write under $TMPDIR (the "
                      "run's private temp dir) or the writable set; if the command itself does, "
                      "point it there.";
}

void suggest_fix(const struct suggest_write *w, const char *root, const char *home,
                 const struct suggest_config *cfg, struct suggest_fix *fix)
{
    memset(fix, 0, sizeof *fix);
    if (w->blocked_by && !strcmp(w->blocked_by, "protect")) {
        fix->kind = SUGGEST_ADVICE;
        fix->advice = hint_protected(w->exe, w->resolved, NULL); /* the report keeps no cmdline */
    } else if (!strcmp(w->op, "outlived")) {
        fix->kind = SUGGEST_ADVICE;
        fix->advice = "a process the command started was still running when it exited: stop "
                      "it in the test's teardown (or wait for it); testfence killed it.";
    } else if (git_global(w->resolved, w->exe)) {
        if (pytest_test(w->test)) {
            fix->kind = SUGGEST_GIT_GLOBAL;
            fix->advice = "git config --global writes your own ~/.gitconfig: give the test a "
                          "global config of its own, GIT_CONFIG_GLOBAL in a fixture (or HOME "
                          "= tmp_path), in conftest.py:";
        } else {
            set_env(fix, cfg, "GIT_CONFIG_GLOBAL", "{workspace}/gitconfig",
                    "git config --global run by the command writes your own ~/.gitconfig: "
                    "give the run a global config of its own");
        }
    } else if (!tool_state(w, root, home, cfg, fix) && !tool_output(w, root, cfg, fix)) {
        other(w, root, home, fix);
    }
}
