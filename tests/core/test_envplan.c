/* test_envplan: the plan's values (set, append, repeated names), applying it to an
 * environment, freeing and reusing a plan, and the shlex quoting for PYTEST_ADDOPTS. */
#include "check.h"

#include "core/envplan.h"

#include <stdbool.h>
#include <stdlib.h>

static char e_path[] = "PATH=/bin", e_add[] = "PYTEST_ADDOPTS=-x",
            e_empty[] = "EMPTY=", e_pre[] = "PATHX=1";
static char *const envp[] = {e_path, e_add, e_empty, e_pre, NULL};

static void getenv_of(void)
{
    CHECK_STR(envplan_getenv(envp, "PATH"), "/bin");
    CHECK_STR(envplan_getenv(envp, "PATHX"), "1"); /* not PATH's prefix match */
    CHECK_STR(envplan_getenv(envp, "EMPTY"), "");
    CHECK(envplan_getenv(envp, "PAT") == NULL);
    CHECK(envplan_getenv(envp, "NOPE") == NULL);
    CHECK(envplan_getenv(NULL, "PATH") == NULL);
}

/* NAME's value in the child, as a string ("(unset)" when the plan leaves it unset). */
static const char *value(const struct envplan *p, char *const *env, const char *name)
{
    static char buf[256];
    char *v = NULL;
    CHECK(envplan_value(p, env, name, &v) == 0);
    snprintf(buf, sizeof buf, "%s", v ? v : "(unset)");
    free(v);
    return buf;
}

static void values(void)
{
    struct envplan p = {0};
    tf_err err = {0};
    CHECK(envplan_add(&p, "PYTEST_ADDOPTS", "-p no:cacheprovider", ENV_APPEND, "why", &err) == 0);
    CHECK(envplan_add(&p, "NEW", "v", ENV_SET, "why", &err) == 0);
    CHECK(envplan_add(&p, "EMPTY", "e", ENV_APPEND, "why", &err) == 0);
    CHECK(envplan_add(&p, "GONE", "g", ENV_APPEND, "why", &err) == 0);
    CHECK(envplan_add(&p, "PATH", "/x", ENV_SET, "why", &err) == 0);
    CHECK(envplan_add(&p, "PATH", "more", ENV_APPEND, "why", &err) == 0);
    CHECK(p.n == 6 && p.items[0].why != NULL);
    CHECK_STR(value(&p, envp, "PYTEST_ADDOPTS"), "-x -p no:cacheprovider");
    CHECK_STR(value(&p, envp, "NEW"), "v");
    CHECK_STR(value(&p, envp, "EMPTY"), "e");      /* appending to "" adds no leading space */
    CHECK_STR(value(&p, envp, "GONE"), "g");       /* appending to nothing */
    CHECK_STR(value(&p, envp, "PATH"), "/x more"); /* items apply in order */
    CHECK_STR(value(&p, envp, "PATHX"), "1");      /* untouched: the user's */
    CHECK_STR(value(&p, envp, "NOPE"), "(unset)");
    CHECK_STR(value(&p, NULL, "PYTEST_ADDOPTS"), "-p no:cacheprovider");

    /* no length limit: a long value is never cut */
    static char big[20000];
    memset(big, 'b', sizeof big - 1);
    CHECK(envplan_add(&p, "BIG", big, ENV_SET, "why", &err) == 0);
    char *v = NULL;
    CHECK(envplan_value(&p, envp, "BIG", &v) == 0 && v && strlen(v) == sizeof big - 1);
    free(v);
    envplan_free(&p);
}

static size_t count(char **env)
{
    size_t n = 0;
    while (env && env[n])
        n++;
    return n;
}

static bool holds(char **env, const char *entry)
{
    for (; env && *env; env++)
        if (!strcmp(*env, entry))
            return true;
    return false;
}

