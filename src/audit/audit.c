#include "audit.h"

#include "audit_cache.h"
#include "audit_project.h"
#include "base/vec.h"
#include "core/walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Sources larger than this are not read (the parser's offsets are 32-bit). */
#define AUDIT_MAX_FILE (1u << 30)

/* Bump when the facts a front end produces change meaning: cached facts of another version
 * are never used. */
#define AUDIT_FACTS_VERSION "facts-1"

#ifndef TESTFENCE_VERSION
#define TESTFENCE_VERSION "0.0.0"
#endif

/* ---- the result ---- */

static bool grow(void **v, size_t *cap, size_t n, size_t size)
{
    void *nv = vec_grow(*v, cap, n, size);
    if (nv)
        *v = nv;
    return nv != NULL;
}

char *tf_audit_keep(tf_audit_result *res, const char *s)
{
    if (!grow((void **)&res->strings, &res->cap_strings, res->n_strings, sizeof(char *)))
        return NULL;
    char *copy = strdup(s);
    if (copy)
        res->strings[res->n_strings++] = copy;
    return copy;
}

static void add_line(char ***v, size_t *n, size_t *cap, const char *msg)
{
    if (!grow((void **)v, cap, *n, sizeof(char *)))
        return;
    char *copy = strdup(msg);
    if (copy)
        (*v)[(*n)++] = copy;
}

void tf_audit_error(tf_audit_result *res, const char *msg)
{
    add_line(&res->errors, &res->n_errors, &res->cap_errors, msg);
}

void tf_audit_note(tf_audit_result *res, const char *msg)
{
    add_line(&res->notes, &res->n_notes, &res->cap_notes, msg);
}

tf_finding *tf_audit_add(tf_audit_result *res, const tf_audit_cfg *cfg, tf_rule_id rule)
{
    if (!(cfg->rules & (1u << rule)))
        return NULL;
    if (!grow((void **)&res->findings, &res->cap_findings, res->n_findings, sizeof(tf_finding)))
        return NULL;
    tf_finding *f = &res->findings[res->n_findings++];
    memset(f, 0, sizeof *f);
    f->rule = rule;
    return f;
}

/* ---- the files ---- */

typedef struct file_list {
    tf_audit_file *v;
    size_t n, cap;
} file_list;

/* PATH absolute and normalised (lexically: the audit of a tree does not depend on links). */
static bool absolute(const char *path, char *out, size_t len)
{
    char cwd[PATH_MAX], joined[PATH_MAX * 2];
    if (path[0] == '/')
        snprintf(joined, sizeof joined, "%s", path);
    else if (getcwd(cwd, sizeof cwd))
        snprintf(joined, sizeof joined, "%s/%s", cwd, path);
    else
        return false;
    return tf_path_normalise(joined, out, len);
}

/* Which tests directory does the file at ABSDIR belong to? The project's, when it is inside
 * it; else the nearest enclosing "tests"/"test" directory (a suite audited from outside its
 * project); else the file's own directory. */
static void find_anchor(const tf_audit_cfg *cfg, const char *absdir, char *out, size_t len)
{
    char joined[PATH_MAX * 2], tests[PATH_MAX];
    snprintf(joined, sizeof joined, "%s/%s", cfg->root, cfg->tests_dir);
    if (tf_path_normalise(joined, tests, sizeof tests) && tf_path_within(absdir, tests)) {
        snprintf(out, len, "%s", tests);
        return;
    }
    snprintf(out, len, "%s", absdir);
    for (char *end = out + strlen(out); end > out; end--) {
        if (end[0] != '\0' && end[0] != '/')
            continue;
        char *start = end;
        while (start > out && start[-1] != '/')
            start--;
        size_t n = (size_t)(end - start);
        if ((n == 5 && !strncmp(start, "tests", 5)) || (n == 4 && !strncmp(start, "test", 4))) {
            *end = '\0';
            return;
        }
    }
    snprintf(out, len, "%s", absdir);
}

