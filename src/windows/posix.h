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

/* ---- directory descriptors and the *at calls (core's file-tree code: workspace, run temp
 * dir, places, the violation log, hazards). A directory is opened as a real C runtime
 * descriptor over a Win32 handle (FILE_FLAG_BACKUP_SEMANTICS); a name relative to it is
 * joined to the handle's final path (GetFinalPathNameByHandle), so nothing is named twice
 * from text a test could change. O_NOFOLLOW refuses a final reparse point (a symlink or a
 * junction: ELOOP), as Linux refuses a final symlink. posix.c. */
#ifndef O_DIRECTORY
#define O_DIRECTORY 0x01000000
#endif
#ifndef O_PATH
#define O_PATH 0x02000000
#endif
#ifndef O_TMPFILE
#define O_TMPFILE (0x04000000 | O_DIRECTORY)
#endif
#define AT_FDCWD (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define AT_EMPTY_PATH 0x1000
#define F_DUPFD_CLOEXEC 1030
#define F_GETFD 1
#define F_SETFD 2
#define FD_CLOEXEC 1
#define LOCK_SH 1
#define LOCK_EX 2
#define LOCK_NB 4
#define LOCK_UN 8
#ifndef PIPE_BUF
#define PIPE_BUF 4096
#endif
#ifndef ELOOP
#define ELOOP 114
#endif

#define open(...) tf_win_open(__VA_ARGS__)
int tf_win_open(const char *path, int flags, ...);
#define openat(...) tf_win_openat(__VA_ARGS__)
int tf_win_openat(int dirfd, const char *path, int flags, ...);
#define fstatat(dirfd, path, st, flags) tf_win_fstatat(dirfd, path, st, flags)
int tf_win_fstatat(int dirfd, const char *path, struct stat *st, int flags);
#undef fstat
#define fstat(fd, st) tf_win_fstat(fd, st)
int tf_win_fstat(int fd, struct stat *st);
#define mkdirat(dirfd, path, mode) tf_win_mkdirat(dirfd, path, mode)
int tf_win_mkdirat(int dirfd, const char *path, int mode);
#define unlinkat(dirfd, path, flags) tf_win_unlinkat(dirfd, path, flags)
int tf_win_unlinkat(int dirfd, const char *path, int flags);
#define renameat(fd1, from, fd2, to) tf_win_renameat(fd1, from, fd2, to)
int tf_win_renameat(int fd1, const char *from, int fd2, const char *to);
#define readlinkat(dirfd, path, buf, len) tf_win_readlinkat(dirfd, path, buf, len)
ssize_t tf_win_readlinkat(int dirfd, const char *path, char *buf, size_t len);
#define fcntl(...) tf_win_fcntl(__VA_ARGS__)
int tf_win_fcntl(int fd, int cmd, ...);
#define flock(fd, op) tf_win_flock(fd, op)
int tf_win_flock(int fd, int op);
#define fdopendir(fd) tf_win_fdopendir(fd)
#include <dirent.h>
DIR *tf_win_fdopendir(int fd);
#define dirfd(d) tf_win_dirfd(d)
int tf_win_dirfd(DIR *d);
#define closedir(d) tf_win_closedir(d)
int tf_win_closedir(DIR *d);
/* The path of the directory (or file) descriptor FD, with '/' separators: 0, or -1 (errno). */
int tf_win_fd_path(int fd, char *out, size_t len);

/* ---- the rest of what core's run code uses (posix.c) ---------------------------------- */
typedef unsigned long nlink_t;
#ifndef S_IFLNK
#define S_IFLNK 0120000
#endif
#ifndef S_IFSOCK
#define S_IFSOCK 0140000
#endif
#define getuid() 0 /* the temp dir (%TEMP%) is the user's own already */
#define gmtime_r(t, tm) (gmtime_s((tm), (t)) == 0 ? (tm) : NULL)
#define strndup(s, n) tf_win_strndup(s, n)
char *tf_win_strndup(const char *s, size_t n);
#define F_OK 0
#define faccessat(dirfd, path, mode, flags) tf_win_faccessat(dirfd, path, mode, flags)
int tf_win_faccessat(int dirfd, const char *path, int mode, int flags);
/* errno's name ("EACCES"), as glibc's strerrorname_np; NULL for one it does not know. */
#define strerrorname_np(e) tf_win_errname(e)
const char *tf_win_errname(int e);
/* Only "/proc/self/exe" (GetModuleFileName); anything else is not a link (EINVAL). */
#define readlink(path, buf, len) tf_win_readlink(path, buf, len)
ssize_t tf_win_readlink(const char *path, char *buf, size_t len);
/* open_memstream: a temp file whose text is copied to *BUF at each fflush and fclose. */
#define open_memstream(buf, len) tf_win_open_memstream(buf, len)
FILE *tf_win_open_memstream(char **buf, size_t *len);
#define fflush(f) tf_win_fflush(f)
int tf_win_fflush(FILE *f);
#define fclose(f) tf_win_fclose(f)
int tf_win_fclose(FILE *f);
/* "e" in fopen's mode (O_CLOEXEC) is glibc's, left out; "/dev/null" is "NUL". */
#define fopen(path, mode) tf_win_fopen(path, mode)
FILE *tf_win_fopen(const char *path, const char *mode);
/* renameat2's RENAME_NOREPLACE: MoveFileEx without MOVEFILE_REPLACE_EXISTING. */
#define RENAME_NOREPLACE 1
#define renameat2(fd1, from, fd2, to, flags) tf_win_renameat2(fd1, from, fd2, to, flags)
int tf_win_renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags);
/* statx: the type and the birth and change times, from the file's handle. */
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
int tf_win_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *x);
#define statx(dirfd, path, flags, mask, x) tf_win_statx(dirfd, path, flags, mask, x)

#endif
