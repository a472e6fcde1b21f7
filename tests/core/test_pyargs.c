/* Unit tests for src/core/pyargs.c: which reports a pytest command line asks for, and the
 * refusal, before the command starts, of one outside the writable set. */
#include "check.h"

#include "core/policy.h"
#include "core/pyargs.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* A command line from LINE, split as a shell would (pyargs_split: tested in test_split);
 * valid until the next call. */
static char **ARGV(const char *line)
{
    static char **w;
    static size_t n;
    pyargs_free_words(w, n);
    if (pyargs_split(line, &w, &n) < 0)
        abort();
    return w;
}

/* The outputs of ARGV (NULL-terminated) with PYTEST_ADDOPTS=ADDOPTS (NULL: unset), as
 * "FLAG PATH" joined by "; ". */
static const char *outputs(const char *addopts, char **argv)
{
    static char buf[1024];
    char env[512];
    snprintf(env, sizeof env, "PYTEST_ADDOPTS=%s", addopts ? addopts : "");
    char home[] = "HOME=/home/u";
    char *envp[] = {addopts ? env : home, home, NULL};
    struct pyargs a;
    tf_err err = {0};
    buf[0] = '\0';
    if (pyargs_parse(argv, envp, &a, &err) < 0)
        return "error";
    size_t k = 0;
    for (size_t i = 0; i < a.n && k < sizeof buf; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s %s%s", i ? "; " : "", a.out[i].flag,
                              a.out[i].path, a.out[i].is_dir ? " (dir)" : "");
    pyargs_free(&a);
    return buf;
}

static void test_commands(void)
{
    const char *add;
    char x[] = "PYTEST_ADDOPTS=-x";
    char *envp[] = {x, NULL};
    CHECK(pyargs_command(ARGV("pytest -q"), envp, &add) == 1);
    CHECK_STR(add, "-x");
    CHECK(pyargs_command(ARGV("/usr/bin/py.test"), envp, &add) == 1);
    CHECK(pyargs_command(ARGV("pytest-3"), envp, &add) == 1);
    CHECK(pyargs_command(ARGV("python3 -m pytest -q"), envp, &add) == 3);
    CHECK(pyargs_command(ARGV("/usr/bin/python3.11 -X dev -Bmpytest"), envp, &add) == 4);
    CHECK(pyargs_command(ARGV("python -W error -Bm pytest"), envp, &add) == 5);
    CHECK(pyargs_command(ARGV("python3 -c 'import pytest'"), envp, &add) == 0);
    CHECK(pyargs_command(ARGV("python3 -m pip"), envp, &add) == 0);
    CHECK(pyargs_command(ARGV("python3 run_tests.py"), envp, &add) == 0);
    CHECK(pyargs_command(ARGV("pythonista -m pytest"), envp, &add) == 0);
    CHECK(pyargs_command(ARGV("make check"), envp, &add) == 0);
    CHECK(pyargs_command(ARGV("uv run --frozen pytest"), envp, &add) == 4);
    CHECK(pyargs_command(ARGV("poetry run python -m pytest"), envp, &add) == 5);
    CHECK(pyargs_command(ARGV("env A=1 PYTEST_ADDOPTS=-v pytest"), envp, &add) == 4);
    CHECK_STR(add, "-v");
    CHECK(pyargs_command(ARGV("env -i pytest"), envp, &add) == 3 && !add);
    CHECK(pyargs_command(ARGV("env -u PYTEST_ADDOPTS pytest"), envp, &add) == 4 && !add);
    CHECK(pyargs_command(ARGV("env -C sub pytest"), envp, &add) == 0);
}

static void test_split(void)
{
    char **w;
    size_t n;
    CHECK(pyargs_split("  a 'b c'  \"d\\\"e\" f\\ g \"\" h'i'j ", &w, &n) == 0);
    CHECK(n == 6 && w[6] == NULL);
    if (n == 6) {
        CHECK_STR(w[0], "a");
        CHECK_STR(w[1], "b c");
        CHECK_STR(w[2], "d\"e");
        CHECK_STR(w[3], "f g");
        CHECK_STR(w[4], "");
        CHECK_STR(w[5], "hij");
    }
    pyargs_free_words(w, n);
    CHECK(pyargs_split("\"a\\b\"", &w, &n) == 0 && n == 1 && !strcmp(w[0], "a\\b"));
    pyargs_free_words(w, n);
    CHECK(pyargs_split("   ", &w, &n) == 0 && n == 0 && w && !w[0]);
    pyargs_free_words(w, n);
    CHECK(pyargs_split("a 'b", &w, &n) < 0);
    CHECK(pyargs_split("a\\", &w, &n) < 0);
}

