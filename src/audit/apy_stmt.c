#include "apy_stmt.h"

#include "apy_assign.h"
#include "apy_calls.h"
#include "apy_defs.h"
#include "apy_emit.h"
#include "apy_eval.h"
#include "apy_expr.h"
#include "apy_scope.h"
#include "apy_shell.h"

#include <string.h>

/* Walk BLOCK from state FROM; the state after it (and whether it ends in return/raise). */
static uint32_t branch(apy *P, uint32_t block, uint32_t from, bool *dead)
{
    P->w.state = from;
    P->w.dead = false;
    apy_statements(P, block);
    *dead = P->w.dead;
    P->w.dead = false;
    return P->w.state;
}

/* if __name__ == "__main__": code a test runner never runs. */
static bool is_main_guard(apy *P, uint32_t test)
{
    if (apy_kind(P, test) != N_COMPARE)
        return false;
    uint32_t l = apy_kid(P, test, 0), r = apy_kid(P, test, 1);
    return (apy_text_is(P, l, "__name__") &&
            (apy_text_is(P, r, "\"__main__\"") || apy_text_is(P, r, "'__main__'"))) ||
           (apy_text_is(P, r, "__name__") &&
            (apy_text_is(P, l, "\"__main__\"") || apy_text_is(P, l, "'__main__'")));
}

/* The bare parameter of the function being walked that expression N names, or false. */
static bool own_param(apy *P, uint32_t n, tf_pathval *pv)
{
    return apy_kind(P, n) == N_NAME && apy_lookup(P, apy_text(P, n), apy_len(P, n), pv) &&
           pv->kind == TF_PATH_PARAM && !pv->text[0] && !pv->up &&
           TF_PARAM_FUNC(pv->state) == P->w.func && P->w.func;
}

/* "if p is None:" or "if not p:" on a parameter: the name node, else 0. */
static uint32_t none_test(apy *P, uint32_t test)
{
    if (apy_kind(P, test) == N_NOT)
        return apy_kid(P, test, 0);
    if (apy_kind(P, test) != N_COMPARE || py_nkids(P->t, test) != 2)
        return 0;
    uint32_t l = apy_kid(P, test, 0), r = apy_kid(P, test, 1);
    const char *t = apy_text(P, test);
    bool is = false; /* "is" or "==", not "is not" or "!=" */
    for (size_t i = apy_node(P, l)->end - apy_node(P, test)->start;
         i + 1 < apy_node(P, r)->start - apy_node(P, test)->start; i++)
        is |= (t[i] == 'i' && t[i + 1] == 's') || (t[i] == '=' && t[i + 1] == '=');
    for (size_t i = apy_node(P, l)->end - apy_node(P, test)->start;
         i + 2 < apy_node(P, r)->start - apy_node(P, test)->start; i++)
        is &= !(t[i] == 'n' && t[i + 1] == 'o' && t[i + 2] == 't') && t[i] != '!';
    return is && apy_kind(P, r) == N_CONST && apy_node(P, r)->op == KW_NONE_ ? l : 0;
}

static void on_if(apy *P, uint32_t n)
{
    uint32_t test = apy_kid(P, n, 0), body = apy_kid(P, n, 1), orelse = apy_kid(P, n, 2);
    apy_visit(P, test);
    uint32_t from = P->w.state;
    bool dead1, dead2 = false, was_main = P->in_main;
    P->in_main |= is_main_guard(P, test);
    tf_pathval param, fb;
    uint32_t checked = orelse ? 0 : none_test(P, test);
    bool defaults = checked && own_param(P, checked, &param);
    uint8_t guard = P->w.guard;
    if (own_param(P, test, &param)) /* if clean: ... runs only when the argument is true */
        P->w.guard = (uint8_t)(TF_PARAM_INDEX(param.state) + 1);
    uint32_t s1 = branch(P, body, from, &dead1);
    P->w.guard = guard;
    P->in_main = was_main;
    if (defaults && apy_lookup(P, apy_text(P, checked), apy_len(P, checked), &fb)) {
        apy_param_fallback(P, &param, &fb); /* if p is None: p = DEFAULT */
        param.or_default = true;
        apy_bind(P, apy_text(P, checked), apy_len(P, checked), &param);
    }
    uint32_t s2 = from;
    if (orelse)
        s2 = branch(P, orelse, from, &dead2);
    P->w.dead = dead1 && dead2;
    P->w.state = dead1 ? s2 : dead2 ? s1 : apy_join_states(P, s1, s2);
}

