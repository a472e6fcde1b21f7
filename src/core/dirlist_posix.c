/* dirlist: core/dirlist.h where there is no getdents64 (Windows, through src/windows/posix.h's
 * fdopendir; macOS): readdir over fdopendir. */
#include "dirlist.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

struct dirlist {
    DIR *d;
    int fd;
    struct dirlist_entry entry;
};

struct dirlist *dirlist_open(int fd)
{
    struct dirlist *l = malloc(sizeof *l);
    DIR *d = l ? fdopendir(fd) : NULL;
    if (!d) {
        int e = l ? errno : ENOMEM;
        free(l);
        close(fd);
        errno = e;
        return NULL;
    }
    l->d = d;
    l->fd = fd;
    return l;
}

const struct dirlist_entry *dirlist_next(struct dirlist *l)
{
    errno = 0;
    struct dirent *e = readdir(l->d);
    if (!e)
        return NULL;
    l->entry.name = e->d_name;
    l->entry.type = e->d_type;
    return &l->entry;
}

int dirlist_fd(const struct dirlist *l)
{
    return l->fd;
}

void dirlist_close(struct dirlist *l)
{
    if (!l)
        return;
    closedir(l->d);
    free(l);
}
