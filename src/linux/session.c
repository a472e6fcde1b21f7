#include "session.h"

#include "base/vec.h"
#include "core/colour.h"
#include "core/exitcode.h"
#include "core/hazard.h"
#include "core/jobserver.h"
#include "core/path.h"
#include "core/pyargs.h"
#include "core/report_ci.h"
#include "core/shimconf.h"
#include "core/testvar.h"
#include "core/vlog.h"
#include "core/workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

const char session_weak_label[] =
    "WEAKER than landlock: the LD_PRELOAD shim refuses writes itself; static binaries, raw "
    "syscalls and processes with a cleared environment are NOT fenced";

/* What tells runs started in the same second apart: not the pid alone, which is 2 for every
 * testfence started first in a PID namespace (two runs nested in others, containers sharing a
 * project), so two such runs took the same workspace name. */
static pid_t run_number(void)
{
    unsigned r;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
        r = (unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL);
    return (pid_t)(r % 10000000);
}

/* The diagnostics shim of a command: required by the preload backend, best effort behind
 * Landlock (the kernel fences without it), not used unfenced. A process that fences itself
 * found its own (beside libtestfence.so). */
static int find_shim(struct session *s, tf_err *err)
{
    tf_err why = {0};
    if (s->req.in_process) {
        snprintf(s->shim, sizeof s->shim, "%s", s->req.plan.shim ? s->req.plan.shim : "");
        return 0;
    }
    if (s->backend == SESSION_NONE || shimconf_locate(s->shim, sizeof s->shim, &why) == 0)
        return 0;
    s->shim[0] = '\0';
    if (s->backend == SESSION_PRELOAD)
        return tf_errf(err, "%s", why.msg);
    fprintf(s->warn, "testfence: warning: %s; blocked writes will not be reported\n", why.msg);
    return 0;
}

static int keep_fd(struct session *s, int fd, tf_err *err)
{
    int *nv = vec_grow(s->keep_fds, &s->keep_cap, s->nkeep_fds, sizeof *nv);
    if (!nv)
        return tf_errf(err, "out of memory");
    s->keep_fds = nv;
    nv[s->nkeep_fds++] = fd;
    return 0;
}

/* The descriptors the command keeps: the request's (each must be open), and make's
 * jobserver when MAKEFLAGS names one and it is open (make -jN running `testfence run --
 * $(MAKE)`). */
static int keep_fds(struct session *s, tf_err *err)
{
    for (size_t i = 0; i < s->req.nkeep_fds; i++)
        if (fcntl(s->req.keep_fds[i], F_GETFD) < 0)
            return tf_errf(err, "--keep-fd %d: not an open descriptor", s->req.keep_fds[i]);
        else if (keep_fd(s, s->req.keep_fds[i], err) < 0)
            return -1;
    struct jobserver js;
    jobserver_parse(getenv("MAKEFLAGS"), &js);
    for (int i = 0; js.kind == JOBSERVER_FDS && i < 2; i++)
        if (fcntl(js.fds[i], F_GETFD) >= 0 && keep_fd(s, js.fds[i], err) < 0)
            return -1; /* not passed down: make says so itself, as without testfence */
    return 0;
}

/* --report, --junit, --sarif, --format github: the files' directories opened now, before the
 * command can plant anything, and checked against the writable set. */
static int open_outputs(struct session *s, tf_err *err)
{
    s->outs.github = s->req.github;
    if (s->req.report && outpath_open(&s->outs.json, s->req.report, &s->pl.policy, err) < 0)
        return -1;
    if (s->req.junit && outpath_open(&s->outs.junit, s->req.junit, &s->pl.policy, err) < 0)
        return -1;
    if (s->req.sarif && outpath_open(&s->outs.sarif, s->req.sarif, &s->pl.policy, err) < 0)
        return -1;
    return 0;
}

/* A pytest command asked to write a report (--junitxml, --cov-report) outside the writable
 * set would run every test and then die on the kernel's refusal: refused now, saying what to
 * declare. It is judged with the environment the command will get ([env] included). */
static int check_reports(struct session *s, tf_err *err)
{
    if (!s->req.argv)
        return 0;
    char **env = envplan_apply(&s->pl.env, environ, err);
    if (!env)
        return -1;
    int rc = pyargs_check(s->req.argv, env, &s->pl.policy, s->pl.root, err);
    envplan_free_env(env);
    return rc;
}

