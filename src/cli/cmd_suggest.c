/* testfence suggest: the smallest fix for each write a run's report.json lists, as a config
 * diff and per-test advice; --apply makes the config change (never a change to the code). */
#include "cmds.h"
#include "core/confedit.h"
#include "core/config.h"
#include "core/fileio.h"
#include "core/path.h"
#include "core/platform.h"
#include "core/plan.h"
#include "core/suggest.h"
#include "core/vlog.h"
#include "core/walk.h"
#include "core/workspace.h"
#include "opts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef environ /* macOS: src/macos/posix.h's */
extern char **environ;
#endif

static const struct opts_command command = {
    .name = "suggest",
    .cmd = CMD_SUGGEST,
    .about = "usage: testfence suggest [OPTIONS] [REPORT.json]\n"
             "\n"
             "Propose the smallest fix for each write a run blocked, from its report.json\n"
             "(default: the newest run's, in the artifacts dir; --run ID for another; or\n"
             "the file given). A report the runner writes (junit.xml, coverage.xml,\n"
             "htmlcov/, .benchmarks/) is declared an output; a tool's state the config\n"
             "sent outside the writable set goes back where testfence puts it ([env]);\n"
             "git config --global in a test gets GIT_CONFIG_GLOBAL in a fixture; any other\n"
             "file is yours, and the advice is to change the test (tmp_path), never the\n"
             "config. Printed: per test, each blocked write with where it was made (file:line\n"
             "when the report has it) and what to do; then the config change as a unified\n"
             "diff of testfence.toml or pyproject.toml's [tool.testfence] (git apply and\n"
             "patch -p1 take the output as it is). --apply makes that change: the rest of\n"
             "the file kept byte for byte, written whole or not at all, never through a\n"
             "symlink; applying twice changes nothing more. Code is never edited.\n"
             "\n",
    .after = "exit status: 0 nothing to suggest, or suggestions printed (and, with --apply,\n"
             "made); 125 usage error, no report, a report that is not valid JSON\n"
             "(FILE:LINE:COL) or not testfence's, or a config --apply cannot edit.\n",
    .operands = OPERANDS_ANY,
    .missing = NULL,
};

/* ---- finding and reading the report ------------------------------------------------------ */

/* When the file last changed, in nanoseconds where the OS keeps them: its status change time,
 * which no process can set (a test can give a report it planted any modification time, the
 * future's included; testfence writes a run's report after the run's processes are gone). */
static long long ctime_ns(const struct stat *st)
{
#if defined(__APPLE__)
    return (long long)st->st_ctimespec.tv_sec * 1000000000 + st->st_ctimespec.tv_nsec;
#elif defined(__linux__) && !defined(TESTFENCE_MACOS) /* the macOS set on Linux has neither */
    return (long long)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
#else
    return (long long)st->st_ctime * 1000000000;
#endif
}

/* When run NAME's report.json (in the artifacts dir AFD, named ARTIFACTS) was written, or -1:
 * no run workspace, or no report.json that is a regular file, reached without a link. */
