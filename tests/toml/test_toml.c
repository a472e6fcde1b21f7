/* test_toml: the TOML module's API: lookups, getters, positions, error messages, limits.
 * Conformance to the TOML spec itself is tested by tests/toml/run_conformance.sh. */
#include "check.h"
#include "toml/toml.h"

#include <dirent.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

static toml_doc *parse(const char *src, unsigned flags, tf_err *err)
{
    toml_doc *doc = NULL;
    if (toml_parse("pyproject.toml", src, strlen(src), flags, &doc, err) < 0)
        return NULL;
    return doc;
}

/* The error message for src, or "" if it parsed. */
static const char *error_of(const char *src, unsigned flags)
{
    static tf_err err;
    err.msg[0] = 0;
    toml_free(parse(src, flags, &err));
    return err.msg;
}

static const char config[] = "[project]\n"
                             "name = \"demo\"\n"
                             "\n"
                             "[tool.testfence]\n"
                             "writable = [\"tests\", \"build\"]\n"
                             "strict = true\n"
                             "retain = 5\n"
                             "env = { HOME = \"{workspace}/home\" }\n"
                             "\"odd.key\" = 1\n";

static void test_lookups_and_getters(void)
{
    tf_err err;
    toml_doc *doc = parse(config, 0, &err);
    CHECK(doc != NULL);
    if (!doc)
        return;
    const toml_value *root = toml_root(doc);
    CHECK_STR(toml_string(toml_get(root, "project.name"), NULL), "demo");
    CHECK(toml_get(root, "tool.testfence.missing") == NULL);
    CHECK(toml_get(root, "project.name.deeper") == NULL);
    CHECK(toml_int(toml_get(root, "tool.testfence.\"odd.key\"")) == 1);

    const toml_value *tf = NULL;
    CHECK(toml_get_table(doc, root, "tool.testfence", &tf, &err) == 1);
    const char *const *list = NULL;
    size_t n = 0;
    CHECK(toml_get_string_array(doc, tf, "writable", &list, &n, &err) == 1);
    CHECK(n == 2 && list && list[2] == NULL);
    if (n == 2) {
        CHECK_STR(list[0], "tests");
        CHECK_STR(list[1], "build");
    }
    bool strict = false;
    int64_t retain = 0;
    CHECK(toml_get_bool(doc, tf, "strict", &strict, &err) == 1 && strict);
    CHECK(toml_get_int(doc, tf, "retain", &retain, &err) == 1 && retain == 5);
    const char *home = NULL;
    CHECK(toml_get_string(doc, tf, "env.HOME", &home, &err) == 1);
    CHECK_STR(home, "{workspace}/home");

    const char *dflt = "tests/artifacts";
    CHECK(toml_get_string(doc, tf, "artifacts", &dflt, &err) == 0);
    CHECK_STR(dflt, "tests/artifacts");

    CHECK(toml_get_string(doc, tf, "retain", &dflt, &err) == -1);
    CHECK_STR(err.msg, "pyproject.toml:7:10: \"retain\" must be a string, not an integer");
    CHECK(toml_get_int(doc, root, "project.name.x", &retain, &err) == -1);
    CHECK_STR(err.msg, "pyproject.toml:2:8: \"project.name\" must be a table, not a string");
    toml_free(doc);
}

static void test_positions_and_order(void)
{
    tf_err err;
    toml_doc *doc = parse(config, 0, &err);
    if (!doc)
        return;
    const toml_value *tf = toml_get(toml_root(doc), "tool.testfence");
    CHECK(toml_table_len(tf) == 5);
    static const char *const order[] = {"writable", "strict", "retain", "env", "odd.key"};
    for (size_t i = 0; i < 5; i++)
        CHECK_STR(toml_table_key(tf, i)->str, order[i]);
    const toml_key *k = toml_table_key(tf, 2);
    CHECK(k->pos.line == 7 && k->pos.col == 1);
    toml_pos p = toml_pos_of(toml_table_value(tf, 0));
    CHECK(p.line == 5 && p.col == 12);
    p = toml_pos_of(toml_array_at(toml_table_value(tf, 0), 1));
    CHECK(p.line == 5 && p.col == 22);
    /* The config loader reports unknown keys with toml_errf at the key's position. */
    toml_errf(doc, k->pos, &err, "unknown key \"%s\"", k->str);
    CHECK_STR(err.msg, "pyproject.toml:7:1: unknown key \"retain\"");
    toml_free(doc);

    /* Columns count characters, not bytes. */
    doc = parse("\"é\" = 1  # x\nb = \"ü\"   \nc = 2", 0, &err);
    if (doc) {
        CHECK(toml_pos_of(toml_get(toml_root(doc), "\"é\"")).col == 7);
        CHECK(toml_pos_of(toml_get(toml_root(doc), "b")).col == 5);
        CHECK(toml_pos_of(toml_get(toml_root(doc), "c")).line == 3);
    }
    toml_free(doc);
}

