#include "apy_defs.h"

#include "apy_calls.h"
#include "apy_emit.h"
#include "apy_eval.h"
#include "apy_expr.h"
#include "apy_scope.h"
#include "apy_stmt.h"
#include "apy_str.h"

#include <stdio.h>
#include <string.h>

/* Names from @pytest.mark.usefixtures("a", "b"), comma-separated into OUT. */
static void usefixtures_names(apy *P, uint32_t call, char *out, size_t len)
{
    size_t have = strlen(out);
    for (uint32_t a = apy_node(P, apy_kid(P, call, 1))->kid; a; a = apy_node(P, a)->next) {
        apy_str s;
        const char *t = apy_literal_arg(P, a, &s);
        if (t && have + strlen(t) + 2 < len)
            have += (size_t)snprintf(out + have, len - have, "%s%s", have ? "," : "", t);
    }
}

typedef struct decor {
    uint16_t flags;
    char fixture[APY_NAME_MAX];
    char usefixtures[256];
} decor;

static bool is_true(apy *P, uint32_t n)
{
    return apy_kind(P, n) == N_CONST && apy_node(P, n)->op == KW_TRUE;
}

static void decorators(apy *P, uint32_t decs, decor *d)
{
    for (uint32_t e = apy_node(P, decs)->kid; e; e = apy_node(P, e)->next) {
        uint32_t callee = apy_kind(P, e) == N_CALL ? apy_kid(P, e, 0) : e;
        char name[APY_NAME_MAX * 2];
        if (!apy_canonical(P, callee, name, sizeof name))
            continue;
        const char *tail = apy_last_part(name);
        if (apy_is_patch(name))
            d->flags |= FN_PATCHES; /* @mock.patch("app.save") */
        if (!strcmp(name, "contextlib.contextmanager") || !strcmp(tail, "contextmanager") ||
            !strcmp(tail, "asynccontextmanager"))
            d->flags |= FN_CM;
        if (!strcmp(name, "pytest.fixture") || !strcmp(name, "pytest.yield_fixture") ||
            !strcmp(name, "fixture") || !strcmp(name, "pytest_asyncio.fixture")) {
            d->flags |= FN_FIXTURE;
            uint32_t a = 0;
            if (apy_kind(P, e) == N_CALL) {
                if (apy_get_arg(P, apy_kid(P, e, 1), -1, "autouse", &a) == APY_ARG_FOUND &&
                    is_true(P, a))
                    d->flags |= FN_AUTOUSE;
                apy_str s;
                const char *t;
                if (apy_get_arg(P, apy_kid(P, e, 1), -1, "name", &a) == APY_ARG_FOUND &&
                    (t = apy_literal_arg(P, a, &s)))
                    snprintf(d->fixture, sizeof d->fixture, "%s", t);
            }
        }
        if (!strcmp(tail, "usefixtures") && apy_kind(P, e) == N_CALL)
            usefixtures_names(P, e, d->usefixtures, sizeof d->usefixtures);
    }
}

static bool is_setup(const char *name)
{
    static const char *const names[] = {
        "setUp",       "setup_method", "setup",          "setUpClass", "setup_class",
        "setUpModule", "setup_module", "setup_function", "asyncSetUp", NULL};
    return apy_name_in(name, names);
}

/* Parameter P_NODE (the INDEXth named one) of the function being walked: remembered for the
 * walk, and recorded at once when it has a default (evaluated where the def is: defaults are
 * evaluated once, when the module is imported). */
static void record_param(apy *P, uint32_t p_node, uint32_t nm, int index, bool kwonly)
{
    uint32_t def = apy_kid(P, p_node, 1);
    int flavour = apy_node(P, p_node)->flags;
    uint8_t flags = (uint8_t)((kwonly ? PA_KWONLY : 0) | (flavour != PARAM_PLAIN ? PA_STAR : 0));
    if (index < 32) {
        P->w.param_name[index] = nm;
        P->w.param_flags[index] = flags;
        P->w.n_params = index + 1;
    }
    if (apy_kind(P, def) == N_EMPTY)
        return;
    tf_param pa = {.func = P->w.func,
                   .name = tf_facts_str(P->f, apy_text(P, nm), apy_len(P, nm)),
                   .index = (uint16_t)index,
                   .flags = flags};
    tf_pathval v;
    bool none;
    apy_eval(P, def, 0, &v);
    v.home_early = v.kind == TF_PATH_LITERAL && v.text[0] == '~';
    pa.flags |= PA_DEFAULT | (apy_falsy_literal(P, def, &none) ? PA_FALSY : 0);
    pa.dflt = tf_facts_path(P->f, &v);
    tf_facts_add_param(P->f, &pa);
}

/* Parameter names, comma-separated; each bound to its parameter value. */
static void bind_params(apy *P, uint32_t params, char *out, size_t len)
{
    size_t have = 0;
    int i = 0;
    bool kwonly = false;
    out[0] = '\0';
    for (uint32_t p = apy_node(P, params)->kid; p; p = apy_node(P, p)->next) {
        uint32_t nm = apy_kid(P, p, 0);
        if (apy_kind(P, nm) != N_NAME) { /* a bare * makes the rest keyword-only */
            kwonly |= apy_node(P, p)->flags == PARAM_MARKER && apy_text(P, p)[0] == '*';
            continue;
        }
        if (i < 256)
            record_param(P, p, nm, i, kwonly);
        kwonly |= apy_node(P, p)->flags == PARAM_STAR;
        tf_pathval v;
        tf_pv_unknown(&v);
        if (i < 256) {
            v.state = TF_PARAM_REF(P->w.func, i);
            tf_pv_based(&v, TF_PATH_PARAM, false);
        }
        i++;
        apy_bind(P, apy_text(P, nm), apy_len(P, nm), &v);
        if (have + apy_len(P, nm) + 2 < len)
            have += (size_t)snprintf(out + have, len - have, "%s%.*s", have ? "," : "",
                                     (int)apy_len(P, nm), apy_text(P, nm));
    }
}

