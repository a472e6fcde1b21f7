/* audit_config: what an audit is given: the project's configuration (the CLI fills it) and
 * the front end of the language it reads. */
#ifndef TESTFENCE_AUDIT_CONFIG_H
#define TESTFENCE_AUDIT_CONFIG_H

#include "audit_facts.h"

#include <stdbool.h>
#include <stddef.h>

/* The working directory tests get from their runner: the directory it is started from (the
 * project root: pytest, unittest), or a fresh temporary one per test process (CPython's
 * regrtest). A relative write lands in the project only in the first case. */
typedef enum tf_audit_cwd { TF_CWD_ROOT, TF_CWD_TEMPORARY } tf_audit_cwd;

/* An [audit] per-file-ignores entry: files matching GLOB (a leading '!': not matching it)
 * have the rules of RULES (a mask of tf_rule_id) turned off. */
typedef struct tf_audit_file_ignore {
    const char *glob;
    unsigned rules;
} tf_audit_file_ignore;

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
    const tf_audit_file_ignore *per_file; /* [audit] per-file-ignores, applied in order */
    size_t n_per_file;
} tf_audit_cfg;

/* A language front end: which files it reads, which of them a test runner collects by name,
 * and the scan that turns one file into facts. */
typedef struct tf_audit_lang {
    const char *name;
    bool (*matches)(const char *path);   /* should a directory walk pick this file? */
    bool (*collected)(const char *name); /* is a file of this base name collected as tests? */
    /* Scan SRC (UTF-8) into OUT (initialised by the caller); -1 when out of memory. */
    int (*scan)(const char *src, size_t len, const char *artifacts, tf_facts *out);
    /* Is the dotted module name someone else's (the standard library), never the project's? */
    bool (*external)(const char *module);
} tf_audit_lang;

#endif
