/* verify: fingerprints of every file under the root outside the writable set, before and after.
 * The ground truth for what the kernel layer cannot see (chmod, chown, utimes, xattrs). */
#ifndef TESTFENCE_VERIFY_H
#define TESTFENCE_VERIFY_H

#include "base/err.h"
#include "policy.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define VERIFY_HASH_LIMIT_DEFAULT (1024u * 1024u)
/* Directories held open at once while walking; deeper ones are recorded, not entered. */
#define VERIFY_MAX_DEPTH 256

struct verify_opts {
    uint64_t hash_limit;      /* hash regular files up to this many bytes; 0 = never */
    bool include_git_objects; /* walk .git/objects too (skipped by default: large, append-only) */
};

/* Why part of an entry could not be recorded; a change of these is a difference too. */
enum verify_flag {
    VERIFY_HASHED = 1u << 0,        /* hash holds the content hash */
    VERIFY_UNREADABLE = 1u << 1,    /* a regular file that could not be opened or read */
    VERIFY_UNLISTED = 1u << 2,      /* a directory that could not be opened or listed */
    VERIFY_NOSTAT = 1u << 3,        /* the entry vanished or could not be stat'ed while walking */
    VERIFY_TOO_DEEP = 1u << 4,      /* a directory beyond VERIFY_MAX_DEPTH, not entered */
    VERIFY_PATH_TOO_LONG = 1u << 5, /* a directory whose children's paths exceed PATH_MAX */
};

struct verify_entry {
    const char *path;   /* relative to the root; "." is the root itself */
    const char *target; /* a symlink's target, else NULL */
    uint64_t size, ino, dev, nlink, hash;
    uint64_t xattrs; /* a hash of every extended attribute's name and value (0: none) */
    int64_t mtime_ns, ctime_ns;
    uint32_t mode, uid, gid; /* mode includes the file type bits */
    unsigned flags;          /* enum verify_flag */
    int err;                 /* errno behind UNREADABLE, UNLISTED or NOSTAT */
};

struct verify_block;

struct verify_snap {
    struct verify_entry *entries; /* sorted by path (strcmp) */
    size_t n;
    struct verify_block *blocks; /* the strings the entries point into */
    /* Counts for the report and the benchmark. */
    size_t n_hashed, n_unreadable;
    uint64_t bytes_hashed;
};

/* The defaults: hash files up to 1 MiB, skip .git/objects. */
void verify_opts_default(struct verify_opts *o);

/* Walk ROOT without following symlinks and record every entry that P does not
 * make writable (P may be NULL: record everything). O may be NULL (defaults).
 * Unreadable files and directories are recorded as such; only an unusable root
 * or running out of memory fails. */
int verify_snapshot(const char *root, const struct policy *p, const struct verify_opts *o,
                    struct verify_snap *out, tf_err *err);

/* Write one line per path that differs, "VERIFY: <path>: <change>[; <change>...]",
 * each change "<what> <before> → <after>" or a word ("created", "removed",
 * "content changed"). OUT may be NULL to count only. Returns the number of such paths. */
size_t verify_diff(const struct verify_snap *before, const struct verify_snap *after, FILE *out);

void verify_free(struct verify_snap *s);

/* The 64-bit content hash (XXH64, seed 0), exposed for tests. */
uint64_t verify_hash(const void *data, size_t len);

#endif
