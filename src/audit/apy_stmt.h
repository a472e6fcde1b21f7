/* apy_stmt: the walk of statements, following the working-directory state through
 * branches, loops, try, with blocks, returns and raises. */
#ifndef TESTFENCE_APY_STMT_H
#define TESTFENCE_APY_STMT_H

#include "apy_node.h"

/* Walk the statements of BLOCK in order, from the current state. */
void apy_statements(apy *P, uint32_t block);

#endif
