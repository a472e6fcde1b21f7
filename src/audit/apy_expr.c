#include "apy_expr.h"

#include "apy_assign.h"
#include "apy_calls.h"
#include "apy_emit.h"
#include "apy_eval.h"
#include "apy_scope.h"
#include "apy_str.h"

#include <string.h>

static void on_string(apy *P, uint32_t n)
{
    apy_str s;
    if (P->quiet || !P->artifacts || !P->artifacts[0] || P->in_main)
        return;
    apy_strings_value(P, n, &s, 0);
    for (char *c = s.text; *c; c++)
        if (*c == '\\')
            *c = '/';
    size_t k = strlen(P->artifacts);
    for (const char *p = strstr(s.text, P->artifacts); p; p = strstr(p + 1, P->artifacts))
        if ((p == s.text || p[-1] == '/') && (p[k] == '\0' || p[k] == '/')) {
            apy_fact(P, FACT_ARTIFACTS, 0, n, s.text, NULL);
            return;
        }
}

static void on_yield(apy *P)
{
    tf_func *fn = &P->f->funcs[P->w.func];
    if (P->w.func && !(fn->flags & FN_YIELDS)) {
        fn->flags |= FN_YIELDS;
        fn->yield_state = P->w.state;
    }
}

static void visit_lambda(apy *P, uint32_t n)
{
    apy_push_scope(P, false);
    for (uint32_t p = apy_node(P, apy_kid(P, n, 0))->kid; p; p = apy_node(P, p)->next)
        if (apy_kind(P, apy_kid(P, p, 0)) == N_NAME)
            apy_bind_unknown(P, apy_text(P, apy_kid(P, p, 0)), apy_len(P, apy_kid(P, p, 0)));
    apy_visit(P, apy_kid(P, n, 1));
    P->n_scopes--;
}

/* Every expression node below N: calls, strings, bindings by := and comprehensions. */
void apy_visit(apy *P, uint32_t n)
{
    if (!n)
        return;
    switch (apy_kind(P, n)) {
    case N_CALL:
        apy_on_call(P, n);
        return;
    case N_STRING:
    case N_CONCAT:
        on_string(P, n);
        break; /* f-string fields hold code */
    case N_LAMBDA:
        visit_lambda(P, n);
        return;
    case N_NAMED: {
        tf_pathval v;
        apy_visit(P, apy_kid(P, n, 1));
        apy_eval(P, apy_kid(P, n, 1), 0, &v);
        apy_bind_target(P, apy_kid(P, n, 0), &v, 0);
        return;
    }
    case N_COMPFOR:
        apy_bind_target(P, apy_kid(P, n, 0), &(tf_pathval){.kind = TF_PATH_UNKNOWN}, 0);
        break;
    case N_YIELD:
        on_yield(P);
        break;
    default:
        break;
    }
    for (uint32_t k = apy_node(P, n)->kid; k; k = apy_node(P, k)->next)
        apy_visit(P, k);
}
