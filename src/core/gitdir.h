/* gitdir: the git directory of the repository around a directory, as git finds it (the nearest
 * .git above it, a directory or a gitfile), for the quiet tool state a run plans (core/plan). */
#ifndef TESTFENCE_GITDIR_H
#define TESTFENCE_GITDIR_H

#include "base/err.h"
#include "policy.h"

#include <stddef.h>

/* A gitfile's TEXT (N bytes, as read): "gitdir: PATH", an optional line end after it, as git
 * reads a .git file (a worktree's, a submodule's). PATH, joined to the gitfile's directory DIR
 * when relative, goes to OUT. -1 when TEXT is no gitfile. */
int gitdir_parse_file(const char *text, size_t n, const char *dir, char *out, size_t len,
                      tf_err *err);

/* The git directory (where the index and its lock are) of the repository around START
 * (absolute, resolved): walking up from START to /, the nearest ".git" that is a git directory
 * (it has a HEAD) or a gitfile naming one. It is run by the unfenced parent before the command,
 * and nothing a test can write may change its answer: a ".git" inside the writable set P, or
 * one reached or naming a git directory through a symlink inside it, or naming one inside it,
 * is passed over (git run there writes where it may anyway). Returns 1 with OUT filled
 * (resolved), 0 when there is none. */
int gitdir_find(const struct policy *p, const char *start, char *out, size_t len);

#endif
