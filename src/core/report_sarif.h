/* report_sarif: a run's blocked writes as SARIF 2.1.0 (run --sarif FILE), at the lines in the
 * project that made them, under the audit's rule ids where one fits, for code scanning. */
#ifndef TESTFENCE_REPORT_SARIF_H
#define TESTFENCE_REPORT_SARIF_H

#include "report.h"

#include <stdio.h>

/* A rule a blocked write falls under: the audit's code and name where one fits, so code
 * scanning files the run's alerts beside the audit's; TF9xx are the run's own. */
struct report_rule {
    const char *code, *name;
    const char *summary; /* what the run saw, one line */
    const char *text;    /* why it matters and what the rule is judged from */
};

/* The rule E falls under, judged from its resolved path, operation, the path as the
 * program gave it and its program (RUN: the root). */
const struct report_rule *report_rule_of(const struct report_entry *e,
                                         const struct report_run *run);

/* Every rule, in a fixed order (the SARIF's ruleIndex); *N is their number. */
const struct report_rule *report_rules(size_t *n);

/* The SARIF log of the run to F: one run of the tool "testfence" whose automationDetails
 * id ("testfence-run/RUN_ID") keeps its category apart from the audit's upload. */
void report_sarif(FILE *f, const struct report *r, const struct report_run *run);

#endif
