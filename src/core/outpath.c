#include "outpath.h"

#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the walk to the directory refuses: a symlink inside the writable set. */
struct link_check {
    const struct policy *policy;
    const char *given;
};

static int refuse_planted(const char *link, void *arg, tf_err *err)
{
    const struct link_check *c = arg;
    if (!policy_match(c->policy, link))
        return 0;
    return tf_errf(err,
                   "%s: %s is a symlink inside the writable set (a test could have planted it); "
                   "name the real directory instead",
                   c->given, link);
}

bool outpath_python_source(const char *name)
{
    size_t n = strlen(name);
    return n >= 3 && !strcasecmp(name + n - 3, ".py");
}

/* What is already there: a regular file (replaced), a symlink inside the writable set
 * (replaced, never followed), or nothing. Anything else (/dev/stdout, a directory, a
 * symlink the user made) is refused rather than replaced. DIR is the directory's name. */
static int check_target(int dirfd, const char *dir, const char *name, const char *given,
                        const struct policy *p, tf_err *err)
{
    char here[PATH_MAX];
    struct stat st;
    if (outpath_python_source(name))
        return tf_errf(
            err, "%s: refusing to write a report over a Python source; name another file", given);
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISREG(st.st_mode))
        return 0;
    if (path_join(here, sizeof here, dir, name, err) < 0)
        return -1;
    if (S_ISLNK(st.st_mode) && policy_match(p, here))
        return 0;
    return tf_errf(err, "%s: %s exists and is not a regular file; name a file to write", given,
                   here);
}

/* Split GIVEN into its directory (".": the cwd) and the file's name. */
static int split(const char *given, char *dir, size_t dlen, char *name, size_t nlen, tf_err *err)
{
    const char *slash = strrchr(given, '/');
    const char *base = slash ? slash + 1 : given;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || strlen(base) >= nlen)
        return tf_errf(err, "%s does not name a file", given[0] ? given : "\"\"");
    memcpy(name, base, strlen(base) + 1);
    int k = !slash           ? snprintf(dir, dlen, ".")
            : slash == given ? snprintf(dir, dlen, "/")
                             : snprintf(dir, dlen, "%.*s", (int)(slash - given), given);
    if (k < 0 || (size_t)k >= dlen)
        return tf_errf(err, "%s: the path is too long", given);
    return 0;
}

/* Why the directory RES names cannot be written into. */
static int unusable(const struct path_res *res, const char *given, tf_err *err)
{
    if (res->kind == PATH_REJECTED && res->errnum == ELOOP)
        return tf_errf(err, "%s: too many symlinks on the way", given);
    if (res->kind == PATH_REJECTED && res->errnum == ENAMETOOLONG)
        return tf_errf(err, "%s: a name is too long", given);
    if (res->kind == PATH_REJECTED)
        return tf_errnof(err, res->errnum, "%s: cannot find its directory", given);
    if (res->kind == PATH_NO_FILE || res->beneath)
        return tf_errf(err, "%s: its directory cannot be named", given);
    bool missing = res->errnum == ENOENT ||
                   (!res->errnum && faccessat(AT_FDCWD, res->path, F_OK, AT_SYMLINK_NOFOLLOW) < 0);
    if (missing)
        return tf_errf(err, "%s: its directory %s does not exist; create it first", given,
                       res->path);
    return tf_errf(err, "%s: %s is not a directory", given, res->path);
}

/* Can a file be made in the directory? Tried, not asked (access(2) knows nothing of a
 * read-only mount, nor of the fence testfence itself may run in): a probe made and removed
 * now, so a report that cannot be written is refused before the command runs, not after. */
static int check_writable(int dirfd, const char *dir, const char *name, const char *given,
                          tf_err *err)
{
    char probe[NAME_MAX + 40];
    snprintf(probe, sizeof probe, ".%.200s.%ld.probe", name, (long)getpid());
    int fd = openat(dirfd, probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return tf_errnof(err, errno, "%s: cannot write in %s", given, dir);
    close(fd);
    unlinkat(dirfd, probe, 0);
    return 0;
}

int outpath_open(struct outpath *o, const char *given, const struct policy *policy, tf_err *err)
{
    char dir[PATH_MAX];
    struct link_check check = {policy, given};
    struct path_open po = {.on_link = refuse_planted, .arg = &check};
    o->dirfd = -1;
    snprintf(o->shown, sizeof o->shown, "%s", given);
    if (split(given, dir, sizeof dir, o->name, sizeof o->name, err) < 0)
        return -1;
    struct path_res *res = malloc(sizeof *res);
    if (!res)
        return tf_errf(err, "out of memory");
    int rc = path_open_at(dir, &po, res, err);
    if (rc == 0 && po.dirfd < 0)
        rc = unusable(res, given, err);
    if (rc == 0)
        rc = check_target(po.dirfd, res->path, o->name, given, policy, err);
    if (rc == 0)
        rc = check_writable(po.dirfd, res->path, o->name, given, err);
    free(res);
    if (rc < 0) {
        if (po.dirfd >= 0)
            close(po.dirfd);
        return -1;
    }
    o->dirfd = po.dirfd;
    return 0;
}

int outpath_write(const struct outpath *o, void (*fill)(FILE *f, const void *ctx), const void *ctx,
                  tf_err *err)
{
    char tmp[NAME_MAX + 40];
    snprintf(tmp, sizeof tmp, ".%.200s.%ld.tmp", o->name, (long)getpid());
    int fd = openat(o->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return tf_errnof(err, errno, "cannot write %s", o->shown);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlinkat(o->dirfd, tmp, 0);
        return tf_errnof(err, e, "cannot write %s", o->shown);
    }
    fill(f, ctx);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad || renameat(o->dirfd, tmp, o->dirfd, o->name) < 0) {
        int e = bad ? EIO : errno;
        unlinkat(o->dirfd, tmp, 0);
        return tf_errnof(err, e, "cannot write %s", o->shown);
    }
    return 0;
}

void outpath_close(struct outpath *o)
{
    if (o->dirfd >= 0)
        close(o->dirfd);
    o->dirfd = -1;
}
