/* apy_calls: call classification: each call's writes, working-directory changes and
 * environment, and the calls recorded for the project-wide phase. */
#ifndef TESTFENCE_APY_CALLS_H
#define TESTFENCE_APY_CALLS_H

#include "apy_node.h"

/* A call as a whole statement: a helper that may change the working directory for good. */
void apy_call_effect(apy *P, uint32_t call);

/* A call in an expression: what it writes, changes or records; then its parts. */
void apy_on_call(apy *P, uint32_t call);

/* Does calling NAME replace code for the test (monkeypatch.setattr, mock.patch, ...)? */
bool apy_is_patch(const char *name);

#endif
