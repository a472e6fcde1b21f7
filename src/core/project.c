#include "project.h"

#include "path.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
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
            if (!strcmp(dir, "/"))
                return tf_errf(err, "no project root found: no testfence.toml, pyproject.toml or "
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
