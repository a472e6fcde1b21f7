#include "hint.h"
#include "platform.h"

#include "colour.h"
#include "path.h"
#include "toolstate.h"
#include "vlog.h"

#include <stdio.h>
#include <string.h>

/* Is PATH in HOME/SUB (SUB "": in HOME)? HOME is taken without its trailing '/'s, as
 * path_is_within wants it; HOME "/" (a daemon's) is no home, or every path would be in it. */
static bool under_home(const char *path, const char *home, const char *sub)
{
    char dir[4096];
    if (!home || !platform_is_absolute(home))
        return false;
    size_t len = strlen(home);
    while (len > 1 && home[len - 1] == '/')
        len--;
    if (len == 1 || len >= sizeof dir)
        return false;
    int n = snprintf(dir, sizeof dir, "%.*s%s%s", (int)len, home, sub[0] ? "/" : "", sub);
    return n > 0 && (size_t)n < sizeof dir && path_is_within(path, dir);
}

/* A pytest node id ("tests/t.py::test_x") or a module being collected ("tests/t.py"). */
static bool is_pytest_test(const char *test)
{
    size_t n = test ? strlen(test) : 0;
    return n && (strstr(test, "::") || (n > 3 && !strcmp(test + n - 3, ".py")));
}

/* Hints for a pytest test: its tmp_path is the answer to most writes. */
static const char *pytest_hint(const char *resolved, const char *root, const char *home)
{
    if (under_home(resolved, home, ".cache"))
        return "a per-user cache in $HOME/.cache: this tool ignores XDG_CACHE_HOME (which "
               "points into the run workspace); set its own cache variable to a path under "
               "$TESTFENCE_WORKSPACE, or mock it in the test.";
    if (root && path_is_within(resolved, root))
        return "write under tmp_path or the run workspace ($TESTFENCE_WORKSPACE).";
    /* Before /tmp: a CI container's HOME is often under /tmp. */
    if (under_home(resolved, home, ""))
        return "a file in your home directory: point the code at tmp_path (monkeypatch HOME "
               "or the setting that names this file) instead of the real one; if the tests "
               "keep files in $HOME on purpose, give the run a home of its own: [env] HOME = "
               "\"{workspace}\" in the config.";
    if (path_is_within(resolved, "/tmp") || path_is_within(resolved, "/var/tmp"))
        return "a hard-coded /tmp path: use tmp_path or tempfile (TMPDIR points to the run's "
               "private temp dir) instead of naming /tmp.";
    return "write under tmp_path or the run workspace ($TESTFENCE_WORKSPACE); if this write "
           "is really needed, allow it with --allow PATH.";
}

/* Hints for any other runner (make check, ctest, npm test) or for the runner itself. */
static const char *command_hint(const char *resolved, const char *root, const char *home)
{
    if (root && path_is_within(resolved, root))
        return "the command writes inside the project: if that is its job (a build directory, "
               "a report), add the directory to writable or the file to outputs in the config; "
               "temp files belong in $TMPDIR (the run's private temp dir).";
    if (under_home(resolved, home, "")) /* before /tmp: a CI container's HOME may be there */
        return "a file in your home directory: point the tool's own setting (an environment "
               "variable, in the config's [env]) at a path under $TESTFENCE_WORKSPACE, or give "
               "the run a home of its own: [env] HOME = \"{workspace}\".";
    if (path_is_within(resolved, "/tmp") || path_is_within(resolved, "/var/tmp"))
        return "a hard-coded /tmp path: use $TMPDIR (the run's private temp dir), or name it "
               "with --allow PATH if it must be there.";
    return "if this write is really needed, allow it with --allow PATH or --output PATH.";
}

/* The calls that change mounts (or the root: chroot), as the guard names them in its records:
 * the guard's mount_calls, which no --allow lets through. */
static bool mount_op(const char *op)
{
    static const char *const ops[] = {
        "mount",         "umount2",        "pivot_root", "open_by_handle_at", "open_tree",
        "move_mount",    "fsopen",         "fsconfig",   "fsmount",           "fspick",
        "mount_setattr", "open_tree_attr", "chroot"};
    for (size_t i = 0; op && i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(op, ops[i]))
            return true;
    return false;
}

/* An unnamed temp file in the system's temp dir: the directory itself is what tmpfile() and
 * an O_TMPFILE open write (open()ing a directory any other way for writing fails EISDIR
 * before the fence is asked). Not a hard-coded path the user can change with TMPDIR. */
