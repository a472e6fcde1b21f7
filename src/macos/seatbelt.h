/* seatbelt: the Seatbelt (SBPL) profile of a run on macOS: every write denied but to the
 * writable set, the run's temp dir and the system set. Plain string building (tested on Linux). */
#ifndef TESTFENCE_SEATBELT_H
#define TESTFENCE_SEATBELT_H

#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>

/* One place the command may write: a directory and everything beneath it (SUBTREE), or one
 * file. PATH is absolute and resolved as the kernel sees it (/private/var, not /var). */
struct sb_rule {
    const char *path;
    bool subtree;
};

/* The device files every run may write on macOS (the system set: no user data), in the
 * profile after the run's own rules. */
extern const struct sb_rule sb_system_rules[];

/* PATH as an SBPL string literal (quotes included) into OUT: '"' and '\' escaped with '\',
 * valid UTF-8 kept as its bytes (the kernel compares bytes). 0, or -1 with ERR when PATH
 * cannot be said safely: a control character or invalid UTF-8 (nothing useful in OUT). */
int sb_quote(char *out, size_t cap, const char *path, tf_err *err);

/* The whole profile for RULES (N of them) and the system set, in a new string (*OUT, the
 * caller frees it). 0, or -1 with ERR (a path sb_quote refuses, a relative path): *OUT
 * is then NULL, so nothing half-made is ever applied. */
int sb_profile(const struct sb_rule *rules, size_t n, char **out, tf_err *err);

#endif