static void apply(void)
{
    struct envplan p = {0};
    tf_err err = {0};
    CHECK(envplan_add(&p, "PATH", "/x", ENV_SET, "why", &err) == 0);
    CHECK(envplan_add(&p, "PATH", "y", ENV_APPEND, "why", &err) == 0);
    CHECK(envplan_add(&p, "PYTEST_ADDOPTS", "-q", ENV_APPEND, "why", &err) == 0);
    CHECK(envplan_add(&p, "NEW", "n", ENV_SET, "why", &err) == 0);
    char **env = envplan_apply(&p, envp, &err);
    CHECK(env != NULL);
    CHECK(count(env) == 5); /* PATH once, however many items name it */
    CHECK(holds(env, "PATH=/x y"));
    CHECK(holds(env, "PYTEST_ADDOPTS=-x -q"));
    CHECK(holds(env, "NEW=n"));
    CHECK(holds(env, "EMPTY="));
    CHECK(holds(env, "PATHX=1")); /* a name with the planned one as prefix is kept */
    CHECK(!holds(env, "PATH=/bin"));
    envplan_free_env(env);

    /* an empty plan copies; no environment gives just the plan */
    struct envplan none = {0};
    env = envplan_apply(&none, envp, &err);
    CHECK(count(env) == 4 && holds(env, "PATH=/bin"));
    envplan_free_env(env);
    env = envplan_apply(&p, NULL, &err);
    CHECK(count(env) == 3 && holds(env, "PYTEST_ADDOPTS=-q") && holds(env, "PATH=/x y"));
    envplan_free_env(env);
    envplan_free_env(NULL);
    envplan_free(&p);
}

/* A plan freed is empty and can be filled again. */
static void reuse(void)
{
    struct envplan p = {0};
    tf_err err = {0};
    CHECK(envplan_add(&p, "A", "1", ENV_SET, "why", &err) == 0);
    envplan_free(&p);
    CHECK(p.items == NULL && p.n == 0 && p.cap == 0);
    CHECK(envplan_add(&p, "B", "2", ENV_SET, "why", &err) == 0);
    CHECK(p.n == 1 && p.items && !strcmp(p.items[0].name, "B"));
    CHECK_STR(value(&p, NULL, "B"), "2");
    envplan_free(&p);
    envplan_free(&p); /* twice is harmless */
}

/* S quoted into LEN bytes: the text, or "(-1)" when it does not fit. */
static const char *quoted(const char *s, size_t len)
{
    static char buf[256];
    char out[256];
    memset(out, 'Z', sizeof out);
    int rc = envplan_shell_quote(out, len, s);
    /* never a byte written past LEN */
    CHECK(len >= sizeof out || out[len] == 'Z');
    snprintf(buf, sizeof buf, "%s", rc == 0 ? out : "(-1)");
    return buf;
}

static void quoting(void)
{
    CHECK_STR(quoted("plain/path-1.x", 64), "plain/path-1.x");
    CHECK_STR(quoted("a b", 64), "'a b'");
    CHECK_STR(quoted("it's", 64), "'it'\\''s'");
    CHECK_STR(quoted("$HOME", 64), "'$HOME'");
    CHECK_STR(quoted("", 64), "''");
    /* shlex splits at \r too (its whitespace is space, \t, \r, \n) */
    CHECK_STR(quoted("a\rb", 64), "'a\rb'");

    /* exactly fitting is fitting; one byte less is -1, with nothing written past LEN */
    CHECK_STR(quoted("abc", 4), "abc");
    CHECK_STR(quoted("abc", 3), "(-1)");
    CHECK_STR(quoted("a b", 6), "'a b'");
    CHECK_STR(quoted("a b", 5), "(-1)");
    CHECK_STR(quoted("'", 7), "''\\'''");
    CHECK_STR(quoted("'", 6), "(-1)");
    CHECK_STR(quoted("", 3), "''");
    CHECK_STR(quoted("", 2), "(-1)");
    CHECK_STR(quoted("", 1), "(-1)");
    CHECK_STR(quoted("a b", 0), "(-1)");
    CHECK_STR(quoted("abc", 0), "(-1)");
}

int main(void)
{
    getenv_of();
    values();
    apply();
    reuse();
    quoting();
    return check_done("test_envplan");
}
