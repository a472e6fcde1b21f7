/* audit_ci: the audit's reports for CI servers and its statistics: GitLab Code Quality JSON,
 * JUnit XML (GitLab's test reports, Jenkins), and the count of findings per rule (--statistics). */
#ifndef TESTFENCE_AUDIT_CI_H
#define TESTFENCE_AUDIT_CI_H

#include "audit_output.h"

#include <stdbool.h>
#include <stdio.h>

/* GitLab Code Quality: a JSON array, one issue per finding that is not suppressed, with a
 * fingerprint that does not depend on the line (code, path, message, and the how-manieth
 * such finding of the file), so moving code does not make GitLab call it new. */
void tf_audit_print_gitlab(FILE *out, const tf_audit_report *rep);

/* JUnit XML: one testsuite per file with findings, one failed testcase per finding; the files
 * that could not be read as errors; one passing testcase when there is nothing else. */
void tf_audit_print_junit(FILE *out, const tf_audit_report *rep);

/* The number of findings (not suppressed) of each rule, the most frequent first: text lines
 * "COUNT<TAB>CODE<TAB>name" as ruff prints them, or a JSON array when JSON. */
void tf_audit_print_statistics(FILE *out, bool json, const tf_audit_result *res);

#endif
