/* libtestfence: the public API of include/testfence.h over the modules `testfence run` uses
 * (plan, hazard, fence, diag/shimconf, vlog, report). Nothing here decides policy itself. */
#include "testfence.h"

#include "core/exitcode.h"
#include "core/failsfirst.h"
#include "core/hint.h"
#include "core/path.h"
#include "core/report.h"
#include "core/shimconf.h"
#include "core/testvar.h"
#include "base/vec.h"
#include "core/vlog.h"
#include "core/platform.h"
#if defined(__linux__) && !defined(TESTFENCE_MACOS)
/* The kernel backend (Landlock, the channel, the namespace): linux/session. */
#include "linux/ioctls.h"
#include "linux/session.h"
#define TF_KERNEL_FENCE 1
#else
/* Windows and macOS (and the macOS set built on Linux, TESTFENCE_MACOS_SET): the python
 * backend's plan, workspace, log and report; no tf_fence. */
#include "session_inproc.h"
#define TF_KERNEL_FENCE 0
#endif
#if TF_KERNEL_FENCE
#include <dlfcn.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "public.h"
#if !defined(_WIN32)
#ifndef environ /* macOS: src/macos/posix.h's (a shared library cannot name it there) */
extern char **environ;
#endif
#endif

/* A record of the violation log, copied out of the reader's scratch buffer. */
struct tf_viol {
    char *time, *test, *phase, *op, *path, *resolved, *blocked_by, *exe;
    char *src_file, *src_func, *test_file; /* where it came from (NULL: unknown) */
    long pid, src_line, test_line;
    int err;
};

struct tf_session {
    tf_err err;
    char *warnings; /* what the caller should show, one line each (NULL: none) */
    FILE *warn;     /* the session's warnings as they are made (a memory stream, or NULL) */
    char *wbuf;     /* its text so far, and how much of it is in warnings already */
    size_t wlen, wseen;
    bool loaded;    /* tf_load: ses is valid */
    bool attached;  /* tf_attach: conf and d are valid */
    bool shim_only; /* tf_set_backend(TF_BACKEND_SHIM): the caller fences itself, no kernel */
    struct session ses;
    struct shimconf conf;
    const struct policy *policy; /* ses.pl.policy or conf.policy */
    char workspace[PATH_MAX], run_id[32], fence_dir[PATH_MAX + 1], shim[PATH_MAX];
    struct diag d;  /* tf_attach's view of the run it joined */
    char **outputs; /* tf_set_outputs, for tf_load */
    size_t noutputs;
    char **envval; /* final values of pl.env's items */
    struct tf_viol *v;
    size_t nv, cap;
    struct stat logseen; /* the log as v was read from it, when logvalid */
    bool logvalid;
    bool logabsent; /* v was read when there was no log: none is still none */
    char line[VLOG_MAX + PATH_MAX];
};

TF_PUBLIC int tf_api_version(void)
{
    return TF_API_VERSION;
}

TF_PUBLIC tf_session *tf_open(void)
{
    tf_session *s = calloc(1, sizeof *s);
    if (s)
        diag_init(&s->d);
    return s;
}

TF_PUBLIC const char *tf_error(const tf_session *s)
{
    return s->err.msg;
}

TF_PUBLIC int tf_error_kind(const tf_session *s)
{
    _Static_assert(TF_ERROR_NO_ROOT == TF_ERR_NO_ROOT, "the public kinds are err.h's");
    _Static_assert(TF_ERROR_NOT_SET_UP == TF_ERR_NOT_SET_UP, "the public kinds are err.h's");
    return (int)s->err.kind;
}

TF_PUBLIC const char *tf_warning(const tf_session *s)
{
    return s->warnings;
}

/* Keep TEXT (lines ending in "\n") for tf_warning: a library prints nothing itself, and its
 * caller's stderr may be captured (pytest's is, while the plugin starts). */
static void add_warnings(tf_session *s, const char *text)
{
    size_t old = s->warnings ? strlen(s->warnings) : 0, n = strlen(text);
    char *w = n ? realloc(s->warnings, old + n + 1) : NULL;
    if (!w)
        return;
    memcpy(w + old, text, n + 1);
    s->warnings = w;
}

