/* apy_eval: path value evaluation: an expression to the abstract path it stands for
 * (pathlib, os.path, tempfile, __file__, bound names, string formatting). */
#ifndef TESTFENCE_APY_EVAL_H
#define TESTFENCE_APY_EVAL_H

#include "apy_node.h"

/* Join a known value V onto OUT (os.path.join, Path / "x", joinpath). */
void apy_join_value(tf_pathval *out, const tf_pathval *v);

/* Is N the literal None, False, 0 or ""? (*IS_NONE: None itself.) */
bool apy_falsy_literal(apy *P, uint32_t n, bool *is_none);

/* A parameter of the function being walked that a write, a call or a guard uses: recorded
 * in the facts (once) for the project phase to bind arguments to. */
void apy_note_param(apy *P, const tf_pathval *v);

/* PARAM (a bare parameter of the function being walked) falls back to FALLBACK when the
 * argument is falsy ("p or X", "if p is None: p = X"); the first fallback seen is kept. */
void apy_param_fallback(apy *P, const tf_pathval *param, const tf_pathval *fallback);

/* The abstract path expression N stands for (unknown when it cannot tell). */
void apy_eval(apy *P, uint32_t n, int depth, tf_pathval *out);

#endif
