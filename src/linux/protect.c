/* The protected files: listed before the command starts, so nothing it does decides what is
 * protected. The namespace's init binds each read-only onto itself (linux/mountns). */
#include "protect.h"

#include "core/gitdir.h"
#include "core/oscalls.h"
#include "core/path.h"
#include "core/policy.h"
#include "core/walk.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* What git prints for a large tests/ (10k files: about 500 KiB) and more: a bound, so a
 * runaway answer cannot eat the memory. */
#define PROTECT_GIT_MAX (64u << 20)

void protect_free(struct protect_list *l)
{
    free(l->files.buf);
    free(l->dirs.buf);
    memset(l, 0, sizeof *l);
}

static int add_name(struct protect_names *l, const char *path, tf_err *err)
{
    size_t k = strlen(path) + 1;
    if (l->n == PROTECT_MAX)
        return tf_errf(err,
                       "more than %d files and directories to protect: each is a mount of its "
                       "own; use protect = \"tracked\" or narrow the writable set",
                       PROTECT_MAX);
    if (l->len + k > l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64 * 1024;
        while (cap < l->len + k)
            cap *= 2;
        char *nb = realloc(l->buf, cap);
        if (!nb)
            return tf_errf(err, "out of memory");
        l->buf = nb;
        l->cap = cap;
    }
    memcpy(l->buf + l->len, path, k);
    l->len += k;
    l->n++;
    return 0;
}

static int add_path(struct protect_list *l, const char *path, tf_err *err)
{
    return add_name(&l->files, path, err);
}

/* Is PATH one the run owns: the artifacts dir, the run's temp dir? */
static bool runs_own(const struct plan *pl, const char *path)
{
    const char *tmp = policy_tmp_dir(&pl->policy);
    return path_is_within(path, pl->ws.artifacts) || (tmp && path_is_within(path, tmp));
}

/* Is PATH beneath a project directory of the writable set, and not the run's own? */
static bool in_scope(const struct plan *pl, const char *path)
{
    if (runs_own(pl, path))
        return false;
    for (size_t i = 0; i < pl->policy.n; i++) {
        const struct policy_entry *e = &pl->policy.entries[i];
        if (e->origin == POLICY_PROJECT && e->is_dir && path_is_within(path, e->path) &&
            strcmp(path, e->path))
            return true;
    }
    return false;
}

/* ---- existing: every regular file there now ----------------------------------------------- */

struct walk_ctx {
    struct protect_list *l;
    const struct plan *pl;
    tf_err *err;
};

/* A protected file with another name: the run could change it through that name (a hard
 * link a run made in tests/artifacts, or beside it before the file was committed), which no
 * mount on this name stops. Refused, as the hazard scan refuses a link to a file outside. */
static int one_name(const char *path, const struct stat *st, tf_err *err)
{
    if (st->st_nlink <= 1)
        return 0;
    return tf_errf(err,
                   "%s has %lu names (hard links): the run could change it through another, "
                   "which protect cannot stop; remove the other names (find -samefile) and run "
                   "again",
                   path, (unsigned long)st->st_nlink);
}

static int visit(void *ctx, struct walk_entry *e)
{
    struct walk_ctx *c = ctx;
    struct stat st;
    if (runs_own(c->pl, e->path))
        return 0;
    if (e->type == DT_DIR)
        return 1;
    if (e->type != DT_REG && e->type != DT_UNKNOWN)
        return 0;
    if (walk_stat(e, false, &st) < 0)
        return tf_errnof(c->err, errno, "protect: cannot look at %s", e->path);
    if (S_ISDIR(st.st_mode))
        return 1;
    if (!S_ISREG(st.st_mode))
        return 0;
    if (one_name(e->path, &st, c->err) < 0)
        return -1;
    return add_path(c->l, e->path, c->err) < 0 ? -1 : 0;
}

/* What the walk could not enter would go unprotected: refuse instead (fail closed; even
 * --allow-hazards does not make a file the user asked to keep writable). */
static int walk_problem(void *ctx, const struct walk_entry *dir, enum walk_problem what, int errnum)
{
    struct walk_ctx *c = ctx;
    if (what == WALK_TOO_DEEP)
        return tf_errf(c->err, "protect = \"existing\": %s is too deep to protect", dir->path);
    return tf_errnof(c->err, errnum, "protect = \"existing\": cannot list %s to protect it",
                     dir->path);
}