/* Keep what the session warned of since the last look for tf_warning. */
static void take_warnings(tf_session *s)
{
    if (!s->warn || fflush(s->warn) != 0 || s->wlen <= s->wseen)
        return;
    add_warnings(s, s->wbuf + s->wseen);
    s->wseen = s->wlen;
}

#if TF_KERNEL_FENCE
/* The directory libtestfence.so was loaded from: the shim is installed beside it. */
static int library_dir(char *out, size_t len, tf_err *err)
{
    char real[PATH_MAX];
    Dl_info info;
    if (!dladdr((void *)tf_api_version, &info) || !info.dli_fname ||
        !realpath(info.dli_fname, real))
        return tf_errf(err, "cannot find where libtestfence.so was loaded from");
    path_dirname(out, len, real);
    return 0;
}
#endif

/* The environment the run's children get, as final values: Python sets them one by one. */
static int final_env(tf_session *s)
{
    const struct envplan *e = &s->ses.pl.env;
    s->envval = calloc(e->n + 1, sizeof *s->envval);
    if (!s->envval)
        return tf_errf(&s->err, "out of memory");
    for (size_t i = 0; i < e->n; i++) {
        char *v;
        if (envplan_value(e, environ, e->items[i].name, &v) < 0 ||
            !(s->envval[i] = v ? v : strdup("")))
            return tf_errf(&s->err, "out of memory");
    }
    return 0;
}

TF_PUBLIC int tf_set_outputs(tf_session *s, const char *const *outputs, size_t n)
{
    if (s->loaded || s->attached)
        return tf_errf(&s->err, "tf_set_outputs after tf_load");
    for (size_t i = 0; i < s->noutputs; i++)
        free(s->outputs[i]);
    free(s->outputs);
    s->noutputs = 0;
    s->outputs = calloc(n + 1, sizeof *s->outputs);
    if (!s->outputs)
        return tf_errf(&s->err, "out of memory");
    for (; s->noutputs < n; s->noutputs++)
        if (!(s->outputs[s->noutputs] = strdup(outputs[s->noutputs])))
            return tf_errf(&s->err, "out of memory");
    return 0;
}

TF_PUBLIC int tf_load(tf_session *s, const char *root, const char *config, const char *const *allow,
                      size_t nallow)
{
    if (s->loaded || s->attached)
        return tf_errf(&s->err, "this session is already loaded");
#if TF_KERNEL_FENCE
    char dir[PATH_MAX];
    tf_err shim_err = {0};
    if (library_dir(dir, sizeof dir, &s->err) < 0)
        return -1;
    if (shimconf_locate_near(dir, s->shim, sizeof s->shim, &shim_err) < 0) {
        s->shim[0] = '\0';
        char line[sizeof shim_err.msg + 80];
        snprintf(line, sizeof line,
                 "testfence: warning: %s; blocked writes of child processes will not be reported\n",
                 shim_err.msg);
        add_warnings(s, line);
    }
#endif
    /* No shim off Linux: children are fenced only when they are Pythons (the guard). */
    /* plan_request's list is not const-qualified all the way down: hand it a copy. */
    const char **list = calloc(nallow + s->noutputs + 1, sizeof *list);
    if (!list)
        return tf_errf(&s->err, "out of memory");
    for (size_t i = 0; i < nallow; i++)
        list[i] = allow[i];
    for (size_t i = 0; i < s->noutputs; i++)
        list[nallow + i] = s->outputs[i];
    /* The caller decides its status (the plugin: 120 when the tests passed but writes were
     * blocked), and empties its temp dir itself: it is fenced, and cannot remove it. */
    struct session_request req = {.plan = {.root = root,
                                           .config = config,
                                           .allow = list,
                                           .nallow = nallow,
                                           .outputs = list + nallow,
                                           .noutputs = s->noutputs,
                                           .shim = s->shim[0] ? s->shim : NULL},
                                  .backend = s->shim_only ? SESSION_PRELOAD : SESSION_LANDLOCK,
                                  .in_process = true,
                                  .allow_violations = true};
    if (!s->warn && !(s->warn = open_memstream(&s->wbuf, &s->wlen))) {
        free(list);
        return tf_errf(&s->err, "out of memory");
    }
    req.warn = s->warn;
    s->loaded = true; /* session_free is safe on a partly built plan */
    int rc = session_plan(&s->ses, &req, &s->err);
    free(list);
    take_warnings(s);
    if (rc < 0)
        return -1;
    snprintf(s->run_id, sizeof s->run_id, "%s", s->ses.pl.ws.run_id);
    s->policy = &s->ses.pl.policy;
    snprintf(s->workspace, sizeof s->workspace, "%s", s->ses.pl.ws.dir);
    policy_fence_label(s->policy, s->fence_dir, sizeof s->fence_dir);
    return final_env(s);
}

