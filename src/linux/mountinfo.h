/* mountinfo: is there a mount at a path anywhere in this process's mount namespace, even one
 * no path leads to (read from /proc/self/mountinfo without allocating: the shim asks). */
#ifndef TESTFENCE_MOUNTINFO_H
#define TESTFENCE_MOUNTINFO_H

#include <stdbool.h>

/* Does /proc/self/mountinfo list a mount whose mount point is ABS (absolute, as the process
 * sees it)? False when it cannot be read, and for a line longer than 8 KiB. */
bool mountinfo_lists(const char *abs);

#endif
