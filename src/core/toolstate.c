#include "toolstate.h"

#include "path.h"

#include <stdbool.h>
#include <string.h>

/* Overridable: [env] is applied after the table, and a variable you already point
 * inside the writable set is kept (see plan.c). */
const struct toolstate toolstate_table[] = {
    {"Hypothesis", TS_REDIRECT, "HYPOTHESIS_STORAGE_DIRECTORY", TS_ARTIFACTS, ".hypothesis",
     "Hypothesis' example database (default ./.hypothesis)", NULL},
    {"coverage.py", TS_REDIRECT, "COVERAGE_FILE", TS_ARTIFACTS, ".coverage",
     "coverage.py data (default ./.coverage)", NULL},
    {"mypy", TS_REDIRECT, "MYPY_CACHE_DIR", TS_ARTIFACTS, ".mypy_cache",
     "mypy's cache (default ./.mypy_cache)", NULL},
    {"ruff", TS_REDIRECT, "RUFF_CACHE_DIR", TS_ARTIFACTS, ".ruff_cache",
     "ruff's cache (default ./.ruff_cache)", NULL},
    {"pre-commit", TS_REDIRECT, "PRE_COMMIT_HOME", TS_ARTIFACTS, ".pre-commit",
     "pre-commit's hook environments (default ~/.cache/pre-commit), kept across runs", NULL},
    {"npm", TS_REDIRECT, "npm_config_cache", TS_ARTIFACTS, ".npm",
     "npm's cache and its _logs (default ~/.npm), kept across runs", NULL},
    {"find-cache-dir", TS_REDIRECT, "CACHE_DIR", TS_ARTIFACTS, ".node-cache",
     "node_modules/.cache of nyc, babel and others that use find-cache-dir", NULL},
    {"pip", TS_REDIRECT, "PIP_CACHE_DIR", TS_WORKSPACE, "xdg/cache/pip",
     "pip's cache (default ~/.cache/pip)", NULL},
    {"matplotlib", TS_REDIRECT, "MPLCONFIGDIR", TS_WORKSPACE, "matplotlib",
     "matplotlib's font cache and config (default ~/.config/matplotlib)", NULL},
    {"IPython", TS_REDIRECT, "IPYTHONDIR", TS_WORKSPACE, "ipython",
     "IPython's profile and history database (default ~/.ipython)", NULL},
    {"XDG", TS_REDIRECT, "XDG_CACHE_HOME", TS_WORKSPACE, "xdg/cache", "per-user caches (~/.cache)",
     NULL},
    {"XDG", TS_REDIRECT, "XDG_DATA_HOME", TS_WORKSPACE, "xdg/data",
     "per-user data (~/.local/share; Jupyter's runtime files too)", NULL},
    {"XDG", TS_REDIRECT, "XDG_STATE_HOME", TS_WORKSPACE, "xdg/state",
     "per-user state (~/.local/state)", NULL},
    {"git", TS_SET, "GIT_OPTIONAL_LOCKS", TS_ROOT, "0",
     "git status and friends skip their optional index refresh", NULL},
    {"git", TS_QUIET, NULL, TS_GITDIR, "index.lock",
     "git describe --dirty, status and diff refresh the index when they can lock it, and go on "
     "when not (git commit taking the lock is reported)",
     "describe status diff"},
    {"pytest-benchmark", TS_QUIET, NULL, TS_ROOT, ".benchmarks/",
     "pytest-benchmark makes its storage at start-up and goes on without it", NULL},
    {"pytest-benchmark", TS_QUIET, NULL, TS_CWD, ".benchmarks/",
     "pytest-benchmark's storage is in the cwd, a subdirectory when pytest runs there", NULL},
    {"cargo", TS_QUIET, NULL, TS_CARGO_HOME, ".package-cache",
     "cargo locks its package cache even offline, and builds without the lock", NULL},
    {"cargo", TS_QUIET, NULL, TS_CARGO_HOME, ".package-cache-mutate",
     "cargo locks its package cache even offline, and builds without the lock", NULL},
    {"cargo", TS_QUIET, NULL, TS_CARGO_HOME, ".global-cache",
     "cargo records when it last used each package, and goes on when it cannot", NULL},
    {"Python REPL", TS_QUIET, NULL, TS_HOME, ".python_history",
     "an interactive python saves its history at exit and ignores a failure", NULL},
    {"blkid", TS_QUIET, NULL, TS_SYSTEM, "run/blkid/",
     "blkid (and lsblk, findmnt, udisks) caches what it probed and goes on without", NULL},
    {NULL, TS_SET, NULL, TS_ROOT, NULL, NULL, NULL},
};

