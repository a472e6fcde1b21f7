/* esc_race: win the race between a check of a path in the caller's memory and the
 * kernel's own reading of it: one thread flips a path buffer between INSIDE (a file the
 * fence lets it change) and OUTSIDE, the main thread calls chmod, fchmodat and setxattr
 * on the buffer TRIES times. After each call that succeeds OUTSIDE's ctime is looked at;
 * "ok" as soon as it changed, else the name of the last refusal (ENOENT from a torn
 * read of the buffer aside). usage: esc_race TRIES INSIDE OUTSIDE */
#include "esc.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/xattr.h>

static char buf[256];
static const char *paths[2];
static size_t lens[2];
static atomic_int stop;
static atomic_uint flips; /* how many times the buffer changed */

static void *flipper(void *arg)
{
    (void)arg;
    for (unsigned i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
        unsigned k = i & 1;
        memcpy(buf, paths[k], lens[k] + 1);
        atomic_store_explicit(&flips, i + 1, memory_order_relaxed);
        /* Hold each name a little, so whole names are read more often than torn ones. */
        for (volatile int j = 0; j < 64; j++)
            ;
    }
    return NULL;
}

static int changed(const char *outside, const struct stat *was)
{
    struct stat st;
    if (stat(outside, &st) < 0)
        return 1; /* gone or renamed: changed too */
    return st.st_ctim.tv_sec != was->st_ctim.tv_sec || st.st_ctim.tv_nsec != was->st_ctim.tv_nsec ||
           st.st_mode != was->st_mode;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return esc_usage(argv[0], "TRIES INSIDE OUTSIDE");
    long tries = strtol(argv[1], NULL, 10);
    paths[0] = argv[2], paths[1] = argv[3];
    lens[0] = strlen(paths[0]), lens[1] = strlen(paths[1]);
    struct stat was;
    if (tries <= 0 || lens[0] >= sizeof buf || lens[1] >= sizeof buf || stat(paths[1], &was) < 0) {
        fprintf(stderr, "esc_race: bad arguments or %s missing\n", paths[1]);
        return 2;
    }
    memcpy(buf, paths[0], lens[0] + 1);
    pthread_t t;
    if (pthread_create(&t, NULL, flipper, NULL)) {
        fprintf(stderr, "esc_race: no thread\n");
        return 2;
    }
    mode_t m = (was.st_mode & 07777) ^ 0004; /* a different mode, still readable */
    int last = 0;
    long i;
    /* The flipper must be running before the first call, and between two calls the
     * buffer should have changed: on a loaded machine the flipper may not run beside this
     * loop, and the unfenced control would then never see OUTSIDE. The wait is bounded,
     * so a single CPU costs microseconds a call, not a time slice. */
    while (!atomic_load_explicit(&flips, memory_order_relaxed))
        sched_yield();
    unsigned seen = 0;
    for (i = 0; i < tries; i++) {
        for (int spin = 0;
             spin < 1000 && atomic_load_explicit(&flips, memory_order_relaxed) == seen; spin++)
            __builtin_ia32_pause();
        seen = atomic_load_explicit(&flips, memory_order_relaxed);
        long r;
        switch (i % 3) {
        case 0:
            r = chmod(buf, m);
            break;
        case 1:
            r = fchmodat(AT_FDCWD, buf, m, 0);
            break;
        default:
            r = setxattr(buf, "user.escape", "escaped", 7, 0);
            break;
        }
        int err = errno;
        if (r == 0 && changed(paths[1], &was))
            break;
        if (r < 0 && err != ENOENT)
            last = err;
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    if (i < tries) {
        fprintf(stderr, "esc_race: %s changed after %ld tries\n", paths[1], i + 1);
        return esc_result(0, 0);
    }
    if (!last) {
        printf("unchanged\n"); /* never refused: the case did not test anything */
        return 1;
    }
    fprintf(stderr, "esc_race: %s unchanged after %ld tries\n", paths[1], tries);
    return esc_result(-1, last);
}
