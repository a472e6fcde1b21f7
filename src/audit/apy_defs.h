/* apy_defs: function and class definitions: decorators (fixtures, context managers,
 * usefixtures), parameters, each function's entry and exit states, module marks. */
#ifndef TESTFENCE_APY_DEFS_H
#define TESTFENCE_APY_DEFS_H

#include "apy_node.h"

/* A def: its function's facts, walked in a scope of its own from its entry state. */
void apy_on_funcdef(apy *P, uint32_t n);

/* A class: its facts, and its body walked in a class scope. */
void apy_on_classdef(apy *P, uint32_t n);

/* pytestmark = pytest.mark.usefixtures("x") at module level. */
void apy_module_marks(apy *P, uint32_t n);

#endif
