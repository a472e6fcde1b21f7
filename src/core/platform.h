/* platform: what the text of paths means on each OS, for the platform-neutral parts: the top
 * of the tree and the user's home. POSIX: platform_posix.c; Windows: src/windows/platform.c. */
#ifndef TESTFENCE_PLATFORM_H
#define TESTFENCE_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

/* DIR (absolute, '/'-separated, no trailing '/') is the top of its tree: nothing above it.
 * POSIX: "/". Windows: a drive ("C:", "C:/"). */
bool platform_is_top(const char *dir);

/* PATH is absolute. POSIX: it starts with '/'. Windows: a drive and a separator ("C:/",
 * "C:\\"), or a separator (the current drive's root). */
bool platform_is_absolute(const char *path);

/* PATH as testfence writes paths, in place: nothing to do on POSIX; on Windows '\\' becomes
 * '/' (every part splits and joins paths at '/'). For paths from the command line. */
void platform_separators(char *path);

/* The user's home as Python's os.path.expanduser finds it, absolute with '/' separators,
 * written to OUT; false when there is none (or it does not fit). POSIX: $HOME; Windows:
 * %USERPROFILE%. */
bool platform_home(char *out, size_t len);

#endif
