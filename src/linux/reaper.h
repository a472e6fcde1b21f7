/* reaper: nothing a run starts outlives it. When the command exits, every process it left
 * is stopped, described (who started it: its test) and killed, in a PID namespace or below
 * testfence as a subreaper. */
#ifndef TESTFENCE_REAPER_H
#define TESTFENCE_REAPER_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* A process still running when the command exited. Strings are always terminated. */
struct leftover {
    long pid; /* as its reaper sees it */
    char exe[PATH_MAX];
    char test[512];     /* the value of the test variable in its environment, "" if none */
    char cmdline[1024]; /* argv joined with spaces */
};

/* Describe PID from /proc: its program, command line and the value of TEST_ENV in the
 * environment it started with. 0, or -1 when it is gone or a zombie. */
int reaper_describe(pid_t pid, const char *test_env, struct leftover *l);

/* Stop, describe to FN and kill every process still running besides the caller, then reap
 * them all. IN_NS: the caller is the init of a PID namespace, so "every process" is the
 * namespace; else the caller is a subreaper and the sweep repeats over its children until
 * none is left (each killed parent hands its children up). Returns how many were running. */
size_t reaper_sweep(int in_ns, const char *test_env,
                    void (*fn)(void *ctx, const struct leftover *l), void *ctx);

#endif
