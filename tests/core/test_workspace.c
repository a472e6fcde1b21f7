/* Unit tests for src/core/workspace.c: run ids, planning without I/O, creation, retention. */
#include "check.h"
#include "core/walk.h"
#include "core/workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[PATH_MAX];

static const char *at(const char *rel)
{
    static char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    return p;
}

static int exists(const char *rel)
{
    struct stat st;
    return lstat(at(rel), &st) == 0;
}

static void touch(const char *rel)
{
    int fd = open(at(rel), O_WRONLY | O_CREAT, 0644);
    if (fd >= 0)
        close(fd);
}

/* The per-run temp dirs earlier versions made in the artifacts dir. */
static void legacy(const char *id)
{
    char p[PATH_MAX];
    mkdir(at("artifacts/tmp"), 0755);
    mkdir(at("artifacts/_pytest_tmp"), 0755);
    snprintf(p, sizeof p, "artifacts/tmp/%s", id);
    mkdir(at(p), 0700);
    snprintf(p, sizeof p, "artifacts/_pytest_tmp/%s", id);
    mkdir(at(p), 0700);
}

/* Every fd the module makes must be close-on-exec: no bare dup(). */
static int dup_calls;
int dup(int fd)
{
    dup_calls++;
    return (int)syscall(SYS_dup, fd);
}

/* Make the directory REL resist removal, as a test might leave it: immutable as root (a
 * file inside it too), read-only for anyone else. Returns 1 when it does. */
static int resist(const char *rel)
{
    if (getuid() != 0)
        return chmod(at(rel), 0555) == 0;
    int fd = open(at(rel), O_RDONLY | O_DIRECTORY), flags = 0;
    int ok = fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 &&
             (flags |= FS_IMMUTABLE_FL, ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0);
    if (fd >= 0)
        close(fd);
    return ok;
}

static void unresist(const char *rel)
{
    chmod(at(rel), 0755);
    int fd = open(at(rel), O_RDONLY | O_DIRECTORY), flags = 0;
    if (fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
        flags &= ~FS_IMMUTABLE_FL;
        ioctl(fd, FS_IOC_SETFLAGS, &flags);
    }
    if (fd >= 0)
        close(fd);
}

/* walk_open_dir: one component at a time, creating, never through a link or "..". */
static void test_open_dir(void)
{
    tf_err err = {0};
    int b = open(base, O_RDONLY | O_DIRECTORY);
    int fd = walk_open_dir(b, base, "od/a/b", 0755, &err);
    CHECK(fd >= 0 && exists("od/a/b"));
    close(fd);
    char target[PATH_MAX];
    snprintf(target, sizeof target, "%s", at("od/a"));
    CHECK(symlink(target, at("od/link")) == 0);
    CHECK(walk_open_dir(b, base, "od/link/b", 0755, &err) < 0 &&
          (errno == ELOOP || errno == ENOTDIR));
    CHECK(strstr(err.msg, "od/link") != NULL);
    CHECK(walk_open_dir(b, base, "od/../od", 0, &err) < 0);
    CHECK(walk_open_dir(b, base, "od/none", 0, &err) < 0 && errno == ENOENT);
    fd = walk_open_dir(b, base, "", 0, &err);
    CHECK(fd >= 0);
    close(fd);
    close(b);
}

/* Make a chain of DEPTH directories named NAME beneath REL (one fd per level: the path
 * soon passes PATH_MAX), with a file at the bottom. Returns 1 when it was made. */
static int chain(const char *rel, const char *name, int depth)
{
    int fd = open(at(rel), O_RDONLY | O_DIRECTORY);
    for (int i = 0; fd >= 0 && i < depth; i++) {
        int next = mkdirat(fd, name, 0755) == 0 ? openat(fd, name, O_RDONLY | O_DIRECTORY) : -1;
        close(fd);
        fd = next;
    }
    if (fd < 0)
        return 0;
    int f = openat(fd, "bottom", O_WRONLY | O_CREAT, 0644);
    close(fd);
    return f >= 0 && close(f) == 0;
}

/* A tree deeper than the walk goes, and one whose paths pass PATH_MAX (a test's tmp_path
 * can hold either): removed whole, not left for every later run to try again. */
