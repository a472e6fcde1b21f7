/* The shim's core: configuration at load time, path resolution, the decision (asked
 * of the policy module the kernel fence is built from), the log record and the live line.
 * The interposers themselves are in shim_libc.c. */
#include "shim.h"

#include "linux/ioctls.h"
#include "linux/mountinfo.h"
#include "core/colour.h"
#include "core/hint.h"
#include "core/path.h"
#include "core/policy.h"
#include "core/runtmp.h"
#include "core/shimconf.h"
#include "core/testvar.h"
#include "core/vlog.h"

#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Live lines per process; past this the records still go to the log, quietly, so a loop
 * that hits the fence ten thousand times does not bury the test output. */
enum { LIVE_MAX = 100 };

/* The configurations in force (the only global state of the shim besides the live count and
 * posix_spawn's notes): set by the constructor or by testfence_shim_attach, read-only once
 * published. A process that fences itself again inside a run (a plugin-fenced pytest under
 * `testfence run`) attaches to its own, narrower run: what its fence refuses belongs in that
 * run's report, and its tmpfile() in that run's temp dir. The new one is stacked on the one
 * it replaces, as Landlock stacks domains: every layer still refuses (block mode) and records
 * what its own policy says is outside, so a configuration a test attaches can add to what is
 * refused and recorded, never take away. Each is published whole, with release order, and
 * never freed: another thread may still be reading the one below it. NULL: not looking. */
struct shimstate {
    struct shimconf conf;
    char fence[PATH_MAX + 1]; /* "<root>/tests/" for the live line */
    char from[PATH_MAX];      /* the configuration file it was read from */
    const struct shimstate *replaced;
};
static struct shimstate *current;

static const struct shimstate *state(void)
{
    return __atomic_load_n(&current, __ATOMIC_ACQUIRE);
}

static bool active(void)
{
    return state() != NULL;
}

static unsigned live_count;

/* Set while the shim works, so the libc calls it makes itself are not looked at. */
static __thread int busy __attribute__((tls_model("initial-exec")));

/* Preloaded, the real function is the next definition after the shim's. Loaded late and
 * patched in (shim_patch.c), the shim is in no search order: the real one is what the loader
 * binds calls to, the first in the global scope (libc's, or fakeroot's before it). */
static void *real_from = RTLD_NEXT;

void shim_real_from_default(void)
{
    __atomic_store_n(&real_from, RTLD_DEFAULT, __ATOMIC_RELEASE);
}

void *shim_real(void **slot, const char *name)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!p) {
        p = dlsym(__atomic_load_n(&real_from, __ATOMIC_ACQUIRE), name);
        __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    }
    return p;
}

/* Load the configuration CONF names and look with it from now on; a CONF already in force is
 * not read again. 0, or -1 (nothing changed): a CONF that is no absolute path the shim can
 * hold fails even while another is in force, so its caller knows its own is not. */
static char loading; /* one load at a time: a second caller waits for the first */

static int attach(const char *conf)
{
    if (!conf || conf[0] != '/' || strlen(conf) >= sizeof current->from)
        return -1;
    while (__atomic_test_and_set(&loading, __ATOMIC_ACQUIRE))
        sched_yield(); /* a load is a file read: short */
    const struct shimstate *now = state();
    if (now && strcmp(now->from, conf) == 0) {
        __atomic_clear(&loading, __ATOMIC_RELEASE);
        return 0;
    }
    busy++;
    int rc = -1;
    tf_err err;
    struct shimstate *st = calloc(1, sizeof *st);
    if (st && shimconf_load(conf, &st->conf, &err) == 0) {
        policy_fence_label(&st->conf.policy, st->fence, sizeof st->fence);
        snprintf(st->from, sizeof st->from, "%s", conf);
        st->replaced = now;
        __atomic_store_n(&current, st, __ATOMIC_RELEASE);
        rc = 0;
    } else {
        free(st);
    }
    __atomic_clear(&loading, __ATOMIC_RELEASE);
    busy--;
    return rc;
}

static void spawn_lock_after_fork(void);

/* The configuration testfence left for us: testfence run keeps it in its private directory,
 * outside the writable set; a process that fences itself, in its workspace. Without it the
 * shim does nothing (the process was not started by testfence, or its environment was
 * changed) until testfence_shim_attach. */
