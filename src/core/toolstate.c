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

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static const struct {
    const char *components;
    const char *hint;
} by_component[] = {
    {".benchmarks", "pytest-benchmark's storage (--benchmark-autosave, --benchmark-save): point "
                    "--benchmark-storage under the writable set, or declare outputs = "
                    "[\".benchmarks/\"]."},
    {".nyc_output", "nyc's coverage data: nyc removes and remakes its temp dir at start, "
                    "which needs the directory above it writable; set its temp-dir inside the "
                    "writable set (.nycrc.json: {\"temp-dir\": \"tests/.nyc_output\"})."},
    {"node_modules/.cache", "a tool's cache in node_modules/.cache that ignores CACHE_DIR: "
                            "declare outputs = [\"node_modules/.cache/\"]."},
    {".npm", "npm's cache or logs: testfence points npm_config_cache into the artifacts dir; "
             "keep it (do not set npm_config_cache or --cache elsewhere)."},
    {"htmlcov", "a coverage HTML report: declare outputs = [\"htmlcov/\"] (or --output "
                "htmlcov/)."},
    {"Testing", "ctest's Testing/ directory: add the build directory's Testing to writable "
                "(see the ctest recipe in docs/run.md)."},
    {".tox", "tox's environments: run tox outside the fence, and the suite inside it "
             "(commands = testfence run -- pytest)."},
    {"Cargo.lock", "cargo writes Cargo.lock when it resolves dependencies: build first, "
                   "unfenced (cargo test --no-run), then fence cargo test."},
    {".git", "git writing the repository (a commit, a fetch, gc): run such git commands in a "
             "repository the test makes in its temp dir, not the project's."},
};

/* coverage.py's data file: .coverage, or .coverage.<host>.<pid>.<random> in parallel mode
 * (pytest-cov's, and each pytest-xdist worker's), and sqlite's -journal beside it. */
static bool coverage_data(const char *resolved)
{
    const char *slash = strrchr(resolved, '/');
    const char *base = slash ? slash + 1 : resolved;
    return !strcmp(base, ".coverage") || !strncmp(base, ".coverage.", 10);
}

const char *toolstate_hint(const char *resolved)
{
    if (coverage_data(resolved))
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
    if (!strncmp(base, "test-suite.log", 14) || ends_with(base, ".trs"))
        return "automake's test log: it is removed and renamed into place, which a declared "
               "file cannot allow; run make check TEST_SUITE_LOG=tests/test-suite.log (or "
               "from a build directory inside the writable set).";
    if (ends_with(base, ".log") && !strchr(resolved + strlen(root) + 1, '/'))
        return "a log at the root: declare it, outputs = [\"<the file>\"], or write it under "
               "the writable set.";
    if (ends_with(base, ".xml") || ends_with(base, ".json") || ends_with(base, ".lcov") ||
        ends_with(base, ".html") || ends_with(base, ".sarif"))
        return "a report file (--junitxml, --cov-report, ...): declare it, outputs = "
               "[\"<the file>\"] in the config or --output FILE, or write it under tests/.";
    return NULL;
}
