/* session: one run under the fence, from the plan to the report, step by step.
 * `testfence run` (which fences a child) and libtestfence (which fences its caller) share it. */
#ifndef TESTFENCE_SESSION_H
#define TESTFENCE_SESSION_H

#include "channel.h"
#include "core/diag.h"
#include "core/hazard.h"
#include "base/err.h"
#include "core/places.h"
#include "core/plan.h"
#include "core/report_ci.h"
#include "core/session_names.h"
#include "fence.h"
#include "mountns.h"
#include "protect.h"
#include "spawn.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <stdio.h>

/* What a run is asked to be: the one input of its lifecycle. `testfence run` fills it from
 * its options, libtestfence from its calls. Pointers are borrowed for the session's life. */
struct session_request {
    struct plan_request plan;     /* root, config, --allow, --output; plan.shim: see below */
    enum session_backend backend; /* how to fence */
    bool in_process;              /* the caller fences itself (libtestfence): plan.shim is the
                                     shim it found; else session_plan finds it */
    unsigned retain;
    /* run workspaces kept: req's or the config's (session_plan) */ /* run workspaces to keep;
                                                                       0: the config's */
    const char *test_env;   /* the variable naming the current test; NULL: the config's */
    bool require_namespace; /* refuse rather than run without the namespace layer (or
                               the config's require = ["namespace"]) */
    bool protect_set;       /* --protect: PROTECT for this run, not the config's */
    enum config_protect protect;
    bool allow_hazards;             /* run despite hazards in the writable set, warning */
    const char *hazard_override;    /* how the user chooses that ("pass --allow-hazards to run
                                       anyway"), for the refusal; NULL: say nothing */
    bool allow_violations;          /* keep the command's status though writes were blocked */
    enum session_keep_tmp keep_tmp; /* the private temp dir at the end (default: kept when
                                       the run failed) */
    const int *keep_fds;            /* descriptors the command inherits besides 0-2 */
    size_t nkeep_fds;
    const char *report, *junit, *sarif; /* --report, --junit, --sarif FILE, or NULL */
    char *const *argv;          /* the command, checked for reports it would write outside
                                   (core/pyargs); NULL in process (the plugin checks them) */
    bool github;                /* --format github: annotations too */
    FILE *warn;                 /* where the run's own warnings go */
};

struct session {
    struct session_request req;
    char shim[PATH_MAX]; /* the shim session_plan found ("" none) */
    int *keep_fds;       /* req's and make's jobserver's, checked open */
    size_t nkeep_fds, keep_cap;
    struct report_outputs outs; /* req's report files, opened when the run is planned */
    bool tmp_done;              /* the private temp dir was removed (or kept, as asked) */
    struct plan pl;             /* what the run decided: plain data */
    struct places places;       /* what it created from pl, held open until session_free */
    struct fence_caps caps;
    struct diag d;
    struct channel ch;            /* run's record channel (not in process) */
    bool reported;                /* report.json was written: the run finished */
    enum session_backend backend; /* req.backend */
    bool guard;                   /* a seccomp guard watches the command's metadata calls */
    int ruleset_fd;               /* the Landlock ruleset (-1: none yet, or not fenced) */
    struct mountns ns;
    struct protect_list prot; /* the files the view binds read-only (protect) */
    bool ns_on;               /* the command runs in the namespace layer (read-only mounts) */
    char ns_why[1024];        /* why it does not, when it was tried and failed ("" otherwise) */
    const char *test_env;     /* the variable naming the current test: req's or the config's */
    FILE *warn;               /* req.warn */
    size_t leftovers;         /* processes still running when the command exited, killed */
    int fence_off; /* what would switch a fence off, in the writable set before the run */
    struct hazard_known known; /* module-named entries there before the run (hazard.h) */
    /* Old runs are pruned while the command runs, off its critical path: pending until it
     * has started, then in a thread of ours, joined before anything looks at tests/ again. */
    enum { PRUNE_NONE, PRUNE_PENDING, PRUNE_RUNNING } prune;
    unsigned retain;
    pthread_t pruner;
    atomic_bool command_ended; /* set before the join: the temp base's prune stops soon */
    struct timespec started;   /* session_ready: what is newer, the run made */
    bool readied;              /* session_ready ran */
    pid_t unreaped;            /* the namespace's init, exiting while the report is written */
    int channel;               /* open_channel's answer: 1 a channel, 0 the workspace, -1 none */
    bool scan_pending;         /* the scan for hazards is left to session_ready (session_check) */
    bool refused; /* session_ready's scan refused the run: nothing ran, nothing to report */
    /* session_left_hazards' answer, once it has looked (it moves what it finds away, so a
     * second look would find less): how many more hazards than before the run. */
    bool hazards_checked;
    int planted;
};

/* Where in the workspace what a run made that would switch the next run's fence off is
 * moved (session_left_hazards). */