/* The dotted module name of ABS (a .py file) through the packages (__init__.py) above it. */
static char *module_name(const char *abs)
{
    char dir[PATH_MAX], name[PATH_MAX] = "", probe[PATH_MAX + 16];
    const char *base = strrchr(abs, '/') + 1;
    snprintf(dir, sizeof dir, "%.*s", (int)(base - abs - 1), abs);
    if (strcmp(base, "__init__.py"))
        snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 3), base);
    for (int depth = 0; depth < 32 && dir[0]; depth++) {
        struct stat st;
        snprintf(probe, sizeof probe, "%s/__init__.py", dir);
        if (stat(probe, &st) < 0 || !S_ISREG(st.st_mode))
            break;
        char *slash = strrchr(dir, '/');
        char joined[PATH_MAX * 2];
        int w = snprintf(joined, sizeof joined, "%s%s%s", slash ? slash + 1 : dir,
                         name[0] ? "." : "", name);
        if (w < 0 || (size_t)w >= sizeof name)
            break;
        memcpy(name, joined, (size_t)w + 1);
        if (!slash)
            break;
        *slash = '\0';
    }
    return strdup(name[0] ? name : base);
}

static int list_add(const tf_audit_cfg *cfg, file_list *fl, const char *path, bool named,
                    bool context, tf_err *err)
{
    char abs[PATH_MAX], anchor[PATH_MAX];
    if (!absolute(path, abs, sizeof abs))
        return tf_errf(err, "audit: %s: path too long", path);
    if (!grow((void **)&fl->v, &fl->cap, fl->n, sizeof *fl->v))
        return tf_errf(err, "audit: out of memory");
    tf_audit_file *f = &fl->v[fl->n];
    memset(f, 0, sizeof *f);
    size_t n = strlen(cfg->root);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", abs);
    char *slash = strrchr(dir, '/');
    slash[slash == dir] = '\0';
    find_anchor(cfg, dir, anchor, sizeof anchor);
    f->path = strdup(path);
    f->absdir = strdup(dir);
    f->anchor = strdup(anchor);
    f->rel = tf_path_within(abs, cfg->root) && abs[n] == '/' ? strdup(abs + n + 1) : NULL;
    f->module = module_name(abs);
    f->named = named;
    f->context = context;
    fl->n++;
    if (!f->path || !f->absdir || !f->anchor || !f->module)
        return tf_errf(err, "audit: out of memory");
    f->name = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
    return 0;
}

static void file_free(tf_audit_file *f)
{
    free(f->path);
    free(f->rel);
    free(f->absdir);
    free(f->anchor);
    free(f->module);
    tf_facts_free(&f->facts);
}

/* Is ABS beneath an excluded path? */
static bool is_excluded(const tf_audit_cfg *cfg, const char *path)
{
    char abs[PATH_MAX];
    if (cfg->n_excludes == 0 || !absolute(path, abs, sizeof abs))
        return false;
    for (size_t i = 0; i < cfg->n_excludes; i++)
        if (tf_path_within(abs, cfg->excludes[i]))
            return true;
    return false;
}

/* Hidden directories, caches and dependency trees are never test sources. */
static bool skip_dir(const char *name)
{
    return name[0] == '.' || !strcmp(name, "__pycache__") || !strcmp(name, "node_modules");
}

typedef struct walk_ctx {
    const tf_audit_cfg *cfg;
    const tf_audit_lang *lang;
    file_list *fl;
    tf_audit_result *res;
    tf_err *err;
} walk_ctx;

/* A directory walk: the files the language reads. A symlink to a file is read (a test runner
 * would import it); a symlink to a directory is not followed, and the user is told. */
static int visit(void *ctx, struct walk_entry *e)
{
    walk_ctx *w = ctx;
    struct stat st;
    char msg[PATH_MAX + 96];
    if (is_excluded(w->cfg, e->path))
        return 0;
    if (e->type == DT_DIR ||
        (e->type == DT_UNKNOWN && fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISDIR(st.st_mode)))
        return skip_dir(e->name) ? 0 : 1;
    bool link = e->type == DT_LNK ||
                (e->type == DT_UNKNOWN &&
                 fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode));
    if (link && fstatat(e->dirfd, e->name, &st, 0) == 0 && S_ISDIR(st.st_mode)) {
        if (!skip_dir(e->name)) {
            snprintf(msg, sizeof msg, "%s: a symlink to a directory, not followed", e->path);
            tf_audit_note(w->res, msg);
        }
        return 0;
    }
    if (!w->lang->matches(e->name))
        return 0;
    if (link && fstatat(e->dirfd, e->name, &st, 0) < 0) {
        snprintf(msg, sizeof msg, "%s: a symlink to nothing (%s)", e->path, strerror(errno));
        tf_audit_error(w->res, msg);
        return 0;
    }
    return list_add(w->cfg, w->fl, e->path, false, false, w->err) < 0 ? -1 : 0;
}

