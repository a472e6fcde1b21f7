/* audit_select: which findings a project's rule choice keeps, by file: per-file-ignores
 * (a glob and the rules it turns off, as ruff's setting of that name) and its globs. */
#ifndef TESTFENCE_AUDIT_SELECT_H
#define TESTFENCE_AUDIT_SELECT_H

#include "audit_config.h"
#include "audit_result.h"

#include <stdbool.h>

/* Does the glob PAT match S whole? '*' (and '**') any run of characters, '/' included, as in
 * ruff's globs; '?' one character; [abc], [a-z], [!abc] one of a set. */
bool tf_glob_match(const char *pat, const char *s);

/* Drop the findings CFG's per-file ignores turn off. A pattern with a '/' is matched against
 * the path relative to the root (the path as given, outside it); one without, against the
 * file's name. A leading '!' applies the entry to the files the rest does not match. */
void tf_audit_per_file(const tf_audit_cfg *cfg, tf_audit_result *res);

#endif
