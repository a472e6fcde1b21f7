/* posix: the few POSIX calls mingw-w64 lacks or spells otherwise, on Win32 (see posix.h).
 * Paths come back with '/' separators, as the rest of testfence writes them. */
#include "posix.h"

#include <errno.h>
#include <string.h>
#include <stdarg.h>
#include <stdbool.h>
#include <windows.h>

/* posix.h's macros would rename the definitions below. */
#undef mkdir
#undef getcwd
#undef realpath
#undef sysconf
#undef link
#undef rename
#undef open
#undef openat
#undef fstatat
#undef fstat
#undef mkdirat
#undef unlinkat
#undef renameat
#undef readlinkat
#undef fcntl
#undef flock
#undef fdopendir
#undef dirfd
#undef closedir
#undef strndup
#undef faccessat
#undef strerrorname_np
#undef readlink
#undef open_memstream
#undef fflush
#undef fclose
#undef fopen
#undef renameat2
#undef statx

/* Files are binary, as on POSIX: no CRLF translation, no ^Z end of file, on the standard
 * streams too, so output is byte for byte the Linux build's. Before main. */
__attribute__((constructor)) static void binary_streams(void)
{
    _fmode = _O_BINARY;
    _setmode(_fileno(stdin), _O_BINARY);
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
}

/* errno for the Win32 error of the last call. */
static int win_errno(void)
{
    switch (GetLastError()) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
        return ENOENT;
    case ERROR_ALREADY_EXISTS:
    case ERROR_FILE_EXISTS:
        return EEXIST;
    case ERROR_DIRECTORY:
        return ENOTDIR;
    case ERROR_DIR_NOT_EMPTY:
        return ENOTEMPTY;
    case ERROR_LOCK_VIOLATION:
        return EWOULDBLOCK;
    case ERROR_INVALID_HANDLE:
        return EBADF;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
        return EACCES;
    default:
        return EIO;
    }
}

int tf_win_link(const char *from, const char *to)
{
    if (CreateHardLinkA(to, from, NULL))
        return 0;
    errno = win_errno();
    return -1;
}

int tf_win_rename(const char *from, const char *to)
{
    if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING))
        return 0;
    errno = win_errno();
    return -1;
}

static char *slashes(char *s)
{
    for (char *p = s; *p; p++)
        if (*p == '\\')
            *p = '/';
    return s;
}

int tf_win_mkdir(const char *path, int mode)
{
    (void)mode;
    return _mkdir(path);
}

char *tf_win_getcwd(char *buf, size_t len)
{
    if (!_getcwd(buf, (int)(len > 0x7fffffff ? 0x7fffffff : len)))
        return NULL;
    return slashes(buf);
}

char *tf_win_realpath(const char *path, char *out)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return NULL; /* errno from stat: realpath(3) fails on a missing file too */
    if (!_fullpath(out, path, PATH_MAX)) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    return slashes(out);
}

long tf_win_sysconf(int name)
{
    if (name != _SC_NPROCESSORS_ONLN) {
        errno = EINVAL;
        return -1;
    }
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return (long)si.dwNumberOfProcessors;
}

/* ---- directory descriptors and the *at calls (posix.h) ---------------------------------- */

