/* osfence: the operating system's own fence for `testfence run` off Linux (Windows: a
 * write-restricted token and a Job Object; macOS: Seatbelt), one implementation per OS. */
#ifndef TESTFENCE_OSFENCE_H
#define TESTFENCE_OSFENCE_H

#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One place the command may write, resolved: a directory (and everything beneath it) or a
 * file. The writable set, the declared outputs and the run's temp dir. */
struct osfence_path {
    const char *path;
    bool is_dir;
};

struct osfence_run {
    const struct osfence_path *paths;
    size_t npaths;
    char *const *argv; /* the command */
    char *const *envp; /* its whole environment */
    FILE *warn;        /* what the fence has to say (set up, taken down, left behind) */
};

/* The fence's name, for report.json's "backend" and run's lines ("restricted-token"). */
extern const char osfence_name[];

/* What the fence blocks, what it reports and what it only refuses, lines for --dry-run, doctor
 * and the end of a run (docs/platforms.md says the same). */
extern const char osfence_about[];

/* The summary's note of what its list of blocked writes leaves out (the writes the fence
 * refused unrecorded), lines each starting "testfence: ". */
extern const char osfence_note[];

/* Where the fence cannot be set up, does run go on without it (macOS, inside another sandbox:
 * the plugin's guard, said loudly) rather than refuse (Windows)? */
extern const bool osfence_falls_back;

/* Can the fence be set up here? 0 with the layer in force in LAYER (one line: doctor), or -1
 * with why not in ERR (nothing was changed either way). */
int osfence_probe(char *layer, size_t len, tf_err *err);

/* What a run in the fence came to. */
struct osfence_result {
    int status; /* the command's exit status (126 it cannot be executed, 127 not found) */
    int left;   /* processes it left running, killed (at least this many) */
    int seen;   /* writes the fence refused and saw itself, said on warn (macOS: the unified
                 * log's Seatbelt denials; Windows: none, it cannot see them) */
};

/* Run R's command in the fence to its end, and take the fence down (also when the command
 * failed). 0 with RES filled, or -1 with ERR when the fence cannot be set up (nothing was
 * run then). */
int osfence_launch(const struct osfence_run *r, struct osfence_result *res, tf_err *err);

#endif
