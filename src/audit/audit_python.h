/* audit_python: the Python front end of the audit (tree-sitter-python).
 * Walks a syntax tree with simple local data flow and reports facts to the engine. */
#ifndef TESTFENCE_AUDIT_PYTHON_H
#define TESTFENCE_AUDIT_PYTHON_H

#include "audit.h"

extern const tf_audit_lang tf_audit_python;

#endif
