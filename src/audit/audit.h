/* audit: the language-independent engine of `testfence audit`.
 * Front ends report facts (writes, temp files, literals, comments); the engine turns them into
 * findings. */
#ifndef TESTFENCE_AUDIT_H
#define TESTFENCE_AUDIT_H

#include "audit_pathval.h"
#include "audit_rules.h"
#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>

/* What the audit needs to know about the project. The CLI fills it from
 * defaults and flags; the config loader ([audit] keys) will fill it later. */
typedef struct tf_audit_cfg {
    const char *root;          /* absolute, normalised project root */
    const char *tests_dir;     /* the writable test dir, relative to root ("tests") */
    const char *artifacts_dir; /* the runner's artifacts dir, relative ("tests/artifacts") */
    const char *const *protected_names; /* file names a test must never write at the root */
    size_t n_protected;
    unsigned rules;              /* bit mask of enabled tf_rule_id */
    const char *const *excludes; /* absolute paths directory walks skip ([audit] exclude) */
    size_t n_excludes;
} tf_audit_cfg;

typedef struct tf_finding {
    const char *path; /* as given on the command line; owned by the result */
    const char *rel;  /* relative to the root when under it, else NULL (SARIF uris) */
    int line, col;    /* 1-based; col counts characters */
    int end_line;     /* last line of the construct the finding is about */
    tf_rule_id rule;
    bool suppressed;
    char message[384];
} tf_finding;

typedef struct tf_audit_result {
    tf_finding *findings; /* sorted by path, line, column, code; duplicates dropped */
    size_t n_findings, n_suppressed;
    size_t n_files, n_bytes;
    char **errors; /* one line per file that could not be read */
    size_t n_errors;
    char **strings; /* the file names findings point into */
    size_t n_strings;
    size_t cap_findings, cap_errors, cap_strings; /* allocation sizes: engine-private */
} tf_audit_result;

/* The per-file context a front end reports into. Opaque to front ends. */
typedef struct tf_audit_file tf_audit_file;

/* Where a fact is in the source: 1-based line, 1-based character column, and
 * the last line of the construct (a suppression comment on any of its lines applies). */
typedef struct tf_pos {
    int line, col, end_line;
} tf_pos;

/* OP names the write ("open", "write_text", "shutil.copy"); TARGET is where it goes. */
void tf_audit_write(tf_audit_file *af, tf_pos pos, const char *op, const tf_pathval *target);

typedef enum tf_temp_kind {
    TF_TEMP_CREATE,  /* creates a temp file/dir; has_dir tells whether dir= was given */
    TF_TEMP_DIRNAME, /* returns the system temp directory (gettempdir) */
} tf_temp_kind;

/* A temp file/dir API call. DIR is the dir= value when has_dir (maybe unknown). */
void tf_audit_temp(tf_audit_file *af, tf_pos pos, const char *func, tf_temp_kind kind, bool has_dir,
                   const tf_pathval *dir);

/* A string literal in code (not a docstring or a message being printed). */
void tf_audit_literal(tf_audit_file *af, tf_pos pos, const char *text, size_t len);

/* A comment; OWN_LINE when nothing but whitespace precedes it on its line. */
void tf_audit_comment(tf_audit_file *af, int line, const char *text, size_t len, bool own_line);

/* The first syntax error in the file. */
void tf_audit_syntax_error(tf_audit_file *af, tf_pos pos, const char *near, size_t len);

/* A language front end. Parser state is per thread. */
typedef struct tf_audit_lang {
    const char *name;
    bool (*matches)(const char *path); /* should a directory walk pick this file? */
    void *(*state_new)(void);
    void (*state_free)(void *state);
    /* Scan SRC and report facts into AF; -1 only when the scan itself failed. */
    int (*scan)(void *state, const char *src, size_t len, tf_audit_file *af);
} tf_audit_lang;

/* Audit one in-memory source as file PATH and append its findings to RES
 * (unsorted). Used by the runner and by the fuzz target. */
int tf_audit_source(const tf_audit_cfg *cfg, const tf_audit_lang *lang, void *state,
                    const char *path, const char *src, size_t len, tf_audit_result *res,
                    tf_err *err);

/* Expand PATHS (files, or directories walked for the language's files),
 * audit every file on JOBS threads and fill RES, sorted. Unreadable files are
 * recorded in RES->errors and do not stop the scan; -1 only on a fatal error. */
int tf_audit_run(const tf_audit_cfg *cfg, const tf_audit_lang *lang, char *const *paths,
                 size_t n_paths, int jobs, tf_audit_result *res, tf_err *err);

/* Sort findings and drop duplicates (same file, position and rule). */
void tf_audit_sort(tf_audit_result *res);

void tf_audit_result_free(tf_audit_result *res);

#endif
