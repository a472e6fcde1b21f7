#include "policy.h"
#include "platform.h"

#include "path.h"
#include "toolstate.h"
#include "base/vec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const policy_system_paths[] = {
    "/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm", NULL,
};

int policy_init(struct policy *p, const char *root, tf_err *err)
{
    char resolved[PATH_MAX];
    memset(p, 0, sizeof *p);
    if (!realpath(root, resolved))
        return tf_errnof(err, errno, "project root %s", root);
    p->root = strdup(resolved);
    if (!p->root)
        return tf_errf(err, "out of memory");
    return 0;
}

/* An entry's path and given name share one allocation (path first; free the path). */
static int push(struct policy *p, const char *path, const char *given, enum policy_origin o,
                bool is_dir, tf_err *err)
{
    size_t lp = strlen(path) + 1, lg = strlen(given) + 1;
    struct policy_entry *v = vec_grow(p->entries, &p->cap, p->n, sizeof *v);
    if (v)
        p->entries = v;
    char *both = v ? malloc(lp + lg) : NULL;
    if (!both)
        return tf_errf(err, "out of memory");
    memcpy(both, path, lp);
    memcpy(both + lp, given, lg);
    v[p->n++] = (struct policy_entry){both, both + lp, o, is_dir};
    return 0;
}

int policy_add(struct policy *p, const char *given, enum policy_origin origin, tf_err *err)
{
    char joined[PATH_MAX], resolved[PATH_MAX];
    const char *path = given;
    if (origin == POLICY_PROJECT) {
        if (platform_is_absolute(given))
            return tf_errf(err, "writable entry \"%s\" must be relative to the project root",
                           given);
        if (path_join(joined, sizeof joined, p->root, given, err) < 0)
            return -1;
        path = joined;
    }
    if (!realpath(path, resolved)) {
        if (origin == POLICY_SYSTEM)
            return 0;
        return tf_errnof(err, errno, "writable path %s cannot be used (it must exist)", path);
    }
    if (origin == POLICY_PROJECT && !path_is_within(resolved, p->root))
        return tf_errf(err,
                       "writable entry \"%s\" resolves to %s, outside the project root %s; "
                       "make it a real directory inside the root, or name the target "
                       "explicitly with --allow",
                       given, resolved, p->root);
    struct stat st;
    if (stat(resolved, &st) < 0)
        return tf_errnof(err, errno, "writable path %s", resolved);
    return push(p, resolved, given, origin, S_ISDIR(st.st_mode), err);
}

int policy_add_resolved(struct policy *p, const char *resolved, const char *given,
                        enum policy_origin origin, bool is_dir, tf_err *err)
{
    if (!platform_is_absolute(resolved))
        return tf_errf(err, "writable entry %s is not absolute", resolved);
    return push(p, resolved, given, origin, is_dir, err);
}

bool policy_through_link(const struct policy *p, const char *path, char *link, size_t n)
{
    char cur[PATH_MAX], parent[PATH_MAX], real[PATH_MAX];
    snprintf(cur, sizeof cur, "%s", path);
    for (char *c = cur + 1;; c++) {
        if (*c != '/' && *c != '\0')
            continue;
        char saved = *c;
        struct stat st;
        *c = '\0';
        if (lstat(cur, &st) == 0 && S_ISLNK(st.st_mode)) {
            path_dirname(parent, sizeof parent, cur);
            if (realpath(parent, real) && policy_match(p, real)) {
                snprintf(link, n, "%s", cur);
                return true;
            }
        }
        *c = saved;
        if (!saved)
            return false;
    }
}

int policy_check_links(const struct policy *p, tf_err *err)
{
    char abs[PATH_MAX], cwd[PATH_MAX], link[PATH_MAX];
    for (size_t i = 0; i < p->n; i++) {
        const struct policy_entry *e = &p->entries[i];
        if (e->origin != POLICY_PROJECT && e->origin != POLICY_ALLOW)
            continue;
        const char *base = e->origin == POLICY_PROJECT ? p->root : getcwd(cwd, sizeof cwd);
        if (platform_is_absolute(e->given))
            snprintf(abs, sizeof abs, "%s", e->given);
        else if (!base || path_join(abs, sizeof abs, base, e->given, err) < 0)
            return tf_errf(err, "writable entry \"%s\": cannot tell where it is", e->given);
        if (policy_through_link(p, abs, link, sizeof link))
            return tf_errf(err,
                           "writable entry \"%s\" goes through the symlink %s inside the "
                           "writable set, which a test can change; remove the link, or name the "
                           "directory it leads to instead",
                           e->given, link);
    }
    return 0;
}

