/* Unit tests for src/core/policy.c: the writable set and its decisions. */
#include "check.h"
#include "core/policy.h"

#include <limits.h>
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
    const struct policy_entry *e = NULL;
    tf_err err = {{0}};
    if (policy_check(p, at(rel), resolved, sizeof resolved, &e, &err) < 0)
        return "error";
    return e ? policy_origin_name(e->origin) : "blocked";
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
    tf_err err = {{0}};
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
    policy_free(&p);

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        return 1;
    return check_done("test_policy");
}
