/* confedit_fuzz: libFuzzer target for src/core/confedit.c (build and run with
 * fuzz/run.sh confedit). Each input is a config file's text: outputs and an [env] variable
 * are added at the top level and in [tool.testfence]; an edit that succeeds must keep every
 * old byte in order (outputs only), and its diff is made. */
#include "core/confedit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Is A (N bytes) a subsequence of B (M bytes)? */
static int kept(const char *a, size_t n, const char *b, size_t m)
{
    size_t i = 0;
    for (size_t j = 0; i < n && j < m; j++)
        i += a[i] == b[j];
    return i == n;
}

static void one(const char *src, size_t size, const char *table, const struct confedit_change *c,
                int check_kept)
{
    char *out = NULL;
    size_t len = 0;
    tf_err err;
    if (confedit_apply("fuzz.toml", src, size, table, c, &out, &len, &err) < 0)
        return;
    if (strlen(out) != len && memchr(src, 0, size) == NULL)
        abort();
    if (check_kept && !kept(src, size, out, len))
        abort();
    FILE *f = fopen("/dev/null", "w");
    if (f) {
        confedit_diff(f, "a/x", "b/x", src, size, out, len, &err);
        fclose(f);
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static const char *const outs[] = {"junit.xml", "htmlcov/"};
    static const char *const names[] = {"COVERAGE_FILE"}, *const values[] = {"{artifacts}/.c"};
    const struct confedit_change o = {outs, 2, NULL, NULL, 0};
    const struct confedit_change e = {NULL, 0, names, values, 1};
    const struct confedit_change both = {outs, 2, names, values, 1};
    const char *src = (const char *)data;
    one(src, size, "", &o, 1);
    one(src, size, "tool.testfence", &o, 1);
    one(src, size, "", &e, 0);
    one(src, size, "tool.testfence", &both, 0);
    return 0;
}