TF_PUBLIC int tf_set_backend(tf_session *s, int backend)
{
    if (s->loaded || s->attached)
        return tf_errf(&s->err, "tf_set_backend after tf_load");
    if (backend != TF_BACKEND_KERNEL && backend != TF_BACKEND_SHIM)
        return tf_errf(&s->err, "no such backend: %d", backend);
    s->shim_only = backend == TF_BACKEND_SHIM;
    return 0;
}

TF_PUBLIC int tf_check(tf_session *s)
{
    if (!s->loaded)
        return tf_errf(&s->err, "tf_check before tf_load");
    int rc = session_check(&s->ses, &s->err);
    take_warnings(s);
    return rc;
}

TF_PUBLIC int tf_fenced(tf_session *s)
{
    if (!s->loaded)
        return tf_errf(&s->err, "tf_fenced before tf_load");
#if TF_KERNEL_FENCE
    return fence_in_force(&s->ses.pl.policy, &s->err);
#else
    return 0; /* no kernel fence here: never fenced by one */
#endif
}

TF_PUBLIC int tf_prepare(tf_session *s)
{
    if (!s->loaded)
        return tf_errf(&s->err, "tf_prepare before tf_load");
    /* No seccomp guard in-process (it needs a supervisor outside the fence): the shim
     * refuses metadata changes in children itself. */
    int rc = session_start(&s->ses, &s->err);
    take_warnings(s);
    return rc;
}

#if TF_KERNEL_FENCE
/* Landlock restricts the calling thread only: a thread started before would escape. */
static int threads(void)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *t = strstr(buf, "\nThreads:");
    return t ? atoi(t + 9) : -1;
}

TF_PUBLIC int tf_fence(tf_session *s)
{
    const char *step = "";
    if (!s->loaded)
        return tf_errf(&s->err, "tf_fence before tf_load");
    if (s->shim_only)
        return tf_errf(&s->err, "tf_fence: this session's backend is not the kernel's");
    if (fence_require_complete(&s->ses.caps, &s->err) < 0)
        return -1;
    if (s->ses.ruleset_fd < 0)
        return tf_errf(&s->err, "tf_fence before tf_prepare");
    int nt = threads();
    if (nt != 1)
        return tf_errf(&s->err,
                       "cannot fence this process: it runs %d threads, and Landlock restricts "
                       "only the calling thread (something started a thread before testfence)",
                       nt);
    int e = fence_enter(s->ses.ruleset_fd, &step);
    close(s->ses.ruleset_fd);
    s->ses.ruleset_fd = -1;
    return e ? tf_errnof(&s->err, e, "%s", step) : 0;
}
#else
TF_PUBLIC int tf_fence(tf_session *s)
{
    return tf_errf(&s->err,
                   "tf_fence: %s has no kernel fence: use tf_set_backend(TF_BACKEND_SHIM) "
                   "and fence in the caller (the plugin's python backend)",
                   session_os);
}
#endif

