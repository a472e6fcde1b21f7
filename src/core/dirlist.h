/* dirlist: the entries of a directory open on an fd, as readdir gives them. On Linux they are
 * read with getdents64 straight from the fd: fdopendir costs an fstat and two fcntl calls per
 * directory, a tenth of what a run's start-up spends in system calls (docs/performance.md). */
#ifndef TESTFENCE_DIRLIST_H
#define TESTFENCE_DIRLIST_H

struct dirlist;

struct dirlist_entry {
    const char *name;   /* "." and ".." included, as readdir gives them */
    unsigned char type; /* readdir's d_type: DT_UNKNOWN when the file system gives none */
};

/* A listing of the directory open on FD, which it takes over (closed by dirlist_close, or
 * here on failure). NULL with errno set. */
struct dirlist *dirlist_open(int fd);

/* The next entry, valid until the next call; NULL at the end (errno 0) or on an error
 * (errno set). */
const struct dirlist_entry *dirlist_next(struct dirlist *l);

/* The fd the listing reads, for the *at() calls on its entries. */
int dirlist_fd(const struct dirlist *l);

void dirlist_close(struct dirlist *l);

#endif
