#include "hazard.h"

#include "oscalls.h"
#include "pymodules.h"
#include "path.h"
#include "base/vec.h"
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file with more than one link, seen during the walk. */
struct linked {
    dev_t dev;
    ino_t ino;
    nlink_t nlink;
    char *path;
};

struct scan {
    const struct policy *p;
    const struct hazard_opts *o;
    const char *artifacts; /* beneath it, only hard links count */
    FILE *out;
    tf_err *err;
    struct linked *v;
    size_t n, cap;
    int found;
    int qfd;  /* the quarantine: -1 not made yet, -2 cannot be had */
    bool oom; /* the list of known modules could not grow: the scan fails */
};

static int remember(struct scan *s, const struct stat *st, const char *path)
{
    struct linked *v = vec_grow(s->v, &s->cap, s->n, sizeof *v);
    if (!v)
        return -1;
    s->v = v;
    struct linked *l = &s->v[s->n];
    *l = (struct linked){st->st_dev, st->st_ino, st->st_nlink, strdup(path)};
    if (!l->path)
        return -1;
    s->n++;
    return 0;
}

/* A symlink whose target lies outside the writable set (tests/data -> ../fixtures, even a
 * dangling one): the kernel refuses a write through it, and the shim reports it, so it is
 * no hazard (issue 27: it refused runs nobody was at fault for); doctor says it. */
static void check_symlink(struct scan *s, const char *path)
{
    char resolved[PATH_MAX];
    if (!s->o->notes || path_resolve(path, resolved, sizeof resolved, NULL) < 0 ||
        policy_match(s->p, resolved))
        return;
    fprintf(s->o->notes,
            "note:      %s is a symlink to %s, outside the writable set: reading through it "
            "works, a test writing through it is refused and reported\n",
            path, resolved);
}

/* A subtree the scan could not look into may hide a hazard: say so. */
static void unchecked(struct scan *s, const char *path, const char *why)
{
    fprintf(s->out, "  %s could not be checked (%s); make it readable, or remove it\n", path, why);
    s->found++;
    if (s->o->fence_off) /* it may hide what switches a fence off: fail closed */
        (*s->o->fence_off)++;
}

/* Under the artifacts dir only hard links count: old runs' temp dirs hold whatever
 * symlinks their tests made, and writes through those are blocked anyway, while a
 * hard link is a way out. */
static bool links_only(const struct scan *s, const char *path)
{
    return path_is_within(path, s->artifacts) && strcmp(path, s->artifacts) != 0;
}

/* After a run (SINCE given): did the run make E, or put it there? Its birth time, or for a
 * file its ctime (which no test can set back), is since the run began. */
static bool since_run(const struct scan *s, struct statx_timestamp w)
{
    const struct timespec *t = &s->o->since;
    return w.tv_sec > t->tv_sec || (w.tv_sec == t->tv_sec && (long)w.tv_nsec >= t->tv_nsec);
}

static bool made_by_run(const struct scan *s, const struct walk_entry *e)
{
    struct statx x;
    if (s->o->since.tv_sec == 0)
        return false;
    if (statx(e->dirfd, e->name, AT_SYMLINK_NOFOLLOW, STATX_BTIME | STATX_CTIME | STATX_TYPE, &x) <
        0)
        return errno != ENOENT; /* what cannot be told counts as made (gone: nothing to do) */
    bool born = (x.stx_mask & STATX_BTIME) && since_run(s, x.stx_btime);
    /* A file renamed or rewritten in the run has a new ctime; a directory's changes with
     * every entry made in it (pytest's bytecode), so for it only its birth counts. */
    return born || (!S_ISDIR(x.stx_mode) && since_run(s, x.stx_ctime));
}