static int collect_existing(struct protect_list *l, const struct plan *pl, tf_err *err)
{
    struct walk_ctx c = {l, pl, err};
    struct walk_ops ops = {.visit = visit, .problem = walk_problem, .max_depth = 256};
    for (size_t i = 0; i < pl->policy.n; i++) {
        const struct policy_entry *e = &pl->policy.entries[i];
        if (e->origin != POLICY_PROJECT || !e->is_dir || runs_own(pl, e->path))
            continue;
        int rc = walk_path(e->path, 0, &ops, &c);
        if (rc == -1)
            return -1;
    }
    return 0;
}

/* ---- tracked: what git tracks there ------------------------------------------------------- */

/* The work tree around ROOT: the nearest directory upward holding a ".git" (ROOT is resolved
 * and outside the writable set's project directories, so nothing a test wrote is looked at
 * on the way up but the root's own .git). 0 when there is none. */
static int find_work_tree(const char *root, char *out, size_t len)
{
    struct stat st;
    char dir[PATH_MAX], probe[PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s", root);
    for (;;) {
        snprintf(probe, sizeof probe, "%s/.git", strcmp(dir, "/") ? dir : "");
        if (lstat(probe, &st) == 0) {
            snprintf(out, len, "%s", dir);
            return 1;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || !strcmp(dir, "/"))
            return 0;
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
}

/* The environment for git: the caller's, with the repository named (no discovery through
 * the writable set), no optional lock taken, pathspecs taken literally. */
static char **git_env(const char *gitdir, const char *tree, char *buf1, char *buf2, tf_err *err)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 5, sizeof *env);
    if (!env) {
        tf_errf(err, "out of memory");
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "GIT_", 4))
            env[k++] = environ[i]; /* GIT_INDEX_FILE, GIT_DIR of the caller: not for this */
    snprintf(buf1, PATH_MAX + 16, "GIT_DIR=%s", gitdir);
    snprintf(buf2, PATH_MAX + 16, "GIT_WORK_TREE=%s", tree);
    env[k++] = buf1;
    env[k++] = buf2;
    static char locks[] = "GIT_OPTIONAL_LOCKS=0", literal[] = "GIT_LITERAL_PATHSPECS=1";
    env[k++] = locks;
    env[k++] = literal;
    return env;
}