int session_plan(struct session *s, const struct session_request *req, tf_err *err)
{
    char run_id[32];
    memset(s, 0, sizeof *s);
    s->req = *req;
    s->warn = req->warn;
    diag_init(&s->d);
    s->ruleset_fd = -1;
    channel_init(&s->ch);
    report_outputs_init(&s->outs);
    s->backend = req->backend;
    places_init(&s->places); /* places_close is safe before anything is created */
    if (find_shim(s, err) < 0 || keep_fds(s, err) < 0)
        return -1;
    struct plan_request pr = req->plan;
    pr.shim = s->shim[0] ? s->shim : NULL;
    pr.in_process = req->in_process;
    ws_run_id(run_id, sizeof run_id, time(NULL), run_number());
    fence_probe(&s->caps);
    int rc = plan_build(&s->pl, &pr, run_id, environ, err);
    /* What the plan was built from may be gone when the caller returns (libtestfence's
     * list, ctypes' strings): the plan holds it all now. */
    memset(&s->req.plan, 0, sizeof s->req.plan);
    if (rc < 0)
        return -1;
    s->test_env = req->test_env ? req->test_env : s->pl.cfg.test_env;
    s->retain = req->retain ? req->retain : s->pl.cfg.retain;
    if (check_reports(s, err) < 0)
        return -1;
    return open_outputs(s, err);
}

/* Something already in the writable set that would let a write escape it. */
int session_hazards(struct session *s, FILE *out, FILE *notes, tf_err *err)
{
    struct hazard_opts o = {.artifacts = s->pl.ws.artifacts,
                            .warn = s->warn,
                            .notes = notes,
                            .plugin_off_refused = s->req.in_process,
                            .fence_off = &s->fence_off,
                            .known = &s->known};
    hazard_known_free(&s->known); /* asked again: what is there now */
    return hazard_scan(&s->pl.policy, &o, out, err);
}

static int check_hazards(struct session *s, tf_err *err)
{
    bool allow = s->req.allow_hazards;
    const char *override = s->req.hazard_override;
    FILE *warn = s->warn;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return tf_errf(err, "out of memory");
    int n = session_hazards(s, f, NULL, err);
    fclose(f);
    if (n > 0 && allow)
        fprintf(warn, "testfence: warning: --allow-hazards: running despite:\n%s", text);
    else if (n > 0)
        tf_errf(err, "refusing to run: the writable set holds %d hazard%s:\n%sFix %s%s%s", n,
                n == 1 ? "" : "s", text, n == 1 ? "it" : "them", override ? ", or " : " first",
                override ? override : "");
    free(text);
    return n < 0 || (n > 0 && !allow) ? -1 : 0;
}

bool session_requires_ns(const struct session *s)
{
    return s->req.require_namespace || s->pl.cfg.require_namespace;
}

int session_check(struct session *s, tf_err *err)
{
    if (session_requires_ns(s) && s->backend != SESSION_LANDLOCK)
        return tf_errf(err,
                       "--backend %s has no namespace layer, and this run requires it "
                       "(require = [\"namespace\"] or --require namespace)",
                       session_backend_name(s->backend));
    if (s->backend == SESSION_LANDLOCK && fence_require_complete(&s->caps, err) < 0)
        return -1;
    if (!s->req.in_process && places_exist(&s->pl)) {
        s->scan_pending = true;
        return 0;
    }
    return check_hazards(s, err);
}

/* What earlier runs left (places_prune), beside the command. */
static void *prune(void *arg)
{
    struct session *s = arg;
    places_prune(&s->places, &s->pl, s->retain, !s->req.in_process, &s->command_ended, s->warn);
    return NULL;
}

/* The command has started: prune beside it (a previous run's thousands of temp files cost
 * their time while the tests run, not before). */
static void prune_beside(void *ctx)
{
    struct session *s = ctx;
    if (s->prune == PRUNE_PENDING && pthread_create(&s->pruner, NULL, prune, s) == 0)
        s->prune = PRUNE_RUNNING;
}

/* Done pruning, at the very end, after the report: the scan of what the command left does
 * not enter the artifacts dir, so old runs may vanish beneath it, and a command that ended at
 * once (`testfence run -- true`) does not wait for the prune before its report; once told
 * the command has ended, the prune stops after one removal, leaving a backlog (a temp base
 * of many failed runs) to later runs instead of a short command's end. Not started (the
 * command never ran, or the tests ran in this process): prune now. */
