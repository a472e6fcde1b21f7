/* hazard: things already inside the writable set that would let a write escape it.
 * Landlock is path-based, so a hard link in tests/ to an outside inode writes through. */
#ifndef TESTFENCE_HAZARD_H
#define TESTFENCE_HAZARD_H

#include "base/err.h"
#include "policy.h"

#include <stdio.h>

/* Scan the project entries of P (not the system set, not --allow); beneath
 * ARTIFACTS (testfence's own dir) only hard links count. Prints one line per
 * hazard to OUT and returns how many it found, or -1 on error. */
int hazard_scan(const struct policy *p, const char *artifacts, FILE *out, tf_err *err);

#endif