static long long report_time(int afd, const char *artifacts, const char *name)
{
    tf_err scratch;
    struct stat st;
    int wsfd = walk_open_dir(afd, artifacts, name, 0, &scratch);
    bool ok = wsfd >= 0 && fstatat(wsfd, "report.json", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
              S_ISREG(st.st_mode);
    if (wsfd >= 0)
        close(wsfd);
    return ok ? ctime_ns(&st) : -1;
}

/* The run workspace in AFD whose report.json was written last, into BEST (not the greatest
 * run id: ids sort by the second a run started, two runs of one second by a random number,
 * and a test can make a workspace of any name). */
static int newest_run(int afd, const char *artifacts, char *best, size_t len, tf_err *err)
{
    long long best_time = -1;
    bool tie = false; /* two reports of one time: which is the real one cannot be told */
    struct dirlist *l = walk_list(afd);
    if (!l)
        return tf_errnof(err, errno, "cannot list %s", artifacts);
    for (const struct dirlist_entry *e; (e = dirlist_next(l));) {
        const char *n = e->name;
        if (strncmp(n, WS_PREFIX, strlen(WS_PREFIX)) || !ws_is_run_id(n + strlen(WS_PREFIX)) ||
            strlen(n) >= len)
            continue;
        long long t = report_time(afd, artifacts, n);
        if (t >= 0 && t == best_time)
            tie = true;
        if (t > best_time) {
            best_time = t;
            tie = false;
            snprintf(best, len, "%s", n);
        }
    }
    dirlist_close(l);
    if (best_time < 0)
        return tf_errf(err,
                       "no run's report.json in %s (run 'testfence run' first, or name a report)",
                       artifacts);
    if (tie)
        return tf_errf(err,
                       "two runs' report.json in %s were written at the same time: name the run "
                       "with --run ID",
                       artifacts);
    return 0;
}

/* The workspace of run ID (NULL: the newest) in AFD, opened without following a link. */
static int open_run(int afd, const char *artifacts, const char *id, char *name, size_t len,
                    tf_err *err)
{
    if (id && !ws_is_run_id(id))
        return tf_errf(err, "--run %s: not a run id (like 20261201T033417Z-0010155)", id);
    if (id)
        snprintf(name, len, "%s%s", WS_PREFIX, id);
    else if (newest_run(afd, artifacts, name, len, err) < 0)
        return -1;
    int wsfd = walk_open_dir(afd, artifacts, name, 0, err);
    if (wsfd < 0 && id && errno == ENOENT)
        return tf_errf(err, "--run %s: no such run in %s", id, artifacts);
    return wsfd;
}

/* The report's text: the operand's (the user's own choice, read as named), else from the
 * artifacts dir, opened from the writable set without following a link, the workspace of
 * --run's run or the newest, its report.json never through a symlink (a test may plant
 * one). SHOWN: where it was read. */
static int read_report(const struct opts *o, const struct plan *pl, char *shown, size_t len,
                       char *name, size_t name_len, char **text, size_t *n, tf_err *err)
{
    enum { MAX = 1 << 30 };
    char artifacts[PATH_MAX];
    name[0] = '\0';
    snprintf(shown, len, "%s", o->nargs == 1 ? o->args[0] : "");
    if (o->nargs == 1)
        return fileio_read_all(o->args[0], MAX, text, n, err);
    if (plan_artifacts(pl, artifacts, sizeof artifacts, err) < 0)
        return -1;
    int afd = plan_open_artifacts(pl, artifacts, false, err);
    if (afd < 0 && errno == ENOENT)
        return tf_errf(err, "no run to read: %s does not exist", artifacts);
    int wsfd = afd < 0 ? -1 : open_run(afd, artifacts, o->suggest_run, name, name_len, err);
    if (afd >= 0)
        close(afd);
    if (wsfd < 0)
        return -1;
    snprintf(shown, len, "%s/%s/report.json", artifacts, name);
    int rc = fileio_read_at(wsfd, "report.json", shown, MAX, text, n, err);
    close(wsfd);
    return rc;
}

/* The report's text parsed into *DOC and read into R. One read from the workspace NAME (""
 * for a report named on the command line) must be that run's: a test can write a
 * report.json into a workspace of any name. */
static int load_report(const char *path, const char *name, const char *text, size_t len,
                       struct json_value **doc, struct suggest_report *r, tf_err *err)
{
    const char *id = name + (name[0] ? strlen(WS_PREFIX) : 0);
    int rc = json_parse(path, text, len, doc, err);
    if (rc == 0 && (rc = suggest_read(path, *doc, r, err)) == 0 && name[0] &&
        (!r->run_id || strcmp(r->run_id, id)))
        rc = tf_errf(err,
                     "%s is not run %s's report (it says run %s): a test may have written it; "
                     "name the report to read it anyway",
                     path, id, r->run_id ? r->run_id : "(none)");
    if (rc < 0) {
        json_free(*doc);
        *doc = NULL;
    }
    return rc;
}

/* ---- the config the change goes to ---------------------------------------------------------- */

struct target {
    char path[PATH_MAX];
    const char *table; /* "" (testfence.toml, another --config) or "tool.testfence" */
    bool create;       /* no config file: a new testfence.toml */
    char from[PATH_MAX + 8], to[PATH_MAX + 8]; /* the diff's names */
};

/* The file config_load reads (or, with none, the testfence.toml to make), and the diff's names:
 * a/REL and b/REL inside the root, so patch -p1 there takes it. */
static int choose_target(const char *root, const struct config *cfg, struct target *t, tf_err *err)
{
    memset(t, 0, sizeof *t);
    /* The file the run reads its config from (config_load chose it); none: a new one. */
    t->create = !cfg->path[0];
    if (!t->create)
        snprintf(t->path, sizeof t->path, "%s", cfg->path);
    else if (path_join(t->path, sizeof t->path, root, "testfence.toml", err) < 0)
        return -1;
    t->table = config_is_pyproject(t->path) ? "tool.testfence" : "";
    size_t rn = strlen(root);
    bool inside = !strncmp(t->path, root, rn) && t->path[rn] == '/';
    const char *shown = inside ? t->path + rn + 1 : t->path;
    snprintf(t->from, sizeof t->from, "%s%s",
             t->create ? "/dev/null"
             : inside  ? "a/"
                       : "",
             t->create ? "" : shown);
    snprintf(t->to, sizeof t->to, "%s%s", inside ? "b/" : "", shown);
    return 0;
}

/* ---- the fixes --------------------------------------------------------------------------- */

struct fixes {
    struct suggest_config cfg;
    const char **cfg_names, **cfg_values; /* cfg's [env], owned */
    char **outputs, **env_values;         /* the change to make */
    const char **env_names;
    size_t noutputs, nenv;
    size_t tests_to_change, advice, in_config;
};

static bool listed(const char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return true;
    return false;
}

/* FIX's config change added to P (once). */
static void collect(struct fixes *p, const struct suggest_fix *fix)
{
    char *copy = NULL;
    if (fix->in_config) {
        p->in_config++;
    } else if (fix->kind == SUGGEST_OUTPUT &&
               !listed((const char *const *)p->outputs, p->noutputs, fix->output) &&
               (copy = strdup(fix->output))) {
        p->outputs[p->noutputs++] = copy;
    } else if (fix->kind == SUGGEST_ENV && !listed(p->env_names, p->nenv, fix->var) &&
               (copy = strdup(fix->value))) {
        p->env_names[p->nenv] = fix->var;
        p->env_values[p->nenv++] = copy;
    }
    p->tests_to_change += fix->kind == SUGGEST_TEST || fix->kind == SUGGEST_GIT_GLOBAL;
    p->advice += fix->kind == SUGGEST_ADVICE;
}

/* S for a terminal, printable whatever the report held. */
static const char *shown(const char *s, char *buf, size_t cap)
{
    vlog_printable(buf, cap, s ? s : "");
    return buf;
}

/* FILE as the user knows it: relative to ROOT when inside it (a report may name it absolute). */
static const char *in_project(const char *file, const char *root)
{
    size_t n = strlen(root);
    return !strncmp(file, root, n) && file[n] == '/' && file[n + 1] ? file + n + 1 : file;
}

/* Where W was made, when the report says, as run's summary says it: "at FILE:LINE in FUNC,
 * from TEST_FILE:TEST_LINE" (the test's line left out when it is the same). */
static void print_where(const struct suggest_write *w, const char *root)
{
    char a[600], b[300], c[600];
    bool src = w->src_file && w->src_line > 0, test = w->test_file && w->test_line > 0;
    if (src)
        shown(in_project(w->src_file, root), a, sizeof a);
    if (test)
        shown(in_project(w->test_file, root), c, sizeof c);
    if (src && test && w->src_line == w->test_line && !strcmp(a, c))
        test = false;
    if (src)
        printf("    at %s:%lld%s%s", a, w->src_line, w->src_func ? " in " : "",
               w->src_func ? shown(w->src_func, b, sizeof b) : "");
    if (test)
        printf("%s%s:%lld", src ? ", from " : "    from ", c, w->test_line);
    if (src || test)
        printf("\n");
}

static void print_fix(const struct suggest_fix *fix, const struct suggest_write *w)
{
    char q[PATH_MAX + 8];
    if (fix->kind == SUGGEST_OUTPUT && !fix->in_config)
        printf("    -> %s: outputs = [..., \"%s\"] (the change below)\n", fix->advice,
               shown(fix->output, q, sizeof q));
    else if (fix->kind == SUGGEST_ENV && !fix->in_config)
        printf("    -> %s: [env] %s = \"%s\" (the change below)\n", fix->advice, fix->var,
               fix->value);
    else if (fix->kind == SUGGEST_ENV)
        printf("    -> the config already sets [env] %s = \"%s\" (the run was before it did).\n",
               fix->var, fix->value);
    else if (fix->kind == SUGGEST_TEST)
        printf("    -> change the %s, not the config: %s is no file a known tool makes, so "
               "suggest will not let the run write it. %s\n",
               w->test ? "test" : "command", shown(w->resolved, q, sizeof q), fix->advice);
    else
        printf("    -> %s\n", fix->advice);
    if (fix->kind == SUGGEST_GIT_GLOBAL)
        for (const char *l = suggest_git_fixture; *l;) {
            const char *e = strchr(l, '\n');
            int n = e ? (int)(e - l) : (int)strlen(l);
            printf(n ? "         %.*s\n" : "\n", n, l);
            l += n + (e != NULL);
        }
}

/* Each write of R, grouped by test as the report has them, with its fix. */
static void print_advice(const struct suggest_report *r, const char *home, struct fixes *p)
{
    char t[700], q[PATH_MAX + 8];
    for (size_t i = 0; i < r->n; i++) {
        const struct suggest_write *w = &r->w[i];
        struct suggest_fix fix;
        if (i == 0 || w->test != r->w[i - 1].test)
            printf("\n%s\n", w->test ? shown(w->test, t, sizeof t) : "(outside any test)");
        printf("  %s %s", shown(w->op, t, sizeof t), shown(w->resolved, q, sizeof q));
        printf(w->count > 1 ? " (x%lld)\n" : "\n", w->count);
        print_where(w, r->root);
        suggest_fix(w, r->root, home, &p->cfg, &fix);
        print_fix(&fix, w);
        collect(p, &fix);
    }
}

/* ---- the change -------------------------------------------------------------------------- */

/* The config's text with the change made, into *NEW (the old text in *OLD). */
static int compose(const struct target *t, const struct fixes *p, char **old, size_t *oldlen,
                   char **new_, size_t *newlen, tf_err *err)
{
    struct confedit_change c = {(const char *const *)p->outputs, p->noutputs,
                                (const char *const *)p->env_names,
                                (const char *const *)p->env_values, p->nenv};
    *old = NULL;
    *oldlen = 0;
    if (!t->create && fileio_read_all(t->path, FILEIO_CONFIG_MAX, old, oldlen, err) < 0)
        return -1;
    if (t->create && !(*old = strdup("")))
        return tf_errf(err, "out of memory");
    if (confedit_apply(t->path, *old, *oldlen, t->table, &c, new_, newlen, err) < 0) {
        free(*old);
        return -1;
    }
    return 0;
}

/* Write NEW over the config: refused through a symlink (the link, or what it names, is not
 * the file the user reads as the config), written to a temp file and renamed. */
static int apply(const struct target *t, const char *new_, size_t newlen, tf_err *err)
{
    struct stat st;
    if (!t->create && lstat(t->path, &st) == 0 && !S_ISREG(st.st_mode))
        return tf_errf(err,
                       "%s is %s, not a regular file: not written; make the change above by "
                       "hand",
                       t->path, S_ISLNK(st.st_mode) ? "a symlink" : "special");
    return fileio_replace(t->path, new_, newlen, t->create, err);
}

static int change(const struct target *t, const struct fixes *p, bool do_apply, tf_err *err)
{
    char *old, *new_;
    size_t oldlen, newlen;
    if (compose(t, p, &old, &oldlen, &new_, &newlen, err) < 0)
        return -1;
    printf("\nthe config change%s:\n", do_apply ? "" : " (testfence suggest --apply makes it)");
    fflush(stdout);
    int rc = confedit_diff(stdout, t->from, t->to, old, oldlen, new_, newlen, err);
    if (rc == 0 && do_apply)
        rc = apply(t, new_, newlen, err);
    if (rc == 0 && do_apply)
        printf("testfence suggest: %s %s\n", t->create ? "created" : "changed", t->path);
    free(old);
    free(new_);
    return rc;
}

/* ---- the command ------------------------------------------------------------------------- */

static int fixes_init(struct fixes *p, const struct config *cfg, size_t nwrites, tf_err *err)
{
    memset(p, 0, sizeof *p);
    p->cfg.outputs = (const char *const *)cfg->outputs.v;
    p->cfg.noutputs = cfg->outputs.n;
    p->cfg.nenv = cfg->nenv;
    const char **names = p->cfg_names = calloc(cfg->nenv + 1, sizeof *names);
    const char **values = p->cfg_values = calloc(cfg->nenv + 1, sizeof *values);
    p->outputs = calloc(nwrites + 1, sizeof *p->outputs);
    p->env_names = calloc(nwrites + 1, sizeof *p->env_names);
    p->env_values = calloc(nwrites + 1, sizeof *p->env_values);
    for (size_t i = 0; names && values && i < cfg->nenv; i++) {
        names[i] = cfg->env[i].name;
        values[i] = cfg->env[i].value;
    }
    p->cfg.env_names = names;
    p->cfg.env_values = values;
    if (!names || !values || !p->outputs || !p->env_names || !p->env_values)
        return tf_errf(err, "out of memory");
    return 0;
}

static void fixes_free(struct fixes *p)
{
    for (size_t i = 0; p->outputs && i < p->noutputs; i++)
        free(p->outputs[i]);
    for (size_t i = 0; p->env_values && i < p->nenv; i++)
        free(p->env_values[i]);
    free(p->cfg_names);
    free(p->cfg_values);
    free(p->outputs);
    free(p->env_names);
    free(p->env_values);
}

static void print_summary(const struct suggest_report *r, const struct fixes *p)
{
    printf("\ntestfence suggest: %zu config change%s", p->noutputs + p->nenv,
           p->noutputs + p->nenv == 1 ? "" : "s");
    printf(", %zu write%s to fix in the tests or the command, %zu with a tool's own advice",
           p->tests_to_change, p->tests_to_change == 1 ? "" : "s", p->advice);
    printf(p->in_config ? ", %zu already in the config\n" : "\n", p->in_config);
    (void)r;
}

/* What suggest prints for the report R (read from PATH) of a run of the project ROOT, and the
 * config change it makes with --apply. */
static int answer(const struct opts *o, const char *path, const struct suggest_report *r,
                  const char *root, const struct target *t, struct fixes *p, tf_err *err)
{
    char id[100], shown_root[PATH_MAX], home[PATH_MAX];
    int rc = 0;
    printf("testfence suggest: %s (run %s): %zu distinct blocked write%s\n", path,
           shown(r->run_id ? r->run_id : "?", id, sizeof id), r->n, r->n == 1 ? "" : "s");
    if (strcmp(r->root, root))
        printf("testfence suggest: the report's root is %s, not %s: its paths are taken "
               "relative to its own\n",
               shown(r->root, shown_root, sizeof shown_root), root);
    if (!r->n)
        printf("nothing to suggest: the run blocked no write\n");
    print_advice(r, platform_home(home, sizeof home) ? home : NULL, p);
    if (p->noutputs + p->nenv)
        rc = change(t, p, o->apply, err);
    else if (r->n)
        printf("\nno config change to suggest%s\n",
               p->in_config ? ": the config already has what was missing" : "");
    if (rc == 0 && r->n)
        print_summary(r, p);
    return rc;
}

/* The project and its config as run would plan them (the artifacts dir must lie in the
 * writable set), the report, the file a change would go to; then the answer. */
static int suggest(const struct opts *o, tf_err *err)
{
    char path[PATH_MAX + 300], *text = NULL;
    size_t len = 0;
    struct plan pl;
    struct json_value *doc = NULL;
    struct suggest_report r = {0};
    struct target t;
    struct fixes p = {0};
    char name[256]; /* the run workspace the report was read from, "" for one named */
    if (o->nargs > 1)
        return tf_errf(err, "one report at most; see 'testfence suggest --help'");
    if (o->nargs == 1 && o->suggest_run)
        return tf_errf(err, "name a report or give --run, not both");
    int rc = plan_policy(&pl, &o->req, environ, err);
    if (rc == 0)
        rc = read_report(o, &pl, path, sizeof path, name, sizeof name, &text, &len, err);
    if (rc == 0)
        rc = load_report(path, name, text, len, &doc, &r, err);
    if (rc == 0)
        rc = choose_target(pl.root, &pl.cfg, &t, err);
    if (rc == 0)
        rc = fixes_init(&p, &pl.cfg, r.n, err);
    if (rc == 0)
        rc = answer(o, path, &r, pl.root, &t, &p, err);
    fixes_free(&p);
    suggest_report_free(&r);
    json_free(doc);
    free(text);
    plan_free(&pl);
    return rc;
}

int cmd_suggest(int argc, char **argv)
{
    struct opts o;
    tf_err err = {0};
    int r = opts_parse(argc, argv, &command, &o, &err);
    if (r == 0)
        r = suggest(&o, &err);
    fflush(stdout);
    if (r < 0)
        fprintf(stderr, "testfence: %s\n", err.msg);
    opts_free(&o);
    return r < 0 ? TF_EXIT_OWN_ERROR : 0;
}
