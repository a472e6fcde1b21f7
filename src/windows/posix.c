/* posix: the few POSIX calls mingw-w64 lacks or spells otherwise, on Win32 (see posix.h).
 * Paths come back with '/' separators, as the rest of testfence writes them. */
#include "posix.h"

#include <errno.h>
#include <string.h>
#include <windows.h>

/* posix.h's macros would rename the definitions below. */
#undef mkdir
#undef getcwd
#undef realpath
#undef sysconf
#undef link
#undef rename

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
