/* test_seatbelt: the macOS Seatbelt profile generator (src/macos/seatbelt.c), built and run on
 * Linux: plain string building. Golden profiles for sample plans (tests/platforms/seatbelt/),
 * paths with quotes, backslashes and non-ASCII names, and the paths it must refuse.
 * TF_SEATBELT_UPDATE=1 rewrites the golden files (review the diff). */
#include "check.h"

#include "seatbelt.h"

#include <stdlib.h>

#define GOLDEN "tests/platforms/seatbelt/"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* The profile of RULES is the golden file NAME, byte for byte. */
static void golden(const char *name, const struct sb_rule *rules, size_t n)
{
    char path[256], *got = NULL;
    tf_err err = {0};
    snprintf(path, sizeof path, GOLDEN "%s.sb", name);
    CHECK(sb_profile(rules, n, &got, &err) == 0);
    if (!got) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return;
    }
    const char *update = getenv("TF_SEATBELT_UPDATE");
    if (update && *update == '1') {
        FILE *f = fopen(path, "wb");
        CHECK(f && fputs(got, f) >= 0 && fclose(f) == 0);
    }
    const char *want = slurp(path);
    CHECK(want != NULL);
    if (want && strcmp(got, want) != 0) {
        check_failures++;
        fprintf(stderr, "%s differs from the profile made:\n%s", path, got);
    }
    free(got);
}

static void sample_plans(void)
{
    const struct sb_rule dflt[] = {
        {"/Users/me/proj/tests", true},
        {"/private/var/folders/xy/abc123/T/testfence-501/20240101-120000-4242", true},
    };
    golden("default", dflt, 2);
    const struct sb_rule outputs[] = {
        {"/Users/me/proj/tests", true},
        {"/Users/me/proj/docs/generated", true},
        {"/Users/me/proj/report.xml", false},
        {"/private/tmp/testfence-501/20240101-120000-4242", true},
    };
    golden("outputs", outputs, 4);
    const struct sb_rule quotes[] = {
        {"/Users/me/a \"quoted\" dir/tests", true},
        {"/Users/me/back\\slash\\/tests", true},
        {"/Users/me/semi;colon (paren) #hash/out.txt", false},
    };
    golden("quotes", quotes, 3);
    const struct sb_rule unicode[] = {
        /* "Ünïcödé", split where a hex escape would run into the next letter */
        {"/Users/me/Projekte/\xc3\x9cn\xc3\xaf"
         "c\xc3\xb6"
         "d\xc3\xa9/tests",
         true},
        {"/Users/me/\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"
         "/tests",
         true},
        {"/Users/me/emoji-\xf0\x9f\x90\x8d/out", false},
    };
    golden("unicode", unicode, 3);
    golden("empty", NULL, 0);
}

static void quoting(void)
{
    char q[64];
    tf_err err = {0};
    CHECK(sb_quote(q, sizeof q, "/a/b", &err) == 0);
    CHECK_STR(q, "\"/a/b\"");
    CHECK(sb_quote(q, sizeof q, "/a\"b", &err) == 0);
    CHECK_STR(q, "\"/a\\\"b\"");
    CHECK(sb_quote(q, sizeof q, "/a\\b", &err) == 0);
    CHECK_STR(q, "\"/a\\\\b\"");
    CHECK(sb_quote(q, sizeof q, "/\xc3\xa9", &err) == 0);
    CHECK_STR(q, "\"/\xc3\xa9\"");
    /* Refused: control characters (a newline would end the string's line in logs and in
     * `sandbox-exec -p`'s error), and bytes that are not UTF-8. */
    CHECK(sb_quote(q, sizeof q, "/a\nb", &err) < 0);
    CHECK(strstr(err.msg, "control character") != NULL);
    CHECK(sb_quote(q, sizeof q, "/a\x7f", &err) < 0);
    CHECK(sb_quote(q, sizeof q, "/a\xc3", &err) < 0);
    CHECK(sb_quote(q, sizeof q, "/\xc0\xaf", &err) < 0);     /* overlong '/' */
    CHECK(sb_quote(q, sizeof q, "/\xed\xa0\x80", &err) < 0); /* a surrogate */
    CHECK(sb_quote(q, 8, "/abcdefgh", &err) < 0);
    CHECK(strstr(err.msg, "too long") != NULL);
    CHECK(sb_quote(q, 8, "/abcd", &err) == 0); /* exactly fits: 7 bytes and the NUL */
    CHECK_STR(q, "\"/abcd\"");
    CHECK(sb_quote(q, 7, "/abcd", &err) < 0);
}

static void refused(void)
{
    static char untouched[] = "untouched";
    char *got = untouched;
    tf_err err = {0};
    const struct sb_rule bad_ctl[] = {{"/Users/me/proj/tests", true}, {"/Users/me/x\ty", true}};
    CHECK(sb_profile(bad_ctl, 2, &got, &err) < 0);
    CHECK(got == NULL);
    CHECK(strstr(err.msg, "/Users/me/x\ty") != NULL);
    const struct sb_rule relative[] = {{"tests", true}};
    got = untouched;
    CHECK(sb_profile(relative, 1, &got, &err) < 0);
    CHECK(got == NULL);
    CHECK(strstr(err.msg, "not an absolute path") != NULL);
}

int main(void)
{
    sample_plans();
    quoting();
    refused();
    return check_done("test_seatbelt");
}
