/* apy_eval: path value evaluation: an expression to the abstract path it stands for
 * (pathlib, os.path, tempfile, __file__, bound names, string formatting). */
#ifndef TESTFENCE_APY_EVAL_H
#define TESTFENCE_APY_EVAL_H

#include "apy_node.h"

/* Join a known value V onto OUT (os.path.join, Path / "x", joinpath). */
void apy_join_value(tf_pathval *out, const tf_pathval *v);

/* The abstract path expression N stands for (unknown when it cannot tell). */
void apy_eval(apy *P, uint32_t n, int depth, tf_pathval *out);

#endif
