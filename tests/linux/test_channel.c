/* Unit tests for src/linux/channel.c's private directory: made and locked (the directory
 * itself), removed at close, and what earlier runs left: a dead run's removed, a live run's
 * kept, whichever version made it. */
#include "check.h"
#include "core/shimconf.h"
#include "core/vlog.h"
#include "linux/channel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[4096];

static char *at(const char *name)
{
    static char buf[4][4200];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", base, name);
    return buf[i];
}

static bool exists(const char *name)
{
    struct stat st;
    return lstat(at(name), &st) == 0;
}

/* A private directory as a run leaves it: its socket's name and its configuration. */
static void leave(const char *name)
{
    mkdir(at(name), 0700);
    char f[4300];
    snprintf(f, sizeof f, "%s/" CHANNEL_SOCKET, at(name));
    close(open(f, O_WRONLY | O_CREAT, 0600));
}

static void test_live_and_dead(void)
{
    struct channel c, d;
    tf_err err = {0};
    CHECK(check_tmpdir(base, sizeof base, "tf-channel") != NULL);
    chmod(base, 0700);
    CHECK(channel_open(&c, at("20261207T000000Z-0000001"), &err) == 0);
    /* Locked while the run lives: another cannot take it. */
    int other = open(at("20261207T000000Z-0000001"), O_RDONLY | O_DIRECTORY);
    CHECK(other >= 0 && flock(other, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK);
    close(other);
    CHECK(exists("20261207T000000Z-0000001/" CHANNEL_SOCKET));
    CHECK(!exists("20261207T000000Z-0000001/" CHANNEL_LOCK)); /* no lock file made */

    leave("20261206T000000Z-0000001"); /* dead: nobody holds it */
    leave("20261206T000000Z-0000002"); /* live: its directory locked */
    int live = open(at("20261206T000000Z-0000002"), O_RDONLY | O_DIRECTORY);
    CHECK(live >= 0 && flock(live, LOCK_EX) == 0);
    leave("20261206T000000Z-0000003"); /* an earlier version's, live: its lock file */
    int old = open(at("20261206T000000Z-0000003/" CHANNEL_LOCK), O_RDWR | O_CREAT, 0600);
    CHECK(old >= 0 && flock(old, LOCK_EX) == 0);
    leave("20261206T000000Z-0000004"); /* an earlier version's, dead */
    close(open(at("20261206T000000Z-0000004/" CHANNEL_LOCK), O_RDWR | O_CREAT, 0600));
    leave("notarun");                  /* not a run's name: never touched */
    leave("20261206T000000Z-0000005"); /* an earlier version's, setting up: lock.new */
    close(open(at("20261206T000000Z-0000005/" CHANNEL_LOCK ".new"), O_RDWR | O_CREAT, 0600));

    CHECK(channel_open(&d, at("20261207T000000Z-0000002"), &err) == 0);
    CHECK(!exists("20261206T000000Z-0000001"));
    CHECK(exists("20261206T000000Z-0000002/" CHANNEL_SOCKET));
    CHECK(exists("20261206T000000Z-0000003/" CHANNEL_LOCK));
    CHECK(!exists("20261206T000000Z-0000004"));
    CHECK(exists("notarun/" CHANNEL_SOCKET));
    CHECK(exists("20261206T000000Z-0000005/" CHANNEL_LOCK ".new"));
    CHECK(exists("20261207T000000Z-0000001/" CHANNEL_SOCKET)); /* the first run's, live */

    channel_close(&c);
    channel_close(&d);
    CHECK(!exists("20261207T000000Z-0000001"));
    CHECK(!exists("20261207T000000Z-0000002"));
    close(live);
    close(old);
    const char *left[] = {"20261206T000000Z-0000002", "20261206T000000Z-0000003",
                          "20261206T000000Z-0000005", "notarun"};
    for (size_t i = 0; i < sizeof left / sizeof left[0]; i++) {
        char f[4300];
        snprintf(f, sizeof f, "%s/" CHANNEL_SOCKET, left[i]);
        unlink(at(f));
        snprintf(f, sizeof f, "%s/" CHANNEL_LOCK, left[i]);
        unlink(at(f));
        snprintf(f, sizeof f, "%s/" CHANNEL_LOCK ".new", left[i]);
        unlink(at(f));
        rmdir(at(left[i]));
    }
    CHECK(rmdir(base) == 0); /* nothing else was left */
}

static off_t size_of(int dirfd, const char *name)
{
    struct stat st;
    return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? st.st_size : -1;
}

/* Our copy of the log is made at the first record; until then the workspace's log is
 * judged as an empty one would be: absent or empty is clean, anything else was written by
 * someone else and is put back to empty. */
static void test_log_at_first_record(void)
{
    struct channel c;
    tf_err err = {0};
    char why[512];
    CHECK(check_tmpdir(base, sizeof base, "tf-channel") != NULL);
    chmod(base, 0700);
    CHECK(mkdir(at("ws"), 0755) == 0);
    int ws = open(at("ws"), O_RDONLY | O_DIRECTORY);
    CHECK(channel_open(&c, at("20261207T000000Z-0000003"), &err) == 0);
    channel_workspace(&c, ws);
    CHECK(!exists("20261207T000000Z-0000003/" SHIMCONF_LOG));
    CHECK(channel_check(&c, "ws", why, sizeof why) == 0); /* none: clean */
    close(openat(ws, SHIMCONF_LOG, O_WRONLY | O_CREAT, 0644));
    CHECK(channel_check(&c, "ws", why, sizeof why) == 0); /* empty: clean */
    int f = openat(ws, SHIMCONF_LOG, O_WRONLY | O_TRUNC);
    CHECK(f >= 0 && write(f, "{}\n", 3) == 3);
    close(f);
    CHECK(channel_check(&c, "ws", why, sizeof why) < 0 && strstr(why, "not by testfence"));
    CHECK(size_of(ws, SHIMCONF_LOG) == 0); /* put back as we had it: empty */
    unlinkat(ws, SHIMCONF_LOG, 0);

    struct vlog_record r = {.pid = 1,
                            .op = "open",
                            .path = "/etc/x",
                            .resolved = "/etc/x",
                            .err = 13,
                            .blocked_by = "kernel"};
    channel_add(&c, &r);
    CHECK(c.records == 1 && c.dropped == 0);
    CHECK(size_of(c.dirfd, SHIMCONF_LOG) > 0);
    CHECK(size_of(ws, SHIMCONF_LOG) == size_of(c.dirfd, SHIMCONF_LOG));
    CHECK(channel_check(&c, "ws", why, sizeof why) == 0);
    /* Our copy removed after a record (a command that can reach it) and the workspace's
     * emptied: not a clean run. */
    CHECK(unlinkat(c.dirfd, SHIMCONF_LOG, 0) == 0);
    f = openat(ws, SHIMCONF_LOG, O_WRONLY | O_TRUNC);
    CHECK(f >= 0);
    close(f);
    CHECK(channel_check(&c, "ws", why, sizeof why) < 0 && strstr(why, "was changed"));
    channel_close(&c);

    /* Our copy cannot be made (here a directory has its name): each record is lost, counted
     * as such (the run fails on it), never taken for a clean run. */
    unlinkat(ws, SHIMCONF_LOG, 0);
    CHECK(channel_open(&c, at("20261207T000000Z-0000004"), &err) == 0);
    channel_workspace(&c, ws);
    CHECK(mkdirat(c.dirfd, SHIMCONF_LOG, 0700) == 0);
    channel_add(&c, &r);
    CHECK(c.records == 0 && c.lost == 1 && c.lost_errno == EEXIST);
    unlinkat(c.dirfd, SHIMCONF_LOG, AT_REMOVEDIR);
    channel_close(&c);
    close(ws);
    unlink(at("ws/" SHIMCONF_LOG));
    rmdir(at("ws"));
    CHECK(rmdir(base) == 0);
}

int main(void)
{
    test_live_and_dead();
    test_log_at_first_record();
    return check_done("test_channel");
}
