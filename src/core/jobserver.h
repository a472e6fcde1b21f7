/* jobserver: the descriptors or fifo of make's jobserver, as MAKEFLAGS names them, so a
 * `testfence run -- $(MAKE)` inside make -jN keeps sharing its parent's job slots. */
#ifndef TESTFENCE_JOBSERVER_H
#define TESTFENCE_JOBSERVER_H

#include <stddef.h>

enum jobserver_kind {
    JOBSERVER_NONE,
    JOBSERVER_FDS,  /* --jobserver-auth=R,W (make 4.2+) or --jobserver-fds=R,W (older) */
    JOBSERVER_FIFO, /* --jobserver-auth=fifo:PATH (make 4.4+) */
};

struct jobserver {
    enum jobserver_kind kind;
    int fds[2];
    char fifo[4096];
};

/* Read MAKEFLAGS (may be NULL). The last jobserver option wins, as in make. */
void jobserver_parse(const char *makeflags, struct jobserver *js);

#endif
