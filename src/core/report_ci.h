/* report_ci: what run writes for CI besides the summary: the JSON report at a path the
 * user chose (--report), a JUnit file (--junit), GitHub annotations (--format github). */
#ifndef TESTFENCE_REPORT_CI_H
#define TESTFENCE_REPORT_CI_H

#include "outpath.h"
#include "report.h"

#include <stdbool.h>
#include <stdio.h>

/* An outpath with dirfd -1 was not asked for. */
struct report_outputs {
    struct outpath json, junit;
    bool github; /* one ::error annotation per distinct blocked write */
};

/* Nothing asked for yet. */
void report_outputs_init(struct report_outputs *o);

/* The outputs RUN->outs asks for: the files written where the user chose (opened
 * before the command ran), the annotations printed to OUT. Errors are printed to OUT;
 * returns -1 when a file could not be written. */
int report_write_outputs(const struct report *r, const struct report_run *run, FILE *out);

void report_outputs_close(struct report_outputs *o);

#endif
