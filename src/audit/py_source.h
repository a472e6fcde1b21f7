/* py_source: the bytes of a Python source file as the UTF-8 text the parser reads.
 * A UTF-8 byte order mark is dropped; a PEP 263 coding cookie ("# -*- coding: latin-1 -*-")
 * in the first two lines is honoured by converting from that encoding. */
#ifndef TESTFENCE_PY_SOURCE_H
#define TESTFENCE_PY_SOURCE_H

#include <stddef.h>

/* The encoding named by a coding cookie in the first two lines of SRC, lower-cased into
 * NAME (at least 32 bytes); 0 when there is none. */
int py_source_cookie(const char *src, size_t len, char *name, size_t namelen);

/* SRC as UTF-8: *OUT is SRC itself (nothing to convert, *OWNED NULL) or a new buffer, also
 * in *OWNED for the caller to free. Returns 0, or -1 with a one-line reason in WHY when the
 * named encoding is unknown or the bytes are not in it. */
int py_source_utf8(const char *src, size_t len, const char **out, size_t *outlen, char **owned,
                   char *why, size_t whylen);

#endif
