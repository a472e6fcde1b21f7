#include "audit_rules.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const tf_rule rules[TF_RULE_COUNT] = {
    [TF_RULE_SYNTAX] =
        {"TF000", "syntax-error", "file does not parse",
         "The file has a syntax error at the reported position. The audit still scans the "
         "parts of the file the parser could recover, but findings near the error may be missing.",
         "def test_x(:\n    pass",
         "Fix the syntax error, or exclude the file if it is deliberately invalid (a parser "
         "test fixture). A file that does not parse cannot be audited completely.",
         false},
    [TF_RULE_PROTECTED] =
        {"TF101", "write-protected-root-file", "writes to a protected root file by name",
         "The test writes to a file whose name is protected: a regular file at the project root "
         "or a common configuration/credentials name (config.toml, credentials.toml, .env, "
         "pyproject.toml, ...). Tests run with the project root as the working directory, so a "
         "bare name means the user's real file: a broken fixture or monkeypatch silently "
         "overwrites it. The path is followed through simple local data flow "
         "(p = Path(\"config.toml\"); p.write_text(...)).",
         "Path(\"config.toml\").write_text(\"x\")\n"
         "open(\"credentials.toml\", \"w\")\n"
         "shutil.copy(src, \"presets.toml\")\n"
         "json.dump(data, open(\"settings.json\", \"w\"))",
         "Write to a path under the test's own directory: pytest's tmp_path fixture "
         "(tmp_path / \"config.toml\"), or $TESTFENCE_WORKSPACE, and point the code under test "
         "at it (a --config argument or a monkeypatched path), never at the real file.",
         false},
    [TF_RULE_CLIMB] =
        {"TF102", "write-climbs-out-of-tests",
         "writes to a path derived from __file__ that climbs out of tests/",
         "The path is built from the test file's own location and climbs above the tests/ "
         "directory (parent.parent, os.path.dirname twice, \"..\"), then is written to. That "
         "lands in the project tree: sources, configs, the user's data.",
         "Path(__file__).parent.parent / \"config.toml\"\n"
         "os.path.join(os.path.dirname(__file__), \"..\", \"x\")",
         "Derive write targets from tmp_path or $TESTFENCE_WORKSPACE. Reading project files via "
         "__file__ is fine; writing them is not.",
         false},
    [TF_RULE_ABSOLUTE] =
        {"TF103", "write-absolute-path", "writes to an absolute path outside tests/",
         "The test writes to a hard-coded absolute path (/home/..., /tmp/..., ~/..., "
         "C:/projects/..., C:\\\\...). It depends on the machine it runs on and writes outside "
         "the project's tests/ directory, which the fence blocks.",
         "open(\"/home/me/project/config.toml\", \"w\")\n"
         "Path(\"C:/projects/app/settings.json\").write_text(\"{}\")",
         "Use tmp_path (or $TESTFENCE_WORKSPACE) and build the path from it.", false},
    [TF_RULE_SYSTEMP] =
        {"TF104", "fixed-name-in-system-temp", "writes a fixed name in the system temp directory",
         "The test writes a file or directory with a fixed name directly in the system temp "
         "directory (/tmp/app.log, os.path.join(tempfile.gettempdir(), \"cache\")). Every run, "
         "every parallel worker and every user on the machine shares that name: runs collide "
         "and a failed run leaves it behind for the next. The fence also refuses /tmp (it is "
         "outside tests/); gettempdir() is the run's own temp dir under testfence, but not "
         "under a plain pytest. A unique temp file (mkdtemp(), NamedTemporaryFile()) is not "
         "this rule's business: see TF201.",
         "open(\"/tmp/pip-test.txt\", \"w\")\n"
         "os.mkdir(os.path.join(tempfile.gettempdir(), \"dir\"))",
         "Use tmp_path (tmp_path / \"app.log\"), or a unique name (tempfile.mkdtemp()).", false},
    [TF_RULE_ARTIFACTS] =
        {"TF105", "hard-coded-artifacts-path", "hard-coded \"tests/artifacts/...\" path",
         "The artifacts directory belongs to the test runner: every run gets its own "
         "workspace there. A hard-coded tests/artifacts/ path is shared between runs and "
         "between parallel workers, and breaks when the artifacts directory is configured "
         "elsewhere. A style rule: it is inside tests/, so never a write outside it; off "
         "unless selected (--select TF105).",
         "Path(\"tests/artifacts/out.json\")\n"
         "ARTIFACTS = \"tests/artifacts/cache\"",
         "Use a fixture (tmp_path) or the run's workspace: "
         "Path(os.environ[\"TESTFENCE_WORKSPACE\"]) / \"out.json\".",
         true},
    [TF_RULE_RELATIVE] =
        {"TF106", "write-relative-path", "writes to a relative path outside tests/",
         "A write (open in a write mode, Path.write_text/touch/mkdir/unlink/rename, shutil, "
         "os.remove, a log file handler, an archive or database opened for writing, a shell "
         "redirection) to a relative path that is not under tests/. Relative paths resolve "
         "against the working directory the test has: the project root when the runner is "
         "started there (pytest, unittest), unless a fixture or a with block changed it "
         "(monkeypatch.chdir, pytester, change_cwd, as_cwd, an autouse fixture in a "
         "conftest.py). The message names where the write lands.",
         "open(\"output.log\", \"a\")\n"
         "Path(\"build/report.txt\").write_text(\"...\")\n"
         "logging.basicConfig(filename=\"test.log\")",
         "Write under tmp_path (tmp_path / \"output.log\") or $TESTFENCE_WORKSPACE, or change "
         "to tmp_path first (monkeypatch.chdir(tmp_path)).",
         false},
    [TF_RULE_PYCACHE] =
        {"TF107", "bytecode-written-next-to-sources",
         "starts Python without the bytecode settings, so it writes __pycache__ into the project",
         "The test removes PYTHONDONTWRITEBYTECODE or PYTHONPYCACHEPREFIX from an environment "
         "(env.pop(...), del env[...], monkeypatch.delenv(...)) and starts a Python "
         "subprocess with it. That Python writes __pycache__/ directories next to every module "
         "it imports: into the project's sources, outside tests/, where the settings the "
         "user or the CI chose kept the tree clean. Under testfence those writes are refused "
         "quietly (Python goes on without them); without it they land in the sources.",
         "env = dict(os.environ)\n"
         "env.pop(\"PYTHONDONTWRITEBYTECODE\", None)\n"
         "subprocess.run([sys.executable, \"-c\", \"import app\"], env=env)",
         "Keep the bytecode settings in the child's environment (remove only what the test "
         "is about), or pass -B to the child Python.",
         false},
    [TF_RULE_GITCONFIG] =
        {"TF108", "changes-git-configuration",
         "runs git config that changes the user's, the machine's or the project's git "
         "configuration",
         "The test (a subprocess, a pytest_configure hook, a session fixture, a script it "
         "runs) runs git config --global, --system, --add, --unset or --replace-all, or git "
         "config in the project's own directory. --global writes the user's ~/.gitconfig "
         "(or $XDG_CONFIG_HOME/git/config): every later commit on the machine carries the "
         "test's name and e-mail, or loses the user's settings. This is the most common way "
         "test suites changed their users' files in the incidents the audit is measured on. "
         "Pointing HOME at a temporary directory is not enough when XDG_CONFIG_HOME still "
         "names the real one: git writes there when it exists.",
         "subprocess.run([\"git\", \"config\", \"--global\", \"user.name\", \"Test\"])\n"
         "os.system(\"git config --global --unset user.email\")",
         "Give git its own configuration: monkeypatch.setenv(\"GIT_CONFIG_GLOBAL\", "
         "str(tmp_path / \"gitconfig\")) (and GIT_CONFIG_NOSYSTEM=1), or point both HOME and "
         "XDG_CONFIG_HOME at tmp_path; set the identity per repository (git -C repo config "
         "user.name ...) or through GIT_AUTHOR_NAME/GIT_COMMITTER_NAME.",
         false},
    [TF_RULE_SHELL] =
        {"TF109", "shell-changes-outside-tests",
         "a shell command or script the test runs deletes or writes outside tests/",
         "A shell command the test runs (bash -c, os.system, shell=True) or a script of the "
         "project it executes (./uninstall.sh, bash scripts/clean.sh) deletes with rm -r or "
         "find -delete a path that starts with a variable which may be empty or unset "
         "(rm -rf \"$PREFIX\"/* is rm -rf /* then), or deletes or writes a path outside "
         "tests/ (the project's files, the user's home). The script is read where the test "
         "runs it; the finding is reported at the test's call.",
         "subprocess.run([\"bash\", \"-c\", \"rm -rf $BUILD_DIR/*\"])\n"
         "subprocess.run([\"./uninstall.sh\"])   # uninstall.sh: rm -rf \"$PREFIX\"/lib/app",
         "Guard the variable (${PREFIX:?}, or [ -n \"$PREFIX\" ] || exit 1), give the script "
         "a directory under tmp_path to work in, and point HOME at tmp_path when it writes "
         "there.",
         false},
    [TF_RULE_DELETE] =
        {"TF110", "deletes-directory-not-created", "deletes a directory the test did not create",
         "The test deletes (shutil.rmtree, os.removedirs, rm -r) the project root, a directory "
         "that contains the test itself (a parent of __file__), or the working directory "
         "(os.getcwd(), Path.cwd(), or a name joined to it that may be empty). Those hold the "
         "project's sources and the user's uncommitted work; a test may delete only what it "
         "made.",
         "shutil.rmtree(Path(__file__).parent.parent)\n"
         "shutil.rmtree(os.path.join(os.getcwd(), name))",
         "Create what the test deletes under tmp_path and delete only that (pytest removes "
         "tmp_path itself).",
         false},
    [TF_RULE_TMP_PATH] =
        {"TF201", "prefer-tmp-path",
         "creates a unique temp file or dir in the system temp directory (prefer tmp_path)",
         "tempfile.mkdtemp/mkstemp/mktemp/NamedTemporaryFile/TemporaryDirectory/TemporaryFile/"
         "SpooledTemporaryFile without dir=. A unique temp file is safe (under testfence run "
         "it even lands in the run's own temp dir), but pytest's tmp_path is kept for failed "
         "runs and cleaned up for passing ones. A style rule: off unless selected "
         "(--select TF201).",
         "tempfile.mkdtemp()\n"
         "with tempfile.NamedTemporaryFile() as f: ...",
         "Use the tmp_path / tmp_path_factory fixtures, or pass dir=tmp_path.", true},
};

