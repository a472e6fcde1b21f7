#include "audit.h"

#include "base/vec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* A `# testfence: ignore[...]` comment: applies to findings on its line (or
 * whose call spans it), and to the next line when it stands alone on its line. */
typedef struct audit_supp {
    int line;
    bool own_line;
    unsigned rules;
} audit_supp;

struct tf_audit_file {
    const tf_audit_cfg *cfg;
    tf_audit_result *res;
    const char *path, *rel;
    char absdir[PATH_MAX]; /* the file's directory, absolute and normalised */
    char anchor[PATH_MAX]; /* the tests directory the file belongs to */
    size_t first;          /* index of this file's first finding in res */
    audit_supp *supp;
    size_t n_supp, cap_supp;
    bool syntax_seen, oom;
};

/* Room for element N of *V (see vec_grow); false when out of memory. */
static bool grow(void **v, size_t *cap, size_t n, size_t size)
{
    void *nv = vec_grow(*v, cap, n, size);
    if (nv)
        *v = nv;
    return nv != NULL;
}

static char *res_keep(tf_audit_result *res, const char *s)
{
    if (!grow((void **)&res->strings, &res->cap_strings, res->n_strings, sizeof(char *)))
        return NULL;
    char *copy = strdup(s);
    if (copy)
        res->strings[res->n_strings++] = copy;
    return copy;
}

static void res_error(tf_audit_result *res, const char *msg)
{
    if (!grow((void **)&res->errors, &res->cap_errors, res->n_errors, sizeof(char *)))
        return;
    char *copy = strdup(msg);
    if (copy)
        res->errors[res->n_errors++] = copy;
}

/* Findings of rules the configuration disabled are never created. */
static tf_finding *add_finding(tf_audit_file *af, tf_pos pos, tf_rule_id rule)
{
    tf_audit_result *res = af->res;
    if (!(af->cfg->rules & (1u << rule)))
        return NULL;
    if (!grow((void **)&res->findings, &res->cap_findings, res->n_findings, sizeof(tf_finding))) {
        af->oom = true;
        return NULL;
    }
    tf_finding *f = &res->findings[res->n_findings++];
    memset(f, 0, sizeof *f);
    f->path = af->path;
    f->rel = af->rel;
    f->line = pos.line;
    f->col = pos.col;
    f->end_line = pos.end_line > pos.line ? pos.end_line : pos.line;
    f->rule = rule;
    return f;
}

/* Copy S for a one-line message: control characters become '?', long text is cut. */
static void display(char *out, size_t outlen, const char *s, size_t len)
{
    size_t max = outlen - 1 < 120 ? outlen - 1 : 120, n = 0;
    for (size_t i = 0; i < len && n < max; i++)
        out[n++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    if (len > max && n >= 3)
        memcpy(out + n - 3, "...", 3);
    out[n] = '\0';
}

static bool is_protected(const tf_audit_cfg *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->n_protected; i++)
        if (!strcmp(cfg->protected_names[i], name))
            return true;
    return false;
}

/* The writable system paths of the fence hold no user data: never a finding. */
static bool is_system_sink(const char *abs)
{
    static const char *const sinks[] = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty",
                                        "/dev/shm",  "/dev/fd",     "/dev/pts",    "/proc/self/fd"};
    for (size_t i = 0; i < sizeof sinks / sizeof sinks[0]; i++)
        if (tf_path_within(abs, sinks[i]))
            return true;
    return false;
}

/* out = root + "/" + rel, normalised. */
static bool under_root(const tf_audit_cfg *cfg, const char *rel, char *out, size_t outlen)
{
    char joined[PATH_MAX * 2];
    snprintf(joined, sizeof joined, "%s/%s", cfg->root, rel);
    return tf_path_normalise(joined, out, outlen);
}

/* Is the absolute, normalised ABS inside the project's tests dir? */
static bool abs_in_tests(const tf_audit_cfg *cfg, const char *abs)
{
    char tests[PATH_MAX];
    return under_root(cfg, cfg->tests_dir, tests, sizeof tests) && tf_path_within(abs, tests);
}

/* Relative paths are judged with '/' separators: "tests\\x" means tests/x. */
static void slashes(char *s)
{
    for (; *s; s++)
        if (*s == '\\')
            *s = '/';
}

/* A path inside the root is shown relative to it, like the rest of the output. */
static void show_abs(const tf_audit_cfg *cfg, const char *abs, char *out, size_t outlen)
{
    size_t n = strlen(cfg->root);
    if (tf_path_within(abs, cfg->root) && abs[n] == '/')
        display(out, outlen, abs + n + 1, strlen(abs + n + 1));
    else
        display(out, outlen, abs, strlen(abs));
}