bool toolstate_has_components(const char *path, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(path, name); p; p = strstr(p + 1, name))
        if (p > path && p[-1] == '/' && (p[n] == '/' || p[n] == '\0'))
            return true;
    return false;
}

/* OUTPUT: a directory the tool writes on purpose, which the config may declare an output. */
static const struct {
    const char *components;
    bool output;
    const char *hint;
} by_component[] = {
    {".benchmarks", true,
     "pytest-benchmark's storage (--benchmark-autosave, --benchmark-save): point "
     "--benchmark-storage under the writable set, or declare outputs = "
     "[\".benchmarks/\"]."},
    {".nyc_output", false,
     "nyc's coverage data: nyc removes and remakes its temp dir at start, "
     "which needs the directory above it writable; set its temp-dir inside the "
     "writable set (.nycrc.json: {\"temp-dir\": \"tests/.nyc_output\"})."},
    {"node_modules/.cache", true,
     "a tool's cache in node_modules/.cache that ignores CACHE_DIR: "
     "declare outputs = [\"node_modules/.cache/\"]."},
    {".npm", false,
     "npm's cache or logs: testfence points npm_config_cache into the artifacts dir; "
     "keep it (do not set npm_config_cache or --cache elsewhere)."},
    {"htmlcov", true,
     "a coverage HTML report: declare outputs = [\"htmlcov/\"] (or --output "
     "htmlcov/)."},
    {"Testing", false,
     "ctest's Testing/ directory: add the build directory's Testing to writable "
     "(see the ctest recipe in docs/run.md)."},
    {".tox", false,
     "tox's environments: run tox outside the fence, and the suite inside it "
     "(commands = testfence run -- pytest)."},
    {"Cargo.lock", false,
     "cargo writes Cargo.lock when it resolves dependencies: build first, "
     "unfenced (cargo test --no-run), then fence cargo test."},
    {".git", false,
     "git writing the repository (a commit, a fetch, gc): run such git commands in a "
     "repository the test makes in its temp dir, not the project's."},
};

/* coverage.py's data file: .coverage, or .coverage.<host>.<pid>.<random> in parallel mode
 * (pytest-cov's, and each pytest-xdist worker's), and sqlite's -journal beside it. */
bool toolstate_coverage_data(const char *resolved)
{
    const char *slash = strrchr(resolved, '/');
    const char *base = slash ? slash + 1 : resolved;
    return !strcmp(base, ".coverage") || !strncmp(base, ".coverage.", 10);
}

const char *toolstate_hint(const char *resolved)
{
    if (toolstate_coverage_data(resolved))
        return "coverage.py's data file: testfence points COVERAGE_FILE into the artifacts dir "
               "(read it with coverage report --data-file=tests/artifacts/.coverage); something "
               "named it here instead: [env] COVERAGE_FILE in the config, a data_file passed to "
               "coverage.Coverage(), or the plugin loaded after pytest-cov started (pytest_plugins "
               "in a conftest.py; load it with -p testfence). Leave COVERAGE_FILE to testfence, "
               "or point it under the writable set.";
    for (size_t i = 0; i < sizeof by_component / sizeof by_component[0]; i++)
        if (toolstate_has_components(resolved, by_component[i].components))
            return by_component[i].hint;
    return NULL;
}

const char *toolstate_report_hint(const char *resolved, const char *root)
{
    if (!root || !path_is_within(resolved, root) || !strcmp(resolved, root))
        return NULL;
    const char *base = strrchr(resolved, '/') + 1;
    if (!strncmp(base, "test-suite.log", 14) || path_ends_with(base, ".trs"))
        return "automake's test log: it is removed and renamed into place, which a declared "
               "file cannot allow; run make check TEST_SUITE_LOG=tests/test-suite.log (or "
               "from a build directory inside the writable set).";
    if (path_ends_with(base, ".log") && !strchr(resolved + strlen(root) + 1, '/'))
        return "a log at the root: declare it, outputs = [\"<the file>\"], or write it under "
               "the writable set.";
    if (path_ends_with(base, ".xml") || path_ends_with(base, ".json") ||
        path_ends_with(base, ".lcov") || path_ends_with(base, ".html") ||
        path_ends_with(base, ".sarif"))
        return "a report file (--junitxml, --cov-report, ...): declare it, outputs = "
               "[\"<the file>\"] in the config or --output FILE, or write it under tests/.";
    return NULL;
}

