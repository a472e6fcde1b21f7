/* audit_read: reading one source file for the audit: a regular file only, never blocking on
 * a FIFO or a device, bounded in size. Used for test sources and for the scripts tests run. */
#ifndef TESTFENCE_AUDIT_READ_H
#define TESTFENCE_AUDIT_READ_H

#include <stddef.h>

/* The whole of PATH, NUL-terminated, its length in *LEN; NULL with "path: reason" in MSG when
 * it cannot be read, is not a regular file or is larger than MAX bytes. The caller frees it. */
char *tf_audit_read(const char *path, size_t max, size_t *len, char *msg, size_t msglen);

#endif