static void test_types(void)
{
    tf_err err;
    toml_doc *doc = parse("i = -0x0\nj = 0xff\nk = -9223372036854775808\nf = 6.5e-1\n"
                          "d = 1979-05-27T07:32:00.25-07:30\nl = 07:32:01\n"
                          "s = 'C:\\path'\nu = \"a\\u0000b\"\n",
                          0, &err);
    CHECK(doc == NULL); /* "-0x0": hex integers take no sign */
    doc = parse("j = 0xff\nk = -9223372036854775808\nf = 6.5e-1\n"
                "d = 1979-05-27T07:32:00.25-07:30\nl = 07:32\n"
                "s = 'C:\\path'\nu = \"a\\u0000b\"\n",
                0, &err);
    CHECK(doc != NULL);
    if (!doc)
        return;
    const toml_value *r = toml_root(doc);
    CHECK(toml_int(toml_get(r, "j")) == 255);
    CHECK(toml_int(toml_get(r, "k")) == INT64_MIN);
    CHECK(toml_float(toml_get(r, "f")) == 0.65);
    const toml_datetime *d = toml_datetime_of(toml_get(r, "d"));
    CHECK(d && d->year == 1979 && d->second == 0 && d->nanosecond == 250000000 &&
          d->offset_minutes == -450);
    CHECK(toml_type_of(toml_get(r, "l")) == TOML_TIME_LOCAL);
    CHECK_STR(toml_type_name(TOML_TIME_LOCAL), "local time");
    CHECK_STR(toml_string(toml_get(r, "s"), NULL), "C:\\path");
    size_t len = 0;
    CHECK(toml_string(toml_get(r, "u"), &len) && len == 3);
    const char *s = NULL;
    CHECK(toml_get_string(doc, r, "u", &s, &err) == -1);
    CHECK_STR(err.msg, "pyproject.toml:7:5: \"u\" must not contain a NUL character");
    toml_free(doc);
}

static void test_errors(void)
{
    CHECK_STR(error_of("[tool.testfence]\nwritable = []\n\nwritable = 1\n", 0),
              "pyproject.toml:4:1: duplicate key \"writable\" (first defined at 2:1)");
    CHECK_STR(error_of("[a]\nx = 1\n[a]\n", 0),
              "pyproject.toml:3:1: duplicate table \"a\" (first defined at 1:1)");
    CHECK_STR(error_of("[a.b]\n[a]\nb.c = 1\n", 0),
              "pyproject.toml:3:1: cannot add to table \"b\" with a dotted key: it was "
              "defined by a [table] header at 1:1");
    CHECK_STR(error_of("a = {b = 1}\n[a.c]\n", 0),
              "pyproject.toml:2:2: cannot add to inline table \"a\" (defined at 1:5)");
    CHECK_STR(error_of("a = [1]\n[[a]]\n", 0),
              "pyproject.toml:2:1: cannot define \"a\" as an array of tables: it is already a "
              "static array (defined at 1:1)");
    CHECK_STR(error_of("x = 1 2\n", 0),
              "pyproject.toml:1:7: expected end of line after a value, found '2'");
    CHECK_STR(error_of("x = \"abc\n", 0), "pyproject.toml:1:5: unterminated string");
    CHECK_STR(error_of("mode = strict\n", 0),
              "pyproject.toml:1:8: expected a value, found 'strict' (strings need quotes)");
    CHECK_STR(error_of("x = \"a\x01\"\n", 0),
              "pyproject.toml:1:7: control character U+0001 must be escaped in a string");
    CHECK_STR(error_of("# ok\nx = \"\xff\"\n", 0), "pyproject.toml:2:6: invalid UTF-8 byte 0xFF");
    CHECK_STR(error_of("x = 2024-02-30\n", 0), "pyproject.toml:1:5: invalid date 2024-02-30");
    CHECK_STR(error_of("x = 9223372036854775808\n", 0),
              "pyproject.toml:1:5: integer does not fit in 64 bits");
    CHECK_STR(error_of("x = 012\n", 0),
              "pyproject.toml:1:5: leading zeros are not allowed in a number");
    CHECK_STR(error_of("x = \"\\q\"\n", 0),
              "pyproject.toml:1:6: invalid escape sequence: backslash followed by 'q'");
}

static void test_versions(void)
{
    const char *v11 = "t = { a = 1,\n  b = 2, }\ne = \"\\e\\x41\"\nh = 10:30\n";
    CHECK_STR(error_of(v11, 0), "");
    CHECK_STR(error_of(v11, TOML_STRICT_1_0),
              "pyproject.toml:1:13: inline table not closed on its line (newlines and comments "
              "inside inline tables need TOML 1.1)");
    CHECK(strstr(error_of("e = \"\\e\"\n", TOML_STRICT_1_0), "invalid escape") != NULL);
    CHECK(strstr(error_of("t = {a = 1,}\n", TOML_STRICT_1_0), "trailing comma") != NULL);
    CHECK(strstr(error_of("h = 10:30\n", TOML_STRICT_1_0), "expected ':'") != NULL);
}