static void prune_done(struct session *s)
{
    atomic_store(&s->command_ended, true);
    if (s->prune == PRUNE_RUNNING)
        pthread_join(s->pruner, NULL);
    else if (s->prune == PRUNE_PENDING)
        prune(s);
    s->prune = PRUNE_NONE;
}

/* testfence run's channel, outside the writable set: 1 open. Where there is none to be had
 * (a run nested in another whose fence covers every candidate), 0: the records stay in the
 * workspace, as for a process that fences itself, and WARN says what that costs. Before the
 * command is started: it decides the shim's variable. */
static int open_channel(struct session *s, FILE *warn, tf_err *err)
{
    tf_err why = {0};
    if (s->pl.runtime[0] && channel_open(&s->ch, s->pl.runtime, &why) == 0)
        return 1;
    channel_close(&s->ch);
    fprintf(warn,
            "testfence: warning: %s: the shim's configuration and the violation log stay in the "
            "run workspace, where the command could change them\n",
            s->pl.runtime[0] ? why.msg : "no private directory outside the writable set");
    if (!s->pl.runtime[0])
        return 0; /* planned so: the shim already looks in the workspace */
    if (path_join(s->pl.shimconf, sizeof s->pl.shimconf, s->pl.ws.dir, SHIMCONF_FILE, err) < 0 ||
        envplan_add(&s->pl.env, "TESTFENCE_SHIM_CONF", s->pl.shimconf, ENV_SET,
                    "the shim's configuration", err) < 0)
        return -1;
    return 0;
}

/* Where the shim's configuration and the records go: through the channel, outside the
 * writable set, when testfence run waits outside the fence; in the workspace for a process
 * that fences itself (it has no other place). */
static int start_diag(struct session *s, tf_err *err)
{
    bool block = s->backend == SESSION_PRELOAD;
    char log[PATH_MAX];
    struct diag_shim sh = {.mode = block ? SHIM_BLOCK : SHIM_DIAGNOSE,
                           .precheck_meta = !s->guard,
                           .protect = s->prot.files.n > 0,
                           .test_env = s->test_env,
                           .conf_dirfd = s->places.wsfd.dir,
                           .log_dirfd = s->places.wsfd.dir,
                           .ws_dirfd = s->places.wsfd.dir,
                           .sink = log};
    if (s->channel == 1) {
        channel_workspace(&s->ch, s->places.wsfd.dir);
        sh.conf_dirfd = sh.log_dirfd = s->ch.dirfd;
        sh.sink_socket = true;
        sh.sink = s->ch.sock_path;
    } else if (path_join(log, sizeof log, s->pl.ws.dir, SHIMCONF_LOG, err) < 0) {
        return -1;
    }
    return diag_prepare(&s->d, &s->pl, &sh, err);
}

/* What is not fenced, said before the command runs (its stderr is the user's). */
static void say_unfenced(const struct session *s)
{
    if (s->backend == SESSION_PRELOAD)
        fprintf(s->warn, "testfence: WARNING: --backend preload: %s\n", session_weak_label);
    if (s->backend == SESSION_NONE)
        fprintf(s->warn, "testfence: WARNING: --backend none: NOTHING IS FENCED; the command "
                         "can write anywhere you can\n");
    /* Nested in another run, the outer guard holds the one listener slot; the outer policy
     * then guards metadata (doctor says so; run stays quiet, as its stderr is the
     * command's). */
    if (s->backend == SESSION_LANDLOCK && !s->guard)
        fprintf(s->warn, "testfence: warning: seccomp user notification is unavailable; "
                         "chmod/chown/utime/xattr outside the writable set are not blocked\n");
}

enum config_protect session_protect(const struct session *s)
{
    return s->req.protect_set ? s->req.protect : s->pl.cfg.protect;
}

/* The one line a run says when protect is asked for and cannot be given (WHY). */
static void say_unprotected(const struct session *s, const char *why)
{
    fprintf(s->warn,
            "testfence: warning: protect = \"%s\" is not enforced %s: your files under the "
            "writable set can be changed by this run (docs/security.md)\n",
            config_protect_name(session_protect(s)), why);
}

