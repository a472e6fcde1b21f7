/* dirlist: core/dirlist.h on Linux, getdents64(2) into a buffer of the listing's own. Compiled
 * into tf_core, as oscalls.c is. */
#include "core/dirlist.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's record: struct linux_dirent64 of getdents64(2). */
struct kernel_dirent {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

struct dirlist {
    int fd;
    size_t pos, end;
    struct dirlist_entry entry;
    /* 8 KiB: a directory of a few hundred names in one call; large ones take several. */
    _Alignas(8) char buf[8192];
};

struct dirlist *dirlist_open(int fd)
{
    struct dirlist *l = malloc(sizeof *l);
    if (!l) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    l->fd = fd;
    l->pos = l->end = 0;
    return l;
}

const struct dirlist_entry *dirlist_next(struct dirlist *l)
{
    if (l->pos >= l->end) {
        long n = syscall(SYS_getdents64, l->fd, l->buf, sizeof l->buf);
        if (n <= 0) {
            if (n == 0)
                errno = 0;
            return NULL;
        }
        l->pos = 0;
        l->end = (size_t)n;
    }
    struct kernel_dirent *d = (struct kernel_dirent *)(l->buf + l->pos);
    l->pos += d->reclen;
    l->entry.name = d->name;
    l->entry.type = d->type;
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
    close(l->fd);
    free(l);
}
