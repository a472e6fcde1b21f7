/* apy_emit: what the walk records in the file's facts: strings, working-directory
 * states and their joins, facts, writes to a value or an argument. */
#ifndef TESTFENCE_APY_EMIT_H
#define TESTFENCE_APY_EMIT_H

#include "apy_node.h"

/* S in the facts' string pool. */
uint32_t apy_pool(apy *P, const char *s);

/* A working-directory state of the function being walked (the current one on OOM). */
uint32_t apy_new_state(apy *P, tf_state st);

/* The state that is A on one path and B on another. */
uint32_t apy_join_states(apy *P, uint32_t a, uint32_t b);

/* A fact of kind K at node AT in the current state (none under the __main__ guard). */
void apy_fact(apy *P, int k, int flags, uint32_t at, const char *op, const tf_pathval *target);

/* A write of OP to the value of expression A (reported at node AT). */
void apy_write_to(apy *P, uint32_t at, const char *op, const tf_pathval *v, int flags);

/* A write of OP to argument POS or KW of CALL, reported at the call or the argument. */
void apy_write_arg(apy *P, uint32_t call, int pos, const char *kw, const char *op, bool at_call);

#endif
