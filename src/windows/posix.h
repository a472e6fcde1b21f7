/* posix: the POSIX names the platform-neutral parts use that mingw-w64 lacks, for the
 * Windows build only (force-included there by the top CMakeLists.txt; never on Linux). */
#ifndef TESTFENCE_WINDOWS_POSIX_H
#define TESTFENCE_WINDOWS_POSIX_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <fcntl.h>
#include <io.h>
#include <direct.h>
#include <unistd.h>

/* printf-like functions are checked as C99's printf: __USE_MINGW_ANSI_STDIO gives it. */
#define TF_PRINTF gnu_printf

/* open(2) flags with no Windows meaning: a file is never a controlling terminal, opening
 * never blocks on a FIFO (there are none), and handles are not inherited by default. */
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif
#ifndef O_NONBLOCK
#define O_NONBLOCK 0
#endif
/* Symlinks are not followed by the C runtime's open either way; O_DIRECTORY is refused by
 * it, so directories are walked through core/walk.h's Windows side instead. */
#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif

#ifndef S_ISLNK
#define S_ISLNK(m) 0
#endif
#ifndef S_ISFIFO
#define S_ISFIFO(m) 0
#endif
#ifndef S_ISSOCK
#define S_ISSOCK(m) 0
#endif

/* readdir's d_type, which mingw's dirent lacks: glibc's values. */
#ifndef DT_UNKNOWN
#define DT_UNKNOWN 0
#define DT_DIR 4
#define DT_REG 8
#define DT_LNK 10
#endif

/* readdir gives no type on Windows: every entry's d_type reads DT_UNKNOWN, which callers
 * handle already (a Linux file system may say the same) by asking stat. */
#define d_type d_name[0] * 0 + DT_UNKNOWN

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* mkdir(2) takes a mode; Windows' ACLs decide instead. */
#define mkdir(path, mode) tf_win_mkdir(path, mode)
int tf_win_mkdir(const char *path, int mode);

/* No symlinks are followed by the C runtime's stat: lstat is stat. */
#define lstat(path, st) stat(path, st)

/* fileio_replace's temp file: Windows has no mode bits to set, _commit is fsync, a hard
 * link still refuses an existing name, and rename replaces (MoveFileEx) as rename(2) does. */
#define mkostemp(tmpl, flags) mkstemp(tmpl)
#define fchmod(fd, mode) ((void)(fd), (void)(mode), 0)
#define fsync(fd) _commit(fd)
#define link(from, to) tf_win_link(from, to)
int tf_win_link(const char *from, const char *to);
#define rename(from, to) tf_win_rename(from, to)
int tf_win_rename(const char *from, const char *to);

/* One user owns everything this process makes; st_uid is always 0 under msvcrt. */
#define geteuid() 0

/* The working directory and absolute paths with '/' separators ("C:/Users/me"), the form
 * the parts compare and print; Windows accepts it everywhere. */
#define getcwd(buf, len) tf_win_getcwd(buf, len)
char *tf_win_getcwd(char *buf, size_t len);
#define realpath(path, out) tf_win_realpath(path, out)
char *tf_win_realpath(const char *path, char *out);

/* The number of processors (sysconf(_SC_NPROCESSORS_ONLN)). */
#define _SC_NPROCESSORS_ONLN 84
#define sysconf(name) tf_win_sysconf(name)
long tf_win_sysconf(int name);

#endif
