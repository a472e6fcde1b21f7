/* report_ci: what run writes for CI besides the summary: the JSON report at a path the
 * user chose (--report), a JUnit file (--junit), GitHub annotations (--format github),
 * SARIF (--sarif, report_sarif), each pointing at the line in the project that wrote. */
#ifndef TESTFENCE_REPORT_CI_H
#define TESTFENCE_REPORT_CI_H

#include "outpath.h"
#include "report.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

/* An outpath with dirfd -1 was not asked for. */
struct report_outputs {
    struct outpath json, junit, sarif;
    bool github; /* one ::error annotation per distinct blocked write */
};

/* Nothing asked for yet. */
void report_outputs_init(struct report_outputs *o);

/* The outputs RUN->outs asks for: the files written where the user chose (opened
 * before the command ran), the annotations printed to OUT. Errors are printed to OUT;
 * returns -1 when a file could not be written. */
int report_write_outputs(const struct report *r, const struct report_run *run, FILE *out);

void report_outputs_close(struct report_outputs *o);

/* Where a blocked write points in the project. */
struct report_loc {
    char file[PATH_MAX]; /* relative to the root, '/'-separated, no ".." (or absolute) */
    long line;           /* 0: not known */
    bool absolute;       /* FILE lies outside the root: SARIF can name it, GitHub cannot */
};

/* Where E points, by the source-line contract (docs/diagnostics.md): the line that made the
 * call (src_file, src_line), else the test's own frame (test_file, test_line), else the
 * file of its pytest id (no line). A file inside ROOT is made relative; one with a ".."
 * component, or empty, is passed over. False: nothing is known (a write outside any test
 * that the writer could not place). */
bool report_where(const struct report_entry *e, const char *root, struct report_loc *loc);

/* Where the test of E is: its own frame (test_file, test_line), else its id's file. */
bool report_test_where(const struct report_entry *e, const char *root, struct report_loc *loc);

/* The directory the CI outputs' paths are relative to: the repository the CI checked out
 * (GITHUB_WORKSPACE, else GitLab's CI_PROJECT_DIR) when ROOT lies inside it, so an
 * annotation lands on the file in a project kept in a subdirectory; ROOT otherwise. Into
 * BASE; false: it does not fit. */
bool report_ci_base(char *base, size_t len, const char *root);

/* FILE (relative to ROOT) relative to report_ci_base. False: it does not fit. */
bool report_ci_path(char *out, size_t len, const char *file, const char *root);

#endif
