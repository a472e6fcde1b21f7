/* esc.h: what every escape-corpus driver shares: print "ok" or the errno name and
 * exit 0 or 1, so the harness reads one word whatever the family. */
#ifndef TESTFENCE_ESC_H
#define TESTFENCE_ESC_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Exit status 2 (not 1) for misuse, so a typo in the harness never reads as "blocked". */
static inline int esc_usage(const char *prog, const char *text)
{
    fprintf(stderr, "usage: %s %s\n", prog, text);
    return 2;
}

/* R < 0 is a failure whose cause is in errno (captured by the caller before any other call). */
static inline int esc_result(long r, int err)
{
    if (r < 0) {
        const char *n = strerrorname_np(err);
        printf("%s\n", n ? n : "EUNKNOWN");
        return 1;
    }
    printf("ok\n");
    return 0;
}

#define ESC_PAYLOAD "escaped\n"
#define ESC_PAYLOAD_LEN (sizeof ESC_PAYLOAD - 1)

#endif
