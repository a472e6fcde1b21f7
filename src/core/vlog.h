/* vlog: the violation log, JSON Lines in the run workspace, one record per blocked write.
 * The shim formats and appends records (one O_APPEND write each); run reads them back as untrusted
 * input. */
#ifndef TESTFENCE_VLOG_H
#define TESTFENCE_VLOG_H

#include "base/err.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* A record never exceeds PIPE_BUF bytes (newline included), so each append is one
 * atomic write even with many processes and threads writing at once. */
#define VLOG_MAX PIPE_BUF

/* The longest line the reader accepts; longer ones are malformed. */
#define VLOG_LINE_MAX 8192

/* One blocked write. Strings are NUL-terminated; test and phase may be NULL (no test). */
struct vlog_record {
    const char *time; /* UTC, "2026-11-29T10:14:38.123Z" */
    long pid;
    const char *test;       /* the test's id (pytest node id), NULL outside a test */
    const char *phase;      /* setup, call, teardown or collect (core/testvar); NULL if unknown */
    const char *op;         /* the libc function: "open", "rename", ... */
    const char *path;       /* as the program gave it */
    const char *resolved;   /* absolute, symlinks resolved */
    int err;                /* the errno the program saw */
    const char *blocked_by; /* "kernel" (Landlock refused), "shim" (the shim refused), "guard"
                               (the seccomp guard refused a program the shim is not in),
                               "protect" (a protected file of the user's: its read-only mount
                               refused), or "testfence" (op "outlived": a process it killed
                               after the command) */
    const char *exe;        /* /proc/self/exe */
    const char *cmdline;    /* argv joined with spaces */
    bool truncated;         /* some field was cut to keep the record under VLOG_MAX */
    /* Where in the project the write came from (optional: NULL and 0 when unknown; a pytest
     * plugin supplies them, the rest of the record stays the shim's): the innermost frame in
     * the project (test, fixture, hook, helper), and the test function's own frame in that
     * stack; for a child process, the frames that started it. Files are relative to the
     * project root inside it, else absolute. Informational: nothing decides by them. */
    const char *src_file;
    long src_line;
    const char *src_func;
    const char *test_file;
    long test_line;
};

/* The largest line number a record carries (anything else is forged). */
#define VLOG_LINE_NO_MAX 100000000L

/* Where a record's "who and when" is kept while it is built: this process. */
struct vlog_self {
    char time[40];
    char exe[PATH_MAX];
    char cmdline[600];
};

/* Start the record R of a blocked write by this process, with SELF holding its strings:
 * the time, pid, /proc/self/exe and command line are filled (raw syscalls, so the shim's
 * own reads stay out of its interposers); every other field is cleared for the caller. */
void vlog_record_self(struct vlog_record *r, struct vlog_self *self);

/* Format R as one JSON line (newline included) into OUT (at least VLOG_MAX bytes).
 * Long fields are cut (at a character boundary) and "truncated" set. Returns the length. */
size_t vlog_format(char *out, size_t cap, const struct vlog_record *r);

/* Append one formatted record to the log at PATH with a single O_APPEND write.
 * Async-signal-safe apart from nothing: raw syscalls only. Returns 0 or an errno. */
int vlog_append(const char *path, const char *line, size_t len);

/* Send one formatted record as a datagram to the unix socket at PATH (testfence run's record
 * channel; a path too long for sun_path is reached through its directory). Raw syscalls
 * only; waits at most 10 s for room. Returns 0 or an errno. */
int vlog_send(const char *path, const char *line, size_t len);

/* Parse one line (without its newline). Strings are unescaped into SCRATCH (at least
 * LEN + 1 bytes) and R points into it. Returns 0, or -1 for anything malformed:
 * not a flat JSON object, a wrong type, a duplicate or missing required key. */
int vlog_parse(const char *line, size_t len, struct vlog_record *r, char *scratch);

struct vlog_stats {
    size_t records;   /* well-formed records passed to the callback */
    size_t malformed; /* lines skipped */
    bool cut;         /* the log was larger than the reader's limit; the rest was ignored */
};

/* Read the log NAME in the directory DIRFD (a missing log is an empty one), calling
 * FN for every well-formed record. Never follows a symlink, reads only a regular
 * file, at most MAX_BYTES. FN returning nonzero stops the read with an error. */
int vlog_read(int dirfd, const char *name, size_t max_bytes,
              int (*fn)(const struct vlog_record *r, void *ctx), void *ctx, struct vlog_stats *st,
              tf_err *err);

/* A copy of S fit for a terminal: control characters (C0, DEL, C1) and invalid
 * UTF-8 become '?'. Writes at most CAP - 1 bytes into OUT. */
void vlog_printable(char *out, size_t cap, const char *s);

/* "EACCES" for 13, or the number in OUT. */
const char *vlog_errname(int err, char *out, size_t cap);

#endif
