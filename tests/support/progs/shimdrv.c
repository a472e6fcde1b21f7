/* shimdrv: call every interposed libc function of one family on the given paths and
 * print "function: ok" or "function: ERRNO" per call, so the shim's records can be
 * checked one function at a time. Always exits 0: testfence decides the status. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

/* glibc's fortified entry points (declared by its headers only under _FORTIFY_SOURCE). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

static void say(const char *fn, long r, bool failed)
{
    printf("%s: %s\n", fn, failed ? strerrorname_np(errno) : "ok");
    (void)r;
}

#define TRY(fn, call)                                                                              \
    do {                                                                                           \
        errno = 0;                                                                                 \
        long r_ = (long)(call);                                                                    \
        say(fn, r_, r_ == -1);                                                                     \
        if (r_ >= 0 && strncmp(fn, "mk", 2) && strstr(fn, "open") != NULL)                         \
            close((int)r_);                                                                        \
    } while (0)

#define TRYP(fn, call)                                                                             \
    do {                                                                                           \
        errno = 0;                                                                                 \
        void *p_ = (void *)(call);                                                                 \
        say(fn, 0, p_ == NULL);                                                                    \
    } while (0)

static void fam_open(const char *p)
{
    int w = O_WRONLY | O_CREAT | O_TRUNC;
    TRY("open", open(p, w, 0644));
    TRY("open64", open64(p, w, 0644));
    TRY("openat", openat(AT_FDCWD, p, w, 0644));
    TRY("openat64", openat64(AT_FDCWD, p, w, 0644));
    TRY("__open_2", __open_2(p, O_WRONLY | O_TRUNC));
    TRY("__open64_2", __open64_2(p, O_WRONLY | O_TRUNC));
    TRY("__openat_2", __openat_2(AT_FDCWD, p, O_WRONLY | O_TRUNC));
    TRY("__openat64_2", __openat64_2(AT_FDCWD, p, O_WRONLY | O_TRUNC));
    TRY("creat", creat(p, 0644));
    TRY("creat64", creat64(p, 0644));
    TRY("truncate", truncate(p, 0));
    TRY("truncate64", truncate64(p, 0));
}

static void fam_stdio(const char *p)
{
    TRYP("fopen", fopen(p, "w"));
    TRYP("fopen64", fopen64(p, "a"));
    FILE *f = fopen("/dev/null", "r");
    TRYP("freopen", freopen(p, "w", f));
    f = fopen("/dev/null", "r");
    TRYP("freopen64", freopen64(p, "r+", f));
    TRYP("tmpfile", tmpfile());
    TRYP("tmpfile64", tmpfile64());
}

static void fam_create(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/new", dir);
    TRY("mkdir", mkdir(p, 0755));
    TRY("mkdirat", mkdirat(AT_FDCWD, p, 0755));
    TRY("mknod", mknod(p, S_IFIFO | 0644, 0));
    TRY("mknodat", mknodat(AT_FDCWD, p, S_IFIFO | 0644, 0));
    TRY("mkfifo", mkfifo(p, 0644));
    TRY("mkfifoat", mkfifoat(AT_FDCWD, p, 0644));
    TRY("symlink", symlink("target", p));
    TRY("symlinkat", symlinkat("target", AT_FDCWD, p));
}

static void fam_remove(const char *file, const char *dir)
{
    TRY("unlink", unlink(file));
    TRY("unlinkat", unlinkat(AT_FDCWD, file, 0));
    TRY("rmdir", rmdir(dir));
}

static void fam_rename(const char *from, const char *to)
{
    TRY("rename", rename(from, to));
    TRY("renameat", renameat(AT_FDCWD, from, AT_FDCWD, to));
    TRY("renameat2", renameat2(AT_FDCWD, from, AT_FDCWD, to, 0));
    TRY("link", link(from, to));
    TRY("linkat", linkat(AT_FDCWD, from, AT_FDCWD, to, 0));
}

static void fam_temp(const char *dir)
{
    char t[4096];
#define TMPL(suffix) snprintf(t, sizeof t, "%s/tmpXXXXXX%s", dir, suffix)
    TMPL("");
    TRY("mkstemp", mkstemp(t));
    TMPL("");
    TRY("mkstemp64", mkstemp64(t));
    TMPL("");
    TRY("mkostemp", mkostemp(t, O_CLOEXEC));
    TMPL("");
    TRY("mkostemp64", mkostemp64(t, O_CLOEXEC));
    TMPL(".x");
    TRY("mkstemps", mkstemps(t, 2));
    TMPL(".x");
    TRY("mkstemps64", mkstemps64(t, 2));
    TMPL(".x");
    TRY("mkostemps", mkostemps(t, 2, O_CLOEXEC));
    TMPL(".x");
    TRY("mkostemps64", mkostemps64(t, 2, O_CLOEXEC));
    TMPL("");
    TRYP("mkdtemp", mkdtemp(t));
}

static void fam_meta(const char *p)
{
    int fd = open(p, O_RDONLY);
    struct timeval tv[2] = {{0, 0}, {0, 0}};
    struct timespec ts[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
    TRY("chmod", chmod(p, 0644));
    TRY("lchmod", lchmod(p, 0644));
    TRY("fchmod", fchmod(fd, 0644));
    TRY("fchmodat", fchmodat(AT_FDCWD, p, 0644, 0));
    TRY("chown", chown(p, (uid_t)-1, (gid_t)-1));
    TRY("lchown", lchown(p, (uid_t)-1, (gid_t)-1));
    TRY("fchown", fchown(fd, (uid_t)-1, (gid_t)-1));
    TRY("fchownat", fchownat(AT_FDCWD, p, (uid_t)-1, (gid_t)-1, 0));
    TRY("utime", utime(p, NULL));
    TRY("utimes", utimes(p, tv));
    TRY("lutimes", lutimes(p, tv));
    TRY("futimes", futimes(fd, tv));
    TRY("futimesat", futimesat(AT_FDCWD, p, tv));
    TRY("utimensat", utimensat(AT_FDCWD, p, ts, 0));
    TRY("futimens", futimens(fd, ts));
    TRY("setxattr", setxattr(p, "user.tf", "x", 1, 0));
    TRY("lsetxattr", lsetxattr(p, "user.tf", "x", 1, 0));
    TRY("fsetxattr", fsetxattr(fd, "user.tf", "x", 1, 0));
    TRY("removexattr", removexattr(p, "user.tf"));
    TRY("lremovexattr", lremovexattr(p, "user.tf"));
    TRY("fremovexattr", fremovexattr(fd, "user.tf"));
    close(fd);
}

/* Many blocked writes from one process: the 10,000-violation test. */
static void fam_many(const char *p, const char *n)
{
    long count = strtol(n, NULL, 10);
    long failed = 0;
    for (long i = 0; i < count; i++) {
        int fd = open(p, O_WRONLY | O_CREAT, 0644);
        if (fd < 0)
            failed++;
        else
            close(fd);
    }
    printf("many: %ld of %ld failed\n", failed, count);
}

int main(int argc, char **argv)
{
    const char *f = argc > 2 ? argv[1] : "";
    if (!strcmp(f, "open"))
        fam_open(argv[2]);
    else if (!strcmp(f, "stdio"))
        fam_stdio(argv[2]);
    else if (!strcmp(f, "create"))
        fam_create(argv[2]);
    else if (!strcmp(f, "remove") && argc == 4)
        fam_remove(argv[2], argv[3]);
    else if (!strcmp(f, "rename") && argc == 4)
        fam_rename(argv[2], argv[3]);
    else if (!strcmp(f, "temp"))
        fam_temp(argv[2]);
    else if (!strcmp(f, "meta"))
        fam_meta(argv[2]);
    else if (!strcmp(f, "many") && argc == 4)
        fam_many(argv[2], argv[3]);
    else {
        fprintf(stderr, "usage: shimdrv open|stdio|create|temp|meta PATH | remove FILE DIR | "
                        "rename FROM TO | many PATH COUNT\n");
        return 2;
    }
    return 0;
}