static int walk_problem(void *ctx, const struct walk_entry *dir, enum walk_problem what, int e)
{
    walk_ctx *w = ctx;
    char msg[PATH_MAX + 96];
    snprintf(msg, sizeof msg, "%s: %s", dir->path,
             what == WALK_TOO_DEEP ? "too deep, not walked" : strerror(e));
    tf_audit_error(w->res, msg);
    return 0;
}

static int walk_tree(walk_ctx *w, const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        char msg[PATH_MAX + 64];
        snprintf(msg, sizeof msg, "%s: %s", dir, strerror(errno));
        tf_audit_error(w->res, msg);
        return 0;
    }
    struct walk_ops ops = {.visit = visit, .problem = walk_problem, .max_depth = 64};
    size_t len = strlen(dir);
    char start[PATH_MAX];
    snprintf(start, sizeof start, "%.*s", (int)(len > 1 && dir[len - 1] == '/' ? len - 1 : len),
             dir);
    return walk_fd(fd, start, 0, &ops, w);
}

/* The conftest.py files from each scanned path's directory up to the root: pytest loads them
 * for every test below, so their fixtures and autouse fixtures apply. */
static int add_context(const tf_audit_cfg *cfg, const tf_audit_lang *lang, file_list *fl,
                       char *const *paths, size_t n, tf_err *err)
{
    for (size_t i = 0; i < n; i++) {
        char dir[PATH_MAX];
        struct stat st;
        if (!absolute(paths[i], dir, sizeof dir))
            continue;
        char *cut = strrchr(dir, '/');
        if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode) && cut)
            cut[cut == dir] = '\0'; /* a file: its directory */
        while (tf_path_within(dir, cfg->root)) {
            char probe[PATH_MAX + 16];
            snprintf(probe, sizeof probe, "%s/conftest.py", dir);
            bool have = false;
            for (size_t k = 0; k < fl->n && !have; k++) {
                char abs[PATH_MAX];
                have = absolute(fl->v[k].path, abs, sizeof abs) && !strcmp(abs, probe);
            }
            if (!have && lang->matches(probe) && stat(probe, &st) == 0 && S_ISREG(st.st_mode) &&
                list_add(cfg, fl, probe, false, true, err) < 0)
                return -1;
            char *slash = strrchr(dir, '/');
            if (!slash || slash == dir || !strcmp(dir, cfg->root))
                break;
            *slash = '\0';
        }
    }
    return 0;
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const tf_audit_file *)a)->path, ((const tf_audit_file *)b)->path);
}

/* Named files are audited whatever their extension (and even when excluded: naming a file
 * is explicit); directories are walked. */
static int collect(const tf_audit_cfg *cfg, const tf_audit_lang *lang, char *const *paths, size_t n,
                   file_list *fl, tf_audit_result *res, tf_err *err)
{
    walk_ctx w = {cfg, lang, fl, res, err};
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) < 0) {
            char msg[PATH_MAX + 64];
            snprintf(msg, sizeof msg, "%s: %s", paths[i], strerror(errno));
            tf_audit_error(res, msg);
        } else if (S_ISDIR(st.st_mode)) {
            if (walk_tree(&w, paths[i]) < 0)
                return -1;
        } else if (list_add(cfg, fl, paths[i], true, false, err) < 0) {
            return -1;
        }
    }
    if (add_context(cfg, lang, fl, paths, n, err) < 0)
        return -1;
    if (fl->n) /* qsort's base must not be NULL, even for zero elements */
        qsort(fl->v, fl->n, sizeof *fl->v, cmp_file);
    return 0;
}