/* Loops: the body may run or not; the state after is either. */
static void on_loop(apy *P, uint32_t n)
{
    bool is_for = apy_kind(P, n) == N_FOR, dead;
    uint32_t body = apy_kid(P, n, is_for ? 2 : 1), orelse = apy_kid(P, n, is_for ? 3 : 2);
    if (is_for) {
        apy_visit(P, apy_kid(P, n, 1));
        apy_bind_target(P, apy_kid(P, n, 0), &(tf_pathval){.kind = TF_PATH_UNKNOWN}, 0);
    } else {
        apy_visit(P, apy_kid(P, n, 0));
    }
    uint32_t from = P->w.state, s1 = branch(P, body, from, &dead);
    P->w.state = dead ? from : apy_join_states(P, from, s1);
    if (orelse)
        P->w.state = branch(P, orelse, P->w.state, &dead), P->w.dead = dead;
}

/* try: the handlers run from the state before (they are error paths: the state after the
 * statement is the body's, then else's, then finally's). */
static void on_try(apy *P, uint32_t n)
{
    uint32_t from = P->w.state, body = apy_kid(P, n, 0);
    bool dead, body_dead;
    uint32_t s = branch(P, body, from, &body_dead);
    for (uint32_t k = apy_node(P, body)->next; k; k = apy_node(P, k)->next) {
        if (apy_kind(P, k) == N_HANDLER) {
            apy_visit(P, apy_kid(P, k, 0));
            if (apy_kind(P, apy_kid(P, k, 1)) == N_NAME)
                apy_bind_unknown(P, apy_text(P, apy_kid(P, k, 1)), apy_len(P, apy_kid(P, k, 1)));
            branch(P, apy_kid(P, k, 2), from, &dead);
        } else if (apy_node(P, k)->flags == BLOCK_ELSE) {
            s = branch(P, k, s, &body_dead);
        } else { /* finally */
            s = branch(P, k, s, &dead);
            body_dead |= dead;
        }
    }
    P->w.state = s;
    P->w.dead = body_dead;
}

/* Context managers that do not touch the working directory: no state for them. */
static bool plain_cm(const char *name)
{
    static const char *const tails[] = {"open",
                                        "raises",
                                        "assertRaises",
                                        "assertRaisesRegex",
                                        "assertWarns",
                                        "assertWarnsRegex",
                                        "assertLogs",
                                        "assertNoLogs",
                                        "subTest",
                                        "patch",
                                        "object",
                                        "dict",
                                        "catch_warnings",
                                        "suppress",
                                        "redirect_stdout",
                                        "redirect_stderr",
                                        "warns",
                                        "deprecated_call",
                                        "lock",
                                        "Lock",
                                        "RLock",
                                        "TemporaryDirectory",
                                        "NamedTemporaryFile",
                                        "TemporaryFile",
                                        "ExitStack",
                                        "captured_stdout",
                                        "captured_stderr",
                                        NULL};
    return apy_name_in(apy_last_part(name), tails);
}

/* One with item: the state inside its block. */
static uint32_t with_item(apy *P, uint32_t item)
{
    uint32_t e = apy_kid(P, item, 0), target = apy_kid(P, item, 1);
    apy_visit(P, e);
    tf_pathval v;
    tf_pv_unknown(&v);
    uint32_t state = P->w.state;
    char name[APY_NAME_MAX * 2];
    if (apy_kind(P, e) == N_CALL && apy_canonical(P, apy_kid(P, e, 0), name, sizeof name) &&
        !plain_cm(name)) {
        uint32_t fn = apy_kid(P, e, 0), a = 0;
        if (!strcmp(apy_last_part(name), "as_cwd") && apy_kind(P, fn) == N_ATTR) {
            apy_eval(P, apy_kid(P, fn, 0), 0, &v); /* py.path: with tmpdir.as_cwd() */
            state = apy_new_state(P, (tf_state){.kind = ST_SET, .value = tf_facts_path(P->f, &v)});
        } else {
            if (apy_get_arg(P, apy_kid(P, e, 1), 0, NULL, &a) == APY_ARG_FOUND)
                apy_eval(P, a, 0, &v);
            state = apy_new_state(P, (tf_state){.kind = ST_EFFECT,
                                                .in_with = 1,
                                                .a = P->w.state,
                                                .callee = apy_pool(P, name),
                                                .value = tf_facts_path(P->f, &v)});
        }
    }
    if (target) {
        tf_pathval r;
        apy_eval(P, e, 0, &r);
        if (apy_kind(P, e) != N_CALL || !apy_text_is(P, apy_kid(P, apy_kid(P, e, 0), 1), "open"))
            apy_bind_target(P, target, &r, 0);
        else
            apy_bind_target(P, target, &(tf_pathval){.kind = TF_PATH_UNKNOWN}, 0);
    }
    return state;
}

static void on_with(apy *P, uint32_t n)
{
    uint32_t before = P->w.state, k = apy_node(P, n)->kid;
    for (; apy_kind(P, k) == N_WITHITEM; k = apy_node(P, k)->next)
        P->w.state = with_item(P, k);
    bool dead;
    branch(P, k, P->w.state, &dead);
    P->w.state = before; /* the block ended: its working directory is restored */
    P->w.dead = dead;
}
/* del env["PYTHONDONTWRITEBYTECODE"] */
static void on_del(apy *P, uint32_t n)
{
    uint32_t t = apy_kid(P, n, 0);
    for (uint32_t e = apy_kind(P, t) == N_TUPLE ? apy_node(P, t)->kid : t; e;
         e = apy_kind(P, t) == N_TUPLE ? apy_node(P, e)->next : 0)
        if (apy_kind(P, e) == N_SUBSCRIPT && apy_is_bytecode_var(P, apy_kid(P, e, 1)))
            apy_strip_env(P, apy_kid(P, e, 0));
    apy_visit(P, t);
}

