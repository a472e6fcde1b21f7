#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fill(tf_err *err, enum tf_err_kind kind, const char *fmt, va_list ap)
    __attribute__((format(TF_PRINTF, 3, 0)));

static int fill(tf_err *err, enum tf_err_kind kind, const char *fmt, va_list ap)
{
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    err->kind = kind;
    return n;
}

int tf_errf(tf_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    fill(err, TF_ERR_OTHER, fmt, ap);
    va_end(ap);
    return -1;
}

int tf_errk(tf_err *err, enum tf_err_kind kind, const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    fill(err, kind, fmt, ap);
    va_end(ap);
    return -1;
}

int tf_errnof(tf_err *err, int errnum, const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = fill(err, TF_ERR_OTHER, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof err->msg)
        snprintf(err->msg + n, sizeof err->msg - (size_t)n, ": %s", strerror(errnum));
    return -1;
}
