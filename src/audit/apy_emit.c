#include "apy_emit.h"

#include "apy_eval.h"

#include <string.h>

uint32_t apy_pool(apy *P, const char *s)
{
    return tf_facts_str(P->f, s, strlen(s));
}

uint32_t apy_new_state(apy *P, tf_state st)
{
    st.func = P->w.func;
    uint32_t i = tf_facts_add_state(P->f, &st);
    return i ? i : P->w.state;
}

uint32_t apy_join_states(apy *P, uint32_t a, uint32_t b)
{
    if (a == b)
        return a;
    return apy_new_state(P, (tf_state){.kind = ST_JOIN, .a = a < b ? a : b, .b = a < b ? b : a});
}

void apy_fact(apy *P, int k, int flags, uint32_t at, const char *op, const tf_pathval *target)
{
    if (P->in_main)
        return;
    if (P->w.guard) {
        tf_pathval g = {.kind = TF_PATH_PARAM};
        g.state = TF_PARAM_REF(P->w.func, P->w.guard - 1u);
        apy_note_param(P, &g);
    }
    tf_fact x = {.kind = (uint8_t)k,
                 .flags = (uint8_t)flags,
                 .pos = apy_pos(P, at),
                 .guard = P->w.guard,
                 .op = op ? apy_pool(P, op) : 0,
                 .state = P->w.state};
    if (target)
        x.target = tf_facts_path(P->f, target);
    tf_facts_add_fact(P->f, &x);
}

/* A write of OP to the value of expression A (reported at node AT). A parameter's is kept
 * for the calls of its function to place. */
void apy_write_to(apy *P, uint32_t at, const char *op, const tf_pathval *v, int flags)
{
    if (v->kind == TF_PATH_UNKNOWN)
        return;
    apy_note_param(P, v);
    apy_fact(P, FACT_WRITE, flags, at, op, v);
}

void apy_write_arg(apy *P, uint32_t call, int pos, const char *kw, const char *op, bool at_call)
{
    uint32_t a = 0;
    tf_pathval v;
    if ((pos < 0 && !kw) || apy_get_arg(P, apy_kid(P, call, 1), pos, kw, &a) != APY_ARG_FOUND)
        return;
    apy_eval(P, a, 0, &v);
    apy_write_to(P, at_call ? call : a, op, &v, 0);
}
