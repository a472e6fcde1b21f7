/* cmd_audit: `testfence audit`, the static audit of test sources (see docs/audit.md). */
#include "audit/audit.h"
#include "audit/audit_cache.h"
#include "audit/audit_output.h"
#include "audit/audit_python.h"
#include "cmds.h"
#include "core/config.h"
#include "core/project.h"
#include "base/vec.h"

#include <dirent.h>
#include <getopt.h>
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

static const char usage_text[] =
    "usage: testfence audit [OPTIONS] [PATH...]\n"
    "\n"
    "Scan Python test sources for code that would write outside the project's tests/\n"
    "directory. PATH is a file or a directory (walked for *.py); default: <root>/tests.\n"
    "Only files a test runner collects (test_*.py, *_test.py, conftest.py) and the modules\n"
    "they import are judged; each finding is an error (a provable write into the project\n"
    "or HOME), a warning (a likely one) or style (only when selected).\n"
    "\n"
    "options:\n"
    "  --strict            exit 1 when there is any finding (CI gate)\n"
    "  --format text|json|sarif|github\n"
    "                      text (default), json, sarif (2.1.0) or github (annotations)\n"
    "  --select CODES      only these rules (comma list; prefixes like TF1 allowed); the\n"
    "                      style rules TF105 and TF201 run only when selected\n"
    "  --ignore CODES      never these rules\n"
    "  --cwd WHERE         the working directory the test runner gives tests: root (the\n"
    "                      default: pytest, unittest) or temporary (CPython's regrtest);\n"
    "                      [audit] cwd in the config says the same\n"
    "  --no-cache          scan every file (default: reuse facts cached by content hash in\n"
    "                      $XDG_CACHE_HOME/testfence/audit or ~/.cache/testfence/audit)\n"
    "  --cache-dir DIR     keep the cache in DIR (never inside the project)\n"
    "  --protect NAME      also protect root file NAME (repeatable)\n"
    "  --explain CODE      describe a rule, with an example and the fix\n"
    "  --jobs N, -j N      files scanned in parallel (default: CPUs, at most 8)\n"
    "  --root DIR          project root (default: nearest dir with testfence.toml,\n"
    "                      pyproject.toml or .git)\n"
    "  --config FILE       config file (default: <root>/testfence.toml, else\n"
    "                      [tool.testfence] in <root>/pyproject.toml); [audit] include,\n"
    "                      exclude, protected and cwd apply\n"
    "  -h, --help          print this help\n"
    "  -V, --version       print the version\n"
    "\n"
    "rules: TF000 syntax error, TF101 protected root file, TF102 __file__ path climbing\n"
    "out of tests/, TF103 absolute path, TF104 fixed name in the system temp dir, TF106\n"
    "relative path outside tests/, TF107 Python started without the bytecode settings;\n"
    "style: TF105 tests/artifacts literal, TF201 prefer tmp_path. Suppress one line with\n"
    "'# testfence: ignore[TF101]' on it or on the line above.\n"
    "\n"
    "exit status: 0 no findings or not --strict; 1 --strict and findings; 125 usage\n"
    "or I/O error.\n";

/* Names worth protecting in any project, beyond the files found at its root. */
static const char *const default_protected[] = {
    "config.toml",      "config.json",   "config.yaml",   "config.yml",  "config.ini",
    "settings.toml",    "settings.json", "settings.yaml", "settings.py", "credentials.toml",
    "credentials.json", "secrets.toml",  "secrets.json",  ".env",        ".envrc",
    "pyproject.toml",   "setup.cfg",     "setup.py",      "tox.ini",     "pytest.ini",
    "requirements.txt", "package.json",  "Makefile",      "README.md",   "LICENSE",
    "testfence.toml",
};

typedef struct audit_opts {
    bool strict, no_cache, cwd_given;
    tf_audit_format format;
    tf_audit_cwd cwd;
    unsigned select, ignore;
    const char *root, *config, *explain, *cache_dir;
    int jobs;
    char **protect;
    size_t n_protect, cap_protect;
} audit_opts;

static int add_name(audit_opts *o, const char *name)
{
    char **nv = vec_grow(o->protect, &o->cap_protect, o->n_protect, sizeof *nv);
    if (!nv)
        return -1;
    o->protect = nv;
    if (!(o->protect[o->n_protect] = strdup(name)))
        return -1;
    o->n_protect++;
    return 0;
}

static void free_opts(audit_opts *o)
{
    for (size_t i = 0; i < o->n_protect; i++)
        free(o->protect[i]);
    free(o->protect);
}

static int default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

static int parse_codes(const char *opt, const char *list, unsigned *mask)
{
    char bad[64];
    if (tf_rule_parse_list(list, mask, bad, sizeof bad) && *mask)
        return 0;
    fprintf(stderr, "testfence audit: %s: unknown rule code '%s' (see --help)\n", opt,
            *mask ? bad : list);
    return -1;
}

enum {
    O_STRICT = 256,
    O_FORMAT,
    O_SELECT,
    O_IGNORE,
    O_PROTECT,
    O_EXPLAIN,
    O_ROOT,
    O_CONFIG,
    O_HELP,
    O_VERSION,
    O_CWD,
    O_NO_CACHE,
    O_CACHE_DIR
};

