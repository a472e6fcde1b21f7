/* check: a minimal unit-test harness, one binary per module (test_<module>.c).
 * CHECK records a failure and goes on; check_done() prints the tally and sets the exit status. */
#ifndef TESTFENCE_CHECK_H
#define TESTFENCE_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        check_count++;                                                                             \
        if (!g_ || strcmp(g_, w_) != 0) {                                                          \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__,                \
                    g_ ? g_ : "(null)", w_);                                                       \
        }                                                                                          \
    } while (0)

/* Make a fresh directory for a test under $TMPDIR (inside the run workspace
 * when the suite runs under testfence), never a hard-coded /tmp. */
#include <stdlib.h>
static inline char *check_tmpdir(char *buf, size_t len, const char *name)
{
    const char *t = getenv("TMPDIR");
    snprintf(buf, len, "%s/%s-XXXXXX", t && *t ? t : "/tmp", name);
    return mkdtemp(buf);
}

static inline int check_done(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
