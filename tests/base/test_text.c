/* test_text: base/text: UTF-8 lengths and encoding, hex digits, JSON strings cut to a
 * buffer, GitHub workflow-command escaping. */
#include "check.h"

#include "base/text.h"

#include <stdint.h>
#include <stdlib.h>

static size_t len_of(const char *s)
{
    return tf_utf8_len((const unsigned char *)s, SIZE_MAX);
}

static void utf8_len(void)
{
    CHECK(len_of("a") == 1);
    CHECK(len_of("") == 1); /* the NUL itself is a character */
    CHECK(len_of("\xc3\xa9") == 2);
    CHECK(len_of("\xe2\x82\xac") == 3);
    CHECK(len_of("\xf0\x9f\x98\x80") == 4);
    CHECK(len_of("\xf4\x8f\xbf\xbf") == 4); /* U+10FFFF */
    CHECK(len_of("\xf4\x90\x80\x80") == 0); /* beyond it */
    CHECK(len_of("\xf5\x80\x80\x80") == 0);
    CHECK(len_of("\xc0\xaf") == 0); /* overlong '/' */
    CHECK(len_of("\xc1\xbf") == 0);
    CHECK(len_of("\xe0\x9f\xbf") == 0);     /* overlong, 3 bytes */
    CHECK(len_of("\xf0\x8f\xbf\xbf") == 0); /* overlong, 4 bytes */
    CHECK(len_of("\xed\xa0\x80") == 0);     /* a surrogate */
    CHECK(len_of("\xed\x9f\xbf") == 3);     /* U+D7FF */
    CHECK(len_of("\x80") == 0);             /* a lone continuation byte */
    CHECK(len_of("\xff") == 0);
    CHECK(len_of("\xe2\x82") == 0);                                    /* cut short by the NUL */
    CHECK(tf_utf8_len((const unsigned char *)"\xe2\x82\xac", 2) == 0); /* by N */
    CHECK(tf_utf8_len((const unsigned char *)"\xe2\x82\xac", 3) == 3);
}

