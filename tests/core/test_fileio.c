/* Unit tests for src/core/fileio.c: whole-file reads and all-or-nothing replacement, and the
 * errno each failure names (the step that failed, never one left over from earlier). */
#include "check.h"
#include "core/fileio.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
    char dir[PATH_MAX], p[PATH_MAX + 16], q[PATH_MAX + 16];
    tf_err err = {0};
    char *buf;
    size_t len;
    if (!check_tmpdir(dir, sizeof dir, "tf-fileio"))
        return perror("mkdtemp"), 1;
    snprintf(p, sizeof p, "%s/f.toml", dir);
    CHECK(fileio_replace(p, "a = 1\n", 6, 1, &err) == 0);
    CHECK(fileio_replace(p, "a = 2\n", 6, 1, &err) < 0 && strstr(err.msg, "already exists"));
    chmod(p, 0600);
    CHECK(fileio_replace(p, "a = 3\n", 6, 0, &err) == 0);
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600); /* the mode is kept */
    CHECK(fileio_read_all(p, 1024, &buf, &len, &err) == 0 && len == 6 && !strcmp(buf, "a = 3\n"));
    free(buf);
    CHECK(fileio_read_all(p, 3, &buf, &len, &err) < 0 && strstr(err.msg, "larger than 3 bytes"));
    /* A failure names its own cause, whatever errno an earlier call left (ENOENT here). */
    snprintf(q, sizeof q, "%s/f.toml/x", dir);
    CHECK(fileio_replace(q, "x", 1, 0, &err) < 0 && strstr(err.msg, "Not a directory"));
    CHECK(fileio_read_all(dir, 10, &buf, &len, &err) < 0 && strstr(err.msg, "not a regular file"));
    /* fileio_read_at: the file itself, never through a symlink. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    snprintf(q, sizeof q, "%s/link", dir);
    CHECK(symlink(p, q) == 0);
    CHECK(fileio_read_at(dfd, "f.toml", "F", 1024, &buf, &len, &err) == 0 && len == 6);
    free(buf);
    CHECK(fileio_read_at(dfd, "link", "L", 1024, &buf, &len, &err) < 0 &&
          strstr(err.msg, "cannot read L (a symlink, not followed)"));
    CHECK(fileio_read_at(dfd, ".", "D", 1024, &buf, &len, &err) < 0 &&
          strstr(err.msg, "not a regular file"));
    close(dfd);
    unlink(q);
    /* Nothing half written is ever left beside it. */
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s' | grep -v '^f.toml$')\"", dir);
    CHECK(system(cmd) == 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return check_done("test_fileio");
}