/* Run git ls-files in TREE; its NUL-separated output into *OUT (*N bytes). */
static int run_git(const char *gitdir, const char *tree, char **out, size_t *n, tf_err *err)
{
    char b1[PATH_MAX + 16], b2[PATH_MAX + 16];
    static char a0[] = "git", a1[] = "-c", a2[] = "core.fsmonitor=false", a3[] = "ls-files",
                a4[] = "-z";
    char *argv[] = {a0, a1, a2, a3, a4, NULL};
    char **env = git_env(gitdir, tree, b1, b2, err);
    int p[2];
    if (!env)
        return -1;
    if (pipe2(p, O_CLOEXEC) < 0) {
        free(env);
        return tf_errf(err, "pipe: %s", strerror(errno));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addchdir_np(&fa, tree);
    pid_t pid;
    int e = posix_spawnp(&pid, "git", &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    close(p[1]);
    if (e) {
        close(p[0]);
        return tf_errf(err, "protect = \"tracked\" needs git to list the tracked files: %s",
                       strerror(e));
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    ssize_t r = 1;
    while (buf && r > 0) {
        char *nb = len < cap ? buf : cap < PROTECT_GIT_MAX ? realloc(buf, cap * 2) : NULL;
        if (!nb) {
            r = -1;
            break;
        }
        cap = nb == buf && len < cap ? cap : cap * 2;
        buf = nb;
        while ((r = read(p[0], buf + len, cap - len)) < 0 && errno == EINTR)
            ;
        len += r > 0 ? (size_t)r : 0;
    }
    close(p[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!buf || r != 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
        free(buf);
        return tf_errf(err, "protect = \"tracked\": git ls-files in %s failed", tree);
    }
    *out = buf;
    *n = len;
    return 0;
}

/* Add the tracked name REL (relative to TREE, open on TREEFD) when it is a regular file in
 * scope, reached without a link. */
static int add_tracked(struct protect_list *l, const struct plan *pl, const char *tree, int treefd,
                       const char *rel, tf_err *err)
{
    char abs[PATH_MAX];
    struct stat st;
    int k = snprintf(abs, sizeof abs, "%s/%s", strcmp(tree, "/") ? tree : "", rel);
    if (k < 0 || (size_t)k >= sizeof abs || !in_scope(pl, abs))
        return 0;
    int fd = os_open_no_links(treefd, rel, O_NOFOLLOW);
    if (fd < 0 && (errno == ENOENT || errno == ELOOP || errno == ENOTDIR))
        return 0; /* gone, or a link on the way: nothing of the user's to keep there */
    if (fd < 0)   /* fail closed: a file the user asked to keep must not go unprotected */
        return tf_errnof(err, errno, "protect = \"tracked\": cannot open %s to protect it", abs);
    bool reg = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    close(fd);
    if (reg && one_name(abs, &st, err) < 0)
        return -1;
    return reg ? add_path(l, abs, err) : 0;
}

static int collect_tracked(struct protect_list *l, const struct plan *pl, tf_err *err)
{
    char tree[PATH_MAX], gitdir[PATH_MAX];
    if (find_work_tree(pl->root, tree, sizeof tree) != 1 ||
        gitdir_find(&pl->policy, pl->root, gitdir, sizeof gitdir) != 1) {
        snprintf(l->note, sizeof l->note,
                 "protect = \"tracked\": %.300s is not in a git repository, nothing is "
                 "protected (protect = \"existing\" protects every file there before the run)",
                 pl->root);
        return 0;
    }
    char *out = NULL;
    size_t n = 0;
    if (run_git(gitdir, tree, &out, &n, err) < 0)
        return -1;
    int treefd = open(tree, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int rc = treefd < 0 ? tf_errf(err, "%s: %s", tree, strerror(errno)) : 0;
    for (size_t i = 0; rc == 0 && i < n;) {
        const char *rel = out + i;
        size_t k = strnlen(rel, n - i);
        if (k == n - i)
            break; /* no NUL at the end: cut short */
        rc = add_tracked(l, pl, tree, treefd, rel, err);
        i += k + 1;
    }
    if (treefd >= 0)
        close(treefd);
    free(out);
    return rc;
}

/* ---- the directories on the way ----------------------------------------------------------- */

/* Descending: a directory after every directory beneath it. */
static int by_name_down(const void *a, const void *b)
{
    return strcmp(*(char *const *)b, *(char *const *)a);
}

/* L->dirs from ALL (with repeats): each once, a directory after those beneath it (the view
 * marks them in that order, linux/mountns). */
static int add_unique(struct protect_list *l, const struct protect_names *all, tf_err *err)
{
    if (all->n == 0)
        return 0; /* nothing to sort (qsort must not be given a NULL base) */
    const char **v = malloc(all->n * sizeof *v);
    if (!v)
        return tf_errf(err, "out of memory");
    const char *p = all->buf;
    for (size_t i = 0; i < all->n; i++, p += strlen(p) + 1)
        v[i] = p;
    qsort(v, all->n, sizeof *v, by_name_down);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < all->n; i++)
        if (i == 0 || strcmp(v[i], v[i - 1]))
            rc = add_name(&l->dirs, v[i], err);
    free(v);
    return rc;
}

/* Every directory between a project directory of the writable set and each protected file.
 * A file's directories were all taken with the file before it when that one lies in them
 * (listings come a directory at a time), so most files add none; add_unique drops what
 * repeats anyway. */
static int collect_dirs(struct protect_list *l, const struct plan *pl, tf_err *err)
{
    struct protect_names all = {0};
    char dir[PATH_MAX], up[PATH_MAX];
    const char *p = l->files.buf, *prev = NULL;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < l->files.n; prev = p, p += strlen(p) + 1, i++) {
        path_dirname(dir, sizeof dir, p);
        while (rc == 0 && in_scope(pl, dir) && !(prev && path_is_within(prev, dir))) {
            rc = add_name(&all, dir, err);
            path_dirname(up, sizeof up, dir);
            memcpy(dir, up, strlen(up) + 1);
        }
    }
    if (rc == 0)
        rc = add_unique(l, &all, err);
    free(all.buf);
    if (rc == 0 && l->files.n + l->dirs.n > PROTECT_MAX)
        rc = tf_errf(err,
                     "more than %d files and directories to protect: each is a mount of its "
                     "own; narrow the writable set",
                     PROTECT_MAX);
    return rc;
}

int protect_collect(struct protect_list *l, enum config_protect mode, const struct plan *pl,
                    tf_err *err)
{
    int rc = 0;
    memset(l, 0, sizeof *l);
    if (mode == CONFIG_PROTECT_TRACKED)
        rc = collect_tracked(l, pl, err);
    else if (mode == CONFIG_PROTECT_EXISTING)
        rc = collect_existing(l, pl, err);
    return rc < 0 ? -1 : collect_dirs(l, pl, err);
}