int tf_win_fd_path(int fd, char *out, size_t len)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    char buf[PATH_MAX + 8];
    DWORD n = GetFinalPathNameByHandleA(h, buf, sizeof buf, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    if (n == 0 || n >= sizeof buf) {
        errno = n ? ENAMETOOLONG : win_errno();
        return -1;
    }
    const char *p = buf;
    if (!strncmp(p, "\\\\?\\UNC\\", 8)) { /* \\?\UNC\server\share -> //server/share */
        p += 6;
        buf[6] = '\\';
    } else if (!strncmp(p, "\\\\?\\", 4)) {
        p += 4;
    }
    size_t l = strlen(p);
    if (l >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memmove(out, p, l + 1);
    slashes(out);
    if (l > 3 && out[l - 1] == '/')
        out[l - 1] = '\0';
    return 0;
}

/* PATH relative to DIRFD as one path in OUT: 0, or -1 (errno). */
static int at_path(int dirfd, const char *path, char *out, size_t len)
{
    bool abs = path[0] == '/' || path[0] == '\\' || (path[0] && path[1] == ':');
    if (abs || dirfd == AT_FDCWD) {
        if (strlen(path) >= len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(out, path, strlen(path) + 1);
        return 0;
    }
    if (tf_win_fd_path(dirfd, out, len) < 0)
        return -1;
    size_t l = strlen(out);
    if (!path[0] || !strcmp(path, "."))
        return 0;
    int w = snprintf(out + l, len - l, "%s%s", l && out[l - 1] == '/' ? "" : "/", path);
    if (w < 0 || (size_t)w >= len - l) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* Is the last component of PATH a reparse point (a symlink, a junction)? */
static bool is_reparse(const char *path)
{
    DWORD a = GetFileAttributesA(path);
    return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_REPARSE_POINT);
}

/* A directory (or, for O_PATH, any file) as a descriptor over a Win32 handle. */
static int open_handle(const char *path, int flags)
{
    DWORD how =
        FILE_FLAG_BACKUP_SEMANTICS | (flags & O_NOFOLLOW ? FILE_FLAG_OPEN_REPARSE_POINT : 0);
    HANDLE h =
        CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                    NULL, OPEN_EXISTING, how, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        errno = win_errno();
        return -1;
    }
    BY_HANDLE_FILE_INFORMATION info;
    if (!GetFileInformationByHandle(h, &info)) {
        errno = win_errno();
        CloseHandle(h);
        return -1;
    }
    if ((flags & O_DIRECTORY) && !(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
        CloseHandle(h);
        errno = ENOTDIR;
        return -1;
    }
    int fd = _open_osfhandle((intptr_t)h, _O_RDONLY);
    if (fd < 0)
        CloseHandle(h);
    return fd;
}

/* A file opened as POSIX opens one: it may be renamed or removed while open
 * (FILE_SHARE_DELETE, which the C runtime's _open does not give), not inherited. */
static int open_file(const char *full, int flags, int mode)
{
    int acc = flags & (O_RDONLY | O_WRONLY | O_RDWR);
    DWORD access = acc == O_RDWR     ? GENERIC_READ | GENERIC_WRITE
                   : acc == O_WRONLY ? GENERIC_WRITE
                                     : GENERIC_READ;
    if ((flags & O_APPEND) && acc == O_WRONLY)
        access = FILE_APPEND_DATA | SYNCHRONIZE; /* every write at the end, as O_APPEND */
    DWORD how = (flags & O_CREAT) && (flags & O_EXCL)    ? CREATE_NEW
                : (flags & O_CREAT) && (flags & O_TRUNC) ? CREATE_ALWAYS
                : (flags & O_CREAT)                      ? OPEN_ALWAYS
                : (flags & O_TRUNC)                      ? TRUNCATE_EXISTING
                                                         : OPEN_EXISTING;
    DWORD attrs =
        (flags & O_CREAT) && !(mode & 0200) ? FILE_ATTRIBUTE_READONLY : FILE_ATTRIBUTE_NORMAL;
    HANDLE h =
        CreateFileA(full, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, how,
                    attrs | (flags & O_NOFOLLOW ? FILE_FLAG_OPEN_REPARSE_POINT : 0), NULL);
    if (h == INVALID_HANDLE_VALUE) {
        errno = win_errno();
        DWORD a = GetFileAttributesA(full);
        if (errno == EACCES && a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY))
            errno = EISDIR; /* a directory opened as a file */
        return -1;
    }
    int fd = _open_osfhandle((intptr_t)h,
                             (flags & (O_APPEND | O_RDONLY | O_WRONLY | O_RDWR)) | _O_BINARY);
    if (fd < 0)
        CloseHandle(h);
    return fd;
}

static int open_at(int dirfd, const char *path, int flags, int mode)
{
    char full[PATH_MAX];
    if (at_path(dirfd, path, full, sizeof full) < 0)
        return -1;
    if ((flags & O_NOFOLLOW) && is_reparse(full)) {
        errno = ELOOP;
        return -1;
    }
    if ((flags & O_TMPFILE) == O_TMPFILE) {
        errno = EOPNOTSUPP; /* callers fall back to a named file */
        return -1;
    }
    if (flags & (O_DIRECTORY | O_PATH))
        return open_handle(full, flags);
    return open_file(full, flags, mode);
}

int tf_win_openat(int dirfd, const char *path, int flags, ...)
{
    int mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, int);
        va_end(ap);
    }
    return open_at(dirfd, path, flags, mode);
}