/* n levels of open, then n levels of close. */
static char *nested(size_t n, const char *prefix, const char *open, const char *close)
{
    size_t lo = strlen(open), lc = strlen(close), lp = strlen(prefix);
    char *s = malloc(lp + n * (lo + lc) + 2);
    strcpy(s, prefix);
    for (size_t i = 0; i < n; i++)
        memcpy(s + lp + i * lo, open, lo);
    for (size_t i = 0; i < n; i++)
        memcpy(s + lp + n * lo + i * lc, close, lc);
    strcpy(s + lp + n * (lo + lc), "\n");
    return s;
}

static void test_nesting_limit(void)
{
    char *ok = nested(TOML_MAX_DEPTH - 1, "a = ", "[", "]");
    char *deep = nested(100000, "a = ", "[", "]");
    char *tables = nested(100000, "a = ", "{b=", "}");
    CHECK_STR(error_of(ok, 0), "");
    CHECK_STR(error_of(deep, 0), "pyproject.toml:1:133: nesting is deeper than 128 levels");
    CHECK(strstr(error_of(tables, 0), "nesting is deeper than 128 levels") != NULL);
    free(ok);
    free(deep);
    free(tables);

    size_t n = 100000;
    char *hdr = malloc(2 * n + 4);
    hdr[0] = '[';
    for (size_t i = 0; i < n; i++)
        memcpy(hdr + 1 + 2 * i, "a.", 2);
    strcpy(hdr + 2 * n, "]\n");
    CHECK(strstr(error_of(hdr, 0), "nesting is deeper than 128 levels") != NULL);
    free(hdr);
}

/* Many keys in one table and a very long line: both must stay linear. */
static void test_big_inputs(void)
{
    size_t n = 200000;
    char *s = malloc(n * 24 + 16), *o = s;
    for (size_t i = 0; i < n; i++)
        o += sprintf(o, "key%zu = %zu\n", i, i);
    tf_err err;
    toml_doc *doc = parse(s, 0, &err);
    CHECK(doc && toml_table_len(toml_root(doc)) == n);
    CHECK(doc && toml_int(toml_get(toml_root(doc), "key199999")) == 199999);
    toml_free(doc);
    o = s + sprintf(s, "a = [");
    for (size_t i = 0; i < n; i++)
        o += sprintf(o, "%zu,", i);
    strcpy(o, "]");
    doc = parse(s, 0, &err);
    CHECK(doc && toml_array_len(toml_get(toml_root(doc), "a")) == n);
    CHECK(doc && toml_pos_of(toml_array_at(toml_get(toml_root(doc), "a"), n - 1)).col ==
                     (unsigned)(o - s - 6));
    toml_free(doc);
    /* Key positions on one huge line once made this quadratic (minutes, not milliseconds). */
    o = s + sprintf(s, "t = {");
    for (size_t i = 0; i < n; i++)
        o += sprintf(o, "k%zu = %zu, ", i, i);
    strcpy(o - 2, "}");
    doc = parse(s, 0, &err);
    CHECK(doc && toml_table_len(toml_get(toml_root(doc), "t")) == n);
    toml_free(doc);
    free(s);
}

static void test_files_and_locale(void)
{
    tf_err err;
    toml_doc *doc = NULL;
    CHECK(toml_parse_file("/nonexistent/testfence.toml", 0, &doc, &err) == -1 && !doc);
    CHECK_STR(err.msg, "/nonexistent/testfence.toml: No such file or directory");
    toml_free(NULL);
    /* A comma-decimal locale must not change how floats are read. */
    if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
        doc = parse("f = 1.5\n", 0, &err);
        CHECK(doc && toml_float(toml_get(toml_root(doc), "f")) == 1.5);
        toml_free(doc);
        setlocale(LC_NUMERIC, "C");
    }
}

/* Inputs that once crashed the parser or the fuzz target must now parse or fail cleanly. */
static void test_regressions(void)
{
    DIR *d = opendir("tests/toml/regressions");
    if (!d)
        return;
    char path[512];
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "tests/toml/regressions/%s", e->d_name);
        toml_doc *doc = NULL;
        tf_err err;
        for (unsigned flags = 0; flags <= TOML_STRICT_1_0; flags++) {
            int r = toml_parse_file(path, flags, &doc, &err);
            CHECK(r == 0 || strncmp(err.msg, path, strlen(path)) == 0);
            toml_free(doc);
        }
    }
    closedir(d);
}

int main(void)
{
    test_lookups_and_getters();
    test_positions_and_order();
    test_types();
    test_errors();
    test_versions();
    test_nesting_limit();
    test_big_inputs();
    test_files_and_locale();
    test_regressions();
    return check_done("test_toml");
}
