/* darwin: the macOS-only primitives the macOS set stands on, one function each, and the
 * stand-in each has in the Linux build of the same set (TESTFENCE_MACOS_SET: the set built and
 * tested on Linux, docs/platforms.md). Everything else in the set is the same code on both.
 * This file is compiled without posix.h's names (it calls the real ones). */
#ifndef TESTFENCE_MACOS_DARWIN_H
#define TESTFENCE_MACOS_DARWIN_H

#include <stddef.h>

/* The name of the file open on FD, absolute, into OUT: 0; 1 when it does not fit in LEN;
 * -1 with errno (EBADF: no file in the tree, a pipe or a socket). macOS: fcntl F_GETPATH.
 * Stand-in: readlink of /proc/self/fd/FD. */
int tf_mac_fd_path(int fd, char *out, size_t len);

/* The birth time of NAME in DIRFD (a final symlink itself): 0 with *SEC, *NSEC; 1 when the
 * file system keeps none; -1 with errno. macOS: st_birthtimespec. Stand-in: statx's btime. */
int tf_mac_birth_time(int dirfd, const char *name, long long *sec, unsigned *nsec);

/* renameat, failing with EEXIST rather than replacing TO. macOS: renameatx_np(RENAME_EXCL).
 * Stand-in: renameat2(RENAME_NOREPLACE). */
int tf_mac_rename_excl(int fd1, const char *from, int fd2, const char *to);

/* This program's path into EXE, and its arguments joined with spaces into CMDLINE (each cut
 * to fit; "" when unknown). macOS: _NSGetExecutablePath, _NSGetArgv. Stand-in: /proc/self/exe
 * and /proc/self/cmdline. */
void tf_mac_self(char *exe, size_t exelen, char *cmdline, size_t cmdlen);

/* The address of the process's environ. macOS: _NSGetEnviron() (a shared library cannot name
 * environ). Stand-in: &environ. */
char ***tf_mac_environ(void);

#endif