/* The files the view binds read-only, listed now: before the command exists. */
static int start_protect(struct session *s, tf_err *err)
{
    enum config_protect mode = session_protect(s);
    if (mode == CONFIG_PROTECT_NONE)
        return 0;
    if (protect_collect(&s->prot, mode, &s->pl, err) < 0)
        return -1;
    if (s->prot.note[0])
        fprintf(s->warn, "testfence: warning: %s\n", s->prot.note);
    s->ns.protect = s->prot.files.buf;
    s->ns.nprotect = s->prot.files.n;
    s->ns.protect_dirs = s->prot.dirs.buf;
    s->ns.nprotect_dirs = s->prot.dirs.n;
    return 0;
}

int session_start(struct session *s, tf_err *err)
{
    bool fenced = s->backend == SESSION_LANDLOCK, in_process = s->req.in_process;
    FILE *warn = s->warn;
    if (places_create(&s->places, &s->pl, err) < 0)
        return -1;
    if (in_process) /* before this process fences itself: other runs' temp dirs are outside */
        runtmp_prune(&s->places.tmp, time(NULL), NULL);
    s->guard = fenced && !in_process && s->caps.seccomp_notify;
    /* A violation log when something writes to it: the shim, or the caller itself. */
    s->channel = -1;
    if (in_process)
        s->channel = 0;
    else if (s->pl.shim && (s->channel = open_channel(s, warn, err)) < 0)
        return -1;
    if (fenced && (s->ruleset_fd = fence_prepare(&s->pl.policy, &s->caps, err)) < 0)
        return -1;
    /* After the temp dir and the outputs exist: they are mount points of the view. */
    if (fenced && !in_process) {
        if (mountns_plan(&s->ns, &s->pl.policy, err) < 0 || start_protect(s, err) < 0)
            return -1;
        s->ns_on = true;
    } else if (session_protect(s) != CONFIG_PROTECT_NONE) {
        say_unprotected(s, in_process ? "in process, without the namespace layer"
                                      : "without the kernel fence");
    }
    if (in_process)
        return session_ready(s, err);
    say_unfenced(s);
    return 0;
}

int session_ready(void *session, tf_err *err)
{
    struct session *s = session;
    if (s->readied)
        return 0;
    s->readied = true;
    /* Before the workspace: a refused run leaves nothing in the project. */
    if (s->scan_pending) {
        s->scan_pending = false;
        if (check_hazards(s, err) < 0) {
            s->refused = true;
            return -1;
        }
    }
    if (places_workspace(&s->places, &s->pl, err) < 0)
        return -1;
    diag_unfinished(s->places.artifacts_fd, s->pl.ws.artifacts, s->pl.root, s->warn);
    /* The coarse clock, the one file times come from: a file made later is never older (the
     * fine clock runs up to a tick ahead of it, and a command quick off the gate made files
     * that looked older than the run). */
    clock_gettime(CLOCK_REALTIME_COARSE, &s->started);
    /* Beside the command; in process there is none, so at the end (session_left_hazards),
     * off the tests' start-up: a pytest that never gets there leaves it to the next run. */
    s->prune = PRUNE_PENDING;
    return s->channel >= 0 ? start_diag(s, err) : 0;
}

const char *session_layer(const struct session *s)
{
    if (s->req.in_process)
        return NULL; /* the caller's own: the plugin's audit hook and the shim's precheck */
    if (s->backend != SESSION_LANDLOCK)
        return "none";
    return s->ns_on ? "namespace" : s->guard ? "guard" : "none";
}

/* A record testfence makes itself: through the channel's copy of the log, or where there is
 * none (a nested run), appended to the workspace's. */
