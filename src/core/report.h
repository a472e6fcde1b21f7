/* report: what run says after the command: every blocked write from the violation log,
 * grouped by test and deduplicated with counts, on stderr and as report.json. */
#ifndef TESTFENCE_REPORT_H
#define TESTFENCE_REPORT_H

#include "base/err.h"
#include "vlog.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One distinct blocked write: the same test, operation, resolved path and line of the project. */
struct report_entry {
    char *test; /* NULL: outside any test */
    char *phase, *op, *path, *resolved, *blocked_by, *exe, *first_time;
    char *cmdline; /* the first record's, for a protected file's hint (names the tool); else NULL */
    char *src_file, *src_func, *test_file; /* where in the project it came from (or NULL) */
    long src_line, test_line;
    int err;
    size_t count;
    size_t seq;  /* order of first appearance */
    size_t gseq; /* the first appearance of its test (for ordering the groups) */
};

struct report {
    struct report_entry *v;
    size_t n, cap;
    size_t *slots; /* open-addressing hash index into v (value + 1; 0 is empty) */
    size_t nslots;
    size_t total;        /* well-formed records */
    size_t unattributed; /* records outside any test */
    size_t dropped;      /* records of distinct writes beyond REPORT_MAX_DISTINCT */
    struct vlog_stats stats;
    bool log_unreadable;
    char log_error[sizeof(tf_err)];
};

/* Distinct writes kept in memory; more are counted, not listed. */
#define REPORT_MAX_DISTINCT 100000
/* The log is read up to this size; a bigger one is cut (and said so). */
#define REPORT_MAX_LOG (256u << 20)

struct report_outputs; /* report_ci.h */

/* What the summary and report.json say about the run besides the log. */
struct report_run {
    const char *run_id, *root, *workspace, *backend, *home;
    const char *layer;     /* what refused metadata changes: "namespace", "guard", "none" */
    const char *layer_why; /* why not the namespace layer, when it was tried (NULL: it was not) */
    char *const *argv;
    int command_status;    /* the command's own */
    int status;            /* what testfence exits with */
    bool weak;             /* --backend preload: say loudly what escapes it */
    const char *note;      /* what the list leaves out, in place of the shim's note (an OS's
                            * own fence: what it refuses unrecorded); NULL: the shim's */
    bool colour;           /* the summary goes to a terminal that wants colour */
    const char *fails_why; /* why the run fails whatever the log says (NULL: it does not) */
    const struct report_outputs *outs; /* NULL: none */
    double started, seconds; /* when the command started (seconds since the epoch) and how
                              * long it ran, wall clock; started 0: not known */
};

/* Read the log NAME in the directory DIRFD (opened by run before the command started,
 * so a test that swaps the path for a symlink cannot redirect it). Never fails on bad
 * content: malformed lines are counted, an unreadable log is noted. */
int report_load(struct report *r, int dirfd, const char *name, tf_err *err);

/* The summary for people. Prints nothing for a clean run unless WEAK. */
void report_print(FILE *f, const struct report *r, const struct report_run *run);

/* Write report.json as NAME in DIRFD: a fresh file renamed into place, never through a symlink. */
int report_write_json(const struct report *r, const struct report_run *run, int dirfd,
                      const char *name, tf_err *err);

/* The entries ordered for printing: grouped by test, tests in the order they first hit
 * the fence, outside any test last. Free the array (not the entries); NULL: no memory. */
struct report_entry **report_sorted(const struct report *r);

/* The end of the group of entries of one test that starts at I. */
size_t report_group_end(struct report_entry **s, size_t n, size_t i);

/* Is E a process that outlived the command (testfence's own record, op "outlived",
 * blocked_by "testfence": path is its command line, resolved its program), not a write? */
bool report_outlived(const struct report_entry *e);

/* Is E a refused change to a protected file of the user's (blocked_by "protect")? */
bool report_protected(const struct report_entry *e);

/* The blocked writes (counted with repeats) of the entries from I to END. */
size_t report_group_writes(struct report_entry **s, size_t i, size_t end);

/* The processes left running (counted with repeats) among the entries from I to END. */
size_t report_group_leftovers(struct report_entry **s, size_t i, size_t end);

/* How to fix E, the same in the summary, report.json and the CI outputs. */
const char *report_hint(const struct report_entry *e, const struct report_run *run);

/* One test's group as the summary prints it: the test, then each distinct write with
 * its count and how to fix it (at most a screenful). */
void report_print_group(FILE *f, struct report_entry **s, size_t i, size_t end,
                        const struct report_run *run);

/* The JSON text of report.json. */
void report_json(FILE *f, const struct report *r, const struct report_run *run);

void report_free(struct report *r);

#endif