int tf_win_open(const char *path, int flags, ...)
{
    int mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, int);
        va_end(ap);
    }
    return open_at(AT_FDCWD, path, flags, mode);
}

/* struct stat from a handle's information: type, size, times, links. */
static void fill_stat(const BY_HANDLE_FILE_INFORMATION *info, struct stat *st)
{
    memset(st, 0, sizeof *st);
    bool dir = info->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY;
    st->st_mode = dir ? (_S_IFDIR | 0755) : (_S_IFREG | 0644);
    if (info->dwFileAttributes & FILE_ATTRIBUTE_READONLY)
        st->st_mode &= ~0222;
    st->st_size = ((long long)info->nFileSizeHigh << 32) | info->nFileSizeLow;
    st->st_nlink = (short)(info->nNumberOfLinks ? info->nNumberOfLinks : 1);
    st->st_dev = info->dwVolumeSerialNumber;
    st->st_ino = (unsigned short)info->nFileIndexLow;
    ULARGE_INTEGER t = {.LowPart = info->ftLastWriteTime.dwLowDateTime,
                        .HighPart = info->ftLastWriteTime.dwHighDateTime};
    st->st_mtime = (time_t)(t.QuadPart / 10000000ULL - 11644473600ULL);
    st->st_ctime = st->st_atime = st->st_mtime;
}

int tf_win_fstat(int fd, struct stat *st)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    BY_HANDLE_FILE_INFORMATION info;
    if (h != INVALID_HANDLE_VALUE && GetFileType(h) == FILE_TYPE_DISK &&
        GetFileInformationByHandle(h, &info)) {
        fill_stat(&info, st);
        return 0;
    }
    return _fstat64(fd, st); /* a console, a pipe: the C runtime knows */
}

int tf_win_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
    char full[PATH_MAX];
    if (!path[0] && (flags & AT_EMPTY_PATH))
        return tf_win_fstat(dirfd, st);
    if (at_path(dirfd, path, full, sizeof full) < 0)
        return -1;
    int fd = open_handle(full, flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0);
    if (fd < 0)
        return -1;
    int rc = tf_win_fstat(fd, st);
    _close(fd);
    return rc;
}

int tf_win_mkdirat(int dirfd, const char *path, int mode)
{
    char full[PATH_MAX];
    (void)mode;
    if (at_path(dirfd, path, full, sizeof full) < 0)
        return -1;
    if (CreateDirectoryA(full, NULL))
        return 0;
    errno = win_errno();
    return -1;
}

/* Remove the file FULL's name now, as unlink(2) does, even while it is open (a run's locked
 * marker): POSIX delete semantics (Windows 10 1809 and later, NTFS). False where the system
 * or file system has none: then DeleteFile, whose name lingers until the last handle closes. */