TF_PUBLIC int tf_attach(tf_session *s, const char *workspace)
{
    char conf[PATH_MAX];
    if (s->loaded || s->attached)
        return tf_errf(&s->err, "this session is already loaded");
    if (!workspace || !platform_is_absolute(workspace) ||
        path_join(conf, sizeof conf, workspace, SHIMCONF_FILE, &s->err) < 0)
        return tf_errf(&s->err, "not a run workspace: %s", workspace ? workspace : "(null)");
    if (shimconf_load(conf, &s->conf, &s->err) < 0)
        return -1;
    s->attached = true;
    s->policy = &s->conf.policy;
    snprintf(s->workspace, sizeof s->workspace, "%s", workspace);
    policy_fence_label(s->policy, s->fence_dir, sizeof s->fence_dir);
    s->d.wsfd = open(workspace, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (s->d.wsfd < 0 || (s->d.logdir = fcntl(s->d.wsfd, F_DUPFD_CLOEXEC, 3)) < 0)
        return tf_errnof(&s->err, errno, "cannot open the run workspace %s", workspace);
    s->d.on = true;
    return 0;
}

TF_PUBLIC const char *tf_root(const tf_session *s)
{
    return s->policy ? s->policy->root : NULL;
}

TF_PUBLIC const char *tf_config_source(const tf_session *s)
{
    return s->loaded ? s->ses.pl.cfg.source : NULL;
}

TF_PUBLIC const char *tf_workspace(const tf_session *s)
{
    return s->workspace[0] ? s->workspace : NULL;
}

TF_PUBLIC const char *tf_run_id(const tf_session *s)
{
    return s->run_id[0] ? s->run_id : NULL;
}

TF_PUBLIC const char *tf_basetemp(const tf_session *s)
{
    (void)s; /* pytest's temp dirs follow TMPDIR into the run's private temp dir */
    return NULL;
}

TF_PUBLIC const char *tf_tmp(const tf_session *s)
{
    return s->loaded && s->ses.pl.tmp.dir[0] ? s->ses.pl.tmp.dir : NULL;
}

TF_PUBLIC const char *tf_output(const tf_session *s, size_t i)
{
    for (size_t k = 0; s->policy && k < s->policy->n; k++)
        if (s->policy->entries[k].origin == POLICY_OUTPUT && i-- == 0)
            return s->policy->entries[k].path;
    return NULL;
}

TF_PUBLIC const char *tf_policy_entry(const tf_session *s, size_t i, int *kind)
{
    const struct policy *p = s->policy;
    if (!p)
        return NULL;
    if (i < p->n) {
        if (kind)
            *kind = p->entries[i].is_dir ? TF_ENTRY_DIR : 0;
        return p->entries[i].path;
    }
    if ((i -= p->n) >= p->nquiet)
        return NULL;
    if (kind)
        *kind = TF_ENTRY_QUIET | (p->quiet[i].is_dir ? TF_ENTRY_DIR : 0) |
                (p->quiet[i].commands ? TF_ENTRY_COMMANDS : 0);
    return p->quiet[i].path;
}

TF_PUBLIC const char *tf_pytest_cache(const tf_session *s)
{
    return s->loaded && s->ses.pl.cfg.pytest_cache_dir ? s->ses.pl.ws.pytest_cache : NULL;
}

TF_PUBLIC const char *tf_shim(const tf_session *s)
{
    return s->shim[0] ? s->shim : NULL;
}

TF_PUBLIC const char *tf_fence_dir(const tf_session *s)
{
    return s->fence_dir[0] ? s->fence_dir : NULL;
}

TF_PUBLIC int tf_landlock_abi(const tf_session *s)
{
    return s->loaded ? s->ses.caps.abi : 0;
}

TF_PUBLIC size_t tf_env_count(const tf_session *s)
{
    return s->envval ? s->ses.pl.env.n : 0;
}

TF_PUBLIC const char *tf_env_name(const tf_session *s, size_t i)
{
    return i < tf_env_count(s) ? s->ses.pl.env.items[i].name : NULL;
}

TF_PUBLIC const char *tf_env_value(const tf_session *s, size_t i)
{
    return i < tf_env_count(s) ? s->envval[i] : NULL;
}

TF_PUBLIC int tf_path_check_at(tf_session *s, int dirfd, const char *path, int flags,
                               char *resolved, size_t len)
{
    struct path_res res;
    unsigned f =
        (flags & TF_PATH_NOFOLLOW ? PATH_NOFOLLOW : 0) | (flags & TF_PATH_EMPTY ? PATH_EMPTY : 0);
    if (!s->policy)
        return tf_errf(&s->err, "tf_path_check before tf_load or tf_attach");
    int rc = path_resolve_at(NULL, dirfd, path ? path : "", f, &res, &s->err);
    if (resolved && len)
        snprintf(resolved, len, "%s%s",
                 rc == 0 ? res.path
                 : path  ? path
                         : "",
                 rc == 0 && res.beneath ? "/..." : "");
    if (rc < 0)
        return -1;
    /* The caller is Python, never git: a git subcommand's quiet state is not its. */
    struct policy_decision d;
    switch (policy_decide(s->policy, &res, NULL, 0, &d)) {
    case POLICY_ALLOWED:
    case POLICY_NO_TARGET:
        return TF_PATH_WRITABLE;
    case POLICY_QUIET:
        return TF_PATH_QUIET;
    case POLICY_BLOCKED:
        break;
    }
    return TF_PATH_OUTSIDE;
}

TF_PUBLIC int tf_path_check(tf_session *s, const char *path, int nofollow, char *resolved,
                            size_t len)
{
    if (!path || !path[0])
        return tf_errf(&s->err, "empty path");
    return tf_path_check_at(s, AT_FDCWD, path, nofollow ? TF_PATH_NOFOLLOW : 0, resolved, len);
}

/* The directories tf_files_inside has asked about, each as '1' (inside) or '0' and its path. */
struct dir_cache {
    char **v;
    size_t n, cap;
};

static bool verdict_inside(int v)
{
    return v == TF_PATH_WRITABLE || v < 0; /* what cannot be told counts as inside */
}

/* Is directory DIR inside the writable set? Asked once per directory: a few dozen for the
 * few hundred modules pytest has imported. */
static bool dir_inside(tf_session *s, const char *dir, struct dir_cache *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i] + 1, dir) == 0)
            return c->v[i][0] == '1';
    bool in = verdict_inside(tf_path_check_at(s, AT_FDCWD, dir, 0, NULL, 0));
    char **v = vec_grow(c->v, &c->cap, c->n, sizeof *c->v);
    size_t len = strlen(dir) + 2;
    char *entry = v ? malloc(len) : NULL;
    if (entry) { /* else not cached: asked again next time */
        snprintf(entry, len, "%c%s", in ? '1' : '0', dir);
        c->v = v;
        c->v[c->n++] = entry;
    } else if (v) {
        c->v = v;
    }
    return in;
}

