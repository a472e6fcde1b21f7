/* apy_node: the Python front end's walk state and how it reads the syntax tree: node
 * kinds, kids, source text and positions, a call's arguments, names in lists. */
#ifndef TESTFENCE_APY_NODE_H
#define TESTFENCE_APY_NODE_H

#include "audit_facts.h"
#include "py_parse.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define APY_MAX_SCOPES 64 /* deeper nesting shares the innermost scope */
#define APY_NAME_MAX 96   /* the longest name bound or resolved, NUL included */

/* A name bound in a scope: its value when known. Names and values live in the scratch pool. */
typedef struct apy_binding {
    uint32_t scope, name;
    tf_fpath val;
} apy_binding;

typedef struct apy_scope {
    uint32_t id;
    bool is_class;
} apy_scope;

/* What a function's walk tracks: where it is, and what its statements did so far. */
typedef struct apy_walk {
    uint32_t func;  /* index in facts.funcs */
    uint32_t state; /* the working directory state now */
    bool dead;      /* after return/raise: the rest of the block is not reached */
    bool has_exit;
    uint32_t exit; /* the join of the states at its returns */
    uint8_t guard; /* under "if p:": parameter guard - 1 (0: none) */
    int n_params;  /* the function's named parameters: name nodes and PA_ flags, recorded
                      in the facts only when a write, a call or a default needs them */
    uint32_t param_name[32];
    uint8_t param_flags[32];
    bool env_stripped;
    char stripped[8][APY_NAME_MAX]; /* env dicts that lost the bytecode settings */
    int n_stripped;
    char envs[4][48]; /* env dicts built here (short names), and the TF_SH_ENV_* they redirect:
                         the walk state is copied per function, so it stays small */
    unsigned char env_bits[4];
    int n_envs;
} apy_walk;

/* The walk of one file: its tree and facts, the names in scope, the function being walked. */
typedef struct apy {
    const py_tree *t;
    const char *src;
    tf_facts *f;
    tf_facts scratch; /* the pool of binding names and values */
    apy_binding *b;
    size_t n_b, cap_b;
    uint32_t *slots; /* open addressing over b: index + 1, 0 = empty */
    size_t cap_slots;
    apy_scope scopes[APY_MAX_SCOPES];
    int n_scopes;
    uint32_t next_scope;
    apy_walk w;
    uint32_t cls; /* facts pool: the class being defined, 0 outside classes */
    bool quiet;   /* inside a call whose strings are messages, not paths */
    bool in_main; /* under if __name__ == "__main__": never run by a test runner */
    const char *artifacts;
    bool oom;
} apy;

/* Node N, its kind (N_EMPTY for 0), its Ith kid, and its source text. */
static inline const py_node *apy_node(const apy *P, uint32_t n)
{
    return &P->t->nodes[n];
}

static inline int apy_kind(const apy *P, uint32_t n)
{
    return n ? apy_node(P, n)->kind : N_EMPTY;
}

static inline uint32_t apy_kid(const apy *P, uint32_t n, unsigned i)
{
    return py_kid(P->t, n, i);
}

static inline size_t apy_len(const apy *P, uint32_t n)
{
    return apy_node(P, n)->end - apy_node(P, n)->start;
}

static inline const char *apy_text(const apy *P, uint32_t n)
{
    return P->src + apy_node(P, n)->start;
}

static inline bool apy_text_is(const apy *P, uint32_t n, const char *s)
{
    return n && strlen(s) == apy_len(P, n) && !memcmp(apy_text(P, n), s, apy_len(P, n));
}

/* Whether a call has an argument: no, yes, or maybe (through *args or **kwargs). */
typedef enum { APY_ARG_ABSENT, APY_ARG_FOUND, APY_ARG_MAYBE } apy_arg;

/* Where node N starts and ends in the source. */
tf_pos apy_pos(const apy *P, uint32_t n);

/* Is NAME one of LIST? (Called for every call in a file: the first letter is checked inline.) */
bool apy_name_in(const char *name, const char *const *list);

/* The last component of a dotted name ("os.path.join" -> "join"). */
const char *apy_last_part(const char *dotted);

/* Positional argument POS or keyword KW (either may be -1/NULL). A *args before POS or a
 * **kwargs makes the answer "maybe". */
apy_arg apy_get_arg(const apy *P, uint32_t args, int pos, const char *kw, uint32_t *out);

/* How many positional arguments ARGS has; -1 with a *args. */
int apy_positional_count(const apy *P, uint32_t args);

#endif