static bool posix_delete(const char *full)
{
    HANDLE h = CreateFileA(full, DELETE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return false;
    /* FileDispositionInfoEx (21) and its flags, which mingw declares only for a Windows 10
     * target (_WIN32_WINNT): this build runs on older ones too, where the call fails. */
    struct {
        DWORD Flags;
    } info = {.Flags = 0x1 /* DELETE */ | 0x2 /* POSIX_SEMANTICS */};
    BOOL ok = SetFileInformationByHandle(h, (FILE_INFO_BY_HANDLE_CLASS)21, &info, sizeof info);
    CloseHandle(h);
    return ok;
}

/* Where posix_delete cannot be had (wine, FAT, before Windows 10 1809) a file still open
 * keeps its name until its last handle closes, and its directory cannot be removed
 * meanwhile (a run's marker, locked while its workspace is removed): move it first to the
 * directory above its own (the same volume), under a name no one lists, and delete it
 * there: it goes when its handle closes. False when it cannot be moved (then in place). */
static bool delete_aside(const char *full)
{
    char aside[PATH_MAX];
    const char *slash = strrchr(full, '/');
    size_t dir = slash ? (size_t)(slash - full) : 0;
    while (dir > 0 && full[dir - 1] != '/') /* up to the separator before the file's dir */
        dir--;
    if (dir < 3 || dir + 40 >= sizeof aside)
        return false;
    static unsigned serial;
    snprintf(aside, sizeof aside, "%.*s.testfence-removed-%lu-%u", (int)dir, full,
             (unsigned long)GetCurrentProcessId(), serial++);
    if (!MoveFileExA(full, aside, 0))
        return false;
    if (DeleteFileA(aside))
        return true;
    MoveFileExA(aside, full, 0); /* as it was: the caller's DeleteFile says why */
    return false;
}

int tf_win_unlinkat(int dirfd, const char *path, int flags)
{
    char full[PATH_MAX];
    if (at_path(dirfd, path, full, sizeof full) < 0)
        return -1;
    /* Removes a link or junction itself, never what it points to: a directory link or a
     * junction by RemoveDirectory (as unlink(2) removes a symlink); a real directory is
     * EISDIR without AT_REMOVEDIR, as on Linux. */
    DWORD attr = GetFileAttributesA(full);
    bool dir = attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY);
    bool link = attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_REPARSE_POINT);
    if (!(flags & AT_REMOVEDIR) && dir && !link) {
        errno = EISDIR;
        return -1;
    }
    if ((flags & AT_REMOVEDIR) && link) {
        errno = ENOTDIR; /* rmdir(2) of a symlink */
        return -1;
    }
    if (!(flags & AT_REMOVEDIR) && !dir && (posix_delete(full) || delete_aside(full)))
        return 0;
    BOOL ok = flags & AT_REMOVEDIR || dir ? RemoveDirectoryA(full) : DeleteFileA(full);
    if (ok)
        return 0;
    /* POSIX removes a name whatever its file's mode: a read-only file (0444) too. */
    int e = win_errno();
    DWORD a = GetFileAttributesA(full);
    if (e == EACCES && a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_READONLY) &&
        SetFileAttributesA(full, a & ~(DWORD)FILE_ATTRIBUTE_READONLY)) {
        if (flags & AT_REMOVEDIR || dir ? RemoveDirectoryA(full) : DeleteFileA(full))
            return 0;
        SetFileAttributesA(full, a); /* as it was */
    }
    errno = e;
    return -1;
}

int tf_win_renameat(int fd1, const char *from, int fd2, const char *to)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (at_path(fd1, from, a, sizeof a) < 0 || at_path(fd2, to, b, sizeof b) < 0)
        return -1;
    return tf_win_rename(a, b);
}

ssize_t tf_win_readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
    (void)dirfd, (void)path, (void)buf, (void)len;
    errno = EINVAL; /* the resolver of this build never reads link text (core/path.h) */
    return -1;
}

int tf_win_fcntl(int fd, int cmd, ...)
{
    switch (cmd) {
    case F_DUPFD_CLOEXEC: {
        HANDLE h = (HANDLE)_get_osfhandle(fd), d;
        if (h == INVALID_HANDLE_VALUE) {
            errno = EBADF;
            return -1;
        }
        if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &d, 0, FALSE,
                             DUPLICATE_SAME_ACCESS)) {
            errno = win_errno();
            return -1;
        }
        int n = _open_osfhandle((intptr_t)d, _O_RDONLY);
        if (n < 0)
            CloseHandle(d);
        return n;
    }
    case F_GETFD:
        return FD_CLOEXEC;
    case F_SETFD:
        return 0;
    default:
        errno = EINVAL;
        return -1;
    }
}

