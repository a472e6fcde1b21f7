/* Unit tests for src/core/runtmp.c: the run's private temp dir, outside the project. */
#include "check.h"
#include "core/runtmp.h"
#include "core/workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[PATH_MAX];

static const char *at(const char *rel)
{
    static char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    return p;
}

/* A second buffer: at() is overwritten by the next call. */
static const char *proj(void)
{
    static char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/proj", base);
    return p;
}

static int exists(const char *rel)
{
    struct stat st;
    return lstat(at(rel), &st) == 0;
}

/* DIR holds no entry (the unnamed file left no name behind). */
static bool dir_empty(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool empty = d != NULL;
    while (d && (e = readdir(d)))
        empty &= !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return empty;
}

/* What glibc's tmpfile() gives, made by MAKE in DIR under the umask MASK: an open file with
 * no name (no link, nothing in DIR), 0600 less MASK, read and write, not close-on-exec. */
static void check_unnamed(int (*make)(const char *), const char *dir, mode_t mask)
{
    mode_t old = umask(mask);
    int fd = make(dir);
    umask(old);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0);
    CHECK((st.st_mode & 07777) == (0600 & ~mask));
    CHECK((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR);
    CHECK(!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
    char back[8] = {0};
    CHECK(write(fd, "hello", 5) == 5 && pread(fd, back, 5, 0) == 5 && !strcmp(back, "hello"));
    CHECK(dir_empty(dir));
    close(fd);
}

/* The run's temp dir as the shim makes tmpfile()'s file there: O_TMPFILE, or mkstemp and
 * unlink where the file system has no O_TMPFILE; a missing or unusable dir is -1 and errno. */
static void unnamed(void)
{
    mkdir(at("unnamed"), 0700);
    check_unnamed(runtmp_unnamed, at("unnamed"), 022);
    check_unnamed(runtmp_unnamed, at("unnamed"), 0277);
    check_unnamed(runtmp_unlinked, at("unnamed"), 022);
    check_unnamed(runtmp_unlinked, at("unnamed"), 0277);
    errno = 0;
    CHECK(runtmp_unnamed(at("missing")) < 0 && errno == ENOENT);
    errno = 0;
    CHECK(runtmp_unlinked(at("missing")) < 0 && errno == ENOENT);
    close(open(at("plain"), O_WRONLY | O_CREAT, 0600));
    CHECK(runtmp_unnamed(at("plain")) < 0); /* a file, not a directory */
    char deep[PATH_MAX + 8];
    memset(deep, 'd', sizeof deep - 1);
    deep[0] = '/';
    deep[sizeof deep - 1] = '\0';
    errno = 0;
    CHECK(runtmp_unlinked(deep) < 0 && errno == ENAMETOOLONG);
}

int main(void)
{
    if (!check_tmpdir(base, sizeof base, "tf_runtmp"))
        return perror("mkdtemp"), 1;
    mkdir(at("proj"), 0755);
    mkdir(at("tmp"), 0755);
    struct runtmp t;
    tf_err err = {0};
    const char *id = "20261130T005320Z-0000042";

    /* TMPDIR when it is outside the project; planning creates nothing. */
    CHECK(runtmp_plan(&t, at("tmp"), proj(), id, 1234, &err) == 0);
    CHECK_STR(t.dir + strlen(base), "/tmp/testfence-1234/20261130T005320Z-0000042");
    CHECK(!exists("tmp/testfence-1234"));
    /* A TMPDIR inside the project is what we get out of: /tmp instead. */
    mkdir(at("proj/t"), 0755);
    CHECK(runtmp_plan(&t, at("proj/t"), proj(), id, 1234, &err) == 0);
    CHECK(!strncmp(t.dir, "/tmp/testfence-1234/", 20));
    CHECK(runtmp_plan(&t, "relative", proj(), id, 1234, &err) == 0);
    CHECK(!strncmp(t.dir, "/tmp/", 5));

    /* Created 0700, ours, locked; removed with everything in it. */
    CHECK(runtmp_plan(&t, at("tmp"), proj(), id, (unsigned)geteuid(), &err) == 0);
    CHECK(runtmp_create(&t, &err) == 0);
    struct stat st;
    CHECK(stat(t.dir, &st) == 0 && (st.st_mode & 0777) == 0700);
    char user[PATH_MAX];
    snprintf(user, sizeof user, "tmp/testfence-%u", (unsigned)geteuid());
    CHECK(stat(at(user), &st) == 0 && (st.st_mode & 0777) == 0711);
    char inner[PATH_MAX + 16];
    snprintf(inner, sizeof inner, "%s/sub", t.dir);
    mkdir(inner, 0755);
    char link[PATH_MAX + 32];
    snprintf(link, sizeof link, "%s/out", inner); /* what a test could plant */
    CHECK(symlink(at("proj"), link) == 0);
    int fd = open(t.dir, O_RDONLY | O_DIRECTORY);
    CHECK(flock(fd, LOCK_EX | LOCK_NB) < 0); /* held by the run */
    close(fd);
    CHECK(runtmp_remove(&t, &err) == 0);
    CHECK(stat(t.dir, &st) < 0);
    CHECK(exists("proj")); /* the link was removed, not followed */

    /* Crashed runs are pruned: unlocked, old enough, not kept. A live one stays. */
    const char *old = "20200101T000000Z-0000001", *kept = "20200101T000000Z-0000002";
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", user, old);
    mkdir(at(p), 0700);
    snprintf(p, sizeof p, "%s/%s", user, kept);
    mkdir(at(p), 0700);
    snprintf(p, sizeof p, "%s/%s/" RUNTMP_KEEP, user, kept);
    close(open(at(p), O_WRONLY | O_CREAT, 0600));
    struct runtmp live;
    CHECK(runtmp_plan(&live, at("tmp"), proj(), "20200101T000000Z-0000003", (unsigned)geteuid(),
                      &err) == 0);
    CHECK(runtmp_create(&live, &err) == 0);
    CHECK(runtmp_plan(&t, at("tmp"), proj(), id, (unsigned)geteuid(), &err) == 0);
    CHECK(runtmp_create(&t, &err) == 0);
    snprintf(p, sizeof p, "%s/%s", user, old);
    CHECK(exists(p)); /* creating prunes nothing: that is done beside the command */
    runtmp_prune(&t, 1796000000, NULL);
    CHECK(!exists(p));
    snprintf(p, sizeof p, "%s/%s", user, kept);
    CHECK(exists(p));
    CHECK(stat(live.dir, &st) == 0);
    runtmp_close(&live);
    CHECK(runtmp_create(&t, &err) < 0); /* never twice */
    runtmp_close(&t);

    /* Failed runs' dirs: the newest RUNTMP_FAILED_KEPT stay, older ones go; one marked with
     * runtmp_keep_failed is such. */
    const char *failed[] = {"20200102T000000Z-0000001", "20200103T000000Z-0000001",
                            "20200104T000000Z-0000001", "20200105T000000Z-0000001",
                            "20200106T000000Z-0000001"};
    for (size_t i = 0; i < 5; i++) {
        struct runtmp f;
        CHECK(runtmp_plan(&f, at("tmp"), proj(), failed[i], (unsigned)geteuid(), &err) == 0);
        CHECK(runtmp_create(&f, &err) == 0);
        CHECK(runtmp_keep_failed(&f, &err) == 0);
        runtmp_close(&f);
    }
    CHECK(runtmp_plan(&t, at("tmp"), proj(), "20261130T005322Z-0000042", (unsigned)geteuid(),
                      &err) == 0);
    CHECK(runtmp_create(&t, &err) == 0);
    /* The command has ended: one of the three that may go (the live run's, now ended, and
     * the two oldest failed) goes; the rest waits for later runs. */
    atomic_bool ended = true;
    runtmp_prune(&t, 1796000000, &ended);
    const char *may_go[] = {live.run_id, failed[0], failed[1]};
    int left = 0;
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", user, may_go[i]);
        left += exists(p);
    }
    CHECK(left == 2);
    runtmp_prune(&t, 1796000000, NULL);
    for (size_t i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "%s/%s", user, failed[i]);
        CHECK(exists(p) == (i >= 5 - RUNTMP_FAILED_KEPT));
    }
    snprintf(p, sizeof p, "%s/%s", user, kept); /* kept by hand: never pruned */
    CHECK(exists(p));
    runtmp_close(&t);

    /* Someone else's per-user directory, or one open to all, is refused. */
    chmod(at(user), 0777);
    CHECK(runtmp_plan(&t, at("tmp"), proj(), "20261130T005321Z-0000042", (unsigned)geteuid(),
                      &err) == 0);
    CHECK(runtmp_create(&t, &err) < 0);
    CHECK(strstr(err.msg, "not yours alone") != NULL);
    runtmp_close(&t);

    unnamed();

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        return 1;
    return check_done("test_runtmp");
}
