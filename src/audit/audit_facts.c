#include "audit_facts.h"

#include "base/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tf_facts_init(tf_facts *f)
{
    memset(f, 0, sizeof *f);
    f->cap_pool = 256;
    if (!(f->pool = malloc(f->cap_pool)))
        return -1;
    f->pool[0] = '\0';
    f->n_pool = 1;
    tf_state entry = {.kind = ST_ENTRY, .a = 0};
    tf_func module = {.entry = 0, .exit_state = 0};
    tf_facts_add_state(f, &entry);
    tf_facts_add_func(f, &module);
    return f->oom ? -1 : 0;
}

void tf_facts_free(tf_facts *f)
{
    free(f->pool);
    free(f->interned);
    free(f->facts);
    free(f->states);
    free(f->funcs);
    free(f->classes);
    free(f->calls);
    free(f->exports);
    free(f->imports);
    free(f->supps);
    free(f->args);
    free(f->params);
    memset(f, 0, sizeof *f);
}

static uint64_t str_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Room for one more interned string: the set is kept at most half full. */
static bool intern_room(tf_facts *f)
{
    if ((f->n_interned + 1) * 2 <= f->cap_interned)
        return true;
    size_t cap = f->cap_interned ? f->cap_interned * 2 : 256;
    uint32_t *set = calloc(cap, sizeof *set);
    if (!set)
        return false;
    for (size_t i = 0; i < f->cap_interned; i++) {
        uint32_t off = f->interned[i];
        if (!off)
            continue;
        size_t k = str_hash(f->pool + off, strlen(f->pool + off)) & (cap - 1);
        while (set[k])
            k = (k + 1) & (cap - 1);
        set[k] = off;
    }
    free(f->interned);
    f->interned = set;
    f->cap_interned = cap;
    return true;
}

static uint32_t pool_append(tf_facts *f, const char *s, size_t len)
{
    while (f->n_pool + len + 1 > f->cap_pool) {
        char *np = realloc(f->pool, f->cap_pool * 2);
        if (!np) {
            f->oom = true;
            return 0;
        }
        f->pool = np;
        f->cap_pool *= 2;
    }
    uint32_t off = (uint32_t)f->n_pool;
    memcpy(f->pool + off, s, len);
    f->pool[off + len] = '\0';
    f->n_pool += len + 1;
    return off;
}

uint32_t tf_facts_str(tf_facts *f, const char *s, size_t len)
{
    if (len == 0 || f->n_pool + len + 1 > UINT32_MAX)
        return 0;
    if (!intern_room(f)) {
        f->oom = true;
        return 0;
    }
    size_t k = str_hash(s, len) & (f->cap_interned - 1);
    for (; f->interned[k]; k = (k + 1) & (f->cap_interned - 1)) {
        const char *have = f->pool + f->interned[k];
        if (!strncmp(have, s, len) && have[len] == '\0')
            return f->interned[k];
    }
    uint32_t off = pool_append(f, s, len);
    if (off) {
        f->interned[k] = off;
        f->n_interned++;
    }
    return off;
}

const char *tf_facts_get(const tf_facts *f, uint32_t off)
{
    return off < f->n_pool ? f->pool + off : "";
}

static uint32_t add(tf_facts *f, void **v, size_t *n, size_t *cap, const void *x, size_t size)
{
    void *nv = vec_grow(*v, cap, *n, size);
    if (!nv || *n >= UINT32_MAX) {
        f->oom = true;
        return 0;
    }
    *v = nv;
    memcpy((char *)nv + *n * size, x, size);
    return (uint32_t)(*n)++;
}