int tf_win_flock(int fd, int op)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    OVERLAPPED ov = {0};
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    BOOL ok;
    if (op & LOCK_UN)
        ok = UnlockFileEx(h, 0, 1, 0, &ov);
    else
        ok = LockFileEx(h,
                        (op & LOCK_EX ? LOCKFILE_EXCLUSIVE_LOCK : 0) |
                            (op & LOCK_NB ? LOCKFILE_FAIL_IMMEDIATELY : 0),
                        0, 1, 0, &ov);
    if (ok)
        return 0;
    BY_HANDLE_FILE_INFORMATION info;
    if (GetFileInformationByHandle(h, &info) && (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
        return 0; /* Windows locks byte ranges of files, never directories: not held (see
                     docs/platforms.md: a live run's directories are not protected by it) */
    errno = win_errno();
    if (errno == EACCES || errno == EIO)
        errno = EWOULDBLOCK;
    return -1;
}

/* fdopendir's streams and the descriptors they took over, for dirfd and closedir. */
static struct {
    DIR *d;
    int fd;
} dirs[64];

DIR *tf_win_fdopendir(int fd)
{
    char path[PATH_MAX];
    if (tf_win_fd_path(fd, path, sizeof path) < 0)
        return NULL;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (dirs[i].d) {
            continue;
        }
        DIR *d = opendir(path);
        if (!d)
            return NULL;
        dirs[i].d = d;
        dirs[i].fd = fd;
        return d;
    }
    errno = EMFILE;
    return NULL;
}

int tf_win_dirfd(DIR *d)
{
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (dirs[i].d == d)
            return dirs[i].fd;
    errno = EINVAL;
    return -1;
}

int tf_win_closedir(DIR *d)
{
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (dirs[i].d == d) {
            _close(dirs[i].fd);
            dirs[i].d = NULL;
        }
    return closedir(d);
}

char *tf_win_strndup(const char *s, size_t n)
{
    size_t l = strnlen(s, n);
    char *d = malloc(l + 1);
    if (d) {
        memcpy(d, s, l);
        d[l] = '\0';
    }
    return d;
}

int tf_win_faccessat(int dirfd, const char *path, int mode, int flags)
{
    struct stat st;
    (void)mode;
    return tf_win_fstatat(dirfd, path, &st, flags);
}

const char *tf_win_errname(int e)
{
    static const struct {
        int e;
        const char *name;
    } names[] = {{EPERM, "EPERM"},         {ENOENT, "ENOENT"},   {EIO, "EIO"},
                 {EBADF, "EBADF"},         {EACCES, "EACCES"},   {EEXIST, "EEXIST"},
                 {EXDEV, "EXDEV"},         {ENOTDIR, "ENOTDIR"}, {EISDIR, "EISDIR"},
                 {EINVAL, "EINVAL"},       {ENOSPC, "ENOSPC"},   {EROFS, "EROFS"},
                 {ENOTEMPTY, "ENOTEMPTY"}, {ELOOP, "ELOOP"},     {ENAMETOOLONG, "ENAMETOOLONG"},
                 {ENOSYS, "ENOSYS"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].e == e)
            return names[i].name;
    return NULL;
}

ssize_t tf_win_readlink(const char *path, char *buf, size_t len)
{
    if (strcmp(path, "/proc/self/exe") != 0) {
        errno = EINVAL;
        return -1;
    }
    HMODULE self = NULL; /* the module this code is in: testfence.exe or libtestfence.dll */
    GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                           GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                       (LPCSTR)(void *)tf_win_readlink, &self);
    DWORD n = GetModuleFileNameA(self, buf, (DWORD)len);
    if (n == 0 || n >= len) {
        errno = n ? ENAMETOOLONG : win_errno();
        return -1;
    }
    buf[n] = '\0';
    slashes(buf);
    return (ssize_t)n; /* readlink(2) does not end the text; the callers end it at n */
}

/* A read-write stream on a new file in %TEMP%, removed when closed. Not msvcrt's tmpfile(),
 * which makes its file in the root of the current drive (refused without administrator
 * rights on Windows). */
static FILE *temp_stream(void)
{
    char dir[MAX_PATH + 1], name[MAX_PATH + 1];
    DWORD n = GetTempPathA(sizeof dir, dir);
    if (n == 0 || n > sizeof dir || !GetTempFileNameA(dir, "tf", 0, name))
        return NULL;
    HANDLE h = CreateFileA(name, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
                           FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        DeleteFileA(name);
        return NULL;
    }
    int fd = _open_osfhandle((intptr_t)h, _O_RDWR | _O_BINARY);
    FILE *f = fd < 0 ? NULL : _fdopen(fd, "w+b");
    if (!f) {
        if (fd >= 0)
            _close(fd);
        else
            CloseHandle(h);
    }
    return f;
}