/* ---- reading and scanning ---- */

/* Read a regular file without ever blocking (a FIFO or a device named as a path). */
static char *read_all(const char *path, size_t *len, char *msg, size_t msglen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(msg, msglen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > AUDIT_MAX_FILE) {
        snprintf(msg, msglen, "%s: %s", path,
                 S_ISREG(st.st_mode) ? "larger than 1 GiB, not audited" : "not a regular file");
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap);
    ssize_t r = 0;
    while (buf && n < cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    int saved = errno;
    close(fd);
    if (!buf || r < 0) {
        snprintf(msg, msglen, "%s: %s", path, buf ? strerror(saved) : "out of memory");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

typedef struct audit_job {
    const tf_audit_cfg *cfg;
    const tf_audit_lang *lang;
    file_list *files;
    const char *salt;
    atomic_size_t *next;
    tf_audit_result res; /* this worker's errors and counts, merged after the join */
    int rc;
    tf_err err;
} audit_job;

static int scan_file(audit_job *job, tf_audit_file *f, const char *src, size_t len)
{
    tf_cache_key key;
    if (job->cfg->cache_dir) {
        key = tf_cache_key_of(src, len, job->salt);
        if (tf_cache_get(job->cfg->cache_dir, &key, &f->facts)) {
            job->res.n_cached++;
            return 0;
        }
    }
    if (tf_facts_init(&f->facts) < 0 ||
        job->lang->scan(src, len, job->cfg->artifacts_dir, &f->facts) < 0)
        return tf_errf(&job->err, "audit: %s: out of memory", f->path);
    if (job->cfg->cache_dir)
        tf_cache_put(job->cfg->cache_dir, &key, &f->facts);
    return 0;
}

static void *worker(void *arg)
{
    audit_job *job = arg;
    size_t i;
    while (job->rc == 0 && (i = atomic_fetch_add(job->next, 1)) < job->files->n) {
        tf_audit_file *f = &job->files->v[i];
        char msg[PATH_MAX + 128];
        size_t len;
        char *src = read_all(f->path, &len, msg, sizeof msg);
        if (!src) {
            if (!f->context)
                tf_audit_error(&job->res, msg);
            continue;
        }
        job->rc = scan_file(job, f, src, len);
        f->scanned = job->rc == 0;
        f->bytes = len;
        free(src);
    }
    return NULL;
}

static int run_jobs(audit_job *jobs, int n, tf_err *err)
{
    pthread_t tid[64];
    int started = 0;
    for (; started < n - 1; started++)
        if (pthread_create(&tid[started], NULL, worker, &jobs[started + 1]) != 0)
            break;
    worker(&jobs[0]); /* the calling thread works too; it also covers failed starts */
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    for (int i = 0; i < n; i++)
        if (jobs[i].rc < 0)
            return tf_errf(err, "%s", jobs[i].err.msg);
    return 0;
}

/* The cache key's salt: the facts' version and layout, and the configuration they use. */
static void cache_salt(const tf_audit_cfg *cfg, char *out, size_t len)
{
    snprintf(out, len, "%s %s %zu/%zu/%zu/%zu artifacts=%s", TESTFENCE_VERSION, AUDIT_FACTS_VERSION,
             sizeof(tf_fact), sizeof(tf_state), sizeof(tf_func), sizeof(tf_fpath),
             cfg->artifacts_dir ? cfg->artifacts_dir : "");
}

/* Move the workers' errors and counts into RES. */
static void merge(tf_audit_result *to, tf_audit_result *from)
{
    for (size_t i = 0; i < from->n_errors; i++)
        tf_audit_error(to, from->errors[i]);
    to->n_cached += from->n_cached;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Keep the paths findings point into, for the result's lifetime. */
static void keep_paths(tf_audit_result *res)
{
    for (size_t i = 0; i < res->n_findings; i++) {
        tf_finding *f = &res->findings[i];
        f->path = tf_audit_keep(res, f->path);
        f->rel = f->rel ? tf_audit_keep(res, f->rel) : NULL;
        if (!f->path)
            f->path = "?";
    }
}

static void count_files(const file_list *fl, tf_audit_result *res)
{
    for (size_t i = 0; i < fl->n; i++) {
        const tf_audit_file *f = &fl->v[i];
        if (f->context || !f->scanned)
            continue;
        if (f->collected) {
            res->n_files++;
            res->n_bytes += f->bytes;
        } else {
            res->n_skipped++;
        }
    }
}

int tf_audit_run(const tf_audit_cfg *cfg, const tf_audit_lang *lang, char *const *paths,
                 size_t n_paths, int jobs, tf_audit_result *res, tf_err *err)
{
    file_list fl = {0};
    char salt[256];
    cache_salt(cfg, salt, sizeof salt);
    int rc = collect(cfg, lang, paths, n_paths, &fl, res, err);
    jobs = jobs < 1 ? 1 : jobs > 64 ? 64 : jobs;
    if ((size_t)jobs > fl.n)
        jobs = fl.n ? (int)fl.n : 1;
    atomic_size_t next = 0;
    audit_job job[64];
    for (int i = 0; i < jobs; i++)
        job[i] = (audit_job){.cfg = cfg, .lang = lang, .files = &fl, .salt = salt, .next = &next};
    if (rc == 0)
        rc = run_jobs(job, jobs, err);
    for (int i = 0; i < jobs; i++) {
        merge(res, &job[i].res);
        tf_audit_result_free(&job[i].res);
    }
    if (rc == 0)
        rc = tf_audit_project(cfg, lang, fl.v, fl.n, res, err);
    if (rc == 0) {
        count_files(&fl, res);
        keep_paths(res);
        tf_audit_sort(res);
        if (res->n_errors)
            qsort(res->errors, res->n_errors, sizeof *res->errors, cmp_str);
    }
    for (size_t i = 0; i < fl.n; i++)
        file_free(&fl.v[i]);
    free(fl.v);
    return rc;
}

int tf_audit_source(const tf_audit_cfg *cfg, const tf_audit_lang *lang, const char *path,
                    const char *src, size_t len, tf_audit_result *res, tf_err *err)
{
    file_list fl = {0};
    int rc = list_add(cfg, &fl, path, true, false, err);
    tf_audit_cfg nocache = *cfg;
    nocache.cache_dir = NULL;
    if (rc == 0) {
        audit_job job = {.cfg = &nocache, .lang = lang, .files = &fl, .salt = ""};
        rc = scan_file(&job, &fl.v[0], src, len);
        if (rc < 0)
            tf_errf(err, "%s", job.err.msg);
        fl.v[0].scanned = rc == 0;
        fl.v[0].bytes = len;
        if (rc == 0)
            rc = tf_audit_project(cfg, lang, fl.v, fl.n, res, err);
        if (rc == 0) {
            count_files(&fl, res);
            keep_paths(res);
        }
    }
    for (size_t i = 0; i < fl.n; i++)
        file_free(&fl.v[i]);
    free(fl.v);
    return rc;
}

static int cmp_finding(const void *pa, const void *pb)
{
    const tf_finding *a = pa, *b = pb;
    int c = strcmp(a->path, b->path);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return (int)a->rule - (int)b->rule;
}

void tf_audit_sort(tf_audit_result *res)
{
    if (res->n_findings)
        qsort(res->findings, res->n_findings, sizeof *res->findings, cmp_finding);
    size_t out = 0;
    for (size_t i = 0; i < res->n_findings; i++)
        if (out == 0 || cmp_finding(&res->findings[out - 1], &res->findings[i]) != 0)
            res->findings[out++] = res->findings[i];
    res->n_findings = out;
    res->n_suppressed = 0;
    for (size_t i = 0; i < out; i++)
        res->n_suppressed += res->findings[i].suppressed;
}

void tf_audit_result_free(tf_audit_result *res)
{
    for (size_t i = 0; i < res->n_strings; i++)
        free(res->strings[i]);
    for (size_t i = 0; i < res->n_errors; i++)
        free(res->errors[i]);
    for (size_t i = 0; i < res->n_notes; i++)
        free(res->notes[i]);
    free(res->strings);
    free(res->errors);
    free(res->notes);
    free(res->findings);
    memset(res, 0, sizeof *res);
}
