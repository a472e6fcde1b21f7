/* cmd_audit: `testfence audit`, the static audit of test sources (see docs/audit.md). */
#include "audit/audit.h"
#include "audit/audit_cache.h"
#include "audit/audit_output.h"
#include "audit/audit_python.h"
#include "cmds.h"
#include "opts.h"
#include "core/config.h"
#include "core/fileio.h"
#include "core/outpath.h"
#include "core/path.h"
#include "core/platform.h"
#include "core/project.h"
#include "base/vec.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TESTFENCE_VERSION
#define TESTFENCE_VERSION "0.0.0"
#endif

/* The audit's statuses: findings as ruff and flake8 say them; a usage or I/O error as
 * every testfence command says it (125, TF_EXIT_OWN_ERROR; see testfence --help). */
enum { AUDIT_CLEAN = 0, AUDIT_FINDINGS = 1, AUDIT_USAGE = TF_EXIT_OWN_ERROR };

static const struct opts_command command = {
    .name = "audit",
    .cmd = CMD_AUDIT,
    .about =
        "usage: testfence audit [OPTIONS] [PATH...]\n"
        "\n"
        "Scan Python test sources for code that would write outside the project's tests/\n"
        "directory. PATH is a file or a directory (walked for *.py); default: <root>/tests.\n"
        "Only files a test runner collects (test_*.py, *_test.py, conftest.py) and the modules\n"
        "they import are judged; each finding is an error (a provable write into the project\n"
        "or HOME), a warning (a likely one) or style (only when selected). The configuration's\n"
        "[audit] include, exclude, protected, cwd, select, ignore and per-file-ignores apply.\n"
        "\n",
    .after = "rules: TF000 syntax error, TF101 protected root file, TF102 __file__ path climbing\n"
             "out of tests/, TF103 absolute path, TF104 fixed name in the system temp dir, TF106\n"
             "relative path outside tests/, TF107 Python started without the bytecode settings;\n"
             "style: TF105 tests/artifacts literal, TF201 prefer tmp_path. Suppress one line with\n"
             "'# testfence: ignore[TF101]' on it or on the line above, or '# noqa: TF101' on it;\n"
             "a whole file with '# testfence: noqa'.\n"
             "\n"
             "exit status: 0 no findings, or --exit-zero; 1 findings (not suppressed), as ruff\n"
             "and flake8 exit; 125 a usage, config or I/O error.\n",
    .operands = OPERANDS_ANY,
    .permute = true,
};

/* Names worth protecting in any project, beyond the files found at its root. */
static const char *const default_protected[] = {
    "config.toml",      "config.json",   "config.yaml",   "config.yml",  "config.ini",
    "settings.toml",    "settings.json", "settings.yaml", "settings.py", "credentials.toml",
    "credentials.json", "secrets.toml",  "secrets.json",  ".env",        ".envrc",
    "pyproject.toml",   "setup.cfg",     "setup.py",      "tox.ini",     "pytest.ini",
    "requirements.txt", "package.json",  "Makefile",      "README.md",   "LICENSE",
    "testfence.toml",
};

/* Every regular file at the root is the user's: configs, data, history. */
static int protect_root_files(struct opts *o, const char *root)
{
    DIR *d = opendir(root);
    if (!d)
        return 0; /* the defaults still apply; the scan reports real I/O errors */
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        char p[PATH_MAX];
        struct stat st;
        if (snprintf(p, sizeof p, "%s/%s", root, e->d_name) < (int)sizeof p && lstat(p, &st) == 0 &&
            S_ISREG(st.st_mode))
            rc = opts_protect_add(o, e->d_name);
    }
    closedir(d);
    return rc;
}

static int explain(const char *code)
{
    if (!strcasecmp(code, "all")) {
        for (int i = 0; i < TF_RULE_COUNT; i++) {
            tf_audit_print_rule(stdout, (tf_rule_id)i);
            fputs(i + 1 < TF_RULE_COUNT ? "\n" : "", stdout);
        }
        return AUDIT_CLEAN;
    }
    int id = tf_rule_find(code, strlen(code));
    if (id < 0) {
        fprintf(stderr, "testfence audit: --explain: unknown rule code '%s'\n", code);
        return AUDIT_USAGE;
    }
    tf_audit_print_rule(stdout, (tf_rule_id)id);
    return AUDIT_CLEAN;
}

