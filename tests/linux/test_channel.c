/* Unit tests for src/linux/channel.c's private directory: made and locked (the directory
 * itself), removed at close, and what earlier runs left: a dead run's removed, a live run's
 * kept, whichever version made it. */
#include "check.h"
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
    leave("notarun"); /* not a run's name: never touched */

    CHECK(channel_open(&d, at("20261207T000000Z-0000002"), &err) == 0);
    CHECK(!exists("20261206T000000Z-0000001"));
    CHECK(exists("20261206T000000Z-0000002/" CHANNEL_SOCKET));
    CHECK(exists("20261206T000000Z-0000003/" CHANNEL_LOCK));
    CHECK(!exists("20261206T000000Z-0000004"));
    CHECK(exists("notarun/" CHANNEL_SOCKET));
    CHECK(exists("20261207T000000Z-0000001/" CHANNEL_SOCKET)); /* the first run's, live */

    channel_close(&c);
    channel_close(&d);
    CHECK(!exists("20261207T000000Z-0000001"));
    CHECK(!exists("20261207T000000Z-0000002"));
    close(live);
    close(old);
    const char *left[] = {"20261206T000000Z-0000002", "20261206T000000Z-0000003", "notarun"};
    for (size_t i = 0; i < sizeof left / sizeof left[0]; i++) {
        char f[4300];
        snprintf(f, sizeof f, "%s/" CHANNEL_SOCKET, left[i]);
        unlink(at(f));
        snprintf(f, sizeof f, "%s/" CHANNEL_LOCK, left[i]);
        unlink(at(f));
        rmdir(at(left[i]));
    }
    CHECK(rmdir(base) == 0); /* nothing else was left */
}

int main(void)
{
    test_live_and_dead();
    return check_done("test_channel");
}
