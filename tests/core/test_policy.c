/* Unit tests for src/core/policy.c: the writable set and its decisions. */
#include "check.h"
#include "core/path.h"
#include "core/policy.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[PATH_MAX];

static const char *at(const char *rel)
{
    static char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    return p;
}

static const char *origin_of(const struct policy *p, const char *rel)
{
    char resolved[PATH_MAX];
    tf_err err = {0};
    if (path_resolve(at(rel), resolved, sizeof resolved, &err) < 0)
        return "error";
    const struct policy_entry *e = policy_match(p, resolved);
    return e ? policy_origin_name(e->origin) : "blocked";
}

/* The one verdict, on the policy main builds (tests/ writable, .benchmarks quiet for all,
 * .git/index.lock quiet for git describe/status only). */
static void check_decide(const struct policy *p, const char *describe, size_t dlen,
                         const char *commit, size_t clen)
{
    struct path_res res = {.kind = PATH_FILE};
    struct policy_decision d;
    snprintf(res.path, sizeof res.path, "%s", at("project/tests/a.txt"));
    CHECK(policy_decide(p, &res, NULL, 0, &d) == POLICY_ALLOWED && d.entry && !d.quiet);
    snprintf(res.path, sizeof res.path, "%s", at("project/config.toml"));
    CHECK(policy_decide(p, &res, NULL, 0, &d) == POLICY_BLOCKED && !d.entry && !d.quiet);
    res.errnum = ENOENT; /* a missing directory on the way: the call fails anyway */
    CHECK(policy_decide(p, &res, NULL, 0, &d) == POLICY_NO_TARGET);
    res.errnum = 0;
    res.kind = PATH_NO_FILE; /* a pipe or a socket */
    CHECK(policy_decide(p, &res, NULL, 0, &d) == POLICY_NO_TARGET);
    res.kind = PATH_FILE;
    snprintf(res.path, sizeof res.path, "%s", at("project/.benchmarks/x"));
    CHECK(policy_decide(p, &res, NULL, 0, &d) == POLICY_QUIET && d.quiet);
    res.beneath = true; /* too deep to name: beneath .benchmarks/x, not .benchmarks/x itself */
    CHECK(policy_decide(p, &res, NULL, 0, &d) == POLICY_BLOCKED && !d.quiet);
    res.beneath = false;
    snprintf(res.path, sizeof res.path, "%s", at("project/.git/index.lock"));
    CHECK(policy_decide(p, &res, NULL, 0, &d) == POLICY_BLOCKED && d.quiet); /* who? unknown */
    CHECK(policy_decide(p, &res, describe, dlen, &d) == POLICY_QUIET && d.quiet);
    CHECK(policy_decide(p, &res, commit, clen, &d) == POLICY_BLOCKED && d.quiet);
    snprintf(res.path, sizeof res.path, "%s", at("project/pkg/__pycache__/m.cpython-311.pyc"));
    CHECK(policy_decide(p, &res, NULL, 0, &d) == POLICY_QUIET); /* bytecode, anywhere */
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s/tf-policy-XXXXXX", t ? t : "/tmp");
    if (!mkdtemp(buf) || !realpath(buf, base))
        return perror("mkdtemp"), 1;
    mkdir(at("project"), 0755);
    mkdir(at("project/tests"), 0755);
    mkdir(at("project/docs"), 0755);
    mkdir(at("elsewhere"), 0755);
    if (symlink("../elsewhere", at("project/escape")) < 0 ||
        symlink("../../config.toml", at("project/tests/link")) < 0)
        return perror("symlink"), 1;

    struct policy p;
    tf_err err = {0};
    CHECK(policy_init(&p, at("project"), &err) == 0);
    CHECK(policy_add(&p, "tests", POLICY_PROJECT, &err) == 0);
    CHECK(policy_add_system(&p, &err) == 0);

    CHECK_STR(origin_of(&p, "project/tests/a.txt"), "project");
    CHECK_STR(origin_of(&p, "project/tests/new/deeper/a.txt"), "project");
    CHECK_STR(origin_of(&p, "project/config.toml"), "blocked");
    CHECK_STR(origin_of(&p, "project/tests/../config.toml"), "blocked");
    CHECK_STR(origin_of(&p, "project/tests/link"), "blocked"); /* symlink out of tests */
    CHECK_STR(origin_of(&p, "project/testsuffix"), "blocked");
    CHECK(policy_match(&p, "/dev/null") != NULL);
    CHECK(policy_match(&p, "/dev/null2") == NULL);
    CHECK(policy_match(&p, "/dev/shm/x") != NULL);
    CHECK(policy_match(&p, "/etc/passwd") == NULL);

    /* A project entry may not leave the root, even through a symlink... */
    CHECK(policy_add(&p, "escape", POLICY_PROJECT, &err) < 0);
    CHECK(strstr(err.msg, "outside the project root") != NULL);
    CHECK(policy_add(&p, "/tmp", POLICY_PROJECT, &err) < 0);
    CHECK(policy_add(&p, "missing", POLICY_PROJECT, &err) < 0);
    CHECK(strstr(err.msg, "must exist") != NULL);
    /* ...while --allow may name anything that exists. */
    CHECK(policy_add(&p, at("elsewhere"), POLICY_ALLOW, &err) == 0);
    CHECK_STR(origin_of(&p, "elsewhere/x"), "--allow");
    CHECK_STR(origin_of(&p, "project/escape/x"), "--allow");
    CHECK(policy_add(&p, "docs", POLICY_PROJECT, &err) == 0);
    CHECK_STR(origin_of(&p, "project/docs/x"), "project");

    /* Declared outputs: a file alone, or a directory and what is beneath it. */
    CHECK(policy_add_output(&p, "report.xml", true, &err) == 0);
    CHECK(policy_add_output(&p, "htmlcov/", true, &err) == 0);
    CHECK_STR(origin_of(&p, "project/report.xml"), "output");
    CHECK_STR(origin_of(&p, "project/report.xml.tmp"), "blocked");
    CHECK_STR(origin_of(&p, "project/htmlcov/index.html"), "output");
    CHECK(policy_add_output(&p, "../outside.xml", true, &err) < 0);
    CHECK(strstr(err.msg, "not inside the project root") != NULL);
    CHECK(policy_add_output(&p, "escape/r.xml", true, &err) < 0); /* through a symlink */
    CHECK(policy_add_output(&p, "tests", true, &err) < 0);        /* a directory as a file */
    CHECK(strstr(err.msg, "write \"tests/\" to declare a directory") != NULL);
    /* ...but never through a link in the writable set, which a test may have planted. */
    char up[PATH_MAX];
    snprintf(up, sizeof up, "%s", at(""));
    CHECK(symlink(up, at("project/docs/up")) == 0);
    CHECK(policy_add_output(&p, at("project/docs/up/r.xml"), false, &err) < 0);
    CHECK(strstr(err.msg, "goes through the symlink") != NULL);
    /* What the parent decides before the command is never led by such a link either. */
    char out[PATH_MAX];
    int dirfd = -2;
    CHECK(policy_resolve_fixed(&p, at("project/docs/up/project/config.toml"), out, sizeof out,
                               &dirfd, &err) < 0);
    CHECK(strstr(err.msg, "docs/up is a symlink inside the writable set") != NULL);
    CHECK(dirfd == -1);
    CHECK(policy_resolve_fixed(&p, at("project/escape"), out, sizeof out, &dirfd, &err) == 0);
    CHECK_STR(out, at("elsewhere")); /* a link outside the set: the user's, followed */
    CHECK(dirfd >= 0);               /* a directory, handed back open */
    if (dirfd >= 0)
        close(dirfd);
    CHECK(policy_resolve_fixed(&p, at("project/new/.benchmarks"), out, sizeof out, NULL, &err) ==
          0); /* need not exist */
    CHECK_STR(out, at("project/new/.benchmarks"));
    CHECK(policy_resolve_fixed(&p, at("project/config.toml"), out, 4, NULL, &err) < 0);
    CHECK(policy_add_output(&p, at("r.xml"), false, &err) == 0); /* --output: anywhere */
    CHECK_STR(origin_of(&p, "r.xml"), "output");

    /* The run's temp dir, where the shim makes tmpfile()'s file: the POLICY_TMP directory
     * entry only, never an --allow'd or declared one. */
    CHECK(policy_tmp_dir(&p) == NULL);
    CHECK(policy_add_resolved(&p, "/run-tmp/file", "TMPDIR", POLICY_TMP, false, &err) == 0);
    CHECK(policy_tmp_dir(&p) == NULL); /* a file is no directory to make one in */
    CHECK(policy_add_resolved(&p, at("elsewhere"), "TMPDIR", POLICY_TMP, true, &err) == 0);
    CHECK_STR(policy_tmp_dir(&p), at("elsewhere"));

    /* Quiet tool state: any writer, or only a tool's listed subcommands. */
    CHECK(policy_add_quiet(&p, at("project/.benchmarks"), true, "pytest-benchmark", NULL, &err) ==
          0);
    CHECK(policy_add_quiet(&p, at("project/.git/index.lock"), false, "git", "describe status",
                           &err) == 0);
    const struct policy_quiet *q = policy_quiet(&p, at("project/.benchmarks/x"));
    CHECK(q && !strcmp(q->tool, "pytest-benchmark") && policy_quiet_for(q, "x", 2));
    CHECK(policy_quiet(&p, at("project/.benchmarks2")) == NULL);
    q = policy_quiet(&p, at("project/.git/index.lock"));
    CHECK(q && !strcmp(q->commands, "describe status"));
    static const char describe[] = "git\0-c\0a=b\0describe\0--dirty";
    static const char commit[] = "git\0-C\0describe\0commit\0-m\0describe";
    static const char none[] = "git\0--version";
    static const char full[] = "/usr/bin/git\0describe";
    static const char other[] = "python3\0describe";
    static const char lookalike[] = "/tmp/notgit\0describe";
    CHECK(q && policy_quiet_for(q, full, sizeof full));
    CHECK(q && !policy_quiet_for(q, other, sizeof other));
    CHECK(q && !policy_quiet_for(q, lookalike, sizeof lookalike));
    CHECK(q && policy_quiet_for(q, describe, sizeof describe));
    CHECK(q && !policy_quiet_for(q, commit, sizeof commit));
    CHECK(q && !policy_quiet_for(q, none, sizeof none));
    CHECK(policy_match(&p, at("project/.git/index.lock")) == NULL); /* still refused */
    check_decide(&p, describe, sizeof describe, commit, sizeof commit);
    policy_free(&p);

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        return 1;
    return check_done("test_policy");
}