#define ADDER(type, name, arr)                                                                     \
    uint32_t tf_facts_add_##name(tf_facts *f, const type *x)                                       \
    {                                                                                              \
        return add(f, (void **)&f->arr, &f->n_##arr, &f->cap_##arr, x, sizeof *x);                 \
    }
ADDER(tf_fact, fact, facts)
ADDER(tf_state, state, states)
ADDER(tf_func, func, funcs)
ADDER(tf_class, class, classes)
ADDER(tf_call, call, calls)
ADDER(tf_export, export, exports)
ADDER(tf_import, import, imports)
ADDER(tf_supp, supp, supps)
ADDER(tf_arg, arg, args)
ADDER(tf_param, param, params)
#undef ADDER

tf_fpath tf_facts_path(tf_facts *f, const tf_pathval *pv)
{
    tf_fpath fp = {.kind = (uint8_t)pv->kind,
                   .wild = pv->wild,
                   .obj = pv->object,
                   .flags = (uint8_t)((pv->or_default ? FP_OR_DEFAULT : 0) |
                                      (pv->home_early ? FP_HOME_EARLY : 0)),
                   .up = (int16_t)pv->up};
    if (pv->up < -1 || pv->up > 1000)
        return (tf_fpath){.kind = TF_PATH_UNKNOWN};
    fp.text = tf_facts_str(f, pv->text, strlen(pv->text));
    if (pv->kind == TF_PATH_CWD || pv->kind == TF_PATH_PARAM)
        fp.ref = pv->state;
    else if (pv->kind == TF_PATH_EXTERN)
        fp.ref = tf_facts_str(f, pv->ext, strlen(pv->ext));
    return fp;
}

void tf_facts_pathval(const tf_facts *f, const tf_fpath *fp, tf_pathval *out)
{
    tf_pv_unknown(out);
    const char *text = tf_facts_get(f, fp->text);
    if (fp->kind >= TF_PATH_KIND_COUNT || strlen(text) >= sizeof out->text)
        return;
    out->kind = (tf_path_kind)fp->kind;
    out->wild = fp->wild;
    out->object = fp->obj;
    out->up = fp->up;
    out->or_default = fp->flags & FP_OR_DEFAULT;
    out->home_early = fp->flags & FP_HOME_EARLY;
    memcpy(out->text, text, strlen(text) + 1); /* fits: checked above */
    if (fp->kind == TF_PATH_CWD || fp->kind == TF_PATH_PARAM)
        out->state = fp->ref;
    else if (fp->kind == TF_PATH_EXTERN)
        snprintf(out->ext, sizeof out->ext, "%s", tf_facts_get(f, fp->ref));
}

/* ---- the cache's byte string ---- */

/* Sections, in order: the pool, then each array as a count and its raw elements. The layout
 * is this build's (the cache key includes the audit's version and these sizes). */
typedef struct section {
    void **data;
    size_t *n, *cap;
    size_t size;
} section;

static size_t sections(const tf_facts *cf, section *s)
{
    tf_facts *f = (tf_facts *)(uintptr_t)cf; /* saving reads through the same table */
    size_t k = 0;
#define SEC(name)                                                                                  \
    s[k++] = (section){(void **)&f->name, &f->n_##name, &f->cap_##name, sizeof *f->name}
    SEC(facts);
    SEC(states);
    SEC(funcs);
    SEC(classes);
    SEC(calls);
    SEC(exports);
    SEC(imports);
    SEC(supps);
    SEC(args);
    SEC(params);
#undef SEC
    return k;
}

int tf_facts_save(const tf_facts *f, char **out, size_t *len)
{
    section s[10];
    size_t k = sections(f, s), total = 2 * sizeof(uint64_t) + f->n_pool;
    for (size_t i = 0; i < k; i++)
        total += sizeof(uint64_t) + *s[i].n * s[i].size;
    char *buf = malloc(total), *p = buf;
    if (!buf)
        return -1;
    uint64_t v = f->n_pool;
    memcpy(p, &v, sizeof v), p += sizeof v;
    v = f->module_usefixtures;
    memcpy(p, &v, sizeof v), p += sizeof v;
    memcpy(p, f->pool, f->n_pool), p += f->n_pool;
    for (size_t i = 0; i < k; i++) {
        v = *s[i].n;
        memcpy(p, &v, sizeof v), p += sizeof v;
        if (*s[i].n)
            memcpy(p, *s[i].data, *s[i].n * s[i].size), p += *s[i].n * s[i].size;
    }
    *out = buf;
    *len = total;
    return 0;
}

static bool take(const char **p, const char *end, void *dst, size_t n)
{
    if ((size_t)(end - *p) < n)
        return false;
    memcpy(dst, *p, n);
    *p += n;
    return true;
}

static bool str_ok(const tf_facts *f, uint32_t off)
{
    return off < f->n_pool;
}

static bool path_ok(const tf_facts *f, const tf_fpath *fp)
{
    return fp->kind < TF_PATH_KIND_COUNT && str_ok(f, fp->text) &&
           (fp->kind != TF_PATH_CWD || fp->ref < f->n_states) &&
           (fp->kind != TF_PATH_EXTERN || str_ok(f, fp->ref)) &&
           (fp->kind != TF_PATH_PARAM || TF_PARAM_FUNC(fp->ref) < f->n_funcs) && fp->up >= -1;
}

static bool state_ok(const tf_facts *f, const tf_state *s)
{
    switch (s->kind) {
    case ST_ENTRY:
        return s->a < f->n_funcs;
    case ST_SET:
        return path_ok(f, &s->value) && s->a < f->n_states;
    case ST_EFFECT:
        return s->a < f->n_states && str_ok(f, s->callee) && path_ok(f, &s->value);
    case ST_JOIN:
        return s->a < f->n_states && s->b < f->n_states;
    case ST_INHERIT:
        return s->a < f->n_states;
    default:
        return false;
    }
}

/* Every index in range, every kind known, every string inside the pool. States may only
 * refer to earlier states, so resolving them always ends. */
static bool facts_ok(const tf_facts *f)
{
    if (f->n_pool == 0 || f->pool[f->n_pool - 1] != '\0' || f->n_states == 0 || f->n_funcs == 0 ||
        !str_ok(f, f->module_usefixtures))
        return false;
    for (size_t i = 0; i < f->n_states; i++) {
        const tf_state *s = &f->states[i];
        if (!state_ok(f, s) || s->func >= f->n_funcs ||
            (s->kind != ST_ENTRY && s->kind != ST_SET && s->a >= i) ||
            (s->kind == ST_JOIN && s->b >= i) ||
            (s->value.kind == TF_PATH_CWD && s->value.ref >= i))
            return false;
    }
    for (size_t i = 0; i < f->n_facts; i++) {
        const tf_fact *x = &f->facts[i];
        if (x->kind >= FACT_KIND_COUNT || !str_ok(f, x->op) || !path_ok(f, &x->target) ||
            x->state >= f->n_states || x->pos.line < 1 || x->pos.col < 1)
            return false;
    }
    for (size_t i = 0; i < f->n_funcs; i++) {
        const tf_func *fn = &f->funcs[i];
        if (!str_ok(f, fn->name) || !str_ok(f, fn->cls) || !str_ok(f, fn->fixture) ||
            !str_ok(f, fn->params) || !str_ok(f, fn->usefixtures) || fn->entry >= f->n_states ||
            fn->yield_state >= f->n_states || fn->exit_state >= f->n_states)
            return false;
    }
    for (size_t i = 0; i < f->n_classes; i++)
        if (!str_ok(f, f->classes[i].name) || !str_ok(f, f->classes[i].bases) ||
            !str_ok(f, f->classes[i].usefixtures))
            return false;
    for (size_t i = 0; i < f->n_calls; i++)
        if (!str_ok(f, f->calls[i].callee) || f->calls[i].func >= f->n_funcs ||
            f->calls[i].state >= f->n_states || f->calls[i].line < 1 ||
            f->calls[i].arg0 > f->n_args || f->calls[i].n_args > f->n_args - f->calls[i].arg0)
            return false;
    for (size_t i = 0; i < f->n_args; i++)
        if (!str_ok(f, f->args[i].kw) || !path_ok(f, &f->args[i].value))
            return false;
    for (size_t i = 0; i < f->n_params; i++)
        if (f->params[i].func >= f->n_funcs || !str_ok(f, f->params[i].name) ||
            !path_ok(f, &f->params[i].dflt) || !path_ok(f, &f->params[i].fallback))
            return false;
    for (size_t i = 0; i < f->n_exports; i++)
        if (!str_ok(f, f->exports[i].name) || !path_ok(f, &f->exports[i].value))
            return false;
    for (size_t i = 0; i < f->n_imports; i++)
        if (!str_ok(f, f->imports[i].module))
            return false;
    for (size_t i = 0; i < f->n_supps; i++)
        if (f->supps[i].line < 1)
            return false;
    return true;
}

bool tf_facts_load(tf_facts *f, const char *data, size_t len)
{
    const char *p = data, *end = data + len;
    uint64_t n_pool, usefix;
    memset(f, 0, sizeof *f);
    if (!take(&p, end, &n_pool, sizeof n_pool) || !take(&p, end, &usefix, sizeof usefix) ||
        n_pool == 0 || n_pool > (uint64_t)(end - p) || usefix >= n_pool)
        return false;
    if (!(f->pool = malloc(n_pool)))
        return false;
    f->n_pool = f->cap_pool = n_pool;
    take(&p, end, f->pool, n_pool);
    f->module_usefixtures = (uint32_t)usefix;
    section s[10];
    size_t k = sections(f, s);
    for (size_t i = 0; i < k; i++) {
        uint64_t n;
        if (!take(&p, end, &n, sizeof n) || n > (uint64_t)(end - p) / s[i].size)
            goto bad;
        *s[i].n = *s[i].cap = n;
        if (n &&
            (!(*s[i].data = malloc(n * s[i].size)) || !take(&p, end, *s[i].data, n * s[i].size)))
            goto bad;
    }
    if (p == end && facts_ok(f))
        return true;
bad:
    tf_facts_free(f);
    return false;
}