/* The tests dir the rules protect against: the first writable dir of the config. */
static const char *tests_dir_of(const struct config *c)
{
    return c->writable.n ? c->writable.v[0] : "tests";
}

/* Everything the scan needs that comes from the project: root, config, paths. */
typedef struct audit_setup {
    char root[PATH_MAX];
    struct config conf;
    bool conf_loaded;
    char **paths, **excludes; /* owned */
    size_t n_paths, n_excludes;
    unsigned rules;                 /* --select/--ignore over [audit] select/ignore */
    tf_audit_file_ignore *per_file; /* [audit] per-file-ignores (globs point into conf) */
    size_t n_per_file;
} audit_setup;

static void free_setup(audit_setup *su)
{
    for (size_t i = 0; i < su->n_paths; i++)
        free(su->paths[i]);
    for (size_t i = 0; i < su->n_excludes; i++)
        free(su->excludes[i]);
    free(su->paths);
    free(su->excludes);
    free(su->per_file);
    if (su->conf_loaded)
        config_free(&su->conf);
}

/* A config path (relative to the root) as the user should see it: relative
 * when we run from the root, absolute otherwise. NORMALISE for comparisons. */
static char *root_path(const char *root, const char *rel, bool normalise)
{
    char cwd[PATH_MAX], joined[PATH_MAX * 2], norm[PATH_MAX];
    bool at_root = getcwd(cwd, sizeof cwd) && !strcmp(cwd, root);
    if (platform_is_absolute(rel) || (at_root && !normalise))
        snprintf(joined, sizeof joined, "%s", rel);
    else
        snprintf(joined, sizeof joined, "%s/%s", root, rel);
    if (!normalise)
        return strdup(joined);
    return tf_path_normalise(joined, norm, sizeof norm) ? strdup(norm) : NULL;
}

static int add_root_paths(char ***out, size_t *n, const char *root, const char *const *rel,
                          size_t n_rel, bool normalise)
{
    if (n_rel && !(*out = calloc(n_rel, sizeof **out)))
        return -1;
    for (; *n < n_rel; (*n)++)
        if (!((*out)[*n] = root_path(root, rel[*n], normalise)))
            return -1;
    return 0;
}

/* Scan targets: PATH operands, else [audit] include, else the tests dir, which must exist. */
static int scan_paths(audit_setup *su, const char *tests_dir)
{
    const struct config_list *inc = &su->conf.audit_include;
    const char *const def[1] = {tests_dir};
    if (add_root_paths(&su->paths, &su->n_paths, su->root,
                       inc->n ? (const char *const *)inc->v : def, inc->n ? inc->n : 1,
                       false) < 0) {
        fprintf(stderr, "testfence audit: out of memory\n");
        return -1;
    }
    struct stat st;
    if (inc->n || (stat(su->paths[0], &st) == 0 && S_ISDIR(st.st_mode)))
        return 0;
    fprintf(stderr,
            "testfence audit: no %s/ directory in %s; name the files or directories to "
            "audit\n",
            tests_dir, su->root);
    return -1;
}

/* A Python project that only has setup.py, setup.cfg or tox.ini at its root (no
 * pyproject.toml, no .git: an unpacked sdist) is still a project to the audit. */