/* open_memstream's streams: a temp file each, copied out at fflush and fclose. */
static struct {
    FILE *f;
    char **buf;
    size_t *len;
} mems[32];

FILE *tf_win_open_memstream(char **buf, size_t *len)
{
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++) {
        if (mems[i].f)
            continue;
        FILE *f = temp_stream();
        char *b = calloc(1, 1);
        if (!f || !b) {
            if (f)
                fclose(f);
            free(b);
            errno = ENOMEM;
            return NULL;
        }
        mems[i].f = f;
        mems[i].buf = buf;
        mems[i].len = len;
        *buf = b;
        *len = 0;
        return f;
    }
    errno = EMFILE;
    return NULL;
}

/* Copy the stream F's text to its buffer, when it is one of open_memstream's. */
static int mem_sync(FILE *f)
{
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++) {
        if (mems[i].f != f || !f)
            continue;
        long end = ftell(f);
        if (end < 0)
            return -1;
        char *b = realloc(*mems[i].buf, (size_t)end + 1);
        if (!b)
            return -1;
        *mems[i].buf = b;
        rewind(f);
        size_t n = fread(b, 1, (size_t)end, f);
        b[n] = '\0';
        *mems[i].len = n;
        fseek(f, end, SEEK_SET);
        return 0;
    }
    return 0;
}

int tf_win_fflush(FILE *f)
{
    int rc = fflush(f);
    return mem_sync(f) < 0 ? EOF : rc;
}

int tf_win_fclose(FILE *f)
{
    int rc = fflush(f) == 0 && mem_sync(f) == 0 ? 0 : EOF;
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (f && mems[i].f == f)
            mems[i].f = NULL;
    return fclose(f) == 0 ? rc : EOF;
}

FILE *tf_win_fopen(const char *path, const char *mode)
{
    char m[16];
    size_t k = 0;
    for (const char *c = mode; *c && k < sizeof m - 2; c++)
        if (*c != 'e') /* glibc's O_CLOEXEC: msvcrt refuses a mode it does not know */
            m[k++] = *c;
    m[k] = '\0';
    if (!strcmp(path, "/dev/null"))
        path = "NUL";
    return fopen(path, m);
}

int tf_win_renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (at_path(fd1, from, a, sizeof a) < 0 || at_path(fd2, to, b, sizeof b) < 0)
        return -1;
    if (MoveFileExA(a, b, flags & RENAME_NOREPLACE ? 0 : MOVEFILE_REPLACE_EXISTING))
        return 0;
    errno = win_errno();
    return -1;
}

static struct statx_timestamp stamp(LARGE_INTEGER t)
{
    unsigned long long u = (unsigned long long)t.QuadPart; /* 100 ns since 1601 */
    return (struct statx_timestamp){.tv_sec = (long long)(u / 10000000ULL) - 11644473600LL,
                                    .tv_nsec = (unsigned)(u % 10000000ULL) * 100};
}

int tf_win_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *x)
{
    char full[PATH_MAX];
    (void)mask;
    if (at_path(dirfd, path, full, sizeof full) < 0)
        return -1;
    int fd = open_handle(full, flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0);
    if (fd < 0)
        return -1;
    FILE_BASIC_INFO info;
    BOOL ok =
        GetFileInformationByHandleEx((HANDLE)_get_osfhandle(fd), FileBasicInfo, &info, sizeof info);
    int e = ok ? 0 : win_errno();
    _close(fd);
    if (!ok) {
        errno = e;
        return -1;
    }
    memset(x, 0, sizeof *x);
    x->stx_mask = STATX_TYPE | STATX_BTIME | STATX_CTIME;
    x->stx_mode = info.FileAttributes & FILE_ATTRIBUTE_DIRECTORY ? _S_IFDIR : _S_IFREG;
    x->stx_btime = stamp(info.CreationTime);
    x->stx_ctime = stamp(info.ChangeTime);
    x->stx_mtime = stamp(info.LastWriteTime);
    return 0;
}