/* Where a FILE value points, absolute and normalised. */
static bool resolve_file(const tf_audit_file *af, const tf_pathval *pv, char *out, size_t outlen)
{
    char buf[PATH_MAX * 2];
    if (pv->up < 0)
        return false; /* the file itself: inside its own directory by definition */
    size_t n = (size_t)snprintf(buf, sizeof buf, "%s", af->absdir);
    for (int i = 0; i < pv->up && n + 4 < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "/..");
    if (pv->text[0])
        snprintf(buf + n, sizeof buf - n, "/%s", pv->text);
    return tf_path_normalise(buf, out, outlen);
}

typedef enum { WHERE_INSIDE, WHERE_UNKNOWN, WHERE_ABSOLUTE, WHERE_CLIMB, WHERE_RELATIVE } where_t;

/* Windows device names (NUL, CON, //./conout$) are not files: never a finding. */
static bool is_windows_device(const char *text)
{
    static const char *const devices[] = {"nul", "con", "conin$", "conout$", "prn", "aux"};
    const char *base = text;
    for (const char *p = text; *p; p++)
        if (*p == '/' || *p == '\\')
            base = p + 1;
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
        if (!strcasecmp(base, devices[i]))
            return true;
    return false;
}

/* Classify a known path: inside tests/, or how it escapes. SHOWN gets the display text. */
static where_t locate(const tf_audit_file *af, const tf_pathval *pv, char *shown, size_t len)
{
    char norm[PATH_MAX];
    if (pv->kind == TF_PATH_FILE) {
        if (!resolve_file(af, pv, norm, sizeof norm) || tf_path_within(norm, af->anchor))
            return WHERE_INSIDE;
        show_abs(af->cfg, norm, shown, len);
        return WHERE_CLIMB;
    }
    if (pv->kind != TF_PATH_LITERAL || is_windows_device(pv->text))
        return WHERE_UNKNOWN;
    display(shown, len, pv->text, strlen(pv->text));
    if (tf_path_is_absolute(pv->text)) {
        if (pv->text[0] != '/' || !tf_path_normalise(pv->text, norm, sizeof norm))
            return WHERE_ABSOLUTE;
        return abs_in_tests(af->cfg, norm) || is_system_sink(norm) ? WHERE_INSIDE : WHERE_ABSOLUTE;
    }
    char rel[sizeof pv->text];
    strcpy(rel, pv->text);
    slashes(rel);
    if (!tf_path_normalise(rel, norm, sizeof norm))
        return WHERE_UNKNOWN;
    return tf_path_within(norm, af->cfg->tests_dir) ? WHERE_INSIDE : WHERE_RELATIVE;
}

void tf_audit_write(tf_audit_file *af, tf_pos pos, const char *op, const tf_pathval *target)
{
    char shown[160], norm[PATH_MAX], rel[sizeof target->text];
    tf_finding *f = NULL;
    switch (locate(af, target, shown, sizeof shown)) {
    case WHERE_INSIDE:
    case WHERE_UNKNOWN:
        return;
    case WHERE_ABSOLUTE:
        if ((f = add_finding(af, pos, TF_RULE_ABSOLUTE)))
            snprintf(f->message, sizeof f->message,
                     "%s() writes to absolute path \"%s\" outside tests/", op, shown);
        return;
    case WHERE_CLIMB:
        if ((f = add_finding(af, pos, TF_RULE_CLIMB)))
            snprintf(f->message, sizeof f->message,
                     "%s() writes to \"%s\": a path from __file__ that climbs out of tests/", op,
                     shown);
        return;
    case WHERE_RELATIVE:
        break;
    }
    strcpy(rel, target->text);
    slashes(rel);
    if (tf_path_normalise(rel, norm, sizeof norm) && !strchr(norm, '/') &&
        is_protected(af->cfg, norm)) {
        if ((f = add_finding(af, pos, TF_RULE_PROTECTED)))
            snprintf(f->message, sizeof f->message, "writes to protected root file \"%s\" (via %s)",
                     shown, op);
        return;
    }
    if ((f = add_finding(af, pos, TF_RULE_RELATIVE)))
        snprintf(f->message, sizeof f->message,
                 "%s() writes to relative path \"%s\" outside tests/", op, shown);
}