static const char *unnamed_hint(const char *op, const char *resolved)
{
    if (op && (!strcmp(op, "tmpfile") || !strcmp(op, "tmpfile64")))
        return "an unnamed temp file from tmpfile(), which ignores TMPDIR and always names /tmp: "
               "testfence's shim makes it in the run's private temp dir instead, and could not "
               "use that directory here (made unwritable, full, or gone: a test may empty "
               "$TMPDIR, not take it away); setting TMPDIR changes nothing for tmpfile().";
    bool open_op = op && (!strncmp(op, "open", 4) || !strncmp(op, "__open", 6));
    if (open_op && (!strcmp(resolved, "/tmp") || !strcmp(resolved, "/var/tmp")))
        return "an unnamed temp file (O_TMPFILE) made in /tmp (or /var/tmp) itself: nothing "
               "would be left there, but the program names that directory, not $TMPDIR (the "
               "run's private temp dir): make it honour TMPDIR, or call tmpfile(), which "
               "testfence makes in $TMPDIR; --allow /tmp would open all of /tmp to the run.";
    return NULL;
}

/* Bytecode written outside a __pycache__ directory (in one: quiet, no hint). */
static bool bytecode(const char *resolved)
{
    size_t n = strlen(resolved);
    return n > 4 && !strcmp(resolved + n - 4, ".pyc");
}

bool hint_known_tool(const char *op, const char *resolved)
{
    return mount_op(op) || unnamed_hint(op, resolved) || bytecode(resolved) ||
           toolstate_has_components(resolved, ".pytest_cache") || toolstate_hint(resolved);
}

const char *hint_for(const char *op, const char *resolved, const char *root, const char *home,
                     const char *test)
{
    if (mount_op(op))
        return "a test cannot change mounts, chroot or open files by handle under testfence: "
               "the mounts are the machine's, and no --allow lets it; run such a test in a VM "
               "or a container of its own.";
    const char *unnamed = unnamed_hint(op, resolved);
    if (unnamed)
        return unnamed;
    if (bytecode(resolved))
        return "Python bytecode outside a __pycache__ directory (py_compile, compileall): write "
               "it under tests/ or the run's temp dir, or set PYTHONDONTWRITEBYTECODE=1.";
    if (toolstate_has_components(resolved, ".pytest_cache"))
        return "pytest's cache: testfence passes -o cache_dir=tests/artifacts/.pytest_cache; "
               "do not override cache_dir outside tests/, or use -p no:cacheprovider.";
    bool pytest = is_pytest_test(test);
    /* A report written by the runner itself (pytest's --junitxml at the end) is outside
     * any test; a test writing report.json at the root wants its tmp_path. */
    const char *tool = toolstate_hint(resolved);
    if (!tool && !pytest)
        tool = toolstate_report_hint(resolved, root);
    if (tool)
        return tool;
    return pytest ? pytest_hint(resolved, root, home) : command_hint(resolved, root, home);
}

/* Does CMDLINE (argv joined with spaces) hold the word WORD, or a word starting WORD= ? */
static bool has_word(const char *cmdline, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = cmdline; p && (p = strstr(p, word)); p += n)
        if ((p == cmdline || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '='))
            return true;
    return false;
}

/* Does RESOLVED lie in a __snapshots__ directory and end with SUFFIX? */
static bool snapshot_file(const char *resolved, const char *suffix)
{
    size_t n = strlen(resolved), k = strlen(suffix);
    return strstr(resolved, "/__snapshots__/") && n > k && !strcmp(resolved + n - k, suffix);
}

/* The snapshot tools that rewrite the user's files on purpose, known by their switch on the
 * command line or where they keep their files: each hint names the tool and the switch. */
static const char *snapshot_hint(const char *resolved, const char *cmdline)
{
    if (has_word(cmdline, "--snapshot-update") || snapshot_file(resolved, ".ambr"))
        return "syrupy rewrote one of your snapshots (pytest --snapshot-update): to update "
               "snapshots on purpose, run testfence run --update-snapshots -- pytest "
               "--snapshot-update.";
    if (has_word(cmdline, "--force-regen") || has_word(cmdline, "--regen-all"))
        return "pytest-regressions regenerated one of your data files (--force-regen): to do it "
               "on purpose, run testfence run --update-snapshots -- pytest --force-regen.";
    if (has_word(cmdline, "--inline-snapshot"))
        return "inline-snapshot rewrote one of your test sources (--inline-snapshot=fix, "
               "create, update or trim): to do it on purpose, run testfence run "
               "--update-snapshots -- pytest --inline-snapshot=fix.";
    if (snapshot_file(resolved, ".snap") ||
        (strstr(cmdline, "jest") &&
         (has_word(cmdline, "-u") || has_word(cmdline, "--updateSnapshot"))))
        return "Jest wrote one of your snapshot files (jest -u, or a new snapshot in an existing "
               "file): to update snapshots on purpose, run testfence run --update-snapshots -- "
               "npx jest -u.";
    return NULL;
}

