/* protect: the user's own files under the writable set that a run may not change (protect =
 * "tracked" | "existing"), listed by the unfenced parent before the command starts. */
#ifndef TESTFENCE_PROTECT_H
#define TESTFENCE_PROTECT_H

#include "base/err.h"
#include "core/config.h"
#include "core/plan.h"

#include <stddef.h>

/* More protected files and directories than this is refused: each is a mount of its own, and
 * the kernel allows 100000 mounts in a namespace by default (fs.mount-max). */
#define PROTECT_MAX 50000

/* Absolute paths, each NUL-terminated, one after the other. */
struct protect_names {
    char *buf;  /* the paths */
    size_t len; /* bytes used in buf */
    size_t cap; /* bytes allocated */
    size_t n;   /* how many paths */
};

struct protect_list {
    struct protect_names files; /* the protected files */
    /* Each directory between a project directory of the writable set and a protected file:
     * renaming or removing one would move the user's files (the view makes each a mount
     * point where no path leads, linux/mountns). Each once, in descending order: a
     * directory after every directory beneath it. */
    struct protect_names dirs;
    char note[512]; /* why less is protected than asked (not a git repository), or "" */
};

/* The regular files MODE protects in PL's project directories (the writable set's entries
 * inside the root): what git tracks there ("tracked": `git ls-files`, run with GIT_DIR and
 * GIT_WORK_TREE given, the repository found passing over whatever the writable set holds), or
 * every regular file there now ("existing"). Never the artifacts dir, the run's temp dir or a
 * file reached through a symlink. A project that is no git repository protects nothing under
 * "tracked", and L->note says so. L->dirs: the directories on the way to them. 0, or -1
 * with ERR (git failed, too many files and directories). */
int protect_collect(struct protect_list *l, enum config_protect mode, const struct plan *pl,
                    tf_err *err);

void protect_free(struct protect_list *l);

#endif