/* Walk function IDX (when NESTED, in a function whose state was PARENT): its parameters,
 * its entry state, its body, and the states it returns and yields in. */
static void walk_function(apy *P, uint32_t idx, bool nested, uint32_t parent, uint32_t params,
                          uint32_t body)
{
    char plist[512];
    P->w = (apy_walk){.func = idx};
    P->w.state = apy_new_state(P, nested ? (tf_state){.kind = ST_INHERIT, .a = parent}
                                         : (tf_state){.kind = ST_ENTRY, .a = idx});
    uint32_t cls = P->cls;
    P->cls = 0;
    apy_push_scope(P, false);
    bind_params(P, params, plist, sizeof plist);
    P->f->funcs[idx].params = apy_pool(P, plist);
    P->f->funcs[idx].entry = P->w.state;
    apy_statements(P, body);
    uint32_t exit = P->w.state; /* falling off the end, or (never returning) the last state */
    if (P->w.has_exit)
        exit = P->w.dead ? P->w.exit : apy_join_states(P, P->w.exit, P->w.state);
    P->f->funcs[idx].exit_state = exit;
    if (!(P->f->funcs[idx].flags & FN_YIELDS))
        P->f->funcs[idx].yield_state = P->f->funcs[idx].exit_state;
    P->n_scopes--;
    P->cls = cls;
}

void apy_on_funcdef(apy *P, uint32_t n)
{
    uint32_t nm = apy_kid(P, n, 1), params = apy_kid(P, n, 2), body = apy_kid(P, n, 3);
    decor d = {0};
    decorators(P, apy_kid(P, n, 0), &d);
    char name[APY_NAME_MAX];
    snprintf(name, sizeof name, "%.*s",
             (int)apy_len(P, nm) < APY_NAME_MAX ? (int)apy_len(P, nm) : 0, apy_text(P, nm));
    bool nested = P->w.func != 0 && !P->cls;
    uint16_t flags = d.flags | (nested ? FN_NESTED : 0) | (P->in_main ? FN_MAIN : 0);
    if (!strncmp(name, "test", 4) && !(flags & FN_FIXTURE))
        flags |= FN_TEST;
    if (is_setup(name))
        flags |= FN_SETUP;
    for (uint32_t k = apy_node(P, apy_kid(P, n, 0))->kid; k; k = apy_node(P, k)->next)
        apy_visit(P, k);
    apy_walk saved = P->w;
    tf_func fn = {.name = apy_pool(P, name),
                  .cls = P->cls,
                  .flags = flags,
                  .fixture = apy_pool(P, d.fixture[0] ? d.fixture : name),
                  .usefixtures = apy_pool(P, d.usefixtures)};
    uint32_t idx = tf_facts_add_func(P->f, &fn);
    if (!idx)
        return;
    walk_function(P, idx, nested, saved.state, params, body);
    P->w = saved;
    apy_bind_unknown(P, name, strlen(name));
}

void apy_on_classdef(apy *P, uint32_t n)
{
    uint32_t nm = apy_kid(P, n, 1), bases = apy_kid(P, n, 2), body = apy_kid(P, n, 3);
    decor d = {0};
    decorators(P, apy_kid(P, n, 0), &d);
    char blist[512] = "";
    size_t have = 0;
    for (uint32_t b = apy_node(P, bases)->kid; b; b = apy_node(P, b)->next) {
        char name[APY_NAME_MAX * 2];
        if (apy_kind(P, b) != N_KWARG && apy_canonical(P, b, name, sizeof name) &&
            have + strlen(name) + 2 < sizeof blist)
            have +=
                (size_t)snprintf(blist + have, sizeof blist - have, "%s%s", have ? "," : "", name);
    }
    apy_visit(P, bases);
    tf_class c = {.name = tf_facts_str(P->f, apy_text(P, nm), apy_len(P, nm)),
                  .bases = apy_pool(P, blist),
                  .usefixtures = apy_pool(P, d.usefixtures)};
    tf_facts_add_class(P->f, &c);
    uint32_t cls = P->cls;
    P->cls = c.name;
    apy_push_scope(P, true);
    apy_statements(P, body);
    P->n_scopes--;
    P->cls = cls;
    apy_bind_unknown(P, apy_text(P, nm), apy_len(P, nm));
}

/* pytestmark = pytest.mark.usefixtures("x") at module level. */
void apy_module_marks(apy *P, uint32_t n)
{
    uint32_t target = apy_kid(P, n, 0), value = apy_node(P, target)->next;
    if (P->w.func || !apy_text_is(P, target, "pytestmark") || apy_kind(P, value) != N_CALL)
        return;
    char buf[256] = "", name[APY_NAME_MAX * 2];
    if (apy_canonical(P, apy_kid(P, value, 0), name, sizeof name) &&
        !strcmp(apy_last_part(name), "usefixtures"))
        usefixtures_names(P, value, buf, sizeof buf);
    if (buf[0])
        P->f->module_usefixtures = apy_pool(P, buf);
}