const char *hint_protected(const char *exe, const char *resolved, const char *cmdline)
{
    const char *b = path_base(exe);
    if (!strcmp(b, "git"))
        return "git (clean, checkout, reset, stash, rm) run by a test reached your own test "
               "files: a test that needs a repository makes one of its own under tmp_path "
               "(git init there), never in the project.";
    const char *tool = snapshot_hint(resolved ? resolved : "", cmdline ? cmdline : "");
    if (tool)
        return tool;
    return "this is one of your own test files (protect in the config): a test may create new "
           "files beside it, and write under tmp_path or $TESTFENCE_WORKSPACE, not change, "
           "truncate, rename or delete it, nor move or remove its directory. To rewrite "
           "snapshots or golden files on purpose, run with testfence run --update-snapshots.";
}

bool hint_protected_dir(const char *resolved)
{
    size_t n = resolved ? strlen(resolved) : 0;
    return n > 1 && resolved[n - 1] == '/';
}

/* The line for a protected file, or a directory on the way to some (its name ends with a
 * "/"): what was changed, by which program. */
static int protected_line(char *out, size_t len, const struct hint_who *who, const char *name,
                          const char *path, const char *at)
{
    char prog[256];
    vlog_printable(prog, sizeof prog, path_base(who->exe));
    return snprintf(out, len,
                    "TEST_SANDBOX_VIOLATION: %s attempted to %s %s, %s protected from the "
                    "run%s%s%s. How to fix: %s%s",
                    name, hint_protected_dir(path) ? "move or remove" : "change", path,
                    hint_protected_dir(path) ? "a directory holding test files" : "a test file",
                    who->test ? " (by " : "", who->test ? prog : "", who->test ? ")" : "",
                    hint_protected(who->exe, path, who->cmdline), at);
}

int hint_where(char *out, size_t len, const char *src_file, long src_line, const char *src_func,
               const char *test_file, long test_line)
{
    char file[300], func[100], test[300];
    bool src = src_file && src_file[0] && src_line > 0;
    bool tst = test_file && test_file[0] && test_line > 0;
    int n = 0;
    out[0] = '\0';
    if (src) {
        vlog_printable(file, sizeof file, src_file);
        vlog_printable(func, sizeof func, src_func ? src_func : "");
        n = snprintf(out, len, "%s:%ld%s%s", file, src_line, func[0] ? " in " : "", func);
    }
    if (n < 0 || (size_t)n >= len)
        return n < 0 ? 0 : (int)len - 1;
    if (tst && !(src && src_line == test_line && !strcmp(src_file, test_file))) {
        vlog_printable(test, sizeof test, test_file);
        int m =
            snprintf(out + n, len - (size_t)n, "%s%s:%ld", src ? ", from " : "", test, test_line);
        n += m < 0 ? 0 : m;
    }
    return (size_t)n < len ? n : (int)len - 1;
}

/* " (at WHERE)" for the violation line, "" when WHO says nowhere. */
static void where_suffix(char *out, size_t len, const struct hint_who *who)
{
    char where[800];
    if (hint_where(where, sizeof where, who->src_file, who->src_line, who->src_func, who->test_file,
                   who->test_line) > 0)
        snprintf(out, len, " (at %s)", where);
    else
        out[0] = '\0';
}

int hint_violation_line(char *out, size_t len, const struct hint_who *who, const char *resolved,
                        const char *fence, const char *root, const char *home)
{
    char name[700], path[1100], fence_shown[1100], at[820];
    if (who->test) {
        vlog_printable(name, sizeof name, who->test);
    } else {
        char printable[256];
        vlog_printable(printable, sizeof printable, path_base(who->exe ? who->exe : "?"));
        snprintf(name, sizeof name, "%s (pid %ld, outside any test)", printable, who->pid);
    }
    vlog_printable(path, sizeof path, resolved);
    where_suffix(at, sizeof at, who);
    if (who->protected)
        return protected_line(out, len, who, name, path, at);
    /* The fence names paths too (the writable set's), as untrusted as the target's. */
    vlog_printable(fence_shown, sizeof fence_shown, fence);
    return snprintf(out, len,
                    "TEST_SANDBOX_VIOLATION: %s attempted to write to %s which is outside %s. "
                    "How to fix: %s%s",
                    name, path, fence_shown, hint_for(who->op, resolved, root, home, who->test),
                    at);
}

int hint_paint(char *out, size_t len, const char *line)
{
    static const char tag[] = "TEST_SANDBOX_VIOLATION:", fix[] = " How to fix:";
    const char *f = strstr(line, fix);
    if (strncmp(line, tag, sizeof tag - 1) || !f)
        return snprintf(out, len, "%s", line);
    const char *mid = line + sizeof tag - 1;
    return snprintf(out, len, COLOUR_RED "%s" COLOUR_OFF "%.*s" COLOUR_CYAN "%s" COLOUR_OFF "%s",
                    tag, (int)(f - mid), mid, fix, f + sizeof fix - 1);
}
