/* apy_expr: the walk of expressions: calls, strings naming the artifacts directory,
 * bindings by := and comprehensions, lambdas, yields. */
#ifndef TESTFENCE_APY_EXPR_H
#define TESTFENCE_APY_EXPR_H

#include "apy_node.h"

/* Every expression node below N: calls, strings, bindings by := and comprehensions. */
void apy_visit(apy *P, uint32_t n);

#endif