/* Is the file at PATH (absolute; cut in place) where a test could have written it? A plain
 * file is where its directory is; a link, or a path that is gone or lies inside a zip
 * archive, is asked of its nearest existing part, the link followed. */
static bool file_inside(tf_session *s, char *path, struct dir_cache *c)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        char *slash = strrchr(path, '/');
        *slash = '\0';
        if (!path[0] || platform_is_top(path)) /* "/x", "C:/x": in "/", "C:/" */
            slash[0] = '/', slash[1] = '\0';
        return dir_inside(s, path, c);
    }
    for (char *slash; lstat(path, &st) < 0 && (slash = strrchr(path, '/')) && slash != path;) {
        *slash = '\0';
        if (platform_is_top(path)) { /* "C:" (Windows): its top is "C:/" */
            slash[0] = '/', slash[1] = '\0';
            break;
        }
    }
    return verdict_inside(tf_path_check_at(s, AT_FDCWD, path, 0, NULL, 0));
}

TF_PUBLIC int tf_files_inside(tf_session *s, const char *paths, size_t len, unsigned char *inside,
                              size_t n)
{
    struct dir_cache c = {0};
    char path[PATH_MAX];
    size_t i = 0, off = 0;
    if (!s->policy)
        return tf_errf(&s->err, "tf_files_inside before tf_load or tf_attach");
    for (; i < n && off < len; i++) {
        size_t l = strnlen(paths + off, len - off);
        if (l == len - off)
            break; /* not ended by a NUL */
        if (!platform_is_absolute(paths + off))
            inside[i] = 0; /* no file name at all: a frozen or built-in module's */
        else if (l >= sizeof path)
            inside[i] = 1; /* too long to ask: cannot be told */
        else {
            memcpy(path, paths + off, l + 1);
            platform_separators(path); /* Windows: a module's C:\proj\x.py */
            inside[i] = file_inside(s, path, &c);
        }
        off += l + 1;
    }
    for (size_t j = 0; j < c.n; j++)
        free(c.v[j]);
    free(c.v);
    return i == n ? 0 : tf_errf(&s->err, "tf_files_inside: %zu paths given, %zu expected", i, n);
}

