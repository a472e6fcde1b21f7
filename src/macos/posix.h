/* posix: the names the platform-neutral parts use that macOS's libc lacks, for the macOS
 * source set only (force-included there by the top CMakeLists.txt: on macOS, and in the Linux
 * build of the same set, TESTFENCE_MACOS_SET, whose glibc is asked for POSIX and BSD names
 * only, so a Linux-only call is a compile error there as on macOS). Never in the Linux build.
 * What is not a plain name is in compat.c, over darwin.c's macOS-only primitives. */
#ifndef TESTFENCE_MACOS_POSIX_H
#define TESTFENCE_MACOS_POSIX_H
/* darwin.c, the one file that calls the real primitives, is compiled without it. */
#if !defined(TESTFENCE_MACOS_PRIMITIVES)

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#if !defined(__APPLE__)
/* The Linux build of the set: names macOS's libc declares (asprintf in stdio.h, mkostemp in
 * unistd.h) that glibc declares only for _GNU_SOURCE; glibc has them all the same. */
int asprintf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mkostemp(char *tmpl, int flags);
/* And the reverse: names glibc gives for POSIX or BSD that macOS lacks (the stat times'
 * st_mtim are st_mtimespec there) are errors here, as there. After their headers: a macro
 * defined before (st_mtime) may still use them. */
#include <signal.h>
#include <time.h>
#pragma GCC poison st_atim st_mtim st_ctim posix_fallocate posix_fadvise reallocarray
#pragma GCC poison sigtimedwait sigwaitinfo clock_nanosleep timer_create
#endif

/* O_PATH: macOS has none. A directory is opened for reading instead: one without read
 * permission (a test's chmod 0311) cannot be opened (EACCES), which every caller takes as
 * "cannot tell" (the resolver refuses, a hazard check counts it as a package). */
#ifndef O_PATH
#define O_PATH 0
#endif

/* O_TMPFILE and getdents64 have no macOS counterpart: core tests for O_TMPFILE (runtmp.c,
 * failsfirst.c) and lists directories with readdir (dirlist_posix.c). */

/* statx, for the hazard scan's "did the run make it" (hazard.c): the type, the change time
 * and the birth time (macOS's st_birthtimespec), from fstatat and darwin.c. */
#define STATX_TYPE 0x1u
#define STATX_MODE 0x2u
#define STATX_CTIME 0x80u
#define STATX_BTIME 0x800u
struct statx_timestamp {
    long long tv_sec;
    unsigned tv_nsec;
};
struct statx {
    unsigned stx_mask;
    unsigned short stx_mode;
    struct statx_timestamp stx_btime, stx_ctime, stx_mtime;
};
int tf_mac_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *x);
#define statx(dirfd, path, flags, mask, x) tf_mac_statx(dirfd, path, flags, mask, x)

/* renameat2's RENAME_NOREPLACE (the hazard quarantine never moves over a name): macOS's
 * renameatx_np with RENAME_EXCL (darwin.c); no other flag is used. */
#define RENAME_NOREPLACE 1u
int tf_mac_renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags);
#define renameat2(fd1, from, fd2, to, flags) tf_mac_renameat2(fd1, from, fd2, to, flags)

/* errno's name ("EACCES"), as glibc's strerrorname_np; NULL for one it does not know. */
const char *tf_mac_errname(int e);
#define strerrorname_np(e) tf_mac_errname(e)

/* environ: a macOS shared library cannot name it (the program's start-up code defines it, not
 * libSystem); _NSGetEnviron() gives it (darwin.c). Files that declare `extern char **environ`
 * themselves do so only where this is not defined. */
char ***tf_mac_environ(void);
#define environ (*tf_mac_environ())

#endif
#endif
