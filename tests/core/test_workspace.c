/* Unit tests for src/core/workspace.c: run ids, planning without I/O, creation, retention. */
#include "check.h"
#include "core/workspace.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
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
    tf_err err = {{0}};
    char art[PATH_MAX];
    snprintf(art, sizeof art, "%s/artifacts", base);
    CHECK(ws_plan(&ws, art, id, &err) == 0);
    CHECK(!exists("artifacts")); /* planning creates nothing */
    CHECK_STR(ws.dir + strlen(base), "/artifacts/_isolation_workspace_20261130T005320Z-0000042");
    CHECK_STR(ws.xdg_cache + strlen(base),
              "/artifacts/_isolation_workspace_20261130T005320Z-0000042/xdg/cache");

    /* Four runs, retention 2: the two oldest go, with the temp dirs earlier versions kept
     * in tmp/ and _pytest_tmp/. */
    const char *ids[] = {"20260101T000000Z-0000001", "20260102T000000Z-0000001",
                         "20260103T000000Z-0000001", "20260104T000000Z-0000001"};
    for (int i = 0; i < 4; i++) {
        CHECK(ws_plan(&ws, art, ids[i], &err) == 0);
        CHECK(ws_create(&ws, &err) == 0);
        legacy(ids[i]);
    }
    CHECK(ws_create(&ws, &err) < 0);       /* a run workspace is always fresh */
    CHECK(exists("artifacts/.gitignore")); /* kept out of git status */
    touch("artifacts/tmp/20260101T000000Z-0000001/file");
    /* Things testfence did not make must survive: no marker, wrong name, a symlink. */
    mkdir(at("artifacts/_isolation_workspace_20250101T000000Z-0000009"), 0755);
    mkdir(at("artifacts/keepme"), 0755);
    mkdir(at("victim"), 0755);
    touch("victim/precious");
    char victim[PATH_MAX];
    snprintf(victim, sizeof victim, "%s", at("victim"));
    if (symlink(victim, at("artifacts/_isolation_workspace_20240101T000000Z-0000001")) < 0 ||
        symlink(victim, at("artifacts/_pytest_tmp/20240101T000000Z-0000001")) < 0)
        return perror("symlink"), 1;

    CHECK(ws_prune(art, 2, &err) == 6);
    CHECK(!exists("artifacts/_isolation_workspace_20260101T000000Z-0000001"));
    CHECK(!exists("artifacts/_isolation_workspace_20260102T000000Z-0000001"));
    CHECK(exists("artifacts/_isolation_workspace_20260103T000000Z-0000001"));
    CHECK(exists("artifacts/_isolation_workspace_20260104T000000Z-0000001"));
    CHECK(!exists("artifacts/_pytest_tmp/20260101T000000Z-0000001"));
    CHECK(exists("artifacts/_pytest_tmp/20260104T000000Z-0000001"));
    CHECK(!exists("artifacts/tmp/20260101T000000Z-0000001"));
    CHECK(exists("artifacts/tmp/20260104T000000Z-0000001"));
    CHECK(exists("artifacts/_isolation_workspace_20250101T000000Z-0000009"));
    CHECK(exists("artifacts/keepme"));
    CHECK(exists("victim/precious"));
    CHECK(exists("artifacts/_isolation_workspace_20240101T000000Z-0000001"));
    CHECK(ws_prune(at("nonexistent"), 2, &err) == 0);

    /* A held (running) workspace survives even --all; released, it goes. */
    CHECK(ws_plan(&ws, art, "20260105T000000Z-0000001", &err) == 0);
    CHECK(ws_create(&ws, &err) == 0);
    legacy("20260105T000000Z-0000001");
    int hold = ws_hold(&ws, &err);
    CHECK(hold >= 0);
    CHECK(ws_prune(art, 0, &err) == 6); /* the two older runs' three dirs each */
    CHECK(exists("artifacts/_isolation_workspace_20260105T000000Z-0000001"));
    CHECK(exists("artifacts/tmp/20260105T000000Z-0000001"));
    close(hold);
    CHECK(ws_prune(art, 0, &err) == 3);
    CHECK(!exists("artifacts/_isolation_workspace_20260105T000000Z-0000001"));

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        return 1;
    return check_done("test_workspace");
}