TF_PUBLIC int tf_ioctl_class(unsigned long request)
{
#if !TF_KERNEL_FENCE
    (void)request;
    return TF_IOCTL_JUDGED; /* judged by the file it is made on */
#else
    switch (ioctl_classify(request)) {
    case IOCTL_HARMLESS:
        return TF_IOCTL_HARMLESS;
    case IOCTL_REFUSED:
        return TF_IOCTL_REFUSED;
    default:
        return TF_IOCTL_JUDGED;
    }
#endif
}

TF_PUBLIC const char *tf_test_split(const char *value, size_t *test_len)
{
    return testvar_split(value, test_len);
}

TF_PUBLIC int tf_record_at(tf_session *s, const char *op, const char *path, const char *resolved,
                           int err, int by_us, const char *test, const char *phase,
                           const char *src_file, long src_line, const char *src_func,
                           const char *test_file, long test_line)
{
    char logp[PATH_MAX], line[VLOG_MAX];
    struct vlog_self self;
    struct vlog_record r;
    if (!s->workspace[0])
        return tf_errf(&s->err, "tf_record without a workspace");
    vlog_record_self(&r, &self);
    r.test = test && test[0] ? test : NULL;
    r.phase = phase && phase[0] ? phase : NULL;
    r.op = op;
    r.path = path ? path : "";
    r.resolved = resolved;
    r.err = err;
    r.blocked_by = by_us ? "shim" : "kernel";
    r.src_file = src_file;
    r.src_line = src_line;
    r.src_func = src_func;
    r.test_file = test_file;
    r.test_line = test_line;
    if (path_join(logp, sizeof logp, s->workspace, SHIMCONF_LOG, &s->err) < 0)
        return -1;
    size_t len = vlog_format(line, sizeof line, &r);
    int e = vlog_append(logp, line, len);
    return e ? tf_errnof(&s->err, e, "cannot append to %s", logp) : 0;
}

TF_PUBLIC int tf_record(tf_session *s, const char *op, const char *path, const char *resolved,
                        int err, int by_us, const char *test, const char *phase)
{
    return tf_record_at(s, op, path, resolved, err, by_us, test, phase, NULL, 0, NULL, NULL, 0);
}

static void viol_free(struct tf_viol *v)
{
    char **f[] = {&v->time,       &v->test, &v->phase,    &v->op,       &v->path,     &v->resolved,
                  &v->blocked_by, &v->exe,  &v->src_file, &v->src_func, &v->test_file};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        free(*f[i]);
}

static void viols_clear(tf_session *s)
{
    for (size_t i = 0; i < s->nv; i++)
        viol_free(&s->v[i]);
    s->nv = 0;
}

static char *dup_or_null(const char *p, bool *oom)
{
    char *d = p ? strdup(p) : NULL;
    if (p && !d)
        *oom = true;
    return d;
}

static int collect(const struct vlog_record *r, void *ctx)
{
    tf_session *s = ctx;
    struct tf_viol *nv = vec_grow(s->v, &s->cap, s->nv, sizeof *nv);
    if (!nv)
        return -1;
    s->v = nv;
    bool oom = false;
    struct tf_viol v = {.time = dup_or_null(r->time, &oom),
                        .test = dup_or_null(r->test, &oom),
                        .phase = dup_or_null(r->phase, &oom),
                        .op = dup_or_null(r->op, &oom),
                        .path = dup_or_null(r->path, &oom),
                        .resolved = dup_or_null(r->resolved, &oom),
                        .blocked_by = dup_or_null(r->blocked_by, &oom),
                        .exe = dup_or_null(r->exe, &oom),
                        .src_file = dup_or_null(r->src_file, &oom),
                        .src_func = dup_or_null(r->src_func, &oom),
                        .test_file = dup_or_null(r->test_file, &oom),
                        .pid = r->pid,
                        .src_line = r->src_line,
                        .test_line = r->test_line,
                        .err = r->err};
    if (oom) {
        viol_free(&v);
        return -1;
    }
    s->v[s->nv++] = v;
    return 0;
}