static void utf8_put(void)
{
    const struct {
        unsigned long cp;
        const char *want;
    } cases[] = {
        {0x41, "A"},
        {0x7f, "\x7f"},
        {0x80, "\xc2\x80"},
        {0x7ff, "\xdf\xbf"},
        {0x800, "\xe0\xa0\x80"},
        {0xd800, "\xed\xa0\x80"},
        {0xffff, "\xef\xbf\xbf"},
        {0x10000, "\xf0\x90\x80\x80"},
        {0x10ffff, "\xf4\x8f\xbf\xbf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char b[5] = {0};
        size_t n = tf_utf8_put(b, cases[i].cp);
        CHECK(n == strlen(cases[i].want));
        CHECK_STR(b, cases[i].want);
    }
    char b[4] = {'x', 'x', 'x', 'x'};
    CHECK(tf_utf8_put(b, 0x110000) == 0 && b[0] == 'x');
    CHECK(tf_utf8_put(b, 0xffffffffUL) == 0);
    char nul[4] = {'x'};
    CHECK(tf_utf8_put(nul, 0) == 1 && nul[0] == '\0');
}

static void hex(void)
{
    CHECK(tf_hex_digit('0') == 0 && tf_hex_digit('9') == 9);
    CHECK(tf_hex_digit('a') == 10 && tf_hex_digit('F') == 15);
    CHECK(tf_hex_digit('g') == -1 && tf_hex_digit('/') == -1 && tf_hex_digit(-1) == -1);
    CHECK(tf_hex_digit(0xe9) == -1);
    unsigned long v = 7;
    CHECK(tf_hex_read("00e9", 4, 4, &v) == 0 && v == 0xe9);
    CHECK(tf_hex_read("DBFFzz", 6, 4, &v) == 0 && v == 0xdbff);
    CHECK(tf_hex_read("0010FFFF", 8, 8, &v) == 0 && v == 0x10ffff);
    CHECK(tf_hex_read("41", 2, 2, &v) == 0 && v == 0x41);
    CHECK(tf_hex_read("00e9", 3, 4, &v) < 0); /* only 3 may be read */
    CHECK(tf_hex_read("00g9", 4, 4, &v) < 0);
    CHECK(tf_hex_read("\xc3\xa9", 2, 2, &v) < 0);
}

static void json(void)
{
    char out[64];
    bool cut = false;
    CHECK(tf_json_escape(out, sizeof out, "a\"b\\c\n\r\t", &cut) == 15);
    CHECK_STR(out, "\"a\\\"b\\\\c\\n\\r\\t\"");
    CHECK(!cut);
    tf_json_escape(out, sizeof out, "\x01\x1f\x7f/", &cut);
    CHECK_STR(out, "\"\\u0001\\u001f\\u007f/\"");
    tf_json_escape(out, sizeof out, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", &cut);
    CHECK_STR(out, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    /* Invalid UTF-8 one byte at a time: the overlong C0 AF is two. */
    tf_json_escape(out, sizeof out,
                   "\xff"
                   "a\xc0\xaf\xed\xa0\x80",
                   &cut);
    CHECK_STR(out, "\"\\ufffda\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
    CHECK(!cut);
    CHECK(tf_json_escape(out, sizeof out, "", &cut) == 2);
    CHECK_STR(out, "\"\"");

    /* Cut to the buffer: never half an escape or half a character, always closed. */
    char small[8];
    CHECK(tf_json_escape(small, sizeof small, "abcdefgh", &cut) == 7);
    CHECK_STR(small, "\"abcde\"");
    CHECK(cut);
    cut = false;
    tf_json_escape(small, sizeof small, "abcd\n", &cut);
    CHECK_STR(small, "\"abcd\"");
    CHECK(cut);
    cut = false;
    tf_json_escape(small, sizeof small,
                   "ab\xe2\x82\xac"
                   "c",
                   &cut);
    CHECK_STR(small, "\"ab\xe2\x82\xac\"");
    CHECK(cut);
    cut = false;
    tf_json_escape(small, 3, "x", &cut);
    CHECK_STR(small, "\"\"");
    CHECK(cut);
}

static char *gh(const char *s, bool property)
{
    static char buf[256];
    memset(buf, 0, sizeof buf);
    FILE *f = fmemopen(buf, sizeof buf, "w");
    tf_gh_escape(f, s, property);
    fclose(f);
    return buf;
}

static void github(void)
{
    CHECK_STR(gh("100% done\r\nnext: a,b", false), "100%25 done%0D%0Anext: a,b");
    CHECK_STR(gh("100% done\r\nnext: a,b", true), "100%25 done%0D%0Anext%3A a%2Cb");
    CHECK_STR(gh("%25", false), "%2525");
    CHECK_STR(gh("", true), "");
    CHECK_STR(gh("tests/t\xc3\xa9.py::test_x", true), "tests/t\xc3\xa9.py%3A%3Atest_x");
}

static char *jw(const char *s)
{
    static char buf[20000];
    memset(buf, 0, sizeof buf);
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    tf_json_write(f, s);
    fclose(f);
    return buf;
}

/* tf_json_write: whole, a piece at a time, as tf_json_escape says it at once; NULL as null. */
static void json_write(void)
{
    static char s[3001], whole[20000];
    for (int i = 0; i < 3000; i += 3) /* "é\n" again and again: pieces end mid-character */
        memcpy(s + i, "\xc3\xa9\n", 3);
    bool cut = false;
    tf_json_escape(whole, sizeof whole, s, &cut);
    CHECK(!cut);
    CHECK_STR(jw(s), whole);
    CHECK_STR(jw(NULL), "null");
    CHECK_STR(jw(""), "\"\"");
}

int main(void)
{
    utf8_len();
    utf8_put();
    hex();
    json();
    json_write();
    github();
    return check_done("test_text");
}