static void add_record(struct session *s, const struct vlog_record *r)
{
    char line[VLOG_MAX];
    if (s->ch.dirfd >= 0) {
        channel_add(&s->ch, r);
        return;
    }
    if (!s->d.on || s->d.logdir < 0)
        return;
    int fd = openat(s->d.logdir, SHIMCONF_LOG,
                    O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    size_t len = vlog_format(line, sizeof line, r);
    if (fd < 0 || write(fd, line, len) != (ssize_t)len)
        fprintf(s->warn, "testfence: warning: cannot log a %s record\n", r->op);
    if (fd >= 0)
        close(fd);
}

/* A record of what process L did (OP on PATH, refused by BY with ERR), under its test. */
static void record_of(struct session *s, const struct leftover *l, const char *op, const char *path,
                      const char *resolved, const char *by, int err)
{
    char test[sizeof l->test];
    snprintf(test, sizeof test, "%s", l->test);
    const char *phase = testvar_cut(test);
    struct vlog_record r = {.pid = l->pid,
                            .test = test[0] ? test : NULL,
                            .phase = phase,
                            .op = op,
                            .path = path,
                            .resolved = resolved,
                            .err = err,
                            .blocked_by = by,
                            .exe = l->exe,
                            .cmdline = l->cmdline};
    add_record(s, &r);
}

/* A process the command left running: a record like a blocked write's, so it is in the
 * summary under the test that started it, in report.json, and fails the run. */
static void on_leftover(void *ctx, const struct leftover *l)
{
    struct session *s = ctx;
    char test[sizeof l->test], shown[sizeof l->test], cmd[sizeof l->cmdline];
    snprintf(test, sizeof test, "%s", l->test);
    testvar_cut(test);
    vlog_printable(shown, sizeof shown, test[0] ? test : "(outside any test)");
    vlog_printable(cmd, sizeof cmd, l->cmdline); /* both are the process's own words */
    s->leftovers++;
    fprintf(s->warn,
            "testfence: process %ld (%s) started by %s was still running when the "
            "command exited: killed\n",
            l->pid, cmd, shown);
    record_of(s, l, "outlived", l->cmdline, l->exe[0] ? l->exe : l->cmdline, "testfence", 0);
}

/* Does PID have the diagnostics shim loaded? Then the shim records what the guard refused
 * it, with the test it knows (a test's name is set in its process after it started). */
static bool has_shim(long pid)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/maps", pid);
    FILE *f = fopen(path, "re");
    bool found = false;
    while (f && !found && fgets(buf, sizeof buf, f))
        found = strstr(buf, "/libtestfence_preload.so") != NULL;
    if (f)
        fclose(f);
    return found;
}

/* A call the guard refused to a program the shim is not in (a static binary, busybox, a
 * cleared environment), or one the shim does not interpose (fchmodat2, an ioctl, int $0x80):
 * recorded here, so no refusal goes unreported. (A dynamic program's raw syscall() of a call
 * the shim interposes is the one left unrecorded.) */
static void on_guard_refusal(void *ctx, const struct guard_refusal *g)
{
    struct session *s = ctx;
    struct leftover who;
    if (g->libc && s->pl.shim && has_shim(g->pid))
        return;
    if (reaper_describe((pid_t)g->pid, s->test_env, &who) < 0) {
        memset(&who, 0, sizeof who); /* gone already: what the guard knew */
        who.pid = g->pid;
    }
    bool typing = g->err == EPERM && !strcmp(g->call, "ioctl");
    const char *target = g->path[0]        ? g->path
                         : typing          ? "(the terminal: TIOCSTI, typing into it)"
                         : g->err == EPERM ? "(the mounts)"
                                           : "(a target the guard could not resolve)";
    record_of(s, &who, g->call, target, g->path[0] ? g->path : "/", "guard", g->err);
}

/* Nested in another testfence run, whose fence forbids mounts: the outer run's layers hold,
 * and the inner run's stderr is the command's, so the fallback is not announced there
 * (report.json still names the layer). The variable only quiets a warning: it never
 * decides what is fenced. */
static bool nested(void)
{
    return getenv("TESTFENCE_RUN_ID") != NULL;
}

/* Is FD something no file system holds: a pipe, a socket, an anonymous inode (its link reads
 * "pipe:[...]", not a path)? */
static bool anonymous(int fd)
{
    char link[64], target[16];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target);
    return n > 0 && target[0] != '/';
}

/* Could io_uring change something outside the writable set through a descriptor the command
 * inherits (0, 1, 2, the kept ones)? Its ops make no syscall the guard sees. Yes when one
 * names a file or directory outside: opened for writing (`> log.txt`: the user handed it
 * over), or, without the namespace layer, for reading or as O_PATH too (its xattrs). With the
 * layer those are reopened on its read-only view. FIFOs, devices and sockets count not:
 * they take no user xattrs, and their syscalls go through the guard. What cannot be told
 * counts as outside. */