void tf_audit_temp(tf_audit_file *af, tf_pos pos, const char *func, tf_temp_kind kind, bool has_dir,
                   const tf_pathval *dir)
{
    char shown[160];
    tf_finding *f;
    if (kind == TF_TEMP_DIRNAME) {
        if ((f = add_finding(af, pos, TF_RULE_SYSTEMP)))
            snprintf(f->message, sizeof f->message,
                     "%s() returns the system temp directory; use tmp_path", func);
        return;
    }
    if (!has_dir) {
        if ((f = add_finding(af, pos, TF_RULE_SYSTEMP)))
            snprintf(f->message, sizeof f->message,
                     "%s() without dir= uses the system temp directory; pass dir=tmp_path", func);
        return;
    }
    where_t w = locate(af, dir, shown, sizeof shown);
    if (w != WHERE_INSIDE && w != WHERE_UNKNOWN && (f = add_finding(af, pos, TF_RULE_SYSTEMP)))
        snprintf(f->message, sizeof f->message, "%s(dir=\"%s\") creates it outside tests/", func,
                 shown);
}

/* Does TEXT name DIR as a whole path component sequence ("tests/artifacts/x",
 * "./tests/artifacts", "/abs/tests/artifacts/")? */
static bool mentions_dir(const char *text, const char *dir)
{
    size_t n = strlen(dir);
    for (const char *p = strstr(text, dir); p; p = strstr(p + 1, dir))
        if ((p == text || p[-1] == '/') && (p[n] == '\0' || p[n] == '/'))
            return true;
    return false;
}

void tf_audit_literal(tf_audit_file *af, tf_pos pos, const char *text, size_t len)
{
    char buf[512], shown[160];
    if (len >= sizeof buf || !af->cfg->artifacts_dir[0])
        return;
    memcpy(buf, text, len);
    buf[len] = '\0';
    slashes(buf);
    if (!mentions_dir(buf, af->cfg->artifacts_dir))
        return;
    display(shown, sizeof shown, text, len);
    tf_finding *f = add_finding(af, pos, TF_RULE_ARTIFACTS);
    if (f)
        snprintf(f->message, sizeof f->message,
                 "hard-coded \"%s\" path; use a fixture (tmp_path) or $TESTFENCE_WORKSPACE", shown);
}

void tf_audit_syntax_error(tf_audit_file *af, tf_pos pos, const char *near, size_t len)
{
    char shown[48];
    if (af->syntax_seen)
        return;
    af->syntax_seen = true;
    display(shown, sizeof shown, near, len > 20 ? 20 : len);
    tf_finding *f = add_finding(af, pos, TF_RULE_SYNTAX);
    if (f && shown[0])
        snprintf(f->message, sizeof f->message,
                 "syntax error near \"%s\"; the rest of the file is audited as far as it parses",
                 shown);
    else if (f)
        snprintf(f->message, sizeof f->message,
                 "syntax error; the rest of the file is audited as far as it parses");
}

/* Parse "testfence: ignore" or "testfence: ignore[TF101, TF104]" anywhere in
 * the comment. Unknown codes are ignored rather than silencing everything. */
static bool parse_ignore(const char *text, size_t len, unsigned *rules)
{
    char buf[256];
    display(buf, sizeof buf, text, len < 200 ? len : 200);
    const char *p = strstr(buf, "testfence:");
    if (!p)
        return false;
    p += strlen("testfence:");
    p += strspn(p, " \t");
    if (strncmp(p, "ignore", 6))
        return false;
    p += 6;
    if (*p != '[') {
        *rules = ~0u;
        return *p == '\0' || *p == ' ' || *p == '\t' || *p == '#';
    }
    *rules = 0;
    for (p++; *p && *p != ']';) {
        p += strspn(p, ", \t");
        size_t n = strcspn(p, ", \t]");
        int id = tf_rule_find(p, n);
        if (id >= 0)
            *rules |= 1u << id;
        p += n;
    }
    return *p == ']';
}

void tf_audit_comment(tf_audit_file *af, int line, const char *text, size_t len, bool own_line)
{
    unsigned rules;
    if (!parse_ignore(text, len, &rules))
        return;
    if (!grow((void **)&af->supp, &af->cap_supp, af->n_supp, sizeof *af->supp)) {
        af->oom = true;
        return;
    }
    af->supp[af->n_supp++] = (audit_supp){line, own_line, rules};
}

static bool is_suppressed(const tf_audit_file *af, const tf_finding *f)
{
    for (size_t i = 0; i < af->n_supp; i++) {
        const audit_supp *s = &af->supp[i];
        bool applies = (s->line >= f->line && s->line <= f->end_line) ||
                       (s->own_line && s->line + 1 == f->line);
        if (applies && (s->rules & (1u << f->rule)))
            return true;
    }
    return false;
}

