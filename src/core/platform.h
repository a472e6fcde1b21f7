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

/* The system's temp directory when TMPDIR names none usable: POSIX "/tmp"; Windows %TEMP%
 * (else %TMP%), where Python's tempfile looks next, with '/' separators. */
const char *platform_default_tmp(void);

/* The top of the tree the absolute PATH is in, opened as a directory to walk from ("/"; on
 * Windows its drive, "C:/"), with *REST set to what follows it in PATH ("a/b" of "/a/b" or
 * "C:/a/b"): a descriptor, or -1 with errno. */
int platform_open_top(const char *path, const char **rest);

#endif