const tf_rule *tf_rule_get(tf_rule_id id)
{
    return &rules[id];
}

unsigned tf_rule_default_mask(void)
{
    unsigned mask = 0;
    for (int i = 0; i < TF_RULE_COUNT; i++)
        if (!rules[i].style)
            mask |= 1u << i;
    return mask;
}

int tf_rule_find(const char *code, unsigned long len)
{
    for (int i = 0; i < TF_RULE_COUNT; i++)
        if (strlen(rules[i].code) == len && !strncasecmp(rules[i].code, code, len))
            return i;
    return -1;
}

/* A token selects every code it is a prefix of, so "TF1" means all TF1xx rules. */
static unsigned prefix_mask(const char *tok, size_t len)
{
    unsigned mask = 0;
    for (int i = 0; i < TF_RULE_COUNT; i++)
        if (len <= strlen(rules[i].code) && !strncasecmp(rules[i].code, tok, len))
            mask |= 1u << i;
    return mask;
}

bool tf_rule_parse_list(const char *list, unsigned *mask, char *bad, unsigned long badlen)
{
    *mask = 0;
    const char *p = list;
    while (*p) {
        size_t skip = strspn(p, ", \t");
        p += skip;
        size_t len = strcspn(p, ", \t");
        if (!len)
            break;
        unsigned m = len >= 2 ? prefix_mask(p, len) : 0;
        if (!m) {
            snprintf(bad, badlen, "%.*s", (int)(len > 40 ? 40 : len), p);
            return false;
        }
        *mask |= m;
        p += len;
    }
    return true;
}
