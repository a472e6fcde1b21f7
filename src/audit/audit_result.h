/* audit_result: what an audit found: findings with their rule and severity, the files that
 * could not be read, notes, and the strings they point into; added to, sorted, freed. */
#ifndef TESTFENCE_AUDIT_RESULT_H
#define TESTFENCE_AUDIT_RESULT_H

#include "audit_config.h"
#include "audit_rules.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum tf_severity { TF_SEV_ERROR, TF_SEV_WARNING, TF_SEV_STYLE } tf_severity;

typedef struct tf_finding {
    const char *path; /* as given on the command line; owned by the result */
    const char *rel;  /* relative to the root when under it, else NULL (SARIF uris) */
    int line, col;    /* 1-based; col counts characters */
    int end_line;     /* last line of the construct the finding is about */
    tf_rule_id rule;
    tf_severity severity;
    bool suppressed;
    char message[384];
} tf_finding;

typedef struct tf_audit_result {
    tf_finding *findings; /* sorted by path, line, column, code; duplicates dropped */
    size_t n_findings, n_suppressed;
    size_t n_files, n_bytes;
    size_t n_skipped; /* files walked that tests neither collect nor import: not judged */
    size_t n_cached;  /* files whose facts came from the cache */
    char **errors;    /* one line per file that could not be read */
    size_t n_errors;
    char **notes; /* what the user should know: symlinked directories not followed, ... */
    size_t n_notes;
    char **strings; /* the file names findings point into */
    size_t n_strings;
    size_t cap_findings, cap_errors, cap_notes, cap_strings; /* engine-private */
} tf_audit_result;

/* Keep a string for the result's lifetime, add a finding (NULL when its rule is disabled or
 * memory ran out), record an error or a note. */
char *tf_audit_keep(tf_audit_result *res, const char *s);
tf_finding *tf_audit_add(tf_audit_result *res, const tf_audit_cfg *cfg, tf_rule_id rule);
void tf_audit_error(tf_audit_result *res, const char *msg);
void tf_audit_note(tf_audit_result *res, const char *msg);

/* Sort findings and drop duplicates (same file, position and rule). */
void tf_audit_sort(tf_audit_result *res);

void tf_audit_result_free(tf_audit_result *res);

#endif