int policy_add_output(struct policy *p, const char *given, bool in_root, tf_err *err)
{
    char joined[PATH_MAX], resolved[PATH_MAX];
    size_t n = strlen(given);
    bool is_dir = n > 0 && given[n - 1] == '/';
    const char *path = given;
    if (!n)
        return tf_errf(err, "an output must not be empty");
    if (in_root && path_join(joined, sizeof joined, p->root, given, err) < 0)
        return -1;
    if (in_root)
        path = joined;
    char cwd[PATH_MAX], abs[PATH_MAX], link[PATH_MAX];
    if (!platform_is_absolute(path) &&
        (!getcwd(cwd, sizeof cwd) || path_join(abs, sizeof abs, cwd, path, err) < 0))
        return tf_errnof(err, errno, "output \"%s\": cannot tell where it is", given);
    if (policy_through_link(p, platform_is_absolute(path) ? path : abs, link, sizeof link))
        return tf_errf(err,
                       "output \"%s\" goes through the symlink %s inside the writable set, "
                       "which a test can change; name the directory it leads to instead",
                       given, link);
    if (path_resolve(path, resolved, sizeof resolved, err) < 0)
        return -1;
    if (in_root && (!path_is_within(resolved, p->root) || !strcmp(resolved, p->root)))
        return tf_errf(err,
                       "output \"%s\" resolves to %s, which is not inside the project root %s; "
                       "name it with --output instead",
                       given, resolved, p->root);
    struct stat st;
    if (stat(resolved, &st) == 0 && S_ISDIR(st.st_mode) != is_dir)
        return tf_errf(err, "output \"%s\": %s is %s; write \"%s%s\" to declare %s", given,
                       resolved, is_dir ? "a file, not a directory" : "a directory", given,
                       is_dir ? "" : "/", is_dir ? "the file (no trailing '/')" : "a directory");
    return push(p, resolved, given, POLICY_OUTPUT, is_dir, err);
}

int policy_add_quiet(struct policy *p, const char *resolved, bool is_dir, const char *tool,
                     const char *commands, tf_err *err)
{
    size_t lp = strlen(resolved) + 1, lt = strlen(tool) + 1,
           lc = commands ? strlen(commands) + 1 : 0;
    struct policy_quiet *v = vec_grow(p->quiet, &p->capquiet, p->nquiet, sizeof *v);
    if (v)
        p->quiet = v;
    char *all = v ? malloc(lp + lt + lc) : NULL;
    if (!all)
        return tf_errf(err, "out of memory");
    memcpy(all, resolved, lp);
    memcpy(all + lp, tool, lt);
    if (commands)
        memcpy(all + lp + lt, commands, lc);
    v[p->nquiet++] = (struct policy_quiet){all, all + lp, commands ? all + lp + lt : NULL, is_dir};
    return 0;
}

/* path_open_at's check for policy_resolve_fixed: a symlink inside the writable set. */
static int refuse_writable_link(const char *link, void *arg, tf_err *err)
{
    const struct policy *p = *(const struct policy *const *)arg;
    if (!policy_match(p, link))
        return 0;
    return tf_errf(err, "%s is a symlink inside the writable set (a test could have planted it)",
                   link);
}

int policy_resolve_fixed(const struct policy *p, const char *path, char *out, size_t len,
                         int *dirfd, tf_err *err)
{
    struct path_open po = {.on_link = refuse_writable_link, .arg = &p};
    struct path_res *res = malloc(sizeof *res);
    if (dirfd)
        *dirfd = -1;
    if (!res)
        return tf_errf(err, "out of memory");
    int rc = path_open_at(path, &po, res, err);
    if (rc == 0 && res->kind != PATH_FILE)
        rc = tf_errf(err, "%s names no file", path);
    else if (rc == 0 && (res->beneath || strlen(res->path) >= len))
        rc = tf_errf(err, "path too long: %s", path);
    if (rc == 0)
        memcpy(out, res->path, strlen(res->path) + 1);
    free(res);
    if (rc == 0 && dirfd)
        *dirfd = po.dirfd;
    else if (po.dirfd >= 0)
        close(po.dirfd);
    return rc;
}

const struct policy_quiet *policy_quiet(const struct policy *p, const char *resolved)
{
    /* Python's bytecode beside a module outside the writable set: Python writes it when it
     * can and goes on when not, reading the .pyc files already there. Wherever it is. */
    static char anywhere[] = "";
    static const struct policy_quiet bytecode = {.path = anywhere,
                                                 .tool = "Python (its __pycache__ bytecode)"};
    for (size_t i = 0; i < p->nquiet; i++) {
        const struct policy_quiet *q = &p->quiet[i];
        if (q->is_dir ? path_is_within(resolved, q->path) : !strcmp(resolved, q->path))
            return q;
    }
    return toolstate_has_components(resolved, "__pycache__") ? &bytecode : NULL;
}

