/* audit: the language-independent engine of `testfence audit`.
 * Front ends turn each file into facts (audit_facts.h); the engine reads the files (or takes
 * their facts from the cache), judges them as one project (audit_project.h), sorts findings. */
#ifndef TESTFENCE_AUDIT_H
#define TESTFENCE_AUDIT_H

#include "audit_facts.h"
#include "audit_rules.h"
#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>

/* The working directory tests get from their runner: the directory it is started from (the
 * project root: pytest, unittest), or a fresh temporary one per test process (CPython's
 * regrtest). A relative write lands in the project only in the first case. */
typedef enum tf_audit_cwd { TF_CWD_ROOT, TF_CWD_TEMPORARY } tf_audit_cwd;

/* What the audit needs to know about the project. The CLI fills it from defaults, the
 * configuration and flags. */
typedef struct tf_audit_cfg {
    const char *root;          /* absolute, normalised project root */
    const char *tests_dir;     /* the writable test dir, relative to root ("tests") */
    const char *artifacts_dir; /* the runner's artifacts dir, relative ("tests/artifacts") */
    const char *const *protected_names; /* file names a test must never write at the root */
    size_t n_protected;
    unsigned rules;              /* bit mask of enabled tf_rule_id */
    const char *const *excludes; /* absolute paths directory walks skip ([audit] exclude) */
    size_t n_excludes;
    tf_audit_cwd cwd;      /* the working directory the runner gives tests */
    const char *home;      /* the user's home directory (absolute), NULL when unknown */
    const char *cache_dir; /* where the per-file cache lives; NULL: no cache */
} tf_audit_cfg;

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

/* A language front end: which files it reads, which of them a test runner collects by name,
 * and the scan that turns one file into facts. */
typedef struct tf_audit_lang {
    const char *name;
    bool (*matches)(const char *path);   /* should a directory walk pick this file? */
    bool (*collected)(const char *name); /* is a file of this base name collected as tests? */
    /* Scan SRC (UTF-8) into OUT (initialised by the caller); -1 when out of memory. */
    int (*scan)(const char *src, size_t len, const char *artifacts, tf_facts *out);
} tf_audit_lang;

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

/* Sort findings and drop duplicates (same file, position and rule). */
void tf_audit_sort(tf_audit_result *res);

void tf_audit_result_free(tf_audit_result *res);

/* Engine-internal, shared with audit_project.c: keep a string for the result's lifetime, add
 * a finding (NULL when its rule is disabled or memory ran out), record an error or a note. */
char *tf_audit_keep(tf_audit_result *res, const char *s);
tf_finding *tf_audit_add(tf_audit_result *res, const tf_audit_cfg *cfg, tf_rule_id rule);
void tf_audit_error(tf_audit_result *res, const char *msg);
void tf_audit_note(tf_audit_result *res, const char *msg);

#endif