__attribute__((constructor)) static void shim_init(void)
{
    const char *conf = getenv("TESTFENCE_SHIM_CONF");
    pthread_atfork(NULL, NULL, spawn_lock_after_fork);
    if (conf)
        attach(conf);
}

/* For a process that fences itself after it started with the shim preloaded (the pytest
 * plugin starts pytest again so, or a pytest under `testfence run` fences itself again): look
 * from now on with the configuration at CONF, in place of the one in force. */
__attribute__((visibility("default"))) int testfence_shim_attach(const char *conf)
{
    return attach(conf);
}

__attribute__((visibility("default"))) int testfence_shim_patch(const char *conf)
{
    if (attach(conf) < 0)
        return -1;
    return shim_patch_start();
}

/* ---- resolution ------------------------------------------------------------ */

static bool fence_errno(int e)
{
    return e == EACCES || e == EPERM || e == EXDEV || e == EROFS;
}

/* What the call aims at: PATH relative to DIRFD, or with a NULL PATH the open file DIRFD
 * (fchmod, futimens), through the one resolver. -1 when it cannot be told. */
static int resolve_at(int dirfd, const char *path, unsigned how, struct path_res *res)
{
    unsigned flags =
        (how & SHIM_NOFOLLOW ? PATH_NOFOLLOW : 0) | (how & SHIM_EMPTY ? PATH_EMPTY : 0);
    if (!path && dirfd == AT_FDCWD) {
        memset(res, 0, sizeof *res); /* utimensat(AT_FDCWD, NULL): the kernel says EFAULT */
        res->kind = PATH_REJECTED;
        return 0;
    }
    if (!path)
        flags |= PATH_EMPTY;
    return path_resolve_at(NULL, dirfd, path ? path : "", flags, res, NULL);
}

/* The name a record gives a target: RES's path ("/deep/..." when it is beneath it), or
 * for a target that could not be resolved, the path as given. */
static void target_name(const struct path_res *res, int rc, const char *given, char *out)
{
    char cwd[PATH_MAX];
    int n;
    if (rc == 0)
        n = snprintf(out, PATH_MAX, "%s%s", res->path, res->beneath ? "/..." : "");
    else if (given && given[0] == '/')
        n = snprintf(out, PATH_MAX, "%s", given);
    else
        n = snprintf(out, PATH_MAX, "%s/%s", getcwd(cwd, sizeof cwd) ? cwd : "/?",
                     given ? given : "");
    if (n < 0 || n >= PATH_MAX)
        memcpy(out + PATH_MAX - 5, "/...", 5); /* a record cuts long paths anyway */
}

/* ---- the record ------------------------------------------------------------ */

/* The current test from the configured variable, read now (pytest sets it per phase, the
 * plugin while a module is imported): "tests/t.py::test_x (call)" gives the id
 * "tests/t.py::test_x" and the phase "call", split as every record's (core/testvar). */
static const char *current_test(const struct shimstate *st, char *test, size_t len,
                                const char **phase)
{
    const char *v = getenv(st->conf.test_env);
    *phase = NULL;
    if (!v || !v[0])
        return NULL;
    snprintf(test, len, "%s", v);
    *phase = testvar_cut(test);
    return test;
}

/* ---- where in the project: the plugin's frames ------------------------------ */

/* A pytest plugin in this process registers a function (testfence_shim_frames) that names
 * where the Python code on this thread is: it writes "src_file\0src_line\0src_func\0
 * test_file\0test_line" into BUF (at most CAP bytes) and returns the length. It is called only
 * for a refused write, never on the success path. What it says only adds those five fields to
 * the record: it decides nothing (a test may register its own), a failure or garbage leaves
 * them out. While it runs, the shim looks at this thread's calls again (Python may run a
 * finalizer or a signal handler of the test's in it, whose refusals are recorded like any
 * other), but never calls it again: the re-entry guard, in_frames. */
typedef int (*shim_frames_fn)(char *buf, int cap);

struct framehook {
    shim_frames_fn fn;
    long pid;                    /* who registered it: a fork's child, or a vfork's (the
                                    parent's memory, no interpreter to call into), does not */
    void *(*thread_state)(void); /* PyGILState_GetThisThreadState: NULL on a thread Python does
                                    not know (a C library's own): no frames to find there */
    int (*finalizing)(void);     /* Py_IsFinalizing: an interpreter going away is not called */
};
static struct framehook *framehook; /* published whole, never freed (another thread may read) */
static __thread int in_frames __attribute__((tls_model("initial-exec")));