static bool reaches_outside(const struct session *s, const struct spawn_opts *so)
{
    static struct path_res res; /* PATH_MAX: not on the stack */
    for (size_t i = 0; i < 3 + so->nkeep_fds; i++) {
        int fd = i < 3 ? (int)i : so->keep_fds[i - 3];
        struct stat st;
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fstat(fd, &st) < 0 || anonymous(fd))
            continue; /* not open, or no file system's */
        bool opath = fl & O_PATH;
        if (!opath && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
            continue;
        if (s->ns_on && (opath || (fl & O_ACCMODE) == O_RDONLY))
            continue; /* reopened on the read-only view */
        /* The one resolver names the open file (a deleted or too deep one too). */
        if (path_resolve_at(NULL, fd, "", PATH_EMPTY, &res, NULL) < 0 || res.kind != PATH_FILE ||
            !policy_match_res(&s->pl.policy, &res))
            return true;
    }
    return false;
}

int session_launch(struct session *s, struct spawn_opts *so, int *status, tf_err *err)
{
    so->ruleset_fd = s->ruleset_fd;
    so->guard = s->guard ? &s->pl.policy : NULL;
    so->record_fd = s->ch.sock;
    so->on_record = session_records;
    so->keep_fds = s->keep_fds;
    so->nkeep_fds = s->nkeep_fds;
    so->refuse_uring = s->backend == SESSION_LANDLOCK && reaches_outside(s, so);
    bool contained = s->backend != SESSION_NONE;
    so->ns = s->ns_on ? &s->ns : NULL;
    so->test_env = s->test_env;
    so->on_leftover = contained ? on_leftover : NULL;
    so->on_guard_refusal = on_guard_refusal;
    so->on_started = prune_beside;
    so->before_exec = session_ready;
    so->unreaped = &s->unreaped;
    so->record_ctx = s;
    int rc = spawn_run(so, status, err);
    if (rc != SPAWN_NO_NAMESPACE)
        return rc;
    s->ns_on = false;
    snprintf(s->ns_why, sizeof s->ns_why, "%s", err->msg);
    if (session_requires_ns(s))
        return tf_errf(err,
                       "refusing to run: %s, and this run requires it (require = [\"namespace\"] "
                       "or --require namespace); %s",
                       s->ns_why, mountns_advice);
    if (!nested())
        fprintf(s->warn,
                "testfence: warning: %s: metadata outside the writable set is refused by the "
                "seccomp guard alone (weaker: see docs/security.md); %s\n",
                s->ns_why, mountns_advice);
    if (s->prot.files.n > 0)
        say_unprotected(s, "without the namespace layer");
    so->ns = NULL;
    so->refuse_uring = s->backend == SESSION_LANDLOCK && reaches_outside(s, so); /* no view */
    return spawn_run(so, status, err);
}

/* Every run that ends leaves report.json, so the next one can tell a killed run from one
 * that finished: this one, when no violation log made one (nothing to report from), and
 * the outputs RUN asks for, on OUT (NULL: none). */
static void report_plain(struct session *s, const struct report_run *run, FILE *out)
{
    struct report r;
    tf_err err = {0};
    memset(&r, 0, sizeof r);
    report_write_json(&r, run, s->places.wsfd.dir, SHIMCONF_REPORT, &err);
    if (out)
        report_write_outputs(&r, run, out);
    s->reported = true;
}

void session_records(void *s)
{
    channel_drain(&((struct session *)s)->ch);
}

static int left_hazards(struct session *s, FILE *out);

int session_left_hazards(struct session *s, FILE *out)
{
    if (!s->hazards_checked) {
        s->planted = left_hazards(s, out);
        s->hazards_checked = true;
    }
    return s->planted;
}

