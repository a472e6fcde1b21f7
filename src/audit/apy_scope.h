/* apy_scope: names in scope: one hash table of bindings for every scope, the import
 * aliases, and a dotted name resolved through them ("tf.mkdtemp" -> "tempfile.mkdtemp"). */
#ifndef TESTFENCE_APY_SCOPE_H
#define TESTFENCE_APY_SCOPE_H

#include "apy_node.h"

/* Bind NAME in SCOPE to VAL (or to "unknown", which still shadows outer scopes). */
void apy_bind_in(apy *P, uint32_t scope, const char *name, size_t n, const tf_pathval *val);

/* Bind NAME in the innermost scope; to unknown (which still shadows outer scopes). */
void apy_bind(apy *P, const char *name, size_t n, const tf_pathval *val);
void apy_bind_unknown(apy *P, const char *name, size_t n);

/* The innermost binding of NAME. Class scopes are seen only from their own body, as in
 * Python; "self.x" also finds the class's x and what any method bound to self.x. */
bool apy_lookup(apy *P, const char *name, size_t n, tf_pathval *out);

/* Open a function (IS_CLASS false) or class scope; the caller closes it (n_scopes--). */
void apy_push_scope(apy *P, bool is_class);

/* NAME, imported, stands for the dotted TARGET ("import tempfile as tf"). */
void apy_add_alias(apy *P, const char *name, size_t n, const char *target, size_t tn);

/* The dotted source text of a name/attribute chain ("self.cfg"). */
bool apy_dotted_raw(const apy *P, uint32_t n, char *out, size_t len, int depth);

/* The canonical dotted name of a callee: its first component resolved through imports. */
bool apy_canonical(apy *P, uint32_t n, char *out, size_t len);

#endif
