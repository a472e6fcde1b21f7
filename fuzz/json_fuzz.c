/* json_fuzz: libFuzzer target for src/base/json.c (build and run with fuzz/run.sh json).
 * Parses every input, walks the tree and exercises the lookups report readers use. */
#include "base/json.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Touch every value so ASan sees any bad pointer; recursion is bounded by JSON_MAX_DEPTH. */
static size_t walk(const struct json_value *v, int depth)
{
    size_t n = 1;
    long long i;
    if (v->line == 0 || v->col == 0 || depth > JSON_MAX_DEPTH + 1)
        abort();
    if (v->type == JSON_STRING && (v->str[v->len] != 0 || (json_text(v) && !v->str)))
        abort();
    for (size_t k = 0; v->type == JSON_ARRAY && k < v->len; k++)
        n += walk(&v->items[k], depth + 1);
    for (size_t k = 0; v->type == JSON_OBJECT && k < v->len; k++) {
        const struct json_member *m = &v->members[k];
        if (m->key[m->key_len] != 0)
            abort();
        if (strlen(m->key) == m->key_len && !json_get(v, m->key))
            abort();
        n += walk(&m->value, depth + 1);
    }
    json_whole(v, -5, 5, &i);
    return n;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    tf_err err;
    struct json_value *v = NULL;
    if (json_parse("fuzz.json", (const char *)data, size, &v, &err) < 0) {
        if (strncmp(err.msg, "fuzz.json:", 10) != 0)
            abort();
        return 0;
    }
    walk(v, 0);
    json_text(json_get(v, "schema"));
    json_get(json_get(v, "tests"), "writes");
    json_free(v);
    return 0;
}
