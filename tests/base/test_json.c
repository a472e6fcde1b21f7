/* test_json: base/json: values and their places, strings and escapes, numbers, and errors
 * that name the file, line and column. */
#include "check.h"

#include "base/json.h"

#include <stdlib.h>

static struct json_value *parse(const char *s, tf_err *err)
{
    struct json_value *v = NULL;
    return json_parse("r.json", s, strlen(s), &v, err) == 0 ? v : NULL;
}

/* The error message for S, or "" when it parsed. */
static const char *error_of(const char *s)
{
    static tf_err err;
    memset(&err, 0, sizeof err);
    struct json_value *v = parse(s, &err);
    json_free(v);
    return v ? "" : err.msg;
}

static void values(void)
{
    tf_err err;
    struct json_value *v =
        parse("{\n  \"a\": [1, -2.5, true, false, null],\n  \"b\": \"x\"\n}\n", &err);
    CHECK(v && v->type == JSON_OBJECT && v->len == 2);
    const struct json_value *a = json_get(v, "a");
    CHECK(a && a->type == JSON_ARRAY && a->len == 5 && a->line == 2 && a->col == 8);
    long long n = 0;
    CHECK(a && json_whole(&a->items[0], 0, 10, &n) && n == 1);
    CHECK(a && !json_whole(&a->items[1], -10, 10, &n) && a->items[1].num == -2.5);
    CHECK(a && a->items[2].type == JSON_BOOL && a->items[2].b && !a->items[3].b);
    CHECK(a && a->items[4].type == JSON_NULL);
    CHECK_STR(json_text(json_get(v, "b")), "x");
    CHECK(json_get(v, "c") == NULL && json_text(a) == NULL && !json_whole(NULL, 0, 1, &n));
    json_free(v);
}

static void strings(void)
{
    tf_err err;
    struct json_value *v = parse("[\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\ud83d\\ude00\", "
                                 "\"nul\\u0000x\", \"\xc3\xa9\"]",
                                 &err);
    CHECK(v && v->len == 4);
    if (!v)
        return;
    CHECK_STR(v->items[0].str, "a\"\\/\b\f\n\r\t");
    CHECK_STR(v->items[1].str, "\xc3\xa9\xf0\x9f\x98\x80");
    CHECK(v->items[2].len == 5 && json_text(&v->items[2]) == NULL);
    CHECK_STR(json_text(&v->items[3]), "\xc3\xa9");
    json_free(v);
}

static void errors(void)
{
    CHECK_STR(error_of("{\"a\": 1,\n  }"),
              "r.json:2:3: expected a member name in quotes, found '}'");
    CHECK_STR(error_of("{\"a\" 1}"), "r.json:1:6: expected ':', found '1'");
    CHECK_STR(error_of("[1 2]"), "r.json:1:4: expected ',' or ']', found '2'");
    CHECK_STR(error_of(""), "r.json:1:1: expected a value, found the end of the file");
    CHECK_STR(error_of("{} x"),
              "r.json:1:4: expected the end of the file after the value, found 'x'");
    CHECK_STR(error_of("\"abc"), "r.json:1:1: a string that does not end");
    CHECK_STR(error_of("\"a\nb\""),
              "r.json:1:3: control character U+000A must be escaped in a string");
    CHECK_STR(error_of("\"\\x\""), "r.json:1:2: unknown escape in a string");
    CHECK_STR(error_of("\"\\ud800\""), "r.json:1:2: a high surrogate \\uD800 without a low one");
    CHECK_STR(error_of("\"\\udc00\""), "r.json:1:2: a low surrogate \\uDC00 without a high one");
    CHECK_STR(error_of("\"\\u12\""), "r.json:1:4: \\u needs four hex digits");
    CHECK_STR(error_of("\"\xff\""), "r.json:1:2: invalid UTF-8");
    CHECK_STR(error_of("01"), "r.json:1:1: a number needs digits, without a leading zero");
    CHECK_STR(error_of("1."), "r.json:1:2: a fraction needs digits");
    CHECK_STR(error_of("1e"), "r.json:1:2: an exponent needs digits");
    CHECK_STR(error_of("tru"), "r.json:1:1: expected a value, found 't'");
    CHECK_STR(error_of("{\"a\":1} \x01"),
              "r.json:1:9: expected the end of the file after the value, found byte 0x01");
    char deep[200];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    CHECK_STR(error_of(deep), "r.json:1:66: nested deeper than 64");
    CHECK_STR(error_of("\xef\xbb\xbf{}"), "");
    CHECK_STR(error_of(" [ ] "), "");
    CHECK_STR(error_of("-0"), "");
}

static void numbers(void)
{
    tf_err err;
    struct json_value *v = parse("[9223372036854775807, 9223372036854775808, 1e3, -7]", &err);
    long long n = 0;
    CHECK(v && json_whole(&v->items[0], 0, 9223372036854775807LL, &n) &&
          n == 9223372036854775807LL);
    CHECK(v && !v->items[1].is_int && !v->items[2].is_int && v->items[2].num == 1000.0);
    CHECK(v && json_whole(&v->items[3], -10, 0, &n) && n == -7);
    json_free(v);
}

int main(void)
{
    values();
    strings();
    errors();
    numbers();
    return check_done("test_json");
}