static int left_hazards(struct session *s, FILE *out)
{
    const char *who = s->req.in_process ? "the tests" : "the command";
    char *text = NULL;
    size_t len = 0;
    tf_err err = {0};
    FILE *f = open_memstream(&text, &len), *quiet = fopen("/dev/null", "we");
    if (!f || !quiet) { /* fail closed: what cannot be checked counts as planted */
        fprintf(out,
                "testfence: cannot check what %s left in the writable set: %s; "
                "the run fails\n",
                who, strerror(errno));
        if (f)
            fclose(f);
        if (quiet)
            fclose(quiet);
        free(text);
        return 1;
    }
    /* Plain pytest configuration there was said before the run; only hazards count now.
     * What the run made goes to the workspace's quarantine. */
    int after = 0;
    char qpath[PATH_MAX];
    bool moves = s->places.wsfd.dir >= 0 &&
                 path_join(qpath, sizeof qpath, s->pl.ws.dir, SESSION_QUARANTINE, &err) == 0;
    struct hazard_opts o = {.artifacts = s->pl.ws.artifacts,
                            .warn = quiet,
                            .plugin_off_refused = true,
                            .fence_off_only = true,
                            .fence_off = &after,
                            .quarantine_at = s->places.wsfd.dir,
                            .quarantine_name = SESSION_QUARANTINE,
                            .quarantine = moves ? qpath : NULL,
                            .since = s->started,
                            .known = &s->known};
    int n = hazard_scan(&s->pl.policy, &o, f, &err);
    fclose(f);
    fclose(quiet);
    if (n < 0) {
        fprintf(out,
                "testfence: cannot check what %s left in the writable set: %s; "
                "the run fails\n",
                who, err.msg);
        free(text);
        return 1;
    }
    int more = after - s->fence_off;
    if (more > 0)
        fprintf(out,
                "testfence: %s left %d hazard%s in the writable set, which would switch "
                "the next run's fence off or make it refuse; remove %s:\n%s",
                who, more, more == 1 ? "" : "s", more == 1 ? "it" : "them", text);
    free(text);
    return more > 0 ? more : 0;
}

/* The temp dir of a run that ended with STATUS: kept when it failed, as pytest keeps a failed
 * test's tmp_path, unless the request says otherwise (a run refused before the command
 * started has nothing in it to keep). */
static enum runtmp_end tmp_end(const struct session *s, int status)
{
    if (s->refused || s->req.keep_tmp == KEEP_TMP_NEVER)
        return RUNTMP_REMOVED;
    if (s->req.keep_tmp == KEEP_TMP_ALWAYS)
        return RUNTMP_KEPT;
    return status != 0 ? RUNTMP_KEPT_FAILED : RUNTMP_REMOVED;
}

/* Asked for (--keep-tmp): said. Kept because the run failed: quiet, as pytest keeps a failed
 * test's tmp_path (whose path its failure shows); a failing command's output stays its own. */
static void say_kept(const struct session *s, enum runtmp_end end)
{
    if (end == RUNTMP_KEPT)
        fprintf(s->warn, "testfence: kept the run's temp dir %s\n", s->pl.tmp.dir);
}

/* After the command: the private temp dir goes, or is kept as tmp_end says. */
static void finish_tmp(struct session *s, int status)
{
    tf_err e = {0};
    enum runtmp_end end = tmp_end(s, status);
    if (s->tmp_done || s->req.in_process || s->places.tmp.fd < 0)
        return; /* in process: session_end_tmp, at the caller's exit */
    s->tmp_done = true;
    if (places_finish_tmp(&s->places, end, &e) < 0)
        fprintf(s->warn, "testfence: warning: %s\n", e.msg);
    else
        say_kept(s, end);
}

int session_end_tmp(struct session *s, int status, tf_err *err)
{
    if (s->tmp_done || s->places.tmp.fd < 0)
        return 0;
    s->tmp_done = true;
    enum runtmp_end end = tmp_end(s, status);
    if (end == RUNTMP_REMOVED)
        return runtmp_empty(&s->places.tmp, err);
    int rc = end == RUNTMP_KEPT ? runtmp_keep(&s->places.tmp, err)
                                : runtmp_keep_failed(&s->places.tmp, err);
    if (rc == 0)
        say_kept(s, end);
    return rc;
}

static int finish(struct session *s, FILE *out, char *const *argv, int command_status);

