/* platform: core/platform.h on Windows: a tree per drive, the home in %USERPROFILE% (where
 * Python's expanduser looks), both written with '/' as testfence.exe writes every path. */
#include "core/platform.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool platform_is_top(const char *dir)
{
    return isalpha((unsigned char)dir[0]) && dir[1] == ':' &&
           (dir[2] == '\0' || (dir[2] == '/' && dir[3] == '\0'));
}

bool platform_is_absolute(const char *path)
{
    bool sep1 = path[0] == '/' || path[0] == '\\';
    return sep1 || (isalpha((unsigned char)path[0]) && path[1] == ':' &&
                    (path[2] == '/' || path[2] == '\\'));
}

void platform_separators(char *path)
{
    for (char *p = path; *p; p++)
        if (*p == '\\')
            *p = '/';
}

bool platform_home(char *out, size_t len)
{
    const char *h = getenv("USERPROFILE");
    if (!h || !isalpha((unsigned char)h[0]) || h[1] != ':' || (h[2] != '\\' && h[2] != '/'))
        return false;
    int w = snprintf(out, len, "%s", h);
    if (w <= 0 || (size_t)w >= len)
        return false;
    for (char *p = out; *p; p++)
        if (*p == '\\')
            *p = '/';
    return true;
}

int platform_open_top(const char *path, const char **rest)
{
    char top[4] = {path[0], ':', '/', '\0'};
    if (!isalpha((unsigned char)path[0]) || path[1] != ':' || (path[2] != '/' && path[2] != '\\')) {
        errno = EINVAL; /* a path without a drive: never planned so */
        return -1;
    }
    *rest = path + 3 + strspn(path + 3, "/\\");
    return open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

const char *platform_default_tmp(void)
{
    static char tmp[PATH_MAX];
    const char *vars[] = {"TEMP", "TMP"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv(vars[i]);
        if (v && platform_is_absolute(v) && strlen(v) < sizeof tmp) {
            snprintf(tmp, sizeof tmp, "%s", v);
            platform_separators(tmp);
            return tmp;
        }
    }
    return "C:/Windows/Temp";
}
