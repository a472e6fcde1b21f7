#include "jobserver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_fds(const char *s, int fds[2])
{
    char *end;
    long r = strtol(s, &end, 10);
    if (end == s || *end != ',' || r < 0 || r > 1 << 20)
        return -1;
    const char *w0 = end + 1;
    long w = strtol(w0, &end, 10);
    if (end == w0 || (*end && *end != ' ') || w < 0 || w > 1 << 20)
        return -1;
    fds[0] = (int)r;
    fds[1] = (int)w;
    return 0;
}

void jobserver_parse(const char *makeflags, struct jobserver *js)
{
    static const char *const opts[] = {"--jobserver-auth=", "--jobserver-fds="};
    memset(js, 0, sizeof *js);
    for (const char *p = makeflags; p && *p;) {
        size_t n = strcspn(p, " ");
        for (size_t i = 0; i < 2; i++) {
            size_t k = strlen(opts[i]);
            if (n <= k || strncmp(p, opts[i], k))
                continue;
            const char *v = p + k;
            size_t vlen = n - k;
            if (i == 0 && vlen > 5 && !strncmp(v, "fifo:", 5) && vlen - 5 < sizeof js->fifo) {
                js->kind = JOBSERVER_FIFO;
                snprintf(js->fifo, sizeof js->fifo, "%.*s", (int)(vlen - 5), v + 5);
            } else if (parse_fds(v, js->fds) == 0) {
                js->kind = JOBSERVER_FDS;
            }
        }
        p += n;
        p += strspn(p, " ");
    }
}
