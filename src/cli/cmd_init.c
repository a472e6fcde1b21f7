/* testfence init: write a commented starter configuration, never touching what exists. */
#include "cmds.h"
#include "core/fileio.h"
#include "opts.h"
#include "core/path.h"
#include "core/project.h"
#include "toml/toml.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct opts_command command = {
    .name = "init",
    .cmd = CMD_INIT,
    .about = "usage: testfence init [OPTIONS]\n"
             "\n"
             "Write a commented starter configuration for the project: a [tool.testfence]\n"
             "table appended to pyproject.toml when there is one (the rest of the file is\n"
             "kept byte for byte), else a new testfence.toml. Refuses when the project is\n"
             "already configured.\n"
             "\n",
    .after = "exit status: 0 written (or printed); 125 usage error, error or already\n"
             "configured.\n",
    .operands = OPERANDS_NONE,
    .missing = NULL,
};

/* The starter text: the table header, the test directory twice, then the table prefix
 * ("tool.testfence." or "") four times. */
static const char starter[] =
    "# testfence: what tests may write (see docs/config.md). Only --config\n"
    "# overrides this; no environment variable is ever consulted.\n"
    "%s"
    "# Directories, relative to the project root, the tests may write beneath.\n"
    "writable = [\"%s\"]\n"
    "# Run workspaces and tool caches; must lie inside `writable`.\n"
    "artifacts = \"%s/artifacts\"\n"
    "# Files and directories outside `writable` a run may write: CI reports.\n"
    "# outputs = [\"report.xml\", \"htmlcov/\"]\n"
    "# How many run workspaces to keep.\n"
    "retain = 3\n"
    "# Your own files under `writable` a run may not change: \"tracked\" (what git\n"
    "# tracks there), \"existing\" (every file there before the run) or \"none\".\n"
    "# New files beside them stay writable; snapshot tools that rewrite them on\n"
    "# purpose need `testfence run --update-snapshots` (docs/run.md).\n"
    "# protect = \"tracked\"\n"
    "\n"
    "[%sworkspace.files]\n"
    "# Placeholder files created fresh in every run workspace: name = \"content\".\n"
    "# \"config.toml\" = \"\"\n"
    "\n"
    "[%senv]\n"
    "# Variables for the test command; {root} {workspace} {artifacts} {run_id} {tmp}\n"
    "# expand. Point your app's settings at the workspace copies:\n"
    "# MYAPP_CONFIG = \"{workspace}/config.toml\"\n"
    "\n"
    "[%spytest]\n"
    "cache_dir = true  # .pytest_cache under the artifacts dir\n"
    "\n"
    "[%saudit]\n"
    "# include = [\"tests\"]\n"
    "# exclude = []\n"
    "# protected = [\"config.toml\"]\n";

/* The project's test directory: tests/ when there is one, else the one it really has
 * (testing/, t/, a package's tests), else tests/ all the same. */
static void test_dir(const char *root, char *out, size_t len)
{
    char p[PATH_MAX];
    struct stat st;
    if (path_join(p, sizeof p, root, "tests", NULL) == 0 && stat(p, &st) == 0 &&
        S_ISDIR(st.st_mode))
        snprintf(out, len, "tests");
    else if (project_find_tests(root, out, len) < 0)
        snprintf(out, len, "tests");
}

static void render(char *out, size_t len, bool pyproject, const char *tests)
{
    const char *p = pyproject ? "tool.testfence." : "";
    snprintf(out, len, starter, pyproject ? "[tool.testfence]\n" : "", tests, tests, p, p, p, p);
}

/* Where the starter goes: a new testfence.toml, or appended to pyproject.toml. */
struct target {
    char path[PATH_MAX];
    bool pyproject;
    char *old; /* pyproject.toml's bytes, kept as they are */
    size_t oldlen;
};

static int choose_target(const char *root, struct target *t, tf_err *err)
{
    char cfg[PATH_MAX];
    if (path_join(cfg, sizeof cfg, root, "testfence.toml", err) < 0 ||
        path_join(t->path, sizeof t->path, root, "pyproject.toml", err) < 0)
        return -1;
    if (access(cfg, F_OK) == 0)
        return tf_errf(err, "%s already exists; edit it (see docs/config.md)", cfg);
    if (access(t->path, F_OK) != 0) {
        memcpy(t->path, cfg, sizeof cfg);
        return 0;
    }
    t->pyproject = true;
    toml_doc *doc;
    if (toml_parse_file(t->path, 0, &doc, err) < 0)
        return -1;
    bool has = toml_get(toml_root(doc), "tool.testfence") != NULL;
    toml_free(doc);
    if (has)
        return tf_errf(err, "%s already has a [tool.testfence] table; edit it there", t->path);
    return fileio_read_all(t->path, FILEIO_CONFIG_MAX, &t->old, &t->oldlen, err);
}

/* The new bytes of the target: the old ones untouched, then the starter table. */
static char *compose(const struct target *t, const char *root, size_t *len)
{
    char text[8192], tests[256];
    test_dir(root, tests, sizeof tests);
    render(text, sizeof text, t->pyproject, tests);
    const char *sep = !t->oldlen ? "" : t->old[t->oldlen - 1] == '\n' ? "\n" : "\n\n";
    size_t n = t->oldlen + strlen(sep) + strlen(text);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    if (t->oldlen)
        memcpy(out, t->old, t->oldlen);
    snprintf(out + t->oldlen, n + 1 - t->oldlen, "%s%s", sep, text);
    *len = n;
    return out;
}

/* The result must still be valid TOML with the table where we meant it (an
 * inline `tool = {...}` would make the appended header a redefinition). */
static int verify(const char *path, const char *data, size_t len, bool pyproject, tf_err *err)
{
    toml_doc *doc;
    tf_err why;
    if (toml_parse(path, data, len, 0, &doc, &why) < 0)
        return tf_errf(err,
                       "cannot append [tool.testfence] to %s without breaking it (%s); "
                       "add the table by hand",
                       path, why.msg);
    bool ok = !pyproject || toml_get(toml_root(doc), "tool.testfence") != NULL;
    toml_free(doc);
    return ok ? 0 : tf_errf(err, "appending to %s did not yield [tool.testfence]", path);
}

static int init(const struct opts *o, tf_err *err)
{
    char root[PATH_MAX];
    struct target t = {0};
    if (project_find_root(o->req.root, root, sizeof root, err) < 0) {
        if (o->req.root || !getcwd(root, sizeof root))
            return -1;
    }
    size_t len = 0;
    char *data = NULL;
    int rc = choose_target(root, &t, err);
    if (rc == 0 && !(data = compose(&t, root, &len)))
        rc = tf_errf(err, "out of memory");
    if (rc == 0)
        rc = verify(t.path, data, len, t.pyproject, err);
    if (rc == 0 && o->dry_run)
        printf("would %s %s:\n%s", t.pyproject ? "append to" : "create", t.path, data + t.oldlen);
    else if (rc == 0 && (rc = fileio_replace(t.path, data, len, !t.pyproject, err)) == 0)
        printf("%s %s\n", t.pyproject ? "added [tool.testfence] to" : "created", t.path);
    free(data);
    free(t.old);
    return rc;
}

int cmd_init(int argc, char **argv)
{
    struct opts o;
    tf_err err = {0};
    int r = opts_parse(argc, argv, &command, &o, &err);
    if (r == 0)
        r = init(&o, &err);
    if (r < 0)
        fprintf(stderr, "testfence: %s\n", err.msg);
    opts_free(&o);
    return r < 0 ? TF_EXIT_OWN_ERROR : 0;
}
