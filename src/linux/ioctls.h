/* ioctls: which ioctl requests change nothing outside the writable set, and which are refused
 * whatever file they are made on. The guard's filter, the shim and the plugin share it. */
#ifndef TESTFENCE_IOCTLS_H
#define TESTFENCE_IOCTLS_H

#include <stddef.h>
#include <stdint.h>

enum ioctl_class {
    IOCTL_HARMLESS, /* terminal control, fd flags, queries: runs on any file */
    IOCTL_REFUSED,  /* TIOCSTI, TIOCLINUX: refused (EPERM) on any file */
    IOCTL_JUDGED,   /* anything else (inode flags, labels, block writes...): runs on a file
                       inside the writable set, refused outside it */
};

/* What REQ is, as the kernel reads it (its low 32 bits). */
enum ioctl_class ioctl_classify(unsigned long req);

/* The harmless requests and the refused ones, *N each: for the guard's filter. */
const uint32_t *ioctls_harmless(size_t *n);
const uint32_t *ioctls_refused(size_t *n);

#endif