/* The source fields of one refused call, found once for all the layers that record it. */
struct where {
    bool done;
    const char *src_file, *src_func, *test_file;
    long src_line, test_line;
    char frames[1024]; /* the plugin's answer */
    char env[1024];    /* TESTFENCE_STARTED_AT, the plugin's word on who started this process */
};

static long line_number(const char *s)
{
    if (!s || !s[0] || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
        return 0;
    long n = strtol(s, NULL, 10);
    return n <= VLOG_LINE_NO_MAX ? n : 0;
}

/* Fill the fields of W from the five strings at F (each may be empty), where W has none. */
static void where_take(struct where *w, const char *const f[5])
{
    long sl = line_number(f[1]), tl = line_number(f[4]);
    if (!w->src_file && f[0][0] && sl) {
        w->src_file = f[0];
        w->src_line = sl;
        w->src_func = f[2][0] ? f[2] : NULL;
    }
    if (!w->test_file && f[3][0] && tl) {
        w->test_file = f[3];
        w->test_line = tl;
    }
}

/* Split BUF (LEN bytes, terminated) at SEP into five fields; false when it has fewer. */
static bool split5(char *buf, size_t len, char sep, const char *f[5])
{
    size_t k = 0;
    f[k++] = buf;
    for (size_t i = 0; i < len && k < 5; i++)
        if (buf[i] == sep) {
            buf[i] = '\0';
            f[k++] = buf + i + 1;
        }
    return k == 5;
}

static void where_from_plugin(struct where *w)
{
    const struct framehook *h = __atomic_load_n(&framehook, __ATOMIC_ACQUIRE);
    if (in_frames || !h || !h->fn || syscall(SYS_getpid) != h->pid ||
        (h->thread_state && !h->thread_state()) || (h->finalizing && h->finalizing()))
        return;
    memset(w->frames, 0, sizeof w->frames);
    int outer = busy;
    in_frames = 1;
    busy = 0;
    int n = h->fn(w->frames, (int)sizeof w->frames - 1);
    busy = outer;
    in_frames = 0;
    const char *f[5];
    if (n <= 0 || (size_t)n >= sizeof w->frames)
        return;
    w->frames[n] = '\0';
    if (split5(w->frames, (size_t)n, '\0', f))
        where_take(w, f);
}

/* Where the write came from: the plugin's frames in this process, else (field by field) what
 * the plugin that started this process said of the line that started it. */
static void where_find(struct where *w)
{
    if (w->done)
        return;
    w->done = true;
    w->src_file = w->src_func = w->test_file = NULL;
    w->src_line = w->test_line = 0;
    where_from_plugin(w);
    /* A process whose plugin answers for it (pytest) is not told by the variable: it sets it
     * while it starts a child, and a thread of its own with no test frame would take that
     * child's line. */
    const struct framehook *h = __atomic_load_n(&framehook, __ATOMIC_ACQUIRE);
    const char *env = h && h->pid == syscall(SYS_getpid) ? NULL : getenv("TESTFENCE_STARTED_AT");
    const char *f[5];
    if ((w->src_file && w->test_file) || !env)
        return;
    snprintf(w->env, sizeof w->env, "%s", env);
    if (split5(w->env, strlen(w->env), '\t', f))
        where_take(w, f);
}

/* The first function registered in a process keeps its place: another (a test's, a freed
 * one) is refused, so records do not take their lines from it. A forked child's process
 * registers again (the hook it inherited is its parent's); FN again is a no-op. */
__attribute__((visibility("default"))) int testfence_shim_frames(shim_frames_fn fn)
{
    long pid = syscall(SYS_getpid);
    struct framehook *now = __atomic_load_n(&framehook, __ATOMIC_ACQUIRE);
    if (!fn || (now && now->pid == pid))
        return fn && now->fn == fn ? 0 : -1;
    struct framehook *h = calloc(1, sizeof *h);
    if (!h)
        return -1;
    h->fn = fn;
    h->pid = pid;
    *(void **)&h->thread_state = dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
    *(void **)&h->finalizing = dlsym(RTLD_DEFAULT, "Py_IsFinalizing");
    if (!h->finalizing)
        *(void **)&h->finalizing = dlsym(RTLD_DEFAULT, "_Py_IsFinalizing");
    /* Without them the shim cannot tell a thread Python does not know, nor an interpreter
     * going away, from one it may call into: no frames then. */
    if (!h->thread_state || !h->finalizing ||
        !__atomic_compare_exchange_n(&framehook, &now, h, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        free(h);
        return -1;
    }
    return 0;
}

/* Unregister FN, the function registered (at exit, before the interpreter goes away); any
 * other is refused. */
__attribute__((visibility("default"))) int testfence_shim_frames_off(shim_frames_fn fn)
{
    struct framehook *now = __atomic_load_n(&framehook, __ATOMIC_ACQUIRE);
    if (!fn || !now || now->fn != fn || now->pid != syscall(SYS_getpid))
        return -1;
    /* Left allocated: another thread may be reading it. */
    return __atomic_compare_exchange_n(&framehook, &now, NULL, false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE)
               ? 0
               : -1;
}

static void live_line(const struct shimstate *st, const struct vlog_record *r)
{
    unsigned n = __atomic_add_fetch(&live_count, 1, __ATOMIC_RELAXED);
    if (n > LIVE_MAX)
        return;
    const char *more = n == LIVE_MAX ? " (further violations in this process are only logged; "
                                       "see the summary at the end of the run)"
                                     : "";
    char line[VLOG_MAX];
    size_t room = sizeof line - strlen(more) - 2; /* the suffix and "\n" always fit */
    struct hint_who who = {.test = r->test,
                           .exe = r->exe,
                           .pid = r->pid,
                           .op = r->op,
                           .protected = !strcmp(r->blocked_by, "protect"),
                           .cmdline = r->cmdline,
                           .src_file = r->src_file,
                           .src_line = r->src_line,
                           .src_func = r->src_func,
                           .test_file = r->test_file,
                           .test_line = r->test_line};
    int k = hint_violation_line(line, room, &who, r->resolved, st->fence, st->conf.policy.root,
                                getenv("HOME"));
    if (k < 0)
        return;
    if ((size_t)k >= room)
        k = (int)room - 1;
    k += snprintf(line + k, sizeof line - (size_t)k, "%s\n", more);
    char painted[VLOG_MAX + 64];
    const char *out = line;
    int p;
    if (colour_wanted(STDERR_FILENO) && (p = hint_paint(painted, sizeof painted, line)) > 0) {
        out = painted;
        k = (size_t)p < sizeof painted ? p : (int)sizeof painted - 1;
    }
    ssize_t w = write(STDERR_FILENO, out, (size_t)k);
    (void)w;
}

/* A record of the attempt for layer ST's run; the live line only for the top layer, the
 * process's own run (one line on the terminal, however many runs are stacked). */
static void record(const struct shimstate *st, const char *op, const char *given,
                   const char *resolved, int err, const char *by, struct where *w)
{
    char test[700], line[VLOG_MAX];
    struct vlog_self self;
    struct vlog_record r;
    vlog_record_self(&r, &self);
    where_find(w);
    r.src_file = w->src_file;
    r.src_line = w->src_line;
    r.src_func = w->src_func;
    r.test_file = w->test_file;
    r.test_line = w->test_line;
    r.test = current_test(st, test, sizeof test, &r.phase);
    r.op = op;
    r.path = given ? given : "";
    r.resolved = resolved;
    r.err = err;
    r.blocked_by = by;
    size_t len = vlog_format(line, sizeof line, &r);
    const struct shimconf *c = &st->conf;
    if (c->sink_socket)
        vlog_send(c->sink, line, len); /* testfence run takes it: nothing to erase */
    else if (c->sink[0])
        vlog_append(c->sink, line, len);
    if (st == state())
        live_line(st, &r);
}

/* The verdict on a write to RES by this process. Tool state quiet only for some commands
 * (git's index lock, for git describe) needs this process's command line: read only then. */
static enum policy_verdict decide(const struct shimstate *st, const struct path_res *res)
{
    struct policy_decision d;
    const struct policy *p = &st->conf.policy;
    enum policy_verdict v = policy_decide(p, res, NULL, 0, &d);
    if (v != POLICY_BLOCKED || !d.quiet)
        return v;
    char argv[4096];
    long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return v;
    long n = syscall(SYS_read, (int)fd, argv, sizeof argv - 1);
    syscall(SYS_close, (int)fd);
    if (n <= 0)
        return v;
    argv[n] = '\0';
    return policy_decide(p, res, argv, (size_t)n, &d);
}

/* ---- the two hooks --------------------------------------------------------- */

/* Is the target of PATH (or the fd DIRFD) outside the writable set? With STRICT (the shim
 * decides), a target it cannot resolve counts as outside, and is recorded: what it really is
 * cannot be told, so it is never taken for harmless state; else (reporting what the kernel
 * refused) it does not. *QUIET: it is harmless tool state (refused, not recorded). */
static bool one_outside(const struct shimstate *st, unsigned how, int dirfd, const char *path,
                        bool strict, char *name, bool *quiet)
{
    struct path_res res;
    int rc = resolve_at(dirfd, path, how, &res);
    if (rc < 0) {
        if (strict)
            target_name(&res, rc, path, name);
        return strict;
    }
    enum policy_verdict v = decide(st, &res);
    *quiet = v == POLICY_QUIET;
    bool out = v == POLICY_BLOCKED || v == POLICY_QUIET;
    if (out)
        target_name(&res, rc, path, name);
    return out;
}

/* The first of the call's paths that lies outside the writable set (the second path, the
 * new name of a rename or link, is the one written, so it goes first), named in RESOLVED. */
static const char *outside(const struct shimstate *st, unsigned how, int dirfd, const char *path,
                           int dirfd2, const char *path2, bool strict, char *resolved, bool *quiet)
{
    if (path2 && one_outside(st, how, dirfd2, path2, strict, resolved, quiet))
        return path2;
    if ((path || dirfd >= 0) && one_outside(st, how, dirfd, path, strict, resolved, quiet))
        return path ? path : "";
    return NULL;
}

/* The call, refused (ERR), recorded for every layer whose own policy puts it outside, each
 * in its run's report (tool state quiet, as ever): whatever a layer on top says, so one a
 * test attached cannot keep a refusal from the run below. True when any layer puts it
 * outside. */
static bool record_layers(const struct shimstate *top, const char *op, unsigned how, int dirfd,
                          const char *path, int dirfd2, const char *path2, bool strict, int err,
                          const char *by)
{
    struct where w;
    w.done = false;
    bool any = false;
    for (const struct shimstate *st = top; st; st = st->replaced) {
        char resolved[PATH_MAX];
        bool quiet = false;
        const char *given = outside(st, how, dirfd, path, dirfd2, path2, strict, resolved, &quiet);
        if (given && !quiet)
            record(st, op, given, resolved, err, by, &w);
        any |= given != NULL;
    }
    return any;
}

/* Is the target of PATH at DIRFD (the open file DIRFD with PATH NULL) a protected file: a
 * regular file that is the root of a read-only mount? Under the writable set only testfence's
 * init makes such mounts (the command may not mount). Only asked when a call failed. */
static bool protected_file(int dirfd, const char *path, unsigned how)
{
    struct statx sx;
    struct statfs sf;
    int flags = (how & (SHIM_NOFOLLOW | SHIM_REMOVES) ? AT_SYMLINK_NOFOLLOW : 0) |
                (path ? 0 : AT_EMPTY_PATH);
    if (syscall(SYS_statx, dirfd, path ? path : "", flags, STATX_TYPE, &sx) < 0 ||
        !S_ISREG(sx.stx_mode) || !(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
        !(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
        return false;
    long fd = path ? syscall(SYS_openat, dirfd, path,
                             O_PATH | O_CLOEXEC | (flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0))
                   : dirfd;
    if (fd < 0)
        return false;
    bool ro = syscall(SYS_fstatfs, (int)fd, &sf) == 0 && (sf.f_flags & ST_RDONLY);
    if (path)
        syscall(SYS_close, (int)fd);
    return ro;
}

/* Is the target of PATH at DIRFD a directory on the way to protected files: no mount root on
 * the caller's path, yet a mount point in the namespace? testfence's init makes one of each
 * such directory beneath the writable copy, where no path leads (linux/mountns), and the
 * command may not mount. Fills RESOLVED (PATH_MAX). Only asked when a call failed with
 * EBUSY. */
static bool protected_dir(int dirfd, const char *path, unsigned how, char *resolved)
{
    struct statx sx;
    struct path_res res;
    int flags = AT_SYMLINK_NOFOLLOW | (path ? 0 : AT_EMPTY_PATH);
    if (syscall(SYS_statx, dirfd, path ? path : "", flags, STATX_TYPE, &sx) < 0 ||
        !S_ISDIR(sx.stx_mode) || !(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
        (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
        return false;
    target_name(&res, resolve_at(dirfd, path, how | SHIM_NOFOLLOW, &res), path, resolved);
    return resolved[0] == '/' && mountinfo_lists(resolved);
}

/* RESOLVED, a directory's name, with a "/" at the end: the summary says what it was. */
static bool dir_name(char *resolved)
{
    size_t n = strlen(resolved);
    if (n + 1 < PATH_MAX && resolved[n - 1] != '/')
        memcpy(resolved + n, "/", 2);
    return true;
}

/* A link or rename between the name PATH (in DIRFD) and the directory that would hold PATH2
 * (in DIRFD2): on one file system? Across two it fails with EXDEV without any fence, and is no
 * refusal of protect's (whose read-only copies keep the device of what they copy). What cannot
 * be looked at counts as one file system: the refusal is recorded rather than lost. */
static bool one_file_system(int dirfd, const char *path, int dirfd2, const char *path2)
{
    char parent[PATH_MAX];
    struct stat a, b;
    if (!path || !path2)
        return true;
    path_dirname(parent, sizeof parent, path2);
    if (fstatat(dirfd, path, &a, AT_SYMLINK_NOFOLLOW) < 0 || fstatat(dirfd2, parent, &b, 0) < 0)
        return true;
    return a.st_dev == b.st_dev;
}

/* Which of a call's names is protected (a file; when the call failed with EBUSY, also a
 * directory on the way to some): its name into *GIVEN, its directory fd into *AT and its resolved
 * path into RESOLVED, a directory's with a "/" at the end. False when neither. */
static bool which_protected(unsigned how, int dirfd, const char *path, int dirfd2,
                            const char *path2, bool ebusy, const char **given, int *at,
                            char *resolved)
{
    struct path_res res;
    bool one = path || dirfd >= 0;
    if (path2 && protected_file(dirfd2, path2, how | SHIM_NOFOLLOW))
        *given = path2, *at = dirfd2;
    else if (one && protected_file(dirfd, path, how))
        *given = path, *at = dirfd;
    else if (ebusy && path2 && protected_dir(dirfd2, path2, how, resolved))
        return *given = path2, dir_name(resolved);
    else if (ebusy && one && protected_dir(dirfd, path, how, resolved))
        return *given = path, dir_name(resolved);
    else
        return false;
    target_name(&res, resolve_at(*at, *given, how, &res), *given, resolved);
    return true;
}

/* A call that failed with EROFS or EBUSY (EBUSY says which) on a protected file or, EBUSY,
 * a directory on the way to protected files (either of a rename's names): recorded as refused
 * (ERR), blocked_by "protect", for every layer that protects files. True when it was one. */
static bool record_protected(const struct shimstate *top, const char *op, unsigned how, int dirfd,
                             const char *path, int dirfd2, const char *path2, int err, bool ebusy)
{
    bool any = false;
    for (const struct shimstate *st = top; st && !any; st = st->replaced)
        any = st->conf.protect;
    if (!any)
        return false;
    const char *given = NULL;
    int at = dirfd;
    char resolved[PATH_MAX];
    if (!which_protected(how, dirfd, path, dirfd2, path2, ebusy, &given, &at, resolved))
        return false;
    struct where w;
    w.done = false;
    for (const struct shimstate *st = top; st; st = st->replaced)
        if (st->conf.protect)
            record(st, op, given ? given : "", resolved, err, "protect", &w);
    return true;
}

/* Does layer ST refuse such calls itself (block mode; metadata where no guard does)? */
static bool refuses_itself(const struct shimstate *st, unsigned how)
{
    return st->conf.mode == SHIM_BLOCK || ((how & SHIM_META) && st->conf.precheck_meta);
}

/* Does any layer from TOP down refuse such calls itself? */
static bool any_refuses_itself(const struct shimstate *top, unsigned how)
{
    for (const struct shimstate *st = top; st; st = st->replaced)
        if (refuses_itself(st, how))
            return true;
    return false;
}

/* The program's path, copied once into BUF (PATH_MAX bytes): another of its threads may
 * change it while we look, and a record must say one thing. */
static const char *snap(const char *path, char *buf)
{
    if (!path)
        return NULL;
    size_t n = strnlen(path, PATH_MAX - 1);
    memcpy(buf, path, n);
    buf[n] = '\0';
    return buf;
}

/* Under the read-only view, removing a name fails with EROFS before the kernel looks the
 * name up; Landlock alone, and the machine without testfence, say ENOENT for a missing one
 * (pathlib's unlink(missing_ok=True) counts on it). Is PATH missing? */
static bool removes_missing(unsigned how, int dirfd, const char *path)
{
    struct stat st;
    return (how & SHIM_REMOVES) && path &&
           syscall(SYS_newfstatat, dirfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
}

/* In block mode the shim answers before the kernel would: a call that fails on its own
 * (mkdir of a name that exists, removing one that does not) writes nothing, and is let
 * through to fail as it would without testfence (os.makedirs(exist_ok=True) counts on its
 * EEXIST). A thread that changes the name between this look and the call races the shim as
 * it can for every path-based call in block mode (looked at, then made): nothing new. */
static bool fails_anyway(const char *op, unsigned how, int dirfd, const char *path)
{
    struct stat st;
    if (!strncmp(op, "mkdir", 5))
        return path && syscall(SYS_newfstatat, dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
    return removes_missing(how, dirfd, path);
}

bool shim_pre(const char *op, unsigned how, int dirfd, const char *path, int dirfd2,
              const char *path2)
{
    const struct shimstate *top = state();
    if (!top || busy || (how & SHIM_SKIP) || !any_refuses_itself(top, how))
        return false;
    busy++;
    char copy[PATH_MAX], copy2[PATH_MAX];
    path = snap(path, copy);
    path2 = snap(path2, copy2);
    bool refused = false;
    for (const struct shimstate *st = top; st && !refused; st = st->replaced) {
        char resolved[PATH_MAX];
        bool quiet = false;
        refused = refuses_itself(st, how) &&
                  outside(st, how, dirfd, path, dirfd2, path2, true, resolved, &quiet);
    }
    if (refused && !(how & SHIM_META) && !path2 && fails_anyway(op, how, dirfd, path))
        refused = false;
    /* Harmless tool state (git's index lock) is refused like the rest, without a record. */
    if (refused)
        record_layers(top, op, how, dirfd, path, dirfd2, path2, true, EACCES, "shim");
    busy--;
    if (refused)
        errno = EACCES;
    return refused;
}

bool shim_ioctl_pre(int fd, unsigned long req)
{
    /* Where a guard judges ioctls (testfence run), nothing to do: not even the lookup. */
    const struct shimstate *top = state();
    if (!top || busy || !any_refuses_itself(top, SHIM_META))
        return false;
    enum ioctl_class c = ioctl_classify(req);
    if (c == IOCTL_HARMLESS)
        return false;
    if (c == IOCTL_JUDGED)
        return shim_pre("ioctl", SHIM_META, fd, NULL, AT_FDCWD, NULL);
    busy++;
    struct path_res res;
    char name[PATH_MAX];
    struct where w;
    w.done = false;
    target_name(&res, resolve_at(fd, NULL, SHIM_EMPTY, &res), "", name);
    for (const struct shimstate *st = top; st; st = st->replaced)
        record(st, "ioctl", "", name, EPERM, "shim", &w); /* refused whatever the file */
    busy--;
    errno = EPERM;
    return true;
}

bool shim_tmpfile(FILE **out)
{
    const struct shimstate *st = state();
    const char *dir = st && !busy ? policy_tmp_dir(&st->conf.policy) : NULL;
    if (!dir)
        return false;
    busy++; /* the opens below are the shim's own: not looked at */
    int e = errno;
    int fd = runtmp_unnamed(dir);
    FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
    int fe = errno;
    if (fd >= 0 && !f)
        close(fd);
    busy--;
    errno = fd >= 0 && !f ? fe : e; /* only a failed fdopen has something to say */
    *out = f;
    return fd >= 0;
}

/* posix_spawn's file actions: the opens it makes in the child happen inside libc, where no
 * interposer sees them, and a refused one fails the spawn. The last few a program asked for
 * are remembered here, so that failure can be recorded with its path. */
enum { SPAWN_OPENS = 8 };
static struct {
    const void *fa; /* the file actions they belong to; NULL: a free slot */
    unsigned how;
    char path[PATH_MAX];
} spawn_opens[SPAWN_OPENS];
static unsigned spawn_next;
static char spawn_lock; /* a spin lock: held for a copy, or for the rare failure's records */

static void lock_spawn(void)
{
    while (__atomic_test_and_set(&spawn_lock, __ATOMIC_ACQUIRE))
        ;
}

static void unlock_spawn(void)
{
    __atomic_clear(&spawn_lock, __ATOMIC_RELEASE);
}

/* A fork while another thread held the lock: the child has no such thread to let it go. */
static void spawn_lock_after_fork(void)
{
    __atomic_clear(&spawn_lock, __ATOMIC_RELEASE);
    __atomic_clear(&loading, __ATOMIC_RELEASE); /* an attach another thread was making */
}

void shim_spawn_open(const void *fa, const char *path, unsigned how)
{
    if (!active() || busy || !path || (how & SHIM_SKIP))
        return;
    lock_spawn();
    unsigned i = spawn_next++ % SPAWN_OPENS;
    spawn_opens[i].fa = fa;
    spawn_opens[i].how = how;
    snprintf(spawn_opens[i].path, sizeof spawn_opens[i].path, "%s", path);
    unlock_spawn();
}

void shim_spawn_forget(const void *fa)
{
    if (!active())
        return; /* nothing was remembered: only an active shim remembers */
    lock_spawn();
    for (unsigned i = 0; i < SPAWN_OPENS; i++)
        if (spawn_opens[i].fa == fa)
            spawn_opens[i].fa = NULL;
    unlock_spawn();
}

int shim_spawn_post(int err, const void *fa)
{
    const struct shimstate *top = state();
    if (!top || busy || !fa || !fence_errno(err))
        return err;
    busy++;
    bool recorded = false;
    char path[PATH_MAX];
    for (unsigned i = 0; i < SPAWN_OPENS; i++) {
        /* Each entry copied out under the lock, looked at and recorded without it. */
        lock_spawn();
        bool mine = spawn_opens[i].fa == fa;
        unsigned how = spawn_opens[i].how;
        if (mine)
            memcpy(path, spawn_opens[i].path, sizeof path);
        unlock_spawn();
        if (mine && record_layers(top, "posix_spawn", how, AT_FDCWD, path, AT_FDCWD, NULL, false,
                                  EACCES, "kernel"))
            recorded = true;
    }
    busy--;
    return recorded && err == EROFS ? EACCES : err; /* as for the program's own open */
}

void shim_post(const char *op, unsigned how, int dirfd, const char *path, int dirfd2,
               const char *path2)
{
    int e = errno;
    const struct shimstate *top = state();
    if (!top || busy || (how & SHIM_SKIP) || !(fence_errno(e) || e == EBUSY))
        return;
    char copy[PATH_MAX], copy2[PATH_MAX];
    path = snap(path, copy);
    path2 = snap(path2, copy2);
    if (e == EROFS && removes_missing(how, dirfd, path)) {
        errno = ENOENT; /* nothing would have been written */
        return;
    }
    busy++;
    /* Under the namespace layer everything outside is a read-only mount, which the kernel
     * checks before Landlock: the program would see EROFS where the fence has always said
     * EACCES, and code that expects PermissionError for a refused write would change
     * course. The write is outside the writable set either way: say EACCES. Harmless tool
     * state (git's index lock) is refused like the rest, without a record. */
    int said = e == EROFS || e == EBUSY ? EACCES : e;
    if (e != EBUSY &&
        record_layers(top, op, how, dirfd, path, dirfd2, path2, false, said, "kernel"))
        e = said;
    /* A protected file is a mount of its own: a hard link to it, or a rename of it to
     * another mount, fails with EXDEV, which is protect's refusal as much as EROFS is (when
     * the two names are on one file system: across two, EXDEV is the machine's own answer,
     * which programs meet by copying). */
    else if ((e == EROFS || e == EBUSY ||
              (e == EXDEV && one_file_system(dirfd, path, dirfd2, path2))) &&
             record_protected(top, op, how, dirfd, path, dirfd2, path2, EACCES, e == EBUSY))
        e = EACCES;
    busy--;
    errno = e;
}
