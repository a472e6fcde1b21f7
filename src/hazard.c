#include "hazard.h"

#include "path.h"

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
    const char *artifacts; /* beneath it, only hard links count */
    FILE *out;
    struct linked *v;
    size_t n, cap;
    int found;
};

static int remember(struct scan *s, const struct stat *st, const char *path)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        struct linked *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    struct linked *l = &s->v[s->n];
    *l = (struct linked){st->st_dev, st->st_ino, st->st_nlink, strdup(path)};
    if (!l->path)
        return -1;
    s->n++;
    return 0;
}

/* A symlink whose target lies outside the writable set: writes through it fail. */
static void check_symlink(struct scan *s, const char *path)
{
    char resolved[PATH_MAX];
    if (path_resolve(path, resolved, sizeof resolved, NULL) < 0 || policy_match(s->p, resolved))
        return;
    fprintf(s->out,
            "  %s is a symlink to %s, outside the writable set: a test writing through it "
            "is blocked; point it inside, or remove it\n",
            path, resolved);
    s->found++;
}

/* A subtree the scan could not look into may hide a hazard: say so. */
static void unchecked(struct scan *s, const char *path, const char *why)
{
    fprintf(s->out, "  %s could not be checked (%s); make it readable, or remove it\n", path, why);
    s->found++;
}

/* Walk DIR. Under the artifacts dir only hard links count: old runs' temp dirs
 * hold whatever symlinks their tests made, and writes through those are
 * blocked anyway, while a hard link is a way out. */
static int walk(struct scan *s, const char *dir, int depth, bool links_only, tf_err *err)
{
    if (depth > 128) {
        unchecked(s, dir, "nested more than 128 levels deep");
        return 0;
    }
    links_only = links_only || !strcmp(dir, s->artifacts);
    DIR *d = opendir(dir);
    if (!d) {
        if (errno != EACCES)
            return tf_errnof(err, errno, "cannot scan %s", dir);
        unchecked(s, dir, strerror(errno));
        return 0;
    }
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        char path[PATH_MAX];
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (path_join(path, sizeof path, dir, e->d_name, NULL) < 0) {
            unchecked(s, dir, "a name in it makes the path too long");
            continue;
        }
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (S_ISLNK(st.st_mode) && !links_only)
            check_symlink(s, path);
        else if (S_ISDIR(st.st_mode))
            rc = walk(s, path, depth + 1, links_only, err);
        else if (!S_ISLNK(st.st_mode) && st.st_nlink > 1 && remember(s, &st, path) < 0)
            rc = tf_errf(err, "out of memory");
    }
    closedir(d);
    return rc;
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

/* Is entry I beneath another project entry, or the same as an earlier one?
 * Then that walk covers it; walking it twice would double-count its links and
 * hide a link to the outside. */
static bool nested(const struct policy *p, size_t i)
{
    for (size_t j = 0; j < p->n; j++)
        if (j != i && p->entries[j].origin == POLICY_PROJECT &&
            path_is_within(p->entries[i].path, p->entries[j].path) &&
            (strcmp(p->entries[i].path, p->entries[j].path) || j < i))
            return true;
    return false;
}

int hazard_scan(const struct policy *p, const char *artifacts, FILE *out, tf_err *err)
{
    struct scan s = {.p = p, .artifacts = artifacts, .out = out};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < p->n; i++)
        if (p->entries[i].origin == POLICY_PROJECT && p->entries[i].is_dir && !nested(p, i))
            rc = walk(&s, p->entries[i].path, 0, false, err);
    if (rc == 0)
        report_links(&s);
    for (size_t i = 0; i < s.n; i++)
        free(s.v[i].path);
    free(s.v);
    return rc < 0 ? -1 : s.found;
}
