/* err: the one error convention of testfence.
 * Library functions return 0 or -1 and fill a tf_err; only main decides to exit. */
#ifndef TESTFENCE_ERR_H
#define TESTFENCE_ERR_H

#include <stddef.h>

/* What kind of failure, for a caller that acts on one kind (the plugin: no project root
 * means nothing to fence, not an error); the message stays what people read. */
enum tf_err_kind {
    TF_ERR_OTHER = 0,
    TF_ERR_NO_ROOT = 1,    /* no project root from here (no marker file upward) */
    TF_ERR_NOT_SET_UP = 2, /* no testfence configuration, and the default tests/ is missing */
};

typedef struct tf_err {
    char msg[1024];
    enum tf_err_kind kind;
} tf_err;

/* The format archetype of testfence's printf-like functions: printf, except where the
 * platform says otherwise (mingw's printf archetype is msvcrt's; src/windows/posix.h). */
#ifndef TF_PRINTF
#define TF_PRINTF printf
#endif

/* Fill err with a printf-style message; always returns -1 so callers can
 * `return tf_errf(err, ...)`. err may be NULL. The kind is TF_ERR_OTHER. */
int tf_errf(tf_err *err, const char *fmt, ...) __attribute__((format(TF_PRINTF, 2, 3)));

/* Like tf_errf, with the kind KIND. */
int tf_errk(tf_err *err, enum tf_err_kind kind, const char *fmt, ...)
    __attribute__((format(TF_PRINTF, 3, 4)));

/* Like tf_errf, with ": <strerror(errnum)>" appended. */
int tf_errnof(tf_err *err, int errnum, const char *fmt, ...)
    __attribute__((format(TF_PRINTF, 3, 4)));

#endif