#define SESSION_QUARANTINE "quarantine"

/* Which of the user's files the run protects: --protect's, else the config's protect. */
enum config_protect session_protect(const struct session *s);

/* What a run prints when it is not fenced by the kernel; run and doctor say it alike. */
extern const char session_weak_label[];

/* Plan the run REQ asks for (root, config, writable set, workspace paths, environment; the
 * shim found, the descriptors the command keeps checked, the report files' directories
 * opened before anything can plant a link) and probe the kernel. A pytest command asked to
 * write a report outside the writable set is refused here, so --dry-run refuses it too.
 * Nothing is created in the project. session_free is safe after a failure. */
int session_plan(struct session *s, const struct session_request *req, tf_err *err);

/* Refuse what cannot run safely: a run that requires the namespace layer with a backend
 * without one; with the landlock backend, a kernel that cannot enforce every write class;
 * hazards already in the writable set (with req.allow_hazards said on req.warn instead).
 * For a command (not in process), where session_start would create nothing in the project,
 * the scan for hazards is left to session_ready, beside the command's set-up (the command
 * then never starts if it refuses; nothing was written). */
int session_check(struct session *s, tf_err *err);

/* The hazards in the planned writable set, listed on OUT, as session_check looks for them:
 * how many (0 none), or -1 with ERR when the scan failed; NOTES (NULL: none) gets what is
 * worth knowing but no hazard (a symlink leading outside). doctor's check. */
int session_hazards(struct session *s, FILE *out, FILE *notes, tf_err *err);

/* Create what the fence is built on (the temp dir, declared outputs), open the channel the
 * records come through, build the Landlock ruleset and plan the namespace layer, and say on
 * req.warn what is not fenced; the rest (session_ready) is left to run beside the command's
 * set-up. Old runs beyond the retention count are pruned later (what cannot be pruned is a
 * warning). In process the caller fences itself and records its own blocked writes, and is
 * ready on return; no seccomp guard can watch it there, so the shim refuses metadata
 * changes in its children itself. */
int session_start(struct session *s, tf_err *err);

/* The rest, which the command needs before it runs but its set-up does not: create the
 * workspace, say whether the last run was cut short, open the violation log and hand the
 * shim its configuration. Once (later calls return 0); spawn's before_exec. */
int session_ready(void *session, tf_err *err);

/* Run the command (SO says what and how: argv, environment; the session adds the fence's
 * parts and the descriptors kept) and wait for it and for every process it leaves, which is
 * reported and killed. When the namespace layer cannot be set up the command runs with the
 * guard alone, said on req.warn, or, when the run requires the layer, is refused (-1, 125).
 * Returns spawn_run's answer. */
int session_launch(struct session *s, struct spawn_opts *so, int *status, tf_err *err);

/* Does this run require the namespace layer (the request, or the config's require)? */
bool session_requires_ns(const struct session *s);

/* The metadata layer in force, for doctor, --dry-run and the report: "namespace", "guard"
 * or "none"; NULL in process (the caller refuses metadata changes itself). */
const char *session_layer(const struct session *s);

/* While the command runs: take the records waiting on the channel (S is the session; for
 * spawn's poll loop, whenever the channel's socket is readable). */
void session_records(void *s);

/* After the command (or the tests, for a process that fences itself): the hazards it left in
 * the writable set (a module shadowing pytest, a config switching the plugin off, a link
 * leading out), which would make the next run refuse or a plain pytest run unfenced. Said on
 * OUT; returns how many more there are than before the run (what could not be checked counts
 * as one: fail closed). Looks once: later calls (session_finish's) return the same count and
 * say nothing. */
int session_left_hazards(struct session *s, FILE *out);

/* After the command: the summary to OUT (coloured on a terminal), report.json, the report
 * files req asks for, and the status to exit with (see diag_finish; req.allow_violations
 * keeps COMMAND_STATUS); a violation log the command deleted or rewrote fails the run (120
 * when the command exited 0). The private temp dir goes (or is kept, as asked). ARGV is the
 * command, NULL when the caller is the command (it may finish again, with records that came
 * late: report.json is written anew; its temp dir is its own to empty). The run is
 * reported: session_free leaves report.json as it is. */
int session_finish(struct session *s, FILE *out, char *const *argv, int command_status);

/* For a process that fenced itself, at its very end (after every handler that may still use
 * its temp files), its exit status STATUS: the temp dir emptied (it may not remove the dir;
 * the next run prunes it), or as req.keep_tmp says marked kept and said on req.warn. Once. */
int session_end_tmp(struct session *s, int status, tf_err *err);

/* The end of every session, finished or not: a run that stopped on an error of ours after
 * its workspace was made says so in report.json; the temp dir goes; everything is let go. */
void session_free(struct session *s);

#endif