static double seconds_of(struct timespec t)
{
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int session_finish(struct session *s, FILE *out, char *const *argv, int command_status)
{
    int status = finish(s, out, argv, command_status);
    if (!s->refused)
        prune_done(s); /* before finish_tmp closes the temp base the prune works in */
    finish_tmp(s, status);
    return status;
}

static int finish(struct session *s, FILE *out, char *const *argv, int command_status)
{
    bool allow_violations = s->req.allow_violations;
    if (s->refused)
        return command_status; /* said already; nothing ran, no workspace */
    struct timespec ended;     /* the clock s->started was read from */
    clock_gettime(CLOCK_REALTIME_COARSE, &ended);
    /* What the command left for the next run fails this one, as a tampered record does
     * (--allow-violations does not cover either). */
    bool planted = s->backend != SESSION_NONE && session_left_hazards(s, out) > 0;
    char why[PATH_MAX + 128];
    channel_drain(&s->ch);
    bool tampered = channel_check(&s->ch, s->pl.ws.dir, why, sizeof why) < 0;
    if (tampered)
        fprintf(out,
                "testfence: %s: a test must not touch testfence's record. testfence kept its own "
                "copy of every record, reports from it and restored the log; the run fails\n",
                why);
    if (s->ch.malformed)
        fprintf(out, "testfence: %zu malformed record%s sent to testfence %s dropped\n",
                s->ch.malformed, s->ch.malformed == 1 ? "" : "s",
                s->ch.malformed == 1 ? "was" : "were");
    if (s->ch.dropped)
        fprintf(out,
                "testfence: %zu more refused write%s came after the log's limit: counted, not "
                "kept\n",
                s->ch.dropped, s->ch.dropped == 1 ? "" : "s");
    /* A refusal testfence could not keep is one it cannot show: the run fails, as for a
     * tampered record (--allow-violations does not cover it). */
    bool lost = s->ch.lost > 0;
    if (lost)
        fprintf(out,
                "testfence: %zu refused write%s could not be kept in testfence's log (%s) and "
                "%s not in the report; the run fails\n",
                s->ch.lost, s->ch.lost == 1 ? "" : "s", strerror(s->ch.lost_errno),
                s->ch.lost == 1 ? "is" : "are");
    struct report_run run = {.run_id = s->pl.ws.run_id,
                             .root = s->pl.root,
                             .workspace = s->pl.ws.dir,
                             .backend = session_backend_name(s->backend),
                             .layer = session_layer(s),
                             .layer_why = s->ns_why[0] ? s->ns_why : NULL,
                             .home = getenv("HOME"),
                             .argv = argv,
                             .command_status = command_status,
                             .status = command_status,
                             .colour = colour_wanted(fileno(out)),
                             .outs = &s->outs,
                             .started = seconds_of(s->started),
                             .seconds = seconds_of(ended) - seconds_of(s->started),
                             /* the causes said above that fail the run whatever the log says */
                             .fails_why = tampered  ? "testfence's record was touched"
                                          : lost    ? "refused writes could not be kept"
                                          : planted ? "the command left what would switch the next "
                                                      "run's fence off"
                                                    : NULL};
    if (!s->d.on) { /* no log: leftovers, said as they were killed, fail the run here */
        report_plain(s, &run, out);
        bool fails = planted || lost || (s->leftovers && !allow_violations);
        return fails && command_status == 0 ? TF_EXIT_VIOLATIONS : command_status;
    }
    s->reported = true;
    return diag_finish(&s->d, out, &run, allow_violations, tampered || planted || lost);
}

void session_free(struct session *s)
{
    spawn_reap(&s->unreaped);      /* its CPU time is the command's: time and rusage count it */
    if (s->prune == PRUNE_RUNNING) /* session_finish was not reached */
        pthread_join(s->pruner, NULL);
    /* A run that stopped on an error of ours after its workspace was made: say so there. */
    if (s->places.opened && s->places.wsfd.dir >= 0 && !s->reported) {
        struct report_run run = {.run_id = s->pl.ws.run_id,
                                 .root = s->pl.root,
                                 .workspace = s->pl.ws.dir,
                                 .backend = session_backend_name(s->backend),
                                 .command_status = -1,
                                 .status = TF_EXIT_OWN_ERROR};
        report_plain(s, &run, NULL);
    }
    finish_tmp(s, 0); /* not finished: our own error, nothing of the tests' to keep */
    report_outputs_close(&s->outs);
    free(s->keep_fds);
    s->keep_fds = NULL;
    if (s->ruleset_fd >= 0)
        close(s->ruleset_fd);
    s->ruleset_fd = -1;
    mountns_free(&s->ns);
    protect_free(&s->prot);
    hazard_known_free(&s->known);
    diag_close(&s->d);
    channel_close(&s->ch);
    places_close(&s->places);
    plan_free(&s->pl);
}
