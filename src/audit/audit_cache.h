/* audit_cache: the per-file cache of the audit's facts, keyed by a hash of the file's content
 * (and the audit's version and configuration). It lives outside every project; what it holds is
 * checked like any untrusted input, and an entry that does not check out is recomputed. */
#ifndef TESTFENCE_AUDIT_CACHE_H
#define TESTFENCE_AUDIT_CACHE_H

#include "audit_facts.h"
#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tf_cache_key {
    uint64_t h[2];
} tf_cache_key;

/* A 128-bit hash of DATA (seeded): fast, not cryptographic. */
void tf_hash128(const void *data, size_t len, uint64_t seed, uint64_t out[2]);

/* The key of a file's content under SALT (the audit's version and configuration). */
tf_cache_key tf_cache_key_of(const char *src, size_t len, const char *salt);

/* The default cache directory: $XDG_CACHE_HOME/testfence/audit, else
 * $HOME/.cache/testfence/audit, written into OUT; false when neither is set. */
bool tf_cache_default_dir(char *out, size_t len);

/* Can DIR hold the cache for a project at ROOT? Not inside the root (the fence protects it;
 * a test could also write it), owned by us, not a link; created (0700) when missing.
 * Returns false with the reason in WHY. */
bool tf_cache_usable(const char *dir, const char *root, char *why, size_t whylen);

/* Load the facts stored under KEY; false when absent or not valid (never a crash). */
bool tf_cache_get(const char *dir, const tf_cache_key *key, tf_facts *out);

/* Store F under KEY (atomically: a temporary file renamed into place). Failures only cost
 * the next run a scan. */
void tf_cache_put(const char *dir, const tf_cache_key *key, const tf_facts *f);

#endif
