/* err: the one error convention of testfence.
 * Library functions return 0 or -1 and fill a tf_err; only main decides to exit. */
#ifndef TESTFENCE_ERR_H
#define TESTFENCE_ERR_H

#include <stddef.h>

typedef struct tf_err {
    char msg[1024];
} tf_err;

/* Fill err with a printf-style message; always returns -1 so callers can
 * `return tf_errf(err, ...)`. err may be NULL. */
int tf_errf(tf_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like tf_errf, with ": <strerror(errnum)>" appended. */
int tf_errnof(tf_err *err, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
