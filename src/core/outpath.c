#include "outpath.h"

#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_LINKS = 40 }; /* as the kernel's ELOOP */

/* The walk from "/" to the directory: components still to take, the canonical path
 * reached so far (every component a real directory), and that directory, open. */
struct walk {
    char todo[PATH_MAX * 2];
    size_t at;
    char canon[PATH_MAX];
    int fd;
    int links;
    const char *given;
};

/* The next component of the walk into C (empty when it does not fit in LEN); false at
 * the end. */
static bool next_component(struct walk *w, char *c, size_t len)
{
    while (w->todo[w->at] == '/')
        w->at++;
    size_t n = strcspn(w->todo + w->at, "/");
    if (n == 0)
        return false;
    c[0] = '\0';
    if (n < len) {
        memcpy(c, w->todo + w->at, n);
        c[n] = '\0';
    }
    w->at += n;
    return true;
}

static int reopen(struct walk *w, const char *c)
{
    int fd = openat(w->fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    close(w->fd);
    w->fd = fd;
    return 0;
}

/* A symlink outside the writable set: continue the walk through its target. */
static int follow(struct walk *w, const char *c, tf_err *err)
{
    char target[PATH_MAX], rest[PATH_MAX * 2];
    ssize_t n = readlinkat(w->fd, c, target, sizeof target - 1);
    if (n < 0)
        return tf_errnof(err, errno, "%s: cannot read the symlink %s/%s", w->given, w->canon, c);
    target[n] = '\0';
    if (++w->links > MAX_LINKS)
        return tf_errf(err, "%s: too many symlinks on the way", w->given);
    int k = snprintf(rest, sizeof rest, "%s/%s", target, w->todo + w->at);
    if (k < 0 || (size_t)k >= sizeof rest)
        return tf_errf(err, "%s: the path is too long", w->given);
    memcpy(w->todo, rest, (size_t)k + 1);
    w->at = 0;
    if (target[0] == '/') {
        w->canon[0] = '\0';
        return reopen(w, "/") < 0 ? tf_errnof(err, errno, "cannot open /") : 0;
    }
    return 0;
}

static int step(struct walk *w, const char *c, const struct policy *p, tf_err *err)
{
    char here[PATH_MAX];
    struct stat st;
    if (!strcmp(c, "."))
        return 0;
    if (!strcmp(c, "..")) {
        char *slash = strrchr(w->canon, '/');
        if (slash)
            *slash = '\0';
        return reopen(w, "..") < 0 ? tf_errnof(err, errno, "%s: cannot open ..", w->given) : 0;
    }
    if (snprintf(here, sizeof here, "%s/%s", w->canon, c) >= (int)sizeof here)
        return tf_errf(err, "%s: the path is too long", w->given);
    if (fstatat(w->fd, c, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return tf_errf(err, "%s: its directory %s does not exist; create it first", w->given, here);
    if (S_ISLNK(st.st_mode) && policy_match(p, here))
        return tf_errf(err,
                       "%s: %s is a symlink inside the writable set (a test could have "
                       "planted it); name the real directory instead",
                       w->given, here);
    if (S_ISLNK(st.st_mode))
        return follow(w, c, err);
    if (!S_ISDIR(st.st_mode))
        return tf_errf(err, "%s: %s is not a directory", w->given, here);
    if (reopen(w, c) < 0)
        return tf_errnof(err, errno, "%s: cannot open %s", w->given, here);
    memcpy(w->canon, here, strlen(here) + 1);
    return 0;
}

/* What is already there: a regular file (replaced), a symlink inside the writable set
 * (replaced, never followed), or nothing. Anything else (/dev/stdout, a directory, a
 * symlink the user made) is refused rather than replaced. */
static int check_target(struct walk *w, const char *name, const struct policy *p, tf_err *err)
{
    char here[PATH_MAX];
    struct stat st;
    if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISREG(st.st_mode))
        return 0;
    if (snprintf(here, sizeof here, "%s/%s", w->canon, name) >= (int)sizeof here)
        return tf_errf(err, "%s: the path is too long", w->given);
    if (S_ISLNK(st.st_mode) && policy_match(p, here))
        return 0;
    return tf_errf(err, "%s: %s exists and is not a regular file; name a file to write", w->given,
                   here);
}

/* Split GIVEN into the directory to walk (absolute) and the file's name. */
static int split(const char *given, struct walk *w, char *name, size_t len, tf_err *err)
{
    const char *slash = strrchr(given, '/');
    const char *base = slash ? slash + 1 : given;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || strlen(base) >= len)
        return tf_errf(err, "%s does not name a file", given[0] ? given : "\"\"");
    memcpy(name, base, strlen(base) + 1);
    char cwd[PATH_MAX] = "";
    if (given[0] != '/' && !getcwd(cwd, sizeof cwd))
        return tf_errnof(err, errno, "cannot find the current directory");
    int k = snprintf(w->todo, sizeof w->todo, "%s/%.*s", cwd, (int)(base - given), given);
    if (k < 0 || (size_t)k >= sizeof w->todo)
        return tf_errf(err, "%s: the path is too long", given);
    return 0;
}

int outpath_open(struct outpath *o, const char *given, const struct policy *policy, tf_err *err)
{
    struct walk w = {.given = given};
    char c[NAME_MAX + 1];
    o->dirfd = -1;
    snprintf(o->shown, sizeof o->shown, "%s", given);
    if (split(given, &w, o->name, sizeof o->name, err) < 0)
        return -1;
    if ((w.fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        return tf_errnof(err, errno, "cannot open /");
    int rc = 0;
    while (rc == 0 && next_component(&w, c, sizeof c))
        rc = c[0] ? step(&w, c, policy, err) : tf_errf(err, "%s: a name is too long", given);
    if (rc == 0)
        rc = check_target(&w, o->name, policy, err);
    if (rc < 0) {
        close(w.fd);
        return -1;
    }
    o->dirfd = w.fd;
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