/* Which tests directory does the file at ABSDIR belong to? The project's, when
 * it is inside it; else the nearest enclosing "tests"/"test" directory (a suite
 * audited from outside its project); else the file's own directory. */
static void find_anchor(const tf_audit_cfg *cfg, const char *absdir, char *out, size_t len)
{
    char tests[PATH_MAX];
    if (under_root(cfg, cfg->tests_dir, tests, sizeof tests) && tf_path_within(absdir, tests)) {
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

/* Fill the file's absolute directory (lexically: no symlinks are followed, so
 * the audit of a tree does not depend on the machine's links). */
static int file_setup(tf_audit_file *af, const char *path, tf_err *err)
{
    char cwd[PATH_MAX], joined[PATH_MAX * 2], abs[PATH_MAX];
    if (path[0] == '/')
        snprintf(joined, sizeof joined, "%s", path);
    else if (getcwd(cwd, sizeof cwd))
        snprintf(joined, sizeof joined, "%s/%s", cwd, path);
    else
        return tf_errnof(err, errno, "audit: getcwd");
    if (!tf_path_normalise(joined, abs, sizeof abs))
        return tf_errf(err, "audit: %s: path too long", path);
    snprintf(af->absdir, sizeof af->absdir, "%s", abs);
    char *slash = strrchr(af->absdir, '/');
    if (slash)
        slash[slash == af->absdir] = '\0';
    find_anchor(af->cfg, af->absdir, af->anchor, sizeof af->anchor);
    size_t n = strlen(af->cfg->root);
    af->path = res_keep(af->res, path);
    af->rel = NULL;
    if (tf_path_within(abs, af->cfg->root) && abs[n] == '/')
        af->rel = res_keep(af->res, abs + n + 1);
    if (!af->path)
        return tf_errf(err, "audit: out of memory");
    return 0;
}

int tf_audit_source(const tf_audit_cfg *cfg, const tf_audit_lang *lang, void *state,
                    const char *path, const char *src, size_t len, tf_audit_result *res,
                    tf_err *err)
{
    tf_audit_file af = {.cfg = cfg, .res = res, .first = res->n_findings};
    if (file_setup(&af, path, err) < 0)
        return -1;
    int rc = lang->scan(state, src, len, &af);
    for (size_t i = af.first; i < res->n_findings; i++)
        res->findings[i].suppressed = is_suppressed(&af, &res->findings[i]);
    free(af.supp);
    res->n_files++;
    res->n_bytes += len;
    if (af.oom)
        return tf_errf(err, "audit: %s: out of memory", path);
    if (rc < 0)
        return tf_errf(err, "audit: %s: the %s parser failed", path, lang->name);
    return 0;
}

typedef struct file_list {
    char **v;
    size_t n, cap;
} file_list;

static int list_add(file_list *fl, const char *path, tf_err *err)
{
    if (!grow((void **)&fl->v, &fl->cap, fl->n, sizeof(char *)))
        return tf_errf(err, "audit: out of memory");
    if (!(fl->v[fl->n] = strdup(path)))
        return tf_errf(err, "audit: out of memory");
    fl->n++;
    return 0;
}

/* Is PATH (as walked, maybe relative) beneath an excluded path? */
static bool is_excluded(const tf_audit_cfg *cfg, const char *path)
{
    char cwd[PATH_MAX], joined[PATH_MAX * 2], abs[PATH_MAX];
    if (cfg->n_excludes == 0)
        return false;
    if (path[0] == '/')
        snprintf(joined, sizeof joined, "%s", path);
    else if (getcwd(cwd, sizeof cwd))
        snprintf(joined, sizeof joined, "%s/%s", cwd, path);
    else
        return false;
    if (!tf_path_normalise(joined, abs, sizeof abs))
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

static int walk_dir(const tf_audit_cfg *cfg, const tf_audit_lang *lang, const char *dir,
                    file_list *fl, tf_audit_result *res, tf_err *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        char msg[PATH_MAX + 64];
        snprintf(msg, sizeof msg, "%s: %s", dir, strerror(errno));
        res_error(res, msg);
        return 0;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char child[PATH_MAX];
        int n = snprintf(child, sizeof child, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
                         e->d_name);
        struct stat st;
        if (n >= (int)sizeof child || lstat(child, &st) < 0 || is_excluded(cfg, child))
            continue; /* vanished, too long or excluded: nothing to audit */
        if (S_ISDIR(st.st_mode) && !skip_dir(e->d_name))
            rc = walk_dir(cfg, lang, child, fl, res, err);
        else if (S_ISREG(st.st_mode) && lang->matches(child))
            rc = list_add(fl, child, err);
    }
    closedir(d);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Named files are audited whatever their extension (and even when excluded:
 * naming a file is explicit); directories are walked. */
static int collect(const tf_audit_cfg *cfg, const tf_audit_lang *lang, char *const *paths, size_t n,
                   file_list *fl, tf_audit_result *res, tf_err *err)
{
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) < 0) {
            char msg[PATH_MAX + 64];
            snprintf(msg, sizeof msg, "%s: %s", paths[i], strerror(errno));
            res_error(res, msg);
        } else if (S_ISDIR(st.st_mode)) {
            if (walk_dir(cfg, lang, paths[i], fl, res, err) < 0)
                return -1;
        } else if (list_add(fl, paths[i], err) < 0) {
            return -1;
        }
    }
    if (fl->n) /* qsort's base must not be NULL, even for zero elements */
        qsort(fl->v, fl->n, sizeof *fl->v, cmp_str);
    return 0;
}

