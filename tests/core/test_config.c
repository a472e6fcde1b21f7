/* Unit tests for src/core/config.c: placeholder expansion and the defaults. */
#include "check.h"
#include "core/config.h"

#include <limits.h>

static const char *expand(const char *tpl)
{
    static char out[256];
    struct config_vars v = {"/r", "/r/tests/artifacts/ws", "/r/tests/artifacts", "ID", "/t"};
    tf_err err = {0};
    if (config_expand(tpl, &v, out, sizeof out, &err) < 0)
        snprintf(out, sizeof out, "ERR %s", err.msg);
    return out;
}

int main(void)
{
    CHECK_STR(expand("{workspace}/credentials.toml"), "/r/tests/artifacts/ws/credentials.toml");
    CHECK_STR(expand("{root}:{artifacts}:{run_id}:{tmp}"), "/r:/r/tests/artifacts:ID:/t");
    CHECK_STR(expand("plain"), "plain");
    CHECK_STR(expand(""), "");
    CHECK_STR(expand("{{x}}"), "{x}");
    CHECK_STR(expand("{home}"),
              "ERR unknown placeholder \"{home}\" (known: {root} {workspace} {artifacts} "
              "{run_id} {tmp})");
    CHECK_STR(expand("{root"), "ERR unclosed \"{\" in \"{root\" (write \"{{\" for a brace)");
    CHECK_STR(expand("a}b"), "ERR stray \"}\" in \"a}b\" (write \"}}\" for a brace)");
    char big[300];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK(strncmp(expand(big), "ERR value too long", 18) == 0);

    /* A root without any config file: the documented defaults. */
    struct config c;
    tf_err err = {0};
    CHECK(config_load(&c, "/nonexistent-testfence-root", NULL, &err) == 0);
    CHECK_STR(c.source, "built-in defaults");
    CHECK(c.writable.n == 1);
    CHECK_STR(c.writable.v[0], "tests");
    CHECK_STR(c.artifacts, "tests/artifacts");
    CHECK(c.retain == 3);
    CHECK(c.pytest_basetemp && c.pytest_cache_dir);
    CHECK_STR(c.test_env, "PYTEST_CURRENT_TEST");
    config_free(&c);
    CHECK(config_load(&c, "/", "/nonexistent.toml", &err) < 0);
    CHECK(strstr(err.msg, "--config /nonexistent.toml") != NULL);
    config_free(&c);
    return check_done("test_config");
}