static bool python_project_root(char *root, size_t len)
{
    static const char *const markers[] = {"setup.py", "setup.cfg", "tox.ini"};
    char dir[PATH_MAX];
    if (!getcwd(dir, sizeof dir))
        return false;
    for (;;) {
        for (size_t i = 0; i < sizeof markers / sizeof *markers; i++) {
            char probe[PATH_MAX + 16];
            struct stat st;
            snprintf(probe, sizeof probe, "%s/%s", dir, markers[i]);
            if (stat(probe, &st) == 0 && S_ISREG(st.st_mode))
                return snprintf(root, len, "%s", dir) < (int)len;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            return false;
        *slash = '\0';
    }
}

/* --output-file must not name a Python source (a slip of the keyboard would replace a test)
 * or a protected name at the root (config.toml, pyproject.toml...: the files the audit is
 * there to keep). Checked where the file really is, through links. O has the protected names
 * of the defaults, the config and --protect (not yet every root file: last run's report at
 * the root is replaced, as ruff replaces it). */
/* Does GIVEN pass through a symlink inside one of the project's writable dirs (WRITABLE, N,
 * relative to ROOT)? A test may have planted it there, pointing anywhere: audit runs
 * unfenced, and must follow no link a test could write. What cannot be told counts as one. */
static bool through_writable_link(const char *given, const char *root, char **writable, size_t n)
{
    char abs[PATH_MAX], cwd[PATH_MAX], dir[PATH_MAX];
    if (given[0] != '/' && !getcwd(cwd, sizeof cwd))
        return true;
    int len = given[0] == '/' ? snprintf(abs, sizeof abs, "%s", given)
                              : snprintf(abs, sizeof abs, "%s/%s", cwd, given);
    if (len < 0 || (size_t)len >= sizeof abs)
        return true;
    for (char *slash = abs + 1;; slash++) {
        bool end = !*slash;
        if (!end && *slash != '/')
            continue;
        char keep = *slash;
        *slash = '\0';
        for (size_t i = 0; i < n; i++) {
            struct stat st;
            if (snprintf(dir, sizeof dir, "%s/%s", root, writable[i]) < (int)sizeof dir &&
                path_is_within(abs, dir) && lstat(abs, &st) == 0 && S_ISLNK(st.st_mode))
                return true;
        }
        *slash = keep;
        if (end)
            return false;
    }
}

static int check_output_file(const struct opts *o, const audit_setup *su)
{
    const char *root = su->root;
    char real[PATH_MAX], dir[PATH_MAX], where[PATH_MAX * 2];
    const char *given = o->audit.output_file;
    if (!given)
        return 0;
    const char *base = strrchr(given, '/') ? strrchr(given, '/') + 1 : given;
    path_dirname(dir, sizeof dir, given);
    if (realpath(given, real))
        snprintf(where, sizeof where, "%s", real);
    else if (realpath(dir, real))
        snprintf(where, sizeof where, "%s/%s", strcmp(real, "/") ? real : "", base);
    else {
        fprintf(stderr, "testfence audit: --output-file %s: no directory %s\n", given, dir);
        return -1;
    }
    if (through_writable_link(given, root, su->conf.writable.v, su->conf.writable.n)) {
        fprintf(stderr,
                "testfence audit: --output-file %s: refusing to write through a symlink inside the "
                "writable set (a test could have planted it); name the file it points to\n",
                given);
        return -1;
    }
    const char *name = strrchr(where, '/') + 1;
    bool refused = outpath_python_source(name);
    bool at_root =
        (size_t)(name - where) == strlen(root) + 1 && !strncmp(where, root, name - where - 1);
    for (size_t i = 0; at_root && !refused && i < o->audit.n_protect; i++)
        refused = !strcmp(name, o->audit.protect[i]);
    if (refused)
        fprintf(stderr,
                "testfence audit: --output-file %s: refusing to replace %s (a Python source or a "
                "protected file at the root)\n",
                given, where);
    return refused ? -1 : 0;
}

/* The codes of K as a mask of rules; an unknown one is a config error, at its place. */
static int config_mask(const audit_setup *su, const struct config_codes *k, const char *key,
                       unsigned *mask)
{
    const char *table =
        strstr(su->conf.source, "[tool.testfence]") ? "tool.testfence.audit" : "audit";
    *mask = 0;
    for (size_t i = 0; i < k->codes.n; i++) {
        unsigned m;
        char bad[64];
        if (!tf_rule_parse_list(k->codes.v[i], &m, bad, sizeof bad) || !m) {
            fprintf(stderr, "testfence audit: %s: [%s] %s: unknown rule code \"%s\" (see --help)\n",
                    k->at[i], table, key, k->codes.v[i]);
            return -1;
        }
        *mask |= m;
    }
    return 0;
}

/* Which rules run, as ruff decides it: --select replaces the config's select and drops its
 * ignore; otherwise the config's select (else the default rules) minus its ignore; --ignore
 * always applies. Then the per-file ignores. */
static int rule_choice(const struct opts *o, audit_setup *su)
{
    unsigned select, ignore;
    const struct config *c = &su->conf;
    if (config_mask(su, &c->audit_select, "select", &select) < 0 ||
        config_mask(su, &c->audit_ignore, "ignore", &ignore) < 0)
        return -1;
    if (o->audit.select_given)
        su->rules = o->audit.select;
    else
        su->rules = (c->audit_select.set ? select : tf_rule_default_mask()) & ~ignore;
    su->rules &= ~o->audit.ignore;
    if (c->n_audit_per_file &&
        !(su->per_file = calloc(c->n_audit_per_file, sizeof *su->per_file))) {
        fprintf(stderr, "testfence audit: out of memory\n");
        return -1;
    }
    for (; su->n_per_file < c->n_audit_per_file; su->n_per_file++) {
        const struct config_file_ignore *e = &c->audit_per_file[su->n_per_file];
        char key[300];
        snprintf(key, sizeof key, "per-file-ignores \"%s\"", e->glob);
        su->per_file[su->n_per_file].glob = e->glob;
        if (config_mask(su, &e->codes, key, &su->per_file[su->n_per_file].rules) < 0)
            return -1;
    }
    return 0;
}

/* Root, config (--config, testfence.toml, [tool.testfence], defaults), protected names. */
static int setup(struct opts *o, audit_setup *su, bool need_paths)
{
    tf_err err = {0};
    if (project_find_root(o->req.root, su->root, sizeof su->root, &err) < 0 &&
        (o->req.root || !python_project_root(su->root, sizeof su->root))) {
        fprintf(stderr, "testfence audit: %s\n", err.msg);
        return -1;
    }
    su->conf_loaded = true; /* config_free also releases what a failed load allocated */
    if (config_load(&su->conf, su->root, o->req.config, &err) < 0) {
        fprintf(stderr, "testfence audit: %s\n", err.msg);
        return -1;
    }
    for (size_t i = 0; i < sizeof default_protected / sizeof *default_protected; i++)
        if (opts_protect_add(o, default_protected[i]) < 0)
            return -1;
    for (size_t i = 0; i < su->conf.audit_protected.n; i++)
        if (opts_protect_add(o, su->conf.audit_protected.v[i]) < 0)
            return -1;
    if (check_output_file(o, su) < 0 || rule_choice(o, su) < 0)
        return -1;
    if (protect_root_files(o, su->root) < 0 ||
        add_root_paths(&su->excludes, &su->n_excludes, su->root,
                       (const char *const *)su->conf.audit_exclude.v, su->conf.audit_exclude.n,
                       true) < 0) {
        fprintf(stderr, "testfence audit: out of memory\n");
        return -1;
    }
    return need_paths ? scan_paths(su, tests_dir_of(&su->conf)) : 0;
}

/* The report in the chosen format, for fileio_replace_with. */
typedef struct report_job {
    tf_audit_format format;
    const tf_audit_report *rep;
} report_job;

static int write_report(FILE *f, const void *ctx)
{
    const report_job *j = ctx;
    return tf_audit_print(f, j->format, j->rep);
}

/* The report to stdout, or to --output-file: written whole or not at all. */
static int print_report(const struct opts *o, const tf_audit_report *rep)
{
    tf_err err = {0};
    report_job job = {o->audit.format, rep};
    if (!o->audit.output_file) {
        if (tf_audit_print(stdout, o->audit.format, rep) == 0)
            return 0;
        fprintf(stderr, "testfence audit: cannot write the report\n");
        return -1;
    }
    if (fileio_replace_with(o->audit.output_file, write_report, &job, &err) == 0)
        return 0;
    fprintf(stderr, "testfence audit: --output-file: %s\n", err.msg);
    return -1;
}

static int scan_and_report(const struct opts *o, const tf_audit_cfg *cfg, char **paths,
                           size_t n_paths)
{
    tf_audit_result res = {0};
    tf_err err = {0};
    if (tf_audit_run(cfg, &tf_audit_python, paths, n_paths, o->audit.jobs, &res, &err) < 0) {
        fprintf(stderr, "testfence audit: %s\n", err.msg);
        tf_audit_result_free(&res);
        return AUDIT_USAGE;
    }
    tf_audit_report rep = {&res, cfg, TESTFENCE_VERSION,
                           o->audit.format == TF_AUDIT_TEXT && !o->audit.output_file &&
                               isatty(STDOUT_FILENO) && !getenv("NO_COLOR"),
                           o->audit.statistics};
    int rc = print_report(o, &rep);
    for (size_t i = 0; i < res.n_notes; i++)
        fprintf(stderr, "testfence audit: note: %s\n", res.notes[i]);
    for (size_t i = 0; i < res.n_errors; i++)
        fprintf(stderr, "testfence audit: cannot read %s\n", res.errors[i]);
    tf_audit_print_summary(stderr, &rep);
    bool findings = res.n_findings > res.n_suppressed && !o->audit.exit_zero;
    int status = rc < 0 || res.n_errors ? AUDIT_USAGE : findings ? AUDIT_FINDINGS : AUDIT_CLEAN;
    tf_audit_result_free(&res);
    return status;
}

/* Options that cannot go together. */
static int check_combinations(const struct opts *o)
{
    const char *why = NULL;
    if (o->audit.strict && o->audit.exit_zero)
        why = "--strict and --exit-zero contradict each other";
    else if (o->audit.statistics && o->audit.format != TF_AUDIT_TEXT &&
             o->audit.format != TF_AUDIT_JSON)
        why = "--statistics prints text or json only";
    if (why)
        fprintf(stderr, "testfence audit: %s\n", why);
    return why ? -1 : 0;
}

/* The cache directory to use, or NULL: --no-cache, none to be had, or one inside the project
 * (said on stderr when the user chose it). */
static const char *cache_dir(const struct opts *o, const char *root, char *buf, size_t len)
{
    char why[PATH_MAX + 64];
    if (o->audit.no_cache)
        return NULL;
    if (o->audit.cache_dir)
        snprintf(buf, len, "%s", o->audit.cache_dir);
    else if (!tf_cache_default_dir(buf, len))
        return NULL;
    if (tf_cache_usable(buf, root, why, sizeof why))
        return buf;
    if (o->audit.cache_dir)
        fprintf(stderr, "testfence audit: not using the cache: %s\n", why);
    return NULL;
}

int cmd_audit(int argc, char **argv)
{
    struct opts o;
    audit_setup su = {0};
    tf_err err = {0};
    int rc = opts_parse(argc, argv, &command, &o, &err);
    if (rc != 0 || o.audit.explain) {
        if (rc < 0)
            fprintf(stderr, "testfence audit: %s\n", err.msg);
        int status = rc > 0 ? AUDIT_CLEAN : rc < 0 ? AUDIT_USAGE : explain(o.audit.explain);
        opts_free(&o);
        return status;
    }
    if (check_combinations(&o) < 0) {
        opts_free(&o);
        return AUDIT_USAGE;
    }
    bool own = o.nargs > 0;
    for (int i = 0; i < o.nargs; i++) /* tests\\x.py on Windows */
        platform_separators(o.args[i]);
    if (setup(&o, &su, !own) < 0) {
        rc = AUDIT_USAGE;
    } else {
        char home[PATH_MAX], cache[PATH_MAX], h[PATH_MAX];
        bool have_home = platform_home(h, sizeof h) && tf_path_normalise(h, home, sizeof home);
        tf_audit_cfg cfg = {
            .root = su.root,
            .tests_dir = tests_dir_of(&su.conf),
            .artifacts_dir = su.conf.artifacts ? su.conf.artifacts : "tests/artifacts",
            .protected_names = (const char *const *)o.audit.protect,
            .n_protected = o.audit.n_protect,
            .rules = su.rules,
            .excludes = (const char *const *)su.excludes,
            .n_excludes = su.n_excludes,
            .cwd =
                o.audit.cwd_given || !su.conf.audit_cwd_temporary ? o.audit.cwd : TF_CWD_TEMPORARY,
            .home = have_home ? home : NULL,
            .cache_dir = cache_dir(&o, su.root, cache, sizeof cache),
            .per_file = su.per_file,
            .n_per_file = su.n_per_file,
        };
        rc = scan_and_report(&o, &cfg, own ? o.args : su.paths, own ? (size_t)o.nargs : su.n_paths);
    }
    free_setup(&su);
    opts_free(&o);
    return rc;
}
