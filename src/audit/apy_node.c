#include "apy_node.h"

#include <string.h>

tf_pos apy_pos(const apy *P, uint32_t n)
{
    tf_pos p;
    int end_col;
    py_position(P->t, apy_node(P, n)->start, &p.line, &p.col);
    py_position(P->t,
                apy_node(P, n)->end > apy_node(P, n)->start ? apy_node(P, n)->end - 1
                                                            : apy_node(P, n)->end,
                &p.end_line, &end_col);
    return p;
}

/* Is NAME one of LIST? (Called for every call in a file: the first letter is checked inline.) */
bool apy_name_in(const char *name, const char *const *list)
{
    for (; *list; list++)
        if ((*list)[0] == name[0] && !strcmp(name, *list))
            return true;
    return false;
}

const char *apy_last_part(const char *dotted)
{
    const char *dot = strrchr(dotted, '.');
    return dot ? dot + 1 : dotted;
}
/* Positional argument POS or keyword KW (either may be -1/NULL). A *args before POS or a
 * **kwargs makes the answer "maybe". */
apy_arg apy_get_arg(const apy *P, uint32_t args, int pos, const char *kw, uint32_t *out)
{
    if (apy_kind(P, args) != N_ARGS)
        return APY_ARG_ABSENT;
    apy_arg none = APY_ARG_ABSENT;
    int at = 0;
    for (uint32_t a = apy_node(P, args)->kid; a; a = apy_node(P, a)->next) {
        int k = apy_kind(P, a);
        if (k == N_KWARG) {
            if (kw && apy_text_is(P, apy_kid(P, a, 0), kw)) {
                *out = apy_kid(P, a, 1);
                return APY_ARG_FOUND;
            }
        } else if (k == N_DSTAR) {
            none = APY_ARG_MAYBE;
        } else if (k == N_STARRED) {
            if (at <= pos)
                none = APY_ARG_MAYBE;
            pos = -1; /* positions after *args are unknown */
        } else if (at++ == pos) {
            *out = a;
            return APY_ARG_FOUND;
        }
    }
    return none;
}

int apy_positional_count(const apy *P, uint32_t args)
{
    int n = 0;
    for (uint32_t a = apy_kind(P, args) == N_ARGS ? apy_node(P, args)->kid : 0; a;
         a = apy_node(P, a)->next) {
        int k = apy_kind(P, a);
        if (k == N_STARRED)
            return -1;
        n += k != N_KWARG && k != N_DSTAR;
    }
    return n;
}
