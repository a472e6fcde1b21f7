#include "project.h"

#include "path.h"
#include "platform.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const project_markers[] = {"testfence.toml", "pyproject.toml", ".git", NULL};

static bool has_marker(const char *dir)
{
    char p[PATH_MAX];
    struct stat st;
    for (size_t i = 0; project_markers[i]; i++)
        if (path_join(p, sizeof p, dir, project_markers[i], NULL) == 0 && lstat(p, &st) == 0)
            return true;
    return false;
}

int project_find_root(const char *opt_root, char *root, size_t len, tf_err *err)
{
    char dir[PATH_MAX];
    if (opt_root) {
        struct stat st;
        if (!realpath(opt_root, dir))
            return tf_errnof(err, errno, "--root %s", opt_root);
        if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
            return tf_errf(err, "--root %s is not a directory", opt_root);
    } else {
        if (!getcwd(dir, sizeof dir))
            return tf_errnof(err, errno, "cannot determine the current directory");
        for (;;) {
            if (has_marker(dir))
                break;
            if (platform_is_top(dir))
                return tf_errk(err, TF_ERR_NO_ROOT,
                               "no project root found: no testfence.toml, pyproject.toml or "
                               ".git in the current directory or above; pass --root DIR");
            char parent[PATH_MAX];
            path_dirname(parent, sizeof parent, dir);
            memcpy(dir, parent, sizeof dir);
        }
    }
    if (strlen(dir) >= len)
        return tf_errf(err, "path too long: %s", dir);
    memcpy(root, dir, strlen(dir) + 1);
    return 0;
}

int project_find_above(const char *dir, char *out, size_t len)
{
    char cur[PATH_MAX], parent[PATH_MAX];
    snprintf(cur, sizeof cur, "%s", dir);
    while (!platform_is_top(cur)) {
        path_dirname(parent, sizeof parent, cur);
        memcpy(cur, parent, sizeof cur);
        if (has_marker(cur) && strlen(cur) < len) {
            memcpy(out, cur, strlen(cur) + 1);
            return 1;
        }
    }
    return 0;
}

static bool is_dir_at(const char *root, const char *rel)
{
    char p[PATH_MAX];
    struct stat st;
    return path_join(p, sizeof p, root, rel, NULL) == 0 && lstat(p, &st) == 0 &&
           S_ISDIR(st.st_mode);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR/<sub>/NAME for the first NAME of NAMES that is a directory, SUB in sorted order;
 * hidden directories and node_modules are passed over. Returns 0, -1 when the one found
 * does not fit OUT, or -2 when none is found. */
static int find_below(const char *root, const char *dir, const char *const *names, char *out,
                      size_t len)
{
    char path[PATH_MAX];
    if (path_join(path, sizeof path, root, dir, NULL) < 0)
        return -2;
    DIR *d = opendir(path);
    if (!d)
        return -2;
    char *subs[256];
    size_t n = 0;
    for (struct dirent *e; n < 256 && (e = readdir(d));)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "node_modules") &&
            (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN))
            subs[n] = strdup(e->d_name), n += subs[n] != NULL;
    closedir(d);
    qsort(subs, n, sizeof *subs, cmp_names);
    int rc = -1;
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; !found && names[k]; k++) {
            char rel[PATH_MAX];
            int w =
                snprintf(rel, sizeof rel, "%s%s%s/%s", dir, dir[0] ? "/" : "", subs[i], names[k]);
            found = w > 0 && (size_t)w < sizeof rel && is_dir_at(root, rel);
            if (found && (size_t)w < len) {
                memcpy(out, rel, (size_t)w + 1);
                rc = 0;
            }
        }
        free(subs[i]);
    }
    return found ? rc : -2;
}

int project_find_tests(const char *root, char *out, size_t len)
{
    static const char *const top[] = {"tests", "test",      "testing",  "t",
                                      "spec",  "__tests__", "testdata", NULL};
    static const char *const pkg[] = {"tests", "test", "__tests__", NULL};
    /* The first directory found is the answer: when it does not fit OUT, none is (a later
     * one would be a different proposal for a smaller buffer). */
    for (size_t i = 0; top[i]; i++)
        if (is_dir_at(root, top[i])) {
            if (strlen(top[i]) >= len)
                return -1;
            memcpy(out, top[i], strlen(top[i]) + 1);
            return 0;
        }
    int rc = find_below(root, "", pkg, out, len);
    if (rc != -2)
        return rc;
    return is_dir_at(root, "src") && find_below(root, "src", pkg, out, len) == 0 ? 0 : -1;
}