const char *toolstate_output_dir(const char *resolved, const char **end)
{
    for (size_t i = 0; i < sizeof by_component / sizeof by_component[0]; i++) {
        const char *c = by_component[i].components;
        size_t n = strlen(c);
        for (const char *p = strstr(resolved, c); by_component[i].output && p; p = strstr(p + 1, c))
            if (p > resolved && p[-1] == '/' && (p[n] == '/' || p[n] == '\0')) {
                *end = p + n;
                return c;
            }
    }
    return NULL;
}

/* Does S hold WORD (lower case), S's ASCII letters compared without case? */
static bool has_word(const char *s, const char *word)
{
    for (; *s; s++) {
        size_t i = 0;
        while (word[i] && (s[i] == word[i] || (s[i] >= 'A' && s[i] <= 'Z' && s[i] + 32 == word[i])))
            i++;
        if (!word[i])
            return true;
    }
    return false;
}

bool toolstate_report_name(const char *base)
{
    static const char *const xml[] = {"junit",     "report", "result",   "coverage",
                                      "cobertura", "pytest", "nosetests"};
    if (path_ends_with(base, ".sarif") || path_ends_with(base, ".lcov") ||
        !strcmp(base, "lcov.info"))
        return true;
    if (path_ends_with(base, ".xml")) {
        for (size_t i = 0; i < sizeof xml / sizeof xml[0]; i++)
            if (has_word(base, xml[i]))
                return true;
        return !strncmp(base, "TEST-", 5); /* Maven surefire's, and ant's */
    }
    if (path_ends_with(base, ".json"))
        return has_word(base, "report") || has_word(base, "coverage") || has_word(base, "result");
    return path_ends_with(base, ".html") &&
           (has_word(base, "report") || has_word(base, "coverage"));
}

/* Where the tools of the table's redirects keep their state when nothing redirects it: in the
 * project (TS_ROOT) or in the home directory (TS_HOME); the more specific place first. */
static const struct {
    const char *var;
    enum toolstate_base base;
    const char *path;
} defaults[] = {
    {"HYPOTHESIS_STORAGE_DIRECTORY", TS_ROOT, ".hypothesis"},
    {"MYPY_CACHE_DIR", TS_ROOT, ".mypy_cache"},
    {"RUFF_CACHE_DIR", TS_ROOT, ".ruff_cache"},
    {"PRE_COMMIT_HOME", TS_HOME, ".cache/pre-commit"},
    {"npm_config_cache", TS_HOME, ".npm"},
    {"PIP_CACHE_DIR", TS_HOME, ".cache/pip"},
    {"MPLCONFIGDIR", TS_HOME, ".config/matplotlib"},
    {"IPYTHONDIR", TS_HOME, ".ipython"},
    {"XDG_DATA_HOME", TS_HOME, ".local/share"},
    {"XDG_STATE_HOME", TS_HOME, ".local/state"},
};

static const struct toolstate *row_of(const char *var)
{
    for (const struct toolstate *t = toolstate_table; t->tool; t++)
        if (t->kind == TS_REDIRECT && !strcmp(t->var, var))
            return t;
    return NULL;
}

const struct toolstate *toolstate_default_of(const char *resolved, const char *root,
                                             const char *home)
{
    char dir[4096];
    if (root && path_is_within(resolved, root) && toolstate_coverage_data(resolved))
        return row_of("COVERAGE_FILE");
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        const char *base = defaults[i].base == TS_ROOT ? root : home;
        if (!base || !base[0] || !strcmp(base, "/"))
            continue;
        int n = snprintf(dir, sizeof dir, "%s/%s", base, defaults[i].path);
        if (n > 0 && (size_t)n < sizeof dir && path_is_within(resolved, dir))
            return row_of(defaults[i].var);
    }
    return NULL;
}