/* The quarantine, made at the first move (most runs have none): an fd, or -2. */
static int quarantine_fd(struct scan *s)
{
    const struct hazard_opts *o = s->o;
    if (s->qfd != -1)
        return s->qfd;
    if (mkdirat(o->quarantine_at, o->quarantine_name, 0700) < 0 && errno != EEXIST)
        return s->qfd = -2;
    s->qfd = openat(o->quarantine_at, o->quarantine_name,
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return s->qfd < 0 ? (s->qfd = -2) : s->qfd;
}

/* Move E, which the run made, out of the next run's way into the quarantine: named after its
 * path ("/p/tests/sub/pytest.ini" -> "p%tests%sub%pytest.ini", the end kept when too long),
 * never over another. Says where on OUT; true when it moved. */
static bool quarantined(struct scan *s, const struct walk_entry *e, bool made)
{
    if (!s->o->quarantine || !made || quarantine_fd(s) < 0)
        return false; /* there before the run: said, never moved (or nowhere to move it) */
    char flat[PATH_MAX], name[NAME_MAX + 1];
    snprintf(flat, sizeof flat, "%s", e->path + strspn(e->path, "/"));
    for (char *c = flat; *c; c++)
        if (*c == '/')
            *c = '%';
    size_t n = strlen(flat);
    const char *tail = n > NAME_MAX - 8 ? flat + n - (NAME_MAX - 8) : flat;
    for (int k = 0; k < 100; k++) {
        snprintf(name, sizeof name, k ? "%s.%d" : "%s", tail, k);
        if (renameat2(e->dirfd, e->name, s->qfd, name, RENAME_NOREPLACE) == 0) {
            fprintf(s->out,
                    "    (this run made it: moved to %s/%s, so the next run cannot take it)\n",
                    s->o->quarantine, name);
            return true;
        }
        if (errno != EEXIST)
            break;
    }
    return false;
}

void hazard_known_free(struct hazard_known *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->v[i].path);
    free(k->v);
    *k = (struct hazard_known){0};
}