static void test_options(void)
{
    CHECK_STR(outputs(NULL, ARGV("pytest --junitxml=j.xml tests")), "--junitxml j.xml");
    CHECK_STR(outputs(NULL, ARGV("pytest --junit-xml r/j.xml")), "--junit-xml r/j.xml");
    CHECK_STR(outputs(NULL, ARGV("pytest --junitxml=a --junitxml=b")), "--junitxml b");
    CHECK_STR(outputs("--junitxml=env.xml", ARGV("pytest --junitxml=cli.xml")),
              "--junitxml cli.xml"); /* PYTEST_ADDOPTS comes first: the command line wins */
    CHECK_STR(outputs("--junitxml='a b.xml'", ARGV("pytest")), "--junitxml a b.xml");
    CHECK_STR(outputs(NULL, ARGV("pytest --junitxml=")), "");
    CHECK_STR(outputs(NULL, ARGV("pytest -- --junitxml=j.xml")), "");
    CHECK_STR(outputs(NULL, ARGV("pytest --junitxmlx=j.xml --junit-prefix=x")), "");
    CHECK_STR(outputs(NULL, ARGV("make --junitxml=j.xml")), "");
    CHECK_STR(outputs(NULL, ARGV("pytest --html=r.html --report-log l.json --resultlog=old.log")),
              "--html r.html; --report-log l.json; --resultlog old.log");
    CHECK_STR(outputs(NULL, ARGV("pytest --json-report-file=x.json")), "");
    CHECK_STR(outputs(NULL, ARGV("pytest --json-report")), "--json-report .report.json");
    CHECK_STR(outputs(NULL, ARGV("pytest --json-report --json-report-file j.json")),
              "--json-report-file j.json");
    CHECK_STR(outputs(NULL, ARGV("pytest --json-report --json-report-file=none")), "");
}

static void test_cov(void)
{
    CHECK_STR(outputs(NULL, ARGV("pytest --cov-report=xml")), ""); /* no --cov: no plugin */
    CHECK_STR(outputs(NULL, ARGV("pytest --cov --cov-report=xml")),
              "--cov-report=xml coverage.xml");
    CHECK_STR(outputs(NULL, ARGV("pytest --cov=src --cov-report html --cov-report=json "
                                 "--cov-report=lcov: --cov-report=term-missing")),
              "--cov-report=html htmlcov/ (dir); --cov-report=json coverage.json; "
              "--cov-report=lcov coverage.lcov");
    CHECK_STR(outputs("--cov=src", ARGV("pytest --cov-report=xml:out/c.xml --cov-report=html:cov")),
              "--cov-report=xml out/c.xml; --cov-report=html cov (dir)");
    CHECK_STR(outputs(NULL, ARGV("pytest --cov --cov-report=xml --no-cov")), "");
    CHECK_STR(outputs(NULL, ARGV("pytest --cov --cov-reset --cov-report=xml")), "");
    CHECK_STR(outputs(NULL, ARGV("pytest --cov --cov-report=annotate")), "");
    CHECK_STR(outputs(NULL, ARGV("pytest --cov --cov-report=annotate:ann")),
              "--cov-report=annotate ann (dir)");
}

/* The refusal, in a project at DIR: tests/ and a declared output are writable. */
static void test_check(const char *dir)
{
    struct policy p;
    tf_err err = {0};
    char here[PATH_MAX], home[PATH_MAX + 8];
    CHECK(getcwd(here, sizeof here) != NULL);
    CHECK(chdir(dir) == 0);
    CHECK(mkdir("tests", 0700) == 0);
    CHECK(policy_init(&p, dir, &err) == 0 && policy_add(&p, "tests", POLICY_PROJECT, &err) == 0);
    CHECK(policy_add_output(&p, "declared.xml", true, &err) == 0);
    snprintf(home, sizeof home, "HOME=%s/tests", dir);
    char *envp[] = {home, NULL};
    CHECK(pyargs_check(ARGV("pytest --junitxml=tests/a/j.xml"), envp, &p, dir, &err) == 0);
    CHECK(pyargs_check(ARGV("pytest --junitxml=declared.xml"), envp, &p, dir, &err) == 0);
    CHECK(pyargs_check(ARGV("pytest --junitxml=~/j.xml"), envp, &p, dir, &err) == 0);
    CHECK(pyargs_check(ARGV("pytest '--junitxml=$X/j.xml'"), envp, &p, dir, &err) == 0);
    CHECK(pyargs_check(ARGV("pytest --cov-report=xml"), envp, &p, dir, &err) == 0);
    CHECK(pyargs_check(ARGV("python3 -m pytest --junitxml=junit.xml --cov=x '--cov-report=html:my "
                            "cov' --html=/nonexistent-tf/r.html"),
                       envp, &p, dir, &err) < 0);
    char want[PATH_MAX * 2];
    snprintf(want, sizeof want, "  --junitxml junit.xml -> %s/junit.xml\n", dir);
    CHECK(strstr(err.msg, want) != NULL);
    CHECK(strstr(err.msg, "refusing to run: pytest is asked to write outside") != NULL);
    CHECK(strstr(err.msg, "--cov-report=html my cov -> ") != NULL);
    CHECK(strstr(err.msg, "-> /nonexistent-tf/r.html\n") != NULL); /* parents made by pytest */
    CHECK(strstr(err.msg, "outputs = [\"junit.xml\", \"my cov/\"] (testfence.toml") != NULL);
    CHECK(strstr(err.msg, "testfence run --output junit.xml --output /nonexistent-tf/r.html "
                          "--output 'my cov/' -- ...") != NULL);
    policy_free(&p);
    CHECK(chdir(here) == 0);
}

int main(void)
{
    char tmp[PATH_MAX], dir[PATH_MAX];
    test_commands();
    test_split();
    test_options();
    test_cov();
    if (!check_tmpdir(tmp, sizeof tmp, "tf_pyargs") || !realpath(tmp, dir))
        return perror("mkdtemp"), 1;
    test_check(dir);
    return check_done("test_pyargs");
}
