#include "failsfirst.h"

#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

enum found { FOUND_UNKNOWN, FOUND_NONE, FOUND_FILE, FOUND_DIR };

/* What is at PATH (relative to DIRFD), not following a last symlink. */
static enum found look(int dirfd, const char *path)
{
    struct stat st;
    if (fstatat(dirfd, path[0] ? path : ".", &st, AT_SYMLINK_NOFOLLOW) == 0)
        return S_ISDIR(st.st_mode) ? FOUND_DIR : FOUND_FILE;
    return errno == ENOENT || errno == ENOTDIR ? FOUND_NONE : FOUND_UNKNOWN;
}

/* Is RESOLVED's directory there (following links, as the kernel's lookup does)? */
static bool parent_is_dir(const char *resolved)
{
    char parent[PATH_MAX];
    struct stat st;
    path_dirname(parent, sizeof parent, resolved);
    return stat(parent, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool one_of(const char *op, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(op, *names))
            return true;
    return false;
}

bool fails_first(const char *op, int oflags, const char *resolved, int source_dirfd,
                 const char *source)
{
    static const char *const creates[] = {"mkdir", "symlink", "link", NULL};
    static const char *const removes[] = {"unlink", "rmdir", "truncate", NULL};
    enum found f = resolved && resolved[0] == '/' ? look(AT_FDCWD, resolved) : FOUND_UNKNOWN;
    if (f == FOUND_UNKNOWN || !op)
        return false;
    bool exists = f != FOUND_NONE, parent = parent_is_dir(resolved);
    if (!strcmp(op, "rename") && source && look(source_dirfd, source) == FOUND_NONE)
        return true; /* the old name is missing: ENOENT */
    if (one_of(op, creates))
        return exists || !parent; /* EEXIST, ENOENT */
    if (!strcmp(op, "rename"))
        return !parent;
#ifdef O_TMPFILE /* none on macOS: no call there asks for one */
    if (!strcmp(op, "open") && (oflags & O_TMPFILE) == O_TMPFILE)
        return f != FOUND_DIR; /* an unnamed file in the directory: ENOENT, ENOTDIR */
#endif
    if (!strcmp(op, "open")) {
        if (exists)
            return f == FOUND_DIR || ((oflags & O_CREAT) && (oflags & O_EXCL)); /* EISDIR, EEXIST */
        return !(oflags & O_CREAT) || !parent;                                  /* ENOENT */
    }
    return one_of(op, removes) && !exists; /* they act on what exists */
}
