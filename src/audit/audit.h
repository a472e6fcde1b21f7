/* audit: the language-independent engine of `testfence audit`.
 * Front ends turn each file into facts (audit_facts.h); the engine reads the files (or takes
 * their facts from the cache), judges them as one project (audit_project.h), sorts findings. */
#ifndef TESTFENCE_AUDIT_H
#define TESTFENCE_AUDIT_H

#include "audit_config.h"
#include "audit_facts.h"
#include "audit_result.h"
#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>

/* Audit one in-memory source as the collected file PATH, alone, and append its findings to
 * RES (unsorted). The fuzz target's entry. */
int tf_audit_source(const tf_audit_cfg *cfg, const tf_audit_lang *lang, const char *path,
                    const char *src, size_t len, tf_audit_result *res, tf_err *err);

/* Expand PATHS (files, or directories walked for the language's files), add the conftest.py
 * files above them as context, scan every file on JOBS threads (or take its facts from the
 * cache), judge them as one project and fill RES, sorted. Unreadable files are recorded in
 * RES->errors and do not stop the scan; -1 only on a fatal error. */
int tf_audit_run(const tf_audit_cfg *cfg, const tf_audit_lang *lang, char *const *paths,
                 size_t n_paths, int jobs, tf_audit_result *res, tf_err *err);

#endif