/* An expression as a statement; a call there may change the working directory for good. */
static void on_expr_stmt(apy *P, uint32_t n)
{
    uint32_t e = apy_kid(P, n, 0);
    if (apy_kind(P, e) == N_STRING || apy_kind(P, e) == N_CONCAT)
        return; /* a docstring */
    apy_visit(P, e);
    if (apy_kind(P, e) == N_CALL)
        apy_call_effect(P, e);
}

/* x: T = value */
static void on_annassign(apy *P, uint32_t n)
{
    uint32_t value = apy_kid(P, n, 2);
    apy_visit(P, value);
    if (value) {
        tf_pathval v;
        apy_eval(P, value, 0, &v);
        apy_bind_target(P, apy_kid(P, n, 0), &v, 0);
    }
}

/* return and raise: the rest of the block is not reached. */
/* A return that may give None: a fixture whose value may be None. */
static bool may_be_none(apy *P, uint32_t value)
{
    char name[APY_NAME_MAX * 2];
    bool none;
    if (!value)
        return true;
    if (apy_falsy_literal(P, value, &none))
        return none;
    if (apy_kind(P, value) != N_CALL || !apy_canonical(P, apy_kid(P, value, 0), name, sizeof name))
        return false;
    return (!strcmp(name, "os.environ.get") || !strcmp(name, "os.getenv")) &&
           apy_positional_count(P, apy_kid(P, value, 1)) == 1;
}

static void on_leave(apy *P, uint32_t n)
{
    if (apy_kind(P, n) == N_RETURN && P->w.func && may_be_none(P, apy_kid(P, n, 0)))
        P->f->funcs[P->w.func].flags |= FN_MAY_NONE;
    apy_visit(P, apy_kid(P, n, 0));
    apy_visit(P, apy_kid(P, n, 1));
    if (apy_kind(P, n) == N_RETURN) { /* a raise leaves by the error path: no exit state */
        P->w.exit = P->w.has_exit ? apy_join_states(P, P->w.exit, P->w.state) : P->w.state;
        P->w.has_exit = true;
    }
    P->w.dead = true;
}

/* match: each case runs from the state before; the state after is any of theirs. */
static void on_match(apy *P, uint32_t n)
{
    uint32_t from = P->w.state, after = from;
    bool dead;
    apy_visit(P, apy_kid(P, n, 0));
    for (uint32_t c = apy_node(P, apy_kid(P, n, 0))->next; c; c = apy_node(P, c)->next) {
        apy_visit(P, apy_kid(P, c, 0));
        after = apy_join_states(P, after, branch(P, apy_kid(P, c, 1), from, &dead));
    }
    P->w.state = after;
}

static void statement(apy *P, uint32_t n)
{
    switch (apy_kind(P, n)) {
    case N_EXPR_STMT:
        on_expr_stmt(P, n);
        return;
    case N_ASSIGN:
        for (uint32_t k = apy_node(P, n)->kid; k; k = apy_node(P, k)->next)
            apy_visit(P, k);
        apy_on_assignment(P, n);
        apy_module_marks(P, n);
        return;
    case N_ANNASSIGN:
        on_annassign(P, n);
        return;
    case N_AUGASSIGN:
        apy_visit(P, apy_kid(P, n, 1));
        apy_on_augmented(P, n);
        return;
    case N_RETURN:
    case N_RAISE:
        on_leave(P, n);
        return;
    case N_DEL:
        on_del(P, n);
        return;
    case N_IMPORT:
    case N_FROM_IMPORT:
        apy_on_import(P, n, false);
        return;
    case N_IF:
        on_if(P, n);
        return;
    case N_WHILE:
    case N_FOR:
        on_loop(P, n);
        return;
    case N_TRY:
        on_try(P, n);
        return;
    case N_WITH:
        on_with(P, n);
        return;
    case N_FUNCDEF:
        apy_on_funcdef(P, n);
        return;
    case N_CLASSDEF:
        apy_on_classdef(P, n);
        return;
    case N_MATCH:
        on_match(P, n);
        return;
    default:
        for (uint32_t k = apy_node(P, n)->kid; k; k = apy_node(P, k)->next)
            apy_visit(P, k);
    }
}

void apy_statements(apy *P, uint32_t block)
{
    for (uint32_t s = block ? apy_node(P, block)->kid : 0; s && !P->oom && !P->f->oom;
         s = apy_node(P, s)->next)
        statement(P, s);
}
