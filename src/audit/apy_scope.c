#include "apy_scope.h"

#include "base/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALIAS_SCOPE 0xFFFFFFFFu /* the scope of import aliases */

static uint64_t hash_name(uint32_t scope, const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ scope;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static apy_binding *find(apy *P, uint32_t scope, const char *name, size_t n)
{
    if (!P->cap_slots)
        return NULL;
    for (size_t i = hash_name(scope, name, n) & (P->cap_slots - 1);;
         i = (i + 1) & (P->cap_slots - 1)) {
        uint32_t s = P->slots[i];
        if (!s)
            return NULL;
        apy_binding *b = &P->b[s - 1];
        const char *bn = tf_facts_get(&P->scratch, b->name);
        if (b->scope == scope && !strncmp(bn, name, n) && bn[n] == '\0')
            return b;
    }
}

static bool rehash(apy *P)
{
    size_t cap = P->cap_slots ? P->cap_slots * 2 : 256;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    for (size_t k = 0; k < P->n_b; k++) {
        const char *bn = tf_facts_get(&P->scratch, P->b[k].name);
        size_t i = hash_name(P->b[k].scope, bn, strlen(bn)) & (cap - 1);
        while (slots[i])
            i = (i + 1) & (cap - 1);
        slots[i] = (uint32_t)k + 1;
    }
    free(P->slots);
    P->slots = slots;
    P->cap_slots = cap;
    return true;
}

/* Bind NAME in SCOPE to VAL (or to "unknown", which still shadows outer scopes). */
void apy_bind_in(apy *P, uint32_t scope, const char *name, size_t n, const tf_pathval *val)
{
    if (n == 0 || n >= APY_NAME_MAX)
        return;
    apy_binding *b = find(P, scope, name, n);
    if (!b) {
        if ((P->n_b + 1) * 2 > P->cap_slots && !rehash(P))
            return (void)(P->oom = true);
        apy_binding *nv = vec_grow(P->b, &P->cap_b, P->n_b, sizeof *nv);
        if (!nv)
            return (void)(P->oom = true);
        P->b = nv;
        b = &P->b[P->n_b++];
        b->scope = scope;
        b->name = tf_facts_str(&P->scratch, name, n);
        size_t i = hash_name(scope, name, n) & (P->cap_slots - 1);
        while (P->slots[i])
            i = (i + 1) & (P->cap_slots - 1);
        P->slots[i] = (uint32_t)P->n_b;
    }
    b->val = tf_facts_path(&P->scratch, val);
}

void apy_bind(apy *P, const char *name, size_t n, const tf_pathval *val)
{
    if (P->n_scopes)
        apy_bind_in(P, P->scopes[P->n_scopes - 1].id, name, n, val);
}

void apy_bind_unknown(apy *P, const char *name, size_t n)
{
    tf_pathval u;
    tf_pv_unknown(&u);
    apy_bind(P, name, n, &u);
}

/* The innermost binding of NAME. Class scopes are seen only from their own body, as in
 * Python; "self.x" also finds the class's x and what any method bound to self.x. */
bool apy_lookup(apy *P, const char *name, size_t n, tf_pathval *out)
{
    for (int s = P->n_scopes - 1; s >= 0; s--) {
        if (P->scopes[s].is_class && s != P->n_scopes - 1)
            continue;
        apy_binding *b = find(P, P->scopes[s].id, name, n);
        if (b) {
            tf_facts_pathval(&P->scratch, &b->val, out);
            return true;
        }
    }
    bool self = (n > 5 && !memcmp(name, "self.", 5)) || (n > 4 && !memcmp(name, "cls.", 4));
    for (int s = P->n_scopes - 1; self && s >= 0; s--) {
        if (!P->scopes[s].is_class)
            continue;
        size_t skip = name[0] == 's' ? 5 : 4;
        apy_binding *b = find(P, P->scopes[s].id, name, n);
        if (!b)
            b = find(P, P->scopes[s].id, name + skip, n - skip);
        if (b) {
            tf_facts_pathval(&P->scratch, &b->val, out);
            return true;
        }
        break;
    }
    tf_pv_unknown(out);
    return false;
}

void apy_push_scope(apy *P, bool is_class)
{
    if (P->n_scopes == APY_MAX_SCOPES)
        return; /* deeper nesting shares the innermost scope */
    P->scopes[P->n_scopes++] = (apy_scope){++P->next_scope, is_class};
}

void apy_add_alias(apy *P, const char *name, size_t n, const char *target, size_t tn)
{
    tf_pathval v;
    tf_pv_unknown(&v);
    if (tn >= sizeof v.text)
        return;
    memcpy(v.text, target, tn);
    v.text[tn] = '\0';
    apy_bind_in(P, ALIAS_SCOPE, name, n, &v);
}

/* What an imported or bare name stands for: "tf" -> "tempfile", "Path" -> "pathlib.Path". */
static bool resolve_name(apy *P, const char *name, size_t n, char *out, size_t outlen)
{
    static const char *const pathlib_names[] = {
        "Path", "PurePath", "PosixPath", "PurePosixPath", "WindowsPath", "PureWindowsPath", NULL};
    apy_binding *b = find(P, ALIAS_SCOPE, name, n);
    if (b) {
        snprintf(out, outlen, "%s", tf_facts_get(&P->scratch, b->val.text));
        return true;
    }
    for (size_t i = 0; pathlib_names[i]; i++)
        if (strlen(pathlib_names[i]) == n && !memcmp(pathlib_names[i], name, n)) {
            snprintf(out, outlen, "pathlib.%s", pathlib_names[i]); /* often used unimported */
            return true;
        }
    return false;
}

/* The dotted source text of a name/attribute chain ("self.cfg"). */
bool apy_dotted_raw(const apy *P, uint32_t n, char *out, size_t len, int depth)
{
    if (apy_kind(P, n) == N_NAME) {
        if (apy_len(P, n) >= len)
            return false;
        memcpy(out, apy_text(P, n), apy_len(P, n));
        out[apy_len(P, n)] = '\0';
        return true;
    }
    if (apy_kind(P, n) != N_ATTR || depth > 16 ||
        !apy_dotted_raw(P, apy_kid(P, n, 0), out, len, depth + 1))
        return false;
    uint32_t attr = apy_kid(P, n, 1);
    size_t have = strlen(out), l = apy_len(P, attr);
    if (have + 1 + l >= len)
        return false;
    out[have] = '.';
    memcpy(out + have + 1, apy_text(P, attr), l);
    out[have + 1 + l] = '\0';
    return true;
}

/* The canonical dotted name of a callee: its first component resolved through imports. */
bool apy_canonical(apy *P, uint32_t n, char *out, size_t len)
{
    char raw[APY_NAME_MAX * 2], target[APY_NAME_MAX * 2];
    if (!apy_dotted_raw(P, n, raw, sizeof raw, 0))
        return false;
    size_t first = strcspn(raw, ".");
    int w = resolve_name(P, raw, first, target, sizeof target)
                ? snprintf(out, len, "%s%s", target, raw + first)
                : snprintf(out, len, "%s", raw);
    return w >= 0 && (size_t)w < len;
}
