/* places: what a run creates from its plan before the fence is applied (the artifacts dir,
 * the private temp dir, the declared outputs, the workspace) and holds open until it ends. */
#ifndef TESTFENCE_PLACES_H
#define TESTFENCE_PLACES_H

#include "base/err.h"
#include "plan.h"
#include "runtmp.h"
#include "workspace.h"

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

/* The plan stays plain data (paths and decisions); the fds a run lives on are here. */
struct places {
    bool opened;        /* places_create ran: the fds below are ours to close */
    int artifacts_fd;   /* the artifacts dir, opened once, never through a symlink (else -1) */
    struct runtmp tmp;  /* the plan's temp dir, created and locked */
    struct ws_fds wsfd; /* the created workspace, held live until places_close */
};

/* Nothing created, nothing to close: safe for places_close. */
void places_init(struct places *p);

/* Create the artifacts dir (opened once), the private temp dir and every declared output
 * that is missing. */
int places_create(struct places *p, const struct plan *pl, tf_err *err);

/* Would places_create create nothing in the project: the artifacts dir and every declared
 * output exist already? (The temp dir it makes lies outside and goes at the end.) */
bool places_exist(const struct plan *pl);

/* Then create the run workspace with the config's placeholder files, fresh, beneath the
 * artifacts dir, and hold it live (places_close lets go) so concurrent runs do not prune it. */
int places_workspace(struct places *p, const struct plan *pl, tf_err *err);

/* After the run: remove the private temp dir, or mark it kept as END says. */
int places_finish_tmp(struct places *p, enum runtmp_end end, tf_err *err);

/* What earlier runs left: their workspaces beyond RETAIN (the newest kept) and, with TMP, the
 * temp dirs of runs that ended without removing theirs. Only fd-relative calls beneath the
 * artifacts dir and the per-user temp base, none following a link: safe beside the command.
 * A process that fences itself prunes the temp base before its fence (runtmp_prune): the
 * other runs' temp dirs lie outside its writable set. What resists removal is said on WARN
 * and left for `testfence clean`, never a reason not to run. ENDED (NULL: never): the
 * command has ended; the temp base's prune then stops once it removed one (runtmp_prune).
 * The workspaces' prune always leaves RETAIN: the user counts them, and a run adds one. */
void places_prune(struct places *p, const struct plan *pl, unsigned retain, bool tmp,
                  const atomic_bool *ended, FILE *warn);

void places_close(struct places *p);

#endif