/* Is WORD one of the space-separated LIST? */
static bool in_list(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, " ");
        if (k == n && !strncmp(p, word, n))
            return true;
        p += k + (p[k] == ' ');
    }
    return false;
}

bool policy_quiet_for(const struct policy_quiet *q, const char *argv, size_t len)
{
    if (!q->commands)
        return true;
    /* The program itself must be the tool (a path ending in "/git", or "git"): a script
     * called with "describe" as its first word is not git describe. */
    const char *prog = strrchr(argv, '/');
    if (strcmp(prog ? prog + 1 : argv, q->tool))
        return false;
    /* git [-c k=v | -C dir | --opt]... SUBCOMMAND: the first word that is not an option
     * or an option's value. */
    bool value_next = false;
    const char *end = argv + len;
    for (const char *a = argv + strnlen(argv, len) + 1; a < end;
         a += strnlen(a, (size_t)(end - a)) + 1) {
        if (value_next) {
            value_next = false;
            continue;
        }
        if (!strcmp(a, "-c") || !strcmp(a, "-C")) {
            value_next = true;
            continue;
        }
        if (a[0] == '-')
            continue;
        return in_list(q->commands, a);
    }
    return false;
}

int policy_add_system(struct policy *p, tf_err *err)
{
    for (size_t i = 0; policy_system_paths[i]; i++)
        if (policy_add(p, policy_system_paths[i], POLICY_SYSTEM, err) < 0)
            return -1;
    return 0;
}

const char *policy_tmp_dir(const struct policy *p)
{
    for (size_t i = 0; i < p->n; i++) {
        const struct policy_entry *e = &p->entries[i];
        if (e->origin == POLICY_TMP && e->is_dir && platform_is_absolute(e->path))
            return e->path;
    }
    return NULL;
}

const struct policy_entry *policy_match(const struct policy *p, const char *resolved)
{
    for (size_t i = 0; i < p->n; i++) {
        const struct policy_entry *e = &p->entries[i];
        if (e->is_dir ? path_is_within(resolved, e->path) : !strcmp(resolved, e->path))
            return e;
    }
    return NULL;
}

const struct policy_entry *policy_match_res(const struct policy *p, const struct path_res *res)
{
    if (res->kind != PATH_FILE)
        return NULL;
    if (!res->beneath)
        return policy_match(p, res->path);
    for (size_t i = 0; i < p->n; i++)
        if (p->entries[i].is_dir && path_is_within(res->path, p->entries[i].path))
            return &p->entries[i];
    return NULL;
}

enum policy_verdict policy_decide(const struct policy *p, const struct path_res *res,
                                  const char *cmdline, size_t len, struct policy_decision *d)
{
    d->entry = NULL;
    d->quiet = NULL;
    if (res->kind != PATH_FILE || res->errnum)
        return d->verdict = POLICY_NO_TARGET;
    if ((d->entry = policy_match_res(p, res)))
        return d->verdict = POLICY_ALLOWED;
    /* A target too deep to name is beneath res->path, which no quiet entry names. */
    d->quiet = res->beneath ? NULL : policy_quiet(p, res->path);
    if (d->quiet && (!d->quiet->commands || (cmdline && policy_quiet_for(d->quiet, cmdline, len))))
        return d->verdict = POLICY_QUIET;
    return d->verdict = POLICY_BLOCKED;
}

const char *policy_origin_name(enum policy_origin origin)
{
    switch (origin) {
    case POLICY_PROJECT:
        return "project";
    case POLICY_ALLOW:
        return "--allow";
    case POLICY_SYSTEM:
        return "system";
    case POLICY_TMP:
        return "temp";
    case POLICY_OUTPUT:
        return "output";
    }
    return "?";
}

void policy_free(struct policy *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->entries[i].path); /* given is in the same allocation */
    }
    free(p->entries);
    for (size_t i = 0; i < p->nquiet; i++)
        free(p->quiet[i].path); /* tool is in the same allocation */
    free(p->quiet);
    free(p->root);
    memset(p, 0, sizeof *p);
}

void policy_fence_label(const struct policy *p, char *out, size_t len)
{
    const char *dir = p->root;
    for (size_t i = 0; i < p->n; i++)
        if (p->entries[i].origin == POLICY_PROJECT) {
            dir = p->entries[i].path;
            break;
        }
    snprintf(out, len, "%s%s", dir, strcmp(dir, "/") ? "/" : "");
}
