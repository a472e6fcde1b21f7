/* toml_fuzz: libFuzzer target for src/toml/toml.c (build and run with fuzz/run.sh toml).
 * Parses every input as TOML 1.0 and 1.1, walks the tree and exercises the lookups. */
#include "toml/toml.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Touch every value so ASan sees any bad pointer; recursion is bounded by TOML_MAX_DEPTH. */
static size_t walk(const toml_value *v, int depth)
{
    size_t n = 1;
    toml_pos pos = toml_pos_of(v);
    if (pos.line == 0 || pos.col == 0 || depth > TOML_MAX_DEPTH)
        abort();
    for (size_t i = 0; i < toml_table_len(v); i++) {
        const toml_key *k = toml_table_key(v, i);
        if (k->str[k->len] != 0 || toml_get_key(v, k->str, k->len) != toml_table_value(v, i))
            abort();
        n += walk(toml_table_value(v, i), depth + 1);
    }
    for (size_t i = 0; i < toml_array_len(v); i++)
        n += walk(toml_array_at(v, i), depth + 1);
    size_t len;
    const char *s = toml_string(v, &len);
    if (s && s[len] != 0)
        abort();
    return n;
}

static void lookups(const toml_doc *doc)
{
    const toml_value *root = toml_root(doc);
    tf_err err;
    const char *s;
    const char *const *list;
    size_t n;
    int64_t i;
    bool b;
    toml_get_string(doc, root, "tool.testfence.artifacts", &s, &err);
    toml_get_string_array(doc, root, "tool.testfence.writable", &list, &n, &err);
    toml_get_int(doc, root, "a.b", &i, &err);
    toml_get_bool(doc, root, "\"a\".b", &b, &err);
    toml_get(root, "a");
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    tf_err err;
    toml_doc *strict = NULL, *loose = NULL;
    const char *src = (const char *)data;
    int r10 = toml_parse("fuzz.toml", src, size, TOML_STRICT_1_0, &strict, &err);
    int r11 = toml_parse("fuzz.toml", src, size, 0, &loose, &err);
    /* TOML 1.1 only adds syntax: what 1.0 accepts, 1.1 must accept too. */
    if (r10 == 0 && r11 != 0)
        abort();
    if (r11 < 0 && strncmp(err.msg, "fuzz.toml:", 10) != 0)
        abort();
    if (loose) {
        walk(toml_root(loose), 0);
        lookups(loose);
    }
    toml_free(strict);
    toml_free(loose);
    return 0;
}
