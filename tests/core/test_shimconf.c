/* test_shimconf: the shim's configuration file survives any path, and bad files are refused. */
#include "check.h"

#include <limits.h>
#include "core/shimconf.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
    char dir[PATH_MAX], path[PATH_MAX + 32];
    tf_err err;
    if (!check_tmpdir(dir, sizeof dir, "tf_shimconf"))
        return perror("mkdtemp"), 1;
    snprintf(path, sizeof path, "%s/conf", dir);
    struct shimconf c = {.mode = SHIM_BLOCK, .precheck_meta = true, .test_env = "MY_TEST"}, back;
    CHECK(policy_init(&c.policy, dir, &err) == 0);
    CHECK(policy_add_resolved(&c.policy, "/a\tb\nc\\d", "weird", POLICY_ALLOW, true, &err) == 0);
    CHECK(policy_add_resolved(&c.policy, "/dev/null", "/dev/null", POLICY_SYSTEM, false, &err) ==
          0);
    CHECK(policy_add_resolved(&c.policy, "/tmp/testfence-0/x", "TMPDIR", POLICY_TMP, true, &err) ==
          0);
    CHECK(policy_add_quiet(&c.policy, "/r/.git/index.lock", false, "git", "describe", &err) == 0);
    CHECK(policy_add_quiet(&c.policy, "/r/.bench\tmarks", true, "bench", NULL, &err) == 0);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    CHECK(shimconf_write(dfd, "conf", &c, &err) == 0);
    CHECK(shimconf_write(dfd, "conf", &c, &err) < 0); /* never over an existing file */
    close(dfd);
    CHECK(shimconf_load(path, &back, &err) == 0);
    CHECK(back.mode == SHIM_BLOCK && back.precheck_meta);
    CHECK_STR(back.test_env, "MY_TEST");
    CHECK(back.policy.n == 3);
    CHECK(back.policy.entries[2].origin == POLICY_TMP);
    CHECK(back.policy.nquiet == 2);
    const struct policy_quiet *q = policy_quiet(&back.policy, "/r/.git/index.lock");
    CHECK(q && !strcmp(q->tool, "git") && q->commands && !strcmp(q->commands, "describe"));
    q = policy_quiet(&back.policy, "/r/.bench\tmarks/x");
    CHECK(q && q->commands == NULL);
    CHECK_STR(back.policy.entries[0].path, "/a\tb\nc\\d");
    CHECK(back.policy.entries[0].is_dir && back.policy.entries[0].origin == POLICY_ALLOW);
    CHECK(!back.policy.entries[1].is_dir);
    CHECK(policy_match(&back.policy, "/a\tb\nc\\d/x") != NULL);
    CHECK(policy_match(&back.policy, "/a") == NULL);
    policy_free(&back.policy);
    const char *bad[] = {"", "testfence-shim 2\n", "testfence-shim 1\nmode\tblock\n",
                         "testfence-shim 1\nroot\t/r\nentry\tdir\tnowhere\t/x\tx\n",
                         "testfence-shim 1\nroot\t/r\nfrobnicate\t1\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(shimconf_parse(bad[i], strlen(bad[i]), &back, &err) < 0);
    policy_free(&c.policy);
    unlink(path);
    rmdir(dir);
    return check_done("test_shimconf");
}
