#include "apy_assign.h"

#include "apy_emit.h"
#include "apy_eval.h"
#include "apy_scope.h"
#include "apy_shell.h"

#include <stdio.h>
#include <string.h>

/* Bind every name in a target to VAL (unknown for unpacking). */
void apy_bind_target(apy *P, uint32_t target, const tf_pathval *val, int depth)
{
    char raw[APY_NAME_MAX];
    int k = apy_kind(P, target);
    if ((k == N_NAME || k == N_ATTR) && apy_dotted_raw(P, target, raw, sizeof raw, 0)) {
        apy_bind(P, raw, strlen(raw), val);
        /* self.x = ... in a method: the class's other methods see it too */
        if (P->n_scopes >= 2 && P->scopes[P->n_scopes - 2].is_class && !strncmp(raw, "self.", 5))
            apy_bind_in(P, P->scopes[P->n_scopes - 2].id, raw, strlen(raw), val);
        return;
    }
    if (k == N_STARRED) {
        apy_bind_target(P, apy_kid(P, target, 0), val, depth + 1);
        return;
    }
    if (depth > 8 || (k != N_TUPLE && k != N_LIST))
        return;
    tf_pathval unknown;
    tf_pv_unknown(&unknown);
    for (uint32_t e = apy_node(P, target)->kid; e; e = apy_node(P, e)->next)
        apy_bind_target(P, e, &unknown, depth + 1);
}

void apy_on_assignment(apy *P, uint32_t n)
{
    uint32_t value = apy_node(P, n)->kid;
    while (apy_node(P, value)->next)
        value = apy_node(P, value)->next;
    tf_pathval v;
    for (uint32_t t = apy_node(P, n)->kid; t != value; t = apy_node(P, t)->next) {
        int lk = apy_kind(P, t);
        if (lk == N_TUPLE && apy_kind(P, value) == N_TUPLE &&
            py_nkids(P->t, t) == py_nkids(P->t, value)) {
            uint32_t vv = apy_node(P, value)->kid; /* a, b = x, y */
            for (uint32_t tt = apy_node(P, t)->kid; tt;
                 tt = apy_node(P, tt)->next, vv = apy_node(P, vv)->next) {
                apy_eval(P, vv, 0, &v);
                apy_bind_target(P, tt, &v, 0);
            }
            continue;
        }
        apy_eval(P, value, 0, &v);
        apy_bind_target(P, t, &v, 0);
        if (lk == N_SUBSCRIPT)
            apy_on_env_store(P, t);
        else
            apy_on_env_value(P, t, value);
    }
}

void apy_on_augmented(apy *P, uint32_t n)
{
    uint32_t left = apy_kid(P, n, 0);
    tf_pathval v, r;
    apy_eval(P, left, 0, &v);
    apy_eval(P, apy_kid(P, n, 1), 0, &r);
    if (apy_node(P, n)->op == OP_SLASHEQ && v.object)
        apy_join_value(&v, &r);
    else if (apy_node(P, n)->op == OP_PLUSEQ && v.kind == TF_PATH_LITERAL && !v.object &&
             r.kind == TF_PATH_LITERAL && strlen(v.text) + strlen(r.text) < sizeof v.text)
        memcpy(v.text + strlen(v.text), r.text, strlen(r.text) + 1);
    else
        tf_pv_unknown(&v);
    apy_bind_target(P, left, &v, 0);
}

/* The text of an N_DOTTED node ("a.b.c"); false when it does not fit. */
static bool dotted_text(apy *P, uint32_t d, char *out, size_t len)
{
    size_t have = 0;
    out[0] = '\0';
    for (uint32_t k = apy_node(P, d)->kid; k; k = apy_node(P, k)->next) {
        int w = snprintf(out + have, len - have, "%s%.*s", have ? "." : "", (int)apy_len(P, k),
                         apy_text(P, k));
        if (w < 0 || (size_t)w >= len - have)
            return false;
        have += (size_t)w;
    }
    return true;
}

static void import_one(apy *P, uint32_t alias, const char *module)
{
    char target[APY_NAME_MAX * 2], dotted[APY_NAME_MAX * 2];
    uint32_t as = apy_kid(P, alias, 1);
    if (!dotted_text(P, apy_kid(P, alias, 0), dotted, sizeof dotted))
        return;
    int w = module ? snprintf(target, sizeof target, "%s%s%s", module, module[0] ? "." : "", dotted)
                   : snprintf(target, sizeof target, "%s", dotted);
    if (w < 0 || (size_t)w >= sizeof target)
        return;
    if (apy_kind(P, as) == N_NAME)
        apy_add_alias(P, apy_text(P, as), apy_len(P, as), target, (size_t)w);
    else if (module) /* from m import x: x means m.x */
        apy_add_alias(P, dotted, strlen(dotted), target, (size_t)w);
    else /* import a.b: a means a */
        apy_add_alias(P, dotted, strcspn(dotted, "."), dotted, strcspn(dotted, "."));
}

static void record_import(apy *P, const char *module, int level)
{
    tf_import im = {.module = apy_pool(P, module), .level = (uint16_t)level};
    tf_facts_add_import(P->f, &im);
}

void apy_on_import(apy *P, uint32_t n, bool record)
{
    char module[APY_NAME_MAX * 2] = "", full[APY_NAME_MAX * 2];
    if (apy_kind(P, n) == N_IMPORT) {
        for (uint32_t a = apy_node(P, n)->kid; a; a = apy_node(P, a)->next) {
            import_one(P, a, NULL);
            if (record && dotted_text(P, apy_kid(P, a, 0), full, sizeof full))
                record_import(P, full, 0);
        }
        return;
    }
    int level = apy_node(P, n)->flags;
    uint32_t m = apy_node(P, n)->kid;
    if (apy_kind(P, m) == N_DOTTED && !dotted_text(P, m, module, sizeof module))
        return;
    for (uint32_t a = apy_node(P, m)->next; a; a = apy_node(P, a)->next) {
        uint32_t d = apy_kid(P, a, 0), as = apy_kid(P, a, 1), nm = apy_node(P, d)->kid;
        int w = snprintf(full, sizeof full, "%s%s%.*s", module, module[0] ? "." : "",
                         (int)apy_len(P, nm), apy_text(P, nm));
        if (w < 0 || (size_t)w >= sizeof full)
            continue;
        if (!level) {
            import_one(P, a, module);
        } else { /* from . import helpers: helpers.x is the project's */
            uint32_t local = apy_kind(P, as) == N_NAME ? as : nm;
            apy_add_alias(P, apy_text(P, local), apy_len(P, local), full, (size_t)w);
        }
        if (record) /* from pkg import mod may import a module */
            record_import(P, full, level);
    }
    if (record && (module[0] || level))
        record_import(P, module, level);
}
