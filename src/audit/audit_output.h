/* audit_output: how `testfence audit` prints its findings.
 * Text (ruff/flake8 style), JSON, SARIF 2.1.0 and GitHub workflow annotations; all sorted and
 * stable. */
#ifndef TESTFENCE_AUDIT_OUTPUT_H
#define TESTFENCE_AUDIT_OUTPUT_H

#include "audit_config.h"
#include "audit_result.h"

#include <stdbool.h>
#include <stdio.h>

typedef enum tf_audit_format {
    TF_AUDIT_TEXT,
    TF_AUDIT_JSON,
    TF_AUDIT_SARIF,
    TF_AUDIT_GITHUB,
    TF_AUDIT_GITLAB,
    TF_AUDIT_JUNIT,
    TF_AUDIT_FORMAT_COUNT
} tf_audit_format;

/* "text", "json", "sarif", "github", "gitlab", "junit"; false when unknown. */
bool tf_audit_format_parse(const char *name, tf_audit_format *fmt);

typedef struct tf_audit_report {
    const tf_audit_result *res;
    const tf_audit_cfg *cfg;
    const char *version; /* testfence's version, for JSON and SARIF */
    bool color;          /* text only */
    bool statistics;     /* counts per rule instead of the findings (text and JSON only) */
} tf_audit_report;

/* Print the findings that are not suppressed (JSON/SARIF also carry the suppressed ones,
 * marked), or with REP->statistics the count of each rule's. Returns -1 when writing OUT
 * failed. */
int tf_audit_print(FILE *out, tf_audit_format fmt, const tf_audit_report *rep);

/* S as a JSON string (quotes included) to OUT, whole whatever its length; invalid UTF-8
 * becomes U+FFFD. */
void tf_audit_json_str(FILE *out, const char *s);

/* The severity's name: "error", "warning", "style". */
const char *tf_audit_severity_name(tf_severity s);

/* One line for people: counts of findings, suppressions, files, errors. */
void tf_audit_print_summary(FILE *out, const tf_audit_report *rep);

/* The long form of one rule (--explain). */
void tf_audit_print_rule(FILE *out, tf_rule_id id);

#endif