static char *read_all(const char *path, size_t *len, char *msg, size_t msglen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(msg, msglen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
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
    const file_list *files;
    atomic_size_t *next;
    tf_audit_result res; /* this worker's findings, merged after the join */
    int rc;
    tf_err err;
} audit_job;

static void *worker(void *arg)
{
    audit_job *job = arg;
    void *state = job->lang->state_new();
    if (!state) {
        job->rc = tf_errf(&job->err, "audit: cannot create the %s parser", job->lang->name);
        return NULL;
    }
    size_t i;
    while (job->rc == 0 && (i = atomic_fetch_add(job->next, 1)) < job->files->n) {
        const char *path = job->files->v[i];
        char msg[PATH_MAX + 128];
        size_t len;
        char *src = read_all(path, &len, msg, sizeof msg);
        if (!src) {
            res_error(&job->res, msg);
            continue;
        }
        job->rc = tf_audit_source(job->cfg, job->lang, state, path, src, len, &job->res, &job->err);
        free(src);
    }
    job->lang->state_free(state);
    return NULL;
}

/* Move everything FROM holds into TO (the strings keep their addresses). */
static int merge(tf_audit_result *to, tf_audit_result *from, tf_err *err)
{
    for (size_t i = 0; i < from->n_findings; i++) {
        if (!grow((void **)&to->findings, &to->cap_findings, to->n_findings, sizeof(tf_finding)))
            return tf_errf(err, "audit: out of memory");
        to->findings[to->n_findings++] = from->findings[i];
    }
    for (size_t i = 0; i < from->n_strings; i++) {
        if (!grow((void **)&to->strings, &to->cap_strings, to->n_strings, sizeof(char *)))
            return tf_errf(err, "audit: out of memory");
        to->strings[to->n_strings++] = from->strings[i];
        from->strings[i] = NULL;
    }
    for (size_t i = 0; i < from->n_errors; i++)
        res_error(to, from->errors[i]);
    to->n_files += from->n_files;
    to->n_bytes += from->n_bytes;
    return 0;
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

int tf_audit_run(const tf_audit_cfg *cfg, const tf_audit_lang *lang, char *const *paths,
                 size_t n_paths, int jobs, tf_audit_result *res, tf_err *err)
{
    file_list fl = {0};
    int rc = collect(cfg, lang, paths, n_paths, &fl, res, err);
    if (jobs < 1)
        jobs = 1;
    if (jobs > 64)
        jobs = 64;
    if ((size_t)jobs > fl.n)
        jobs = fl.n ? (int)fl.n : 1;
    atomic_size_t next = 0;
    audit_job job[64];
    for (int i = 0; i < jobs; i++)
        job[i] = (audit_job){.cfg = cfg, .lang = lang, .files = &fl, .next = &next};
    if (rc == 0)
        rc = run_jobs(job, jobs, err);
    for (int i = 0; i < jobs; i++) {
        if (rc == 0)
            rc = merge(res, &job[i].res, err);
        tf_audit_result_free(&job[i].res);
    }
    for (size_t i = 0; i < fl.n; i++)
        free(fl.v[i]);
    free(fl.v);
    if (rc == 0) {
        tf_audit_sort(res);
        if (res->n_errors)
            qsort(res->errors, res->n_errors, sizeof *res->errors, cmp_str);
    }
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
    free(res->strings);
    free(res->errors);
    free(res->findings);
    memset(res, 0, sizeof *res);
}