static const struct option long_opts[] = {{"strict", no_argument, NULL, O_STRICT},
                                          {"format", required_argument, NULL, O_FORMAT},
                                          {"select", required_argument, NULL, O_SELECT},
                                          {"ignore", required_argument, NULL, O_IGNORE},
                                          {"protect", required_argument, NULL, O_PROTECT},
                                          {"explain", required_argument, NULL, O_EXPLAIN},
                                          {"jobs", required_argument, NULL, 'j'},
                                          {"root", required_argument, NULL, O_ROOT},
                                          {"config", required_argument, NULL, O_CONFIG},
                                          {"cwd", required_argument, NULL, O_CWD},
                                          {"no-cache", no_argument, NULL, O_NO_CACHE},
                                          {"cache-dir", required_argument, NULL, O_CACHE_DIR},
                                          {"help", no_argument, NULL, O_HELP},
                                          {"version", no_argument, NULL, O_VERSION},
                                          {NULL, 0, NULL, 0}};

/* Options whose value needs checking. */
static int apply_value(int c, const char *arg, audit_opts *o)
{
    char *end;
    switch (c) {
    case O_FORMAT:
        if (tf_audit_format_parse(arg, &o->format))
            return 0;
        fprintf(stderr, "testfence audit: --format must be text, json, sarif or github\n");
        return -1;
    case O_SELECT:
        return parse_codes("--select", arg, &o->select);
    case O_CWD:
        if (!strcmp(arg, "root") || !strcmp(arg, "temporary")) {
            o->cwd = arg[0] == 'r' ? TF_CWD_ROOT : TF_CWD_TEMPORARY;
            o->cwd_given = true;
            return 0;
        }
        fprintf(stderr, "testfence audit: --cwd must be root or temporary\n");
        return -1;
    case O_CACHE_DIR:
        if (arg[0] == '/')
            return o->cache_dir = arg, 0;
        fprintf(stderr, "testfence audit: --cache-dir takes an absolute path\n");
        return -1;
    case O_IGNORE:
        return parse_codes("--ignore", arg, &o->ignore);
    case O_PROTECT:
        if (!strchr(arg, '/') && arg[0] && add_name(o, arg) == 0)
            return 0;
        fprintf(stderr, "testfence audit: --protect takes a file name at the root\n");
        return -1;
    default: { /* 'j'; the range is checked before the cast: 2^32+1 must not become 1 */
        long jobs = strtol(arg, &end, 10);
        if (*arg && !*end && jobs >= 1 && jobs <= 64) {
            o->jobs = (int)jobs;
            return 0;
        }
        fprintf(stderr, "testfence audit: --jobs takes a number from 1 to 64\n");
        return -1;
    }
    }
}

/* Returns 0 to go on, 1 when answered (--help/--version), -1 on a usage error. */
static int apply_opt(int c, char **argv, audit_opts *o)
{
    switch (c) {
    case O_STRICT:
        o->strict = true;
        return 0;
    case O_EXPLAIN:
        o->explain = optarg;
        return 0;
    case O_ROOT:
        o->root = optarg;
        return 0;
    case O_CONFIG:
        o->config = optarg;
        return 0;
    case O_NO_CACHE:
        o->no_cache = true;
        return 0;
    case 'h':
    case O_HELP:
        fputs(usage_text, stdout);
        return 1;
    case 'V':
    case O_VERSION:
        printf("testfence %s\n", TESTFENCE_VERSION);
        return 1;
    case O_FORMAT:
    case O_SELECT:
    case O_IGNORE:
    case O_PROTECT:
    case O_CWD:
    case O_CACHE_DIR:
    case 'j':
        return apply_value(c, optarg, o);
    case ':':
        fprintf(stderr, "testfence audit: %s needs a value\n", argv[optind - 1]);
        return -1;
    default:
        fprintf(stderr, "testfence audit: unknown option '%s'; see --help\n", argv[optind - 1]);
        return -1;
    }
}

/* Options may come before, between or after the paths (GNU getopt permutes). */
static int parse_args(int argc, char **argv, audit_opts *o)
{
    int c, rc = 0;
    optind = 1;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, ":j:hV", long_opts, NULL)) != -1)
        rc = apply_opt(c, argv, o);
    return rc;
}

/* Every regular file at the root is the user's: configs, data, history. */
static int protect_root_files(audit_opts *o, const char *root)
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
            rc = add_name(o, e->d_name);
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
} audit_setup;

static void free_setup(audit_setup *su)
{
    for (size_t i = 0; i < su->n_paths; i++)
        free(su->paths[i]);
    for (size_t i = 0; i < su->n_excludes; i++)
        free(su->excludes[i]);
    free(su->paths);
    free(su->excludes);
    if (su->conf_loaded)
        config_free(&su->conf);
}

/* A config path (relative to the root) as the user should see it: relative
 * when we run from the root, absolute otherwise. NORMALISE for comparisons. */