/* Before a run: remember E (named like a module Python imports at start-up). -1: no memory. */
static int know(struct scan *s, const struct walk_entry *e)
{
    struct hazard_known *k = s->o->known;
    struct stat st;
    if (fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return 0; /* gone: nothing to remember */
    struct hazard_entry *v = vec_grow(k->v, &k->cap, k->n, sizeof *v);
    if (!v)
        return -1;
    k->v = v;
    k->v[k->n] = (struct hazard_entry){strdup(e->path), st.st_dev, st.st_ino};
    if (!k->v[k->n].path)
        return -1;
    k->n++;
    return 0;
}

/* After a run: was E there before it, at this path, this very file or directory? What
 * cannot be looked at counts as new (fail closed; a vanished one is nothing). */
static bool known_before(const struct scan *s, const struct walk_entry *e)
{
    const struct hazard_known *k = s->o->known;
    struct stat st;
    if (fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT;
    for (size_t i = 0; i < k->n; i++)
        if (k->v[i].ino == st.st_ino && k->v[i].dev == st.st_dev && !strcmp(k->v[i].path, e->path))
            return true;
    return false;
}

/* Did the run make E, which is named like a module Python imports at start-up? Before a run
 * (no SINCE) it is remembered instead, for the scan after it. */
static bool made_module(struct scan *s, const struct walk_entry *e)
{
    if (s->o->since.tv_sec == 0) {
        if (s->o->known && know(s, e) < 0)
            s->oom = true;
        return false;
    }
    return made_by_run(s, e) || (s->o->known && s->o->known->taken && !known_before(s, e));
}

/* The files pytest takes its configuration from, and how each says it is pytest's. */
static const struct {
    const char *name, *section; /* NULL: always (pytest.ini), "": only with the plugin off */
} pytest_files[] = {
    {"pytest.ini", NULL},    {"pyproject.toml", "[tool.pytest.ini_options]"},
    {"tox.ini", "[pytest]"}, {"setup.cfg", "[tool:pytest]"},
    {"conftest.py", ""},
};

/* Does TEXT turn the testfence plugin off: -p no:testfence, --testfence=off or
 * --testfence off, or (a conftest.py) unregister or block it? */
static bool turns_plugin_off(const char *text)
{
    if (strstr(text, "no:testfence") || strstr(text, "testfence=off"))
        return true;
    for (const char *t = text; (t = strstr(t, "--testfence")) != NULL; t++) {
        const char *v = t + strlen("--testfence");
        if ((*v == ' ' || *v == '\t') && !strncmp(v + strspn(v, " \t"), "off", 3))
            return true;
    }
    return strstr(text, "testfence") && (strstr(text, "unregister") || strstr(text, "set_blocked"));
}

/* Does TEXT give the plugin any other option (--testfence-allow, --testfence-output,
 * --testfence-reexec...)? From inside the writable set each would let a test decide how the
 * next run is fenced: widen it, or stop its records. (A conftest.py loads after the fence.) */
static bool sets_plugin_options(const char *name, const char *text)
{
    return strcmp(name, "conftest.py") != 0 && strstr(text, "--testfence-") != NULL;
}

/* The first MAX bytes of the regular file NAME in DIRFD, NUL-terminated (empty on failure). */
static void head(int dirfd, const char *name, char *buf, size_t max)
{
    buf[0] = '\0';
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t n = 0;
    ssize_t r;
    while (n < max - 1 && (r = read(fd, buf + n, max - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    close(fd);
}

/* Does the symlink E lead into the writable set (where a test can write what it points to),
 * or where cannot be told? Resolved by the one resolver, which opens nothing through it. A
 * link to the project's own pyproject.toml outside is no hazard. */
static bool link_into_writable(const struct scan *s, const struct walk_entry *e)
{
    static struct path_res res; /* PATH_MAX: not on the stack; one scan at a time */
    return path_resolve_at(NULL, e->dirfd, e->name, 0, &res, NULL) < 0 || res.kind != PATH_FILE ||
           res.errnum || policy_match_res(s->p, &res);
}

/* A symlink under the name of pytest's configuration, leading into the writable set: pytest
 * reads what it points to, which a test can write (-p no:testfence). (A conftest.py loads
 * after the fence.) */
static int pytest_config_link(struct scan *s, const struct walk_entry *e)
{
    if (!strcmp(e->name, "conftest.py") || !link_into_writable(s, e))
        return 0;
    if (s->o->fence_off)
        (*s->o->fence_off)++;
    if (!s->o->plugin_off_refused) {
        fprintf(s->o->warn,
                "testfence: warning: %s is a symlink named like pytest's configuration: a plain "
                "pytest there reads what it points to (it could turn the plugin off); make it a "
                "file, or keep pytest's configuration at the project root\n",
                e->path);
        return 0;
    }
    fprintf(s->out,
            "  %s is a symlink named like pytest's configuration, inside the writable set: "
            "pytest reads what it points to, which could turn the testfence plugin off; make it "
            "a file, or remove it\n",
            e->path);
    s->found++;
    quarantined(s, e, made_by_run(s, e));
    return 0;
}

/* A file pytest may take its configuration from, inside the writable set (LINK: a symlink
 * by that name). */
static int check_pytest_config(struct scan *s, const struct walk_entry *e, bool link)
{
    size_t i, n = sizeof pytest_files / sizeof pytest_files[0];
    for (i = 0; i < n && strcmp(e->name, pytest_files[i].name); i++)
        ;
    if (i == n || !s->o->warn)
        return 0;
    if (link)
        return pytest_config_link(s, e);
    char *text = malloc(1u << 20);
    if (!text)
        return tf_errf(s->err, "out of memory");
    head(e->dirfd, e->name, text, 1u << 20);
    const char *section = pytest_files[i].section;
    bool config = !section || (section[0] && strstr(text, section));
    bool off = turns_plugin_off(text),
         options = !off && config && sets_plugin_options(e->name, text); /* pytest's own */
    if ((off || options) && s->o->fence_off)
        (*s->o->fence_off)++;
    free(text);
    if (options && s->o->plugin_off_refused) {
        fprintf(s->out,
                "  %s gives the testfence plugin options (--testfence-...), from inside the "
                "writable set, where a test can write them to widen the next run's fence; move "
                "them to the configuration at the project root, or the command line\n",
                e->path);
        s->found++;
        quarantined(s, e, made_by_run(s, e));
    } else if (options) {
        fprintf(s->o->warn,
                "testfence: warning: %s gives the testfence plugin options from inside the "
                "writable set: a plain pytest there would take them (a wider fence); move them "
                "to the configuration at the project root\n",
                e->path);
    } else if (off && s->o->plugin_off_refused) {
        fprintf(s->out,
                "  %s turns the testfence plugin off, from inside the writable set, where a "
                "test can write it; remove that option (or the file)\n",
                e->path);
        s->found++;
        quarantined(s, e, made_by_run(s, e));
    } else if (off) {
        fprintf(s->o->warn,
                "testfence: warning: %s turns the testfence plugin off, from inside the writable "
                "set: a plain pytest there would run unfenced; remove that option (or the file)\n",
                e->path);
    } else if (config && s->o->notes) {
        /* A project's own tests/pytest.ini (rich's) is no reason to warn at every run: what
         * would switch a fence off is refused above, and a rewrite that does is found after
         * the run. doctor says it. */
        fprintf(s->o->notes,
                "note:      %s is pytest configuration inside the writable set: a test can "
                "rewrite it, and pytest reads it instead of the root's for the tests beneath "
                "it (what would switch the plugin off is refused)\n",
                e->path);
    }
    return 0;
}

/* Modules a Python started in (or with on sys.path) a directory of the writable set would
 * import instead of the real ones: a test can plant them so the next run's plugin, pytest or
 * site start-up is its code, unfenced. A .pth file runs its lines at every start-up. */
/* The modules whose stand-in would switch a fence off: the plugin, pytest and its plugin
 * manager, site start-up. A stand-in is a source file, bytecode without a source (Python
 * imports a .pyc found where the .py would be), an extension module, or a package. */
static const char *const shadow_modules[] = {"testfence",     "_testfence", "pytest",
                                             "_pytest",       "pluggy",     "sitecustomize",
                                             "usercustomize", NULL};
static const char *const module_suffixes[] = {".py", ".pyc", ".so", ".pyd", NULL};

static bool named(const char *name, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(name, *names))
            return true;
    return false;
}

/* The module NAME would be imported as, into OUT (256 bytes), when NAME is an importable
 * file: "argparse.py", "pytest.pyc", "pluggy.cpython-311-x86_64-linux-gnu.so" -> "pluggy". */
static bool module_of(const char *name, char *out)
{
    const char *dot = strchr(name, '.'), *last = strrchr(name, '.');
    if (!dot || dot == name || (size_t)(dot - name) >= 256 || !named(last, module_suffixes))
        return false;
    if (dot != last && strcmp(last, ".so") && strcmp(last, ".pyd"))
        return false; /* only an extension module carries a tag: "x.cpython-311-...so" */
    snprintf(out, 256, "%.*s", (int)(dot - name), name);
    return true;
}

/* Is the directory NAME in DIRFD a package: an __init__ Python would import? */
/* Does the directory FD hold an entry named __init__.<anything>? Python loads a package's
 * __init__ from source, bytecode or an extension module (__init__.so, __init__.abi3.so,
 * __init__.cpython-311-x86_64-linux-gnu.so): any such name counts. A directory that cannot
 * be listed counts too. */
static bool has_init(int fd)
{
    struct dirlist *d = walk_list(fd);
    if (!d)
        return true;
    bool found = false;
    for (const struct dirlist_entry *e; !found && (e = dirlist_next(d));)
        found = !strncmp(e->name, "__init__.", 9);
    dirlist_close(d);
    return found;
}

static bool is_package(int dirfd, const char *name)
{
    /* By fstatat on an O_PATH fd, as Python finds it: a directory a test made search-only
     * (chmod 0311) is still a package to Python. What cannot be told counts as one. */
    int fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno != ENOENT && errno != ENOTDIR && errno != ELOOP;
    static const char *const inits[] = {"__init__.py", "__init__.pyc", NULL};
    bool pkg = false;
    struct stat st;
    for (const char *const *i = inits; !pkg && *i; i++)
        pkg =
            fstatat(fd, *i, &st, AT_SYMLINK_NOFOLLOW) == 0 || (errno != ENOENT && errno != ENOTDIR);
    if (!pkg)
        pkg = has_init(fd);
    close(fd);
    return pkg;
}

enum entry_kind { ENTRY_FILE, ENTRY_DIR, ENTRY_LINK };

/* A stand-in for a module that would switch a fence off (always), or, made by the run, for
 * any module Python or pytest imports at start-up (argparse.py, iniconfig.py: a Python started
 * in that directory runs it before any fence). A link is judged by its name alone: the
 * unfenced side follows none, and Python would. Said, and moved away when the run made it
 * (then true: the walk must not enter it). */
static bool check_shadow(struct scan *s, const struct walk_entry *e, enum entry_kind kind)
{
    size_t n = strlen(e->name);
    bool pth = kind != ENTRY_DIR && n > 4 && !strcmp(e->name + n - 4, ".pth");
    char module[256];
    if (kind == ENTRY_DIR || (kind == ENTRY_LINK && !strchr(e->name, '.')))
        snprintf(module, sizeof module, "%s", e->name); /* a package, or a link to one */
    else if (!pth && !module_of(e->name, module))
        return false;
    /* A link by a package's name is one only to a directory (tests/bin/pytest -> a venv's
     * script is none); stat through it only to know which: nothing is opened or written. */
    struct stat to;
    if (kind == ENTRY_LINK && !strchr(e->name, '.') &&
        (fstatat(e->dirfd, e->name, &to, 0) == 0 ? !S_ISDIR(to.st_mode) : errno == ENOENT))
        return false; /* a file, or dangling; what cannot be told counts as a package */
    bool shadow = pth || named(module, shadow_modules);
    bool made = shadow ? made_by_run(s, e) : pymodule_known(module) && made_module(s, e);
    if (!shadow && !made)
        return false;
    if (kind == ENTRY_DIR && !is_package(e->dirfd, e->name))
        return false;
    if (s->o->fence_off)
        (*s->o->fence_off)++;
    if (pth)
        fprintf(s->out,
                "  %s is a .pth file inside the writable set: a Python with that directory on "
                "its path runs its lines at start-up (a test can plant one to switch the next "
                "run's fence off); remove it\n",
                e->path);
    else
        fprintf(s->out,
                "  %s is a module%s inside the writable set: a Python started there would import "
                "it instead of the real %s (a test can plant one to switch the next run's fence "
                "off); remove it\n",
                e->path, kind == ENTRY_LINK ? " (a symlink)" : "", module);
    s->found++;
    return quarantined(s, e, made);
}

/* E's type into ST's st_mode, from readdir's type where that is enough, else its inode's
 * (0, or -1 when it is gone). A directory is entered with O_NOFOLLOW whatever it became
 * meanwhile, and after a run (FENCE_OFF_ONLY) nothing of a file's or link's inode is asked
 * either: one fstatat per entry saved, 100,000 of them for a big tests/. */
static int entry_mode(const struct scan *s, const struct walk_entry *e, struct stat *st)
{
    if (e->type == DT_DIR || (s->o->fence_off_only && (e->type == DT_REG || e->type == DT_LNK))) {
        st->st_mode = e->type == DT_DIR ? S_IFDIR : e->type == DT_REG ? S_IFREG : S_IFLNK;
        return 0;
    }
    return fstatat(e->dirfd, e->name, st, AT_SYMLINK_NOFOLLOW);
}

static int visit(void *ctx, struct walk_entry *e)
{
    struct scan *s = ctx;
    struct stat st;
    if (entry_mode(s, e, &st) < 0) { /* gone meanwhile: nothing; else it could be anything */
        if (errno != ENOENT)
            unchecked(s, e->path, strerror(errno));
        return 0;
    }
    bool dir = S_ISDIR(st.st_mode), lnk = S_ISLNK(st.st_mode), after = s->o->fence_off_only;
    if (dir && after && links_only(s, e->path))
        return 0; /* beneath the artifacts dir nothing switches a fence off: not entered */
    if (dir)
        return links_only(s, e->path) || !check_shadow(s, e, ENTRY_DIR); /* moved: not entered */
    /* After a run, devices and links out are left to the next run's own scan: the kernel
     * still holds meanwhile. */
    if (!after && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
        /* Opened, it reaches the device: a disk's blocks hold every file outside. (The run
         * could not make one; someone left it, a root run of an older testfence, say.) */
        fprintf(s->out,
                "  %s is a %s device node (%u:%u): opening it would reach the device, and "
                "through a disk every file outside; remove it\n",
                e->path, S_ISBLK(st.st_mode) ? "block" : "character", os_dev_major(st.st_rdev),
                os_dev_minor(st.st_rdev));
        s->found++;
        return 0;
    }
    if (!after && lnk && !links_only(s, e->path))
        check_symlink(s, e->path);
    else if (!after && !lnk && st.st_nlink > 1 && remember(s, &st, e->path) < 0)
        return tf_errf(s->err, "out of memory");
    if ((!S_ISREG(st.st_mode) && !lnk) || links_only(s, e->path))
        return 0;
    if (check_shadow(s, e, lnk ? ENTRY_LINK : ENTRY_FILE))
        return 0; /* moved away: there is no file left to read */
    return check_pytest_config(s, e, lnk);
}

/* A subtree the scan could not look into may hide a hazard: say so, and count it. */
static int problem(void *ctx, const struct walk_entry *dir, enum walk_problem what, int errnum)
{
    struct scan *s = ctx;
    if (what == WALK_TOO_DEEP)
        unchecked(s, dir->path, "nested more than 128 levels deep");
    else if (what == WALK_PATH_TOO_LONG)
        unchecked(s, dir->path, "a name in it makes the path too long");
    else if (errnum == EACCES)
        unchecked(s, dir->path, strerror(errnum));
    else
        return tf_errnof(s->err, errnum, "cannot scan %s", dir->path);
    return 0;
}

static int walk(struct scan *s, const char *dir)
{
    static const struct walk_ops ops = {.visit = visit, .problem = problem, .max_depth = 128};
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        struct walk_entry e = {.path = dir, .len = strlen(dir), .depth = -1};
        return problem(s, &e, WALK_UNLISTED, errno);
    }
    return walk_fd(fd, dir, 0, &ops, s);
}

static int by_inode(const void *a, const void *b)
{
    const struct linked *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Group the multiply-linked files by inode: fewer links seen than the inode
 * has means some link lives outside the writable set. */
static void report_links(struct scan *s)
{
    if (s->n == 0)
        return; /* qsort(NULL, 0, ...) is undefined */
    qsort(s->v, s->n, sizeof *s->v, by_inode);
    for (size_t i = 0, j; i < s->n; i = j) {
        for (j = i + 1; j < s->n && !by_inode(&s->v[i], &s->v[j]); j++)
            ;
        if (j - i >= s->v[i].nlink)
            continue;
        fprintf(s->out,
                "  %s is a hard link to a file that also has %ju link(s) outside the writable "
                "set: writing it changes that file too; replace it with a copy "
                "(cp --remove-destination SRC %s)\n",
                s->v[i].path, (uintmax_t)(s->v[i].nlink - (j - i)), s->v[i].path);
        s->found++;
    }
}

/* Entries whose contents a run may write: the project's and the declared outputs. */
static bool walked(const struct policy_entry *e)
{
    return e->is_dir && (e->origin == POLICY_PROJECT || e->origin == POLICY_OUTPUT);
}

/* A declared output file with other links: writing it writes them too. */
static void check_output_file(struct scan *s, const struct policy_entry *e)
{
    struct stat st;
    if (lstat(e->path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink < 2)
        return;
    fprintf(s->out,
            "  the output %s is a hard link to a file with %ju other link(s): writing it "
            "changes that file too; replace it with a copy (cp --remove-destination SRC %s)\n",
            e->path, (uintmax_t)(st.st_nlink - 1), e->path);
    s->found++;
}

/* Is entry I beneath another project entry, or the same as an earlier one?
 * Then that walk covers it; walking it twice would double-count its links and
 * hide a link to the outside. */
static bool nested(const struct policy *p, size_t i)
{
    for (size_t j = 0; j < p->n; j++)
        if (j != i && walked(&p->entries[j]) &&
            path_is_within(p->entries[i].path, p->entries[j].path) &&
            (strcmp(p->entries[i].path, p->entries[j].path) || j < i))
            return true;
    return false;
}

int hazard_scan(const struct policy *p, const struct hazard_opts *o, FILE *out, tf_err *err)
{
    struct scan s = {.p = p, .o = o, .artifacts = o->artifacts, .out = out, .err = err, .qfd = -1};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < p->n; i++) {
        const struct policy_entry *e = &p->entries[i];
        if (walked(e) && !nested(p, i) && access(e->path, F_OK) == 0)
            rc = walk(&s, e->path);
        else if (e->origin == POLICY_OUTPUT && !e->is_dir && !o->fence_off_only)
            check_output_file(&s, e);
    }
    if (rc == 0 && s.oom)
        rc = tf_errf(err, "out of memory");
    if (rc == 0 && o->known && o->since.tv_sec == 0)
        o->known->taken = true;
    if (rc == 0 && !o->fence_off_only)
        report_links(&s);
    for (size_t i = 0; i < s.n; i++)
        free(s.v[i].path);
    free(s.v);
    if (s.qfd >= 0)
        close(s.qfd);
    return rc < 0 ? -1 : s.found;
}
