/* audit_project: the project-wide judgement of `testfence audit`.
 * Which files tests collect or import, the working directory each function runs in (fixtures
 * across conftest.py files, helpers through their callers, context managers), and findings. */
#ifndef TESTFENCE_AUDIT_PROJECT_H
#define TESTFENCE_AUDIT_PROJECT_H

#include "audit_config.h"
#include "audit_facts.h"
#include "audit_result.h"
#include "base/err.h"

/* One file of the project, as the engine read it. */
typedef struct tf_audit_file {
    char *path;       /* as walked or given */
    char *rel;        /* relative to the root when under it, else NULL */
    char *absdir;     /* its directory, absolute and normalised */
    char *anchor;     /* the tests directory it belongs to */
    char *module;     /* its dotted module name through its packages ("test.support.os_helper") */
    const char *name; /* its base name (in path) */
    tf_facts facts;
    bool scanned;   /* facts holds its facts */
    bool named;     /* given on the command line: judged whatever its name */
    bool context;   /* a conftest.py above the scanned paths: read for fixtures, not judged */
    bool collected; /* a test runner collects or imports it: judged */
    bool library;   /* the project's own module outside the scanned paths, read because tests
                       call into it: its writes are judged at the tests' calls only */
    size_t bytes;
} tf_audit_file;

/* Decide which files are collected, resolve every write's destination and append the
 * findings of the collected files to RES (unsorted, suppressions applied). */
int tf_audit_project(const tf_audit_cfg *cfg, const tf_audit_lang *lang, tf_audit_file *files,
                     size_t n, tf_audit_result *res, tf_err *err);

#endif