/* The diagnostics of the run this session prepared, or of the one it attached to. */
static struct diag *diag_of(tf_session *s)
{
    return s->loaded ? &s->ses.d : &s->d;
}

/* The same file, of the same size and time? The log is only appended to. */
static bool same_file(const struct stat *a, const struct stat *b)
{
#if TF_KERNEL_FENCE
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
#else
    /* Whole seconds only (Windows' C runtime; st_mtim is not macOS's name): a record within
     * the second is seen by its size. */
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtime == b->st_mtime;
#endif
}

/* The plugin asks after every test phase, and the log is mostly as it was: then one stat,
 * not a read. What was stat'ed before the read may be older than what was read (a record
 * appended between): then the next call reads again, which is only slower. */
TF_PUBLIC long tf_violations_load(tf_session *s)
{
    struct vlog_stats st = {0};
    struct stat now;
    int wsfd = diag_of(s)->wsfd;
    if (wsfd < 0)
        return tf_errf(&s->err, "no run workspace is open");
    bool known = fstatat(wsfd, SHIMCONF_LOG, &now, AT_SYMLINK_NOFOLLOW) == 0;
    bool absent = !known && errno == ENOENT;
    if (known && s->logvalid && same_file(&now, &s->logseen))
        return (long)s->nv;
    /* A clean run has no log at all: without this, each of its test phases tried to open it
     * (an openat failing ENOENT, some 900 in a 300-test suite) to learn there was none. */
    if (absent && s->logabsent)
        return (long)s->nv;
    viols_clear(s);
    s->logvalid = s->logabsent = false;
    if (vlog_read(wsfd, SHIMCONF_LOG, REPORT_MAX_LOG, collect, s, &st, &s->err) < 0)
        return -1;
    s->logseen = now;
    s->logvalid = known;
    s->logabsent = absent && s->nv == 0; /* made since the stat: read again next time */
    return (long)s->nv;
}

TF_PUBLIC const char *tf_violation_str(const tf_session *s, size_t i, const char *field)
{
    if (i >= s->nv || !field)
        return NULL;
    const struct tf_viol *v = &s->v[i];
    const struct {
        const char *name, *val;
    } f[] = {{"time", v->time},
             {"test", v->test},
             {"phase", v->phase},
             {"op", v->op},
             {"path", v->path},
             {"resolved", v->resolved},
             {"blocked_by", v->blocked_by},
             {"exe", v->exe},
             {"src_file", v->src_file},
             {"src_func", v->src_func},
             {"test_file", v->test_file}};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        if (!strcmp(field, f[k].name))
            return f[k].val;
    if (!strcmp(field, "error")) {
        static __thread char name[32];
        return vlog_errname(v->err, name, sizeof name);
    }
    return NULL;
}

TF_PUBLIC long tf_violation_int(const tf_session *s, size_t i, const char *field)
{
    if (i >= s->nv || !field)
        return -1;
    if (!strcmp(field, "pid"))
        return s->v[i].pid;
    if (!strcmp(field, "errno"))
        return s->v[i].err;
    if (!strcmp(field, "src_line"))
        return s->v[i].src_line;
    if (!strcmp(field, "test_line"))
        return s->v[i].test_line;
    return -1;
}

TF_PUBLIC const char *tf_violation_line(tf_session *s, size_t i)
{
    if (i >= s->nv)
        return NULL;
    const struct tf_viol *v = &s->v[i];
    struct hint_who who = {.test = v->test,
                           .exe = v->exe,
                           .pid = v->pid,
                           .op = v->op,
                           .protected = v->blocked_by && !strcmp(v->blocked_by, "protect"),
                           .src_file = v->src_file,
                           .src_line = v->src_line,
                           .src_func = v->src_func,
                           .test_file = v->test_file,
                           .test_line = v->test_line};
    int k = hint_violation_line(s->line, sizeof s->line, &who, v->resolved, s->fence_dir,
                                tf_root(s), getenv("HOME"));
    if (k < 0)
        s->line[0] = '\0';
    return s->line;
}

