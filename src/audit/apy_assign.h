/* apy_assign: what statements bind: assignment targets to their values, and imports to
 * aliases (and, at module level, to the file's recorded imports). */
#ifndef TESTFENCE_APY_ASSIGN_H
#define TESTFENCE_APY_ASSIGN_H

#include "apy_node.h"

/* Bind every name in a target to VAL (unknown for unpacking). */
void apy_bind_target(apy *P, uint32_t target, const tf_pathval *val, int depth);

/* a = b = value, a, b = x, y: each target bound to its value. */
void apy_on_assignment(apy *P, uint32_t n);

/* p /= "x" and s += "x": the target bound to its new value. */
void apy_on_augmented(apy *P, uint32_t n);

/* import and from-import: their aliases; with RECORD, the file's imports too. */
void apy_on_import(apy *P, uint32_t n, bool record);

#endif