static char *root_path(const char *root, const char *rel, bool normalise)
{
    char cwd[PATH_MAX], joined[PATH_MAX * 2], norm[PATH_MAX];
    bool at_root = getcwd(cwd, sizeof cwd) && !strcmp(cwd, root);
    if (rel[0] == '/' || (at_root && !normalise))
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

/* Root, config (--config, testfence.toml, [tool.testfence], defaults), protected names. */
static int setup(audit_opts *o, audit_setup *su, bool need_paths)
{
    tf_err err = {{0}};
    if (project_find_root(o->root, su->root, sizeof su->root, &err) < 0 &&
        (o->root || !python_project_root(su->root, sizeof su->root))) {
        fprintf(stderr, "testfence audit: %s\n", err.msg);
        return -1;
    }
    su->conf_loaded = true; /* config_free also releases what a failed load allocated */
    if (config_load(&su->conf, su->root, o->config, &err) < 0) {
        fprintf(stderr, "testfence audit: %s\n", err.msg);
        return -1;
    }
    for (size_t i = 0; i < sizeof default_protected / sizeof *default_protected; i++)
        if (add_name(o, default_protected[i]) < 0)
            return -1;
    for (size_t i = 0; i < su->conf.audit_protected.n; i++)
        if (add_name(o, su->conf.audit_protected.v[i]) < 0)
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

static int scan_and_report(const audit_opts *o, const tf_audit_cfg *cfg, char **paths,
                           size_t n_paths)
{
    tf_audit_result res = {0};
    tf_err err = {{0}};
    if (tf_audit_run(cfg, &tf_audit_python, paths, n_paths, o->jobs, &res, &err) < 0) {
        fprintf(stderr, "testfence audit: %s\n", err.msg);
        tf_audit_result_free(&res);
        return AUDIT_USAGE;
    }
    tf_audit_report rep = {&res, cfg, TESTFENCE_VERSION, o->strict,
                           o->format == TF_AUDIT_TEXT && isatty(STDOUT_FILENO) &&
                               !getenv("NO_COLOR")};
    int rc = tf_audit_print(stdout, o->format, &rep);
    for (size_t i = 0; i < res.n_notes; i++)
        fprintf(stderr, "testfence audit: note: %s\n", res.notes[i]);
    for (size_t i = 0; i < res.n_errors; i++)
        fprintf(stderr, "testfence audit: cannot read %s\n", res.errors[i]);
    tf_audit_print_summary(stderr, &rep);
    int status = rc < 0 || res.n_errors                           ? AUDIT_USAGE
                 : o->strict && res.n_findings > res.n_suppressed ? AUDIT_FINDINGS
                                                                  : AUDIT_CLEAN;
    if (rc < 0)
        fprintf(stderr, "testfence audit: cannot write the report\n");
    tf_audit_result_free(&res);
    return status;
}

/* The cache directory to use, or NULL: --no-cache, none to be had, or one inside the project
 * (said on stderr when the user chose it). */
static const char *cache_dir(const audit_opts *o, const char *root, char *buf, size_t len)
{
    char why[PATH_MAX + 64];
    if (o->no_cache)
        return NULL;
    if (o->cache_dir)
        snprintf(buf, len, "%s", o->cache_dir);
    else if (!tf_cache_default_dir(buf, len))
        return NULL;
    if (tf_cache_usable(buf, root, why, sizeof why))
        return buf;
    if (o->cache_dir)
        fprintf(stderr, "testfence audit: not using the cache: %s\n", why);
    return NULL;
}

int cmd_audit(int argc, char **argv)
{
    audit_opts o = {
        .format = TF_AUDIT_TEXT, .select = tf_rule_default_mask(), .jobs = default_jobs()};
    audit_setup su = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc != 0 || o.explain) {
        int status = rc > 0 ? AUDIT_CLEAN : rc < 0 ? AUDIT_USAGE : explain(o.explain);
        free_opts(&o);
        return status;
    }
    bool own = optind < argc;
    if (setup(&o, &su, !own) < 0) {
        rc = AUDIT_USAGE;
    } else {
        char home[PATH_MAX], cache[PATH_MAX];
        const char *h = getenv("HOME");
        bool have_home = h && h[0] == '/' && tf_path_normalise(h, home, sizeof home);
        tf_audit_cfg cfg = {
            .root = su.root,
            .tests_dir = tests_dir_of(&su.conf),
            .artifacts_dir = su.conf.artifacts ? su.conf.artifacts : "tests/artifacts",
            .protected_names = (const char *const *)o.protect,
            .n_protected = o.n_protect,
            .rules = o.select & ~o.ignore,
            .excludes = (const char *const *)su.excludes,
            .n_excludes = su.n_excludes,
            .cwd = o.cwd_given || !su.conf.audit_cwd_temporary ? o.cwd : TF_CWD_TEMPORARY,
            .home = have_home ? home : NULL,
            .cache_dir = cache_dir(&o, su.root, cache, sizeof cache),
        };
        rc = scan_and_report(&o, &cfg, own ? argv + optind : su.paths,
                             own ? (size_t)(argc - optind) : su.n_paths);
    }
    free_setup(&su);
    free_opts(&o);
    return rc;
}