TF_PUBLIC char *tf_planted(tf_session *s, int *count)
{
    char *text = NULL;
    size_t len = 0;
    *count = 0;
    if (!s->loaded || diag_of(s)->wsfd < 0) {
        tf_errf(&s->err, "tf_planted before tf_prepare");
        return NULL;
    }
    FILE *f = open_memstream(&text, &len);
    if (!f) { /* fail closed: what cannot be checked counts as planted (tf_status says 120) */
        s->ses.hazards_checked = true;
        s->ses.planted = *count = 1;
        tf_errf(&s->err, "out of memory");
        return NULL;
    }
    *count = session_left_hazards(&s->ses, f);
    fclose(f);
    return text;
}

TF_PUBLIC char *tf_summary(tf_session *s, int status)
{
    char *text = NULL;
    size_t len = 0;
    struct diag *d = diag_of(s);
    if (d->wsfd < 0) {
        tf_errf(&s->err, "no run workspace is open");
        return NULL;
    }
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        tf_errf(&s->err, "out of memory");
        return NULL;
    }
    if (s->loaded) { /* session_finish: what the run left is checked too (once: tf_planted) */
        session_finish(&s->ses, f, NULL, status);
        take_warnings(s);
    } else { /* joined a run another process owns: its report, written with these records */
        struct report_run run = {.run_id = s->run_id,
                                 .root = tf_root(s),
                                 .workspace = s->workspace,
                                 .backend = "landlock",
                                 .home = getenv("HOME"),
                                 .command_status = status,
                                 .status = status};
        diag_finish(d, f, &run, true, false);
    }
    fclose(f);
    return text;
}

/* The workspace the log is in was removed (by a test): what was blocked went with it. A
 * workspace that cannot be asked counts as gone (fail closed). */
static bool log_gone(tf_session *s)
{
    struct stat st;
    return fstat(diag_of(s)->wsfd, &st) != 0 || st.st_nlink == 0;
}

TF_PUBLIC int tf_status(tf_session *s, int status)
{
    long n = tf_violations_load(s);
    if (n < 0)
        return -1;
    bool planted = s->loaded && s->ses.hazards_checked && s->ses.planted > 0;
    bool tampered = log_gone(s) || diag_conf_changed(diag_of(s));
    return status == 0 && (n > 0 || planted || tampered) ? TF_EXIT_VIOLATIONS : status;
}

TF_PUBLIC int tf_fails_first(const char *op, int oflags, const char *resolved, int source_dirfd,
                             const char *source)
{
    return fails_first(op, oflags, resolved, source_dirfd, source) ? 1 : 0;
}

TF_PUBLIC int tf_end_tmp(tf_session *s, int keep)
{
    if (!s->loaded)
        return tf_errf(&s->err, "tf_end_tmp before tf_load");
    if (keep < TF_TMP_REMOVE || keep > TF_TMP_KEEP_FAILED)
        return tf_errf(&s->err, "tf_end_tmp: keep %d is none of TF_TMP_*", keep);
    s->ses.req.keep_tmp = keep == TF_TMP_REMOVE ? KEEP_TMP_NEVER
                          : keep == TF_TMP_KEEP ? KEEP_TMP_ALWAYS
                                                : KEEP_TMP_ON_FAILURE;
    int rc = session_end_tmp(&s->ses, keep == TF_TMP_KEEP_FAILED, &s->err);
    take_warnings(s);
    return rc;
}

TF_PUBLIC void tf_free(void *p)
{
    free(p);
}

TF_PUBLIC void tf_close(tf_session *s)
{
    if (!s)
        return;
    if (s->loaded)
        session_free(&s->ses);
    if (s->attached)
        policy_free(&s->conf.policy);
    if (s->envval)
        for (size_t i = 0; s->envval[i]; i++)
            free(s->envval[i]);
    free(s->envval);
    viols_clear(s);
    free(s->v);
    free(s->warnings);
    if (s->warn)
        fclose(s->warn);
    free(s->wbuf);
    diag_close(&s->d);
    for (size_t i = 0; i < s->noutputs; i++)
        free(s->outputs[i]);
    free(s->outputs);
    free(s);
}
