/* platform_posix: platform.h on Linux (and any POSIX system): one tree under "/", $HOME. */
#include "platform.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool platform_is_top(const char *dir)
{
    return !strcmp(dir, "/");
}

bool platform_is_absolute(const char *path)
{
    return path[0] == '/';
}

void platform_separators(char *path)
{
    (void)path;
}

bool platform_home(char *out, size_t len)
{
    const char *h = getenv("HOME");
    if (!h || h[0] != '/')
        return false;
    int w = snprintf(out, len, "%s", h);
    return w > 0 && (size_t)w < len;
}

int platform_open_top(const char *path, const char **rest)
{
    *rest = path + strspn(path, "/");
    return open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

const char *platform_default_tmp(void)
{
    return "/tmp";
}
