/* verify_bench: one `testfence run --verify` worth of work, for bench/verify.sh.
 * usage: verify_bench ROOT HASH_LIMIT [-v]: snapshot, snapshot again, diff. */
#include "core/policy.h"
#include "core/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: verify_bench ROOT HASH_LIMIT [-v]\n"), 2;
    tf_err err = {0};
    struct policy p;
    /* The writable set run would use: <root>/tests and the system set. */
    if (policy_init(&p, argv[1], &err) < 0 || policy_add(&p, "tests", POLICY_PROJECT, &err) < 0 ||
        policy_add_system(&p, &err) < 0)
        return fprintf(stderr, "verify_bench: %s\n", err.msg), 1;
    struct verify_opts o;
    verify_opts_default(&o);
    o.hash_limit = strtoull(argv[2], NULL, 10);
    struct verify_snap before, after;
    double t0 = now();
    if (verify_snapshot(argv[1], &p, &o, &before, &err) < 0)
        return fprintf(stderr, "verify_bench: %s\n", err.msg), 1;
    double t1 = now();
    if (verify_snapshot(argv[1], &p, &o, &after, &err) < 0)
        return fprintf(stderr, "verify_bench: %s\n", err.msg), 1;
    double t2 = now();
    size_t diffs = verify_diff(&before, &after, stdout);
    double t3 = now();
    if (argc > 3 && !strcmp(argv[3], "-v"))
        fprintf(stderr,
                "entries %zu, hashed %zu (%llu bytes), unreadable %zu, differences %zu; "
                "snapshot %.3f s + %.3f s, diff %.4f s\n",
                before.n, before.n_hashed, (unsigned long long)before.bytes_hashed,
                before.n_unreadable, diffs, t1 - t0, t2 - t1, t3 - t2);
    verify_free(&before);
    verify_free(&after);
    policy_free(&p);
    return diffs ? 3 : 0;
}