static void test_remove_deep(void)
{
    char name[201];
    memset(name, 'd', 200);
    name[200] = 0;
    tf_err err = {0};
    CHECK(mkdir(at("deep"), 0755) == 0 && mkdir(at("deep/run"), 0755) == 0);
    CHECK(chain("deep/run", "n", 700));
    CHECK(chain("deep/run", name, 60));
    touch("deep/run/.keep-me-last");
    int dfd = open(at("deep"), O_RDONLY | O_DIRECTORY);
    CHECK(ws_remove_tree_at(dfd, at("deep"), "run", &err) == 0);
    close(dfd);
    CHECK_STR(err.msg, "");
    CHECK(!exists("deep/run"));
    CHECK(rmdir(at("deep")) == 0);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s/tf-ws-XXXXXX", t ? t : "/tmp");
    if (!mkdtemp(buf) || !realpath(buf, base))
        return perror("mkdtemp"), 1;

    char id[32];
    ws_run_id(id, sizeof id, 1796000000, 42);
    CHECK_STR(id, "20261130T005320Z-0000042");
    CHECK(ws_is_run_id(id));
    CHECK(!ws_is_run_id("20261128T014320Z-42"));
    CHECK(!ws_is_run_id("x20261130T005320Z-0000042"));

    struct workspace ws;
    tf_err err = {0};
    char art[PATH_MAX];
    snprintf(art, sizeof art, "%s/artifacts", base);
    CHECK(ws_plan(&ws, art, id, &err) == 0);
    CHECK(!exists("artifacts")); /* planning creates nothing */
    CHECK_STR(ws.dir + strlen(base), "/artifacts/_isolation_workspace_20261130T005320Z-0000042");

    /* Four runs, retention 2: the two oldest go, with the temp dirs earlier versions kept
     * in tmp/ and _pytest_tmp/. */
    mkdir(art, 0755);
    int afd = open(art, O_RDONLY | O_DIRECTORY);
    struct ws_fds fds;
    const char *ids[] = {"20260101T000000Z-0000001", "20260102T000000Z-0000001",
                         "20260103T000000Z-0000001", "20260104T000000Z-0000001"};
    for (int i = 0; i < 4; i++) {
        CHECK(ws_plan(&ws, art, ids[i], &err) == 0);
        CHECK(ws_create(&ws, afd, &fds, &err) == 0);
        CHECK(ws_add_file(fds.dir, "placeholder.toml", "x = 1\n", &err) == 0);
        CHECK(ws_add_file(fds.dir, "placeholder.toml", "x = 1\n", &err) < 0);
        /* What a tool made there (pip's cache under XDG_CACHE_HOME): pruned with the run. */
        CHECK(i > 0 || (mkdirat(fds.dir, "xdg", 0700) == 0 &&
                        mkdirat(fds.dir, "xdg/cache", 0700) == 0 &&
                        mkdirat(fds.dir, "xdg/cache/pip", 0700) == 0));
        ws_close(&fds);
        CHECK(i > 0 || (!exists("artifacts/tmp") && !exists("artifacts/_pytest_tmp")));
        legacy(ids[i]);
    }
    CHECK(exists("artifacts/.gitignore")); /* kept out of git status */
    /* No tool's directory made ahead: the tool that writes there makes it. */
    CHECK(!exists("artifacts/_isolation_workspace_20260104T000000Z-0000001/xdg"));
    CHECK(exists("artifacts/_isolation_workspace_20260104T000000Z-0000001/.testfence-workspace"));
    CHECK(ws_create(&ws, afd, &fds, &err) < 0); /* a run workspace is always fresh */
    touch("artifacts/tmp/20260101T000000Z-0000001/file");
    /* Things testfence did not make must survive: no marker, wrong name, a symlink, and a
     * run's tmp dir whose workspace (with the marker that vouches for it) is gone. */
    mkdir(at("artifacts/_isolation_workspace_20250101T000000Z-0000009"), 0755);
    mkdir(at("artifacts/keepme"), 0755);
    mkdir(at("artifacts/tmp/20250101T000000Z-0000009"), 0755);
    mkdir(at("victim"), 0755);
    touch("victim/precious");
    char victim[PATH_MAX];
    snprintf(victim, sizeof victim, "%s", at("victim"));
    if (symlink(victim, at("artifacts/_isolation_workspace_20240101T000000Z-0000001")) < 0 ||
        symlink(victim, at("artifacts/_pytest_tmp/20240101T000000Z-0000001")) < 0)
        return perror("symlink"), 1;

    struct ws_pruned pr;
    CHECK(ws_prune(afd, art, 2, stderr, &pr, &err) == 0 && pr.removed == 2 && pr.failed == 0);
    CHECK(!exists("artifacts/_isolation_workspace_20260101T000000Z-0000001"));
    CHECK(!exists("artifacts/_isolation_workspace_20260102T000000Z-0000001"));
    CHECK(exists("artifacts/_isolation_workspace_20260103T000000Z-0000001"));
    CHECK(exists("artifacts/_isolation_workspace_20260104T000000Z-0000001"));
    CHECK(!exists("artifacts/_pytest_tmp/20260101T000000Z-0000001"));
    CHECK(exists("artifacts/_pytest_tmp/20260104T000000Z-0000001"));
    CHECK(!exists("artifacts/tmp/20260101T000000Z-0000001"));
    CHECK(exists("artifacts/tmp/20260104T000000Z-0000001"));
    CHECK(exists("artifacts/_isolation_workspace_20250101T000000Z-0000009"));
    CHECK(exists("artifacts/tmp/20250101T000000Z-0000009"));
    CHECK(exists("artifacts/keepme"));
    CHECK(exists("victim/precious"));
    CHECK(exists("artifacts/_isolation_workspace_20240101T000000Z-0000001"));

    /* Created is held: another run's prune, right after, leaves it alone (no window between
     * the workspace appearing and its lock); released, it goes. */
    CHECK(ws_plan(&ws, art, "20260105T000000Z-0000001", &err) == 0);
    CHECK(ws_create(&ws, afd, &fds, &err) == 0);
    legacy("20260105T000000Z-0000001");
    CHECK(ws_prune(afd, art, 0, stderr, &pr, &err) == 0 && pr.removed == 2);
    CHECK(exists("artifacts/_isolation_workspace_20260105T000000Z-0000001"));
    CHECK(exists("artifacts/tmp/20260105T000000Z-0000001"));
    /* The live run sorts oldest (two runs in one second sort by a random suffix): the oldest
     * of the others goes in its place, so RETAIN runs are left. */
    for (const char *const *rid =
             (const char *const[]){"20260106T000000Z-0000001", "20260107T000000Z-0000001", NULL};
         *rid; rid++) {
        struct ws_fds f2;
        CHECK(ws_plan(&ws, art, *rid, &err) == 0 && ws_create(&ws, afd, &f2, &err) == 0);
        ws_close(&f2);
    }
    CHECK(ws_prune(afd, art, 2, stderr, &pr, &err) == 0 && pr.removed == 1);
    CHECK(!exists("artifacts/_isolation_workspace_20260106T000000Z-0000001"));
    CHECK(exists("artifacts/_isolation_workspace_20260107T000000Z-0000001"));
    CHECK(exists("artifacts/_isolation_workspace_20260105T000000Z-0000001"));
    CHECK(ws_prune(afd, art, 0, stderr, &pr, &err) == 0 && pr.removed == 1); /* as it was */
    ws_close(&fds);

    /* A run a test left unremovable is a warning; the others still go. */
    CHECK(ws_plan(&ws, art, "20260106T000000Z-0000001", &err) == 0);
    CHECK(ws_create(&ws, afd, &fds, &err) == 0);
    ws_close(&fds);
    touch("artifacts/_isolation_workspace_20260105T000000Z-0000001/stuck");
    int stuck = resist("artifacts/_isolation_workspace_20260105T000000Z-0000001");
    CHECK(ws_prune(afd, art, 0, stderr, &pr, &err) == 0 && pr.failed == stuck &&
          pr.removed == 2 - stuck);
    CHECK(!exists("artifacts/_isolation_workspace_20260106T000000Z-0000001"));
    unresist("artifacts/_isolation_workspace_20260105T000000Z-0000001");
    CHECK(ws_prune(afd, art, 0, stderr, &pr, &err) == 0 && pr.removed == stuck);
    CHECK(!exists("artifacts/_isolation_workspace_20260105T000000Z-0000001"));

    /* A symlinked tmp/ is not followed: the run stays (a warning), the victim too. */
    CHECK(ws_plan(&ws, art, "20260107T000000Z-0000001", &err) == 0);
    CHECK(ws_create(&ws, afd, &fds, &err) == 0);
    ws_close(&fds);
    mkdir(at("victim/20260107T000000Z-0000001"), 0755);
    touch("victim/20260107T000000Z-0000001/precious");
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", at("artifacts/tmp"));
    CHECK(system(cmd) == 0 && symlink(victim, at("artifacts/tmp")) == 0);
    CHECK(ws_prune(afd, art, 0, stderr, &pr, &err) == 0 && pr.failed == 1);
    CHECK(exists("victim/20260107T000000Z-0000001/precious"));
    CHECK(ws_create(&ws, afd, &fds, &err) < 0); /* a run workspace is always fresh */

    /* The ignore file is never written through a link a test left in its place. */
    CHECK(unlink(at("artifacts/.gitignore")) == 0);
    char ignored[PATH_MAX];
    snprintf(ignored, sizeof ignored, "%s", at("victim/ignored"));
    CHECK(symlink(ignored, at("artifacts/.gitignore")) == 0);
    CHECK(ws_plan(&ws, art, "20260108T000000Z-0000001", &err) == 0);
    CHECK(ws_create(&ws, afd, &fds, &err) == 0);
    ws_close(&fds);
    CHECK(!exists("victim/ignored"));
    CHECK(dup_calls == 0);
    close(afd);

    test_open_dir();
    test_remove_deep();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        return 1;
    return check_done("test_workspace");
}
