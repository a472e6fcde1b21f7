/* audit_python: the Python front end of the audit.
 * Parses with py_parse and turns a file into facts: writes with the working directory they run
 * in, functions, fixtures, calls, imports and module constants, by simple local data flow. */
#ifndef TESTFENCE_AUDIT_PYTHON_H
#define TESTFENCE_AUDIT_PYTHON_H

#include "audit_config.h"

extern const tf_audit_lang tf_audit_python;

#endif
