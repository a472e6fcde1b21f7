/* hazard: things already inside the writable set that would let a write escape it.
 * Landlock is path-based, so a hard link in tests/ to an outside inode writes through. */
#ifndef TESTFENCE_HAZARD_H
#define TESTFENCE_HAZARD_H

#include "base/err.h"
#include "policy.h"

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

/* The module-named entries (a name of the standard library's or of pytest's start-up) the
 * scan before a run found: path, device and inode. After the run, one that is not among them
 * (made, or moved there: a renamed directory keeps its birth time) counts as the run's. */
struct hazard_entry {
    char *path;
    dev_t dev;
    ino_t ino;
};

struct hazard_known {
    struct hazard_entry *v;
    size_t n, cap;
    bool taken; /* a scan before the run filled it: without one, nothing is judged by it */
};

void hazard_known_free(struct hazard_known *k);

/* What a scan counts. */
struct hazard_opts {
    const char *artifacts; /* testfence's own dir: beneath it only hard links count */
    /* pytest configuration found in the writable set: when it turns the testfence plugin
     * off or gives it options, a hazard with PLUGIN_OFF_REFUSED (the plugin), a warning on
     * WARN without (testfence run, which nothing in the tree can switch off); plain
     * configuration is only a note on NOTES (doctor). Nothing is judged with WARN NULL. */
    FILE *warn;
    /* A symlink leading outside the writable set is no hazard (the kernel refuses writes
     * through it, and each is reported); when NOTES is not NULL (doctor), each is said there. */
    FILE *notes;
    bool plugin_off_refused;
    /* Only what would switch a later run's fence off: pytest configuration turning the
     * plugin off, modules shadowing testfence, pytest or start-up, .pth files (after a run:
     * what its command left). */
    bool fence_off_only;
    int *fence_off; /* when not NULL, counts those, hazard or warning */
    /* After a run: each of those changed since SINCE (the run made it) is moved into the
     * directory QUARANTINE, so the next run cannot take it; it is made at the first move, as
     * QUARANTINE_NAME in the directory QUARANTINE_AT. With QUARANTINE NULL nothing is moved. */
    int quarantine_at;
    const char *quarantine_name;
    const char *quarantine;
    struct timespec since;
    /* Before a run (SINCE zero): filled with the module-named entries found. After it: what
     * is not in it counts as the run's. NULL: neither. */
    struct hazard_known *known;
};

/* Scan the project entries of P (not the system set, not --allow). Prints one line per
 * hazard to OUT and returns how many it found, or -1 on error. */
int hazard_scan(const struct policy *p, const struct hazard_opts *o, FILE *out, tf_err *err);

#endif
