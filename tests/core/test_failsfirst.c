/* test_failsfirst: the writes the kernel refuses on its own, before the fence is asked. */
#include "check.h"
#include "core/failsfirst.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[PATH_MAX];

static const char *at(const char *rel)
{
    static char p[4][PATH_MAX];
    static int i;
    char *out = p[i++ % 4];
    snprintf(out, PATH_MAX, "%s/%s", base, rel);
    return out;
}

int main(void)
{
    char buf[PATH_MAX];
    char *d = check_tmpdir(buf, sizeof buf, "tf-ff");
    if (!d || !realpath(d, base))
        return perror("mkdtemp"), 1;
    CHECK(mkdir(at("dir"), 0755) == 0);
    int fd = open(at("file"), O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0);
    close(fd);
    CHECK(symlink("nowhere", at("dangling")) == 0);

    /* open: EISDIR, EEXIST, ENOENT; a plain create or truncate would write */
    CHECK(fails_first("open", O_WRONLY, at("dir"), AT_FDCWD, NULL));
    CHECK(fails_first("open", O_WRONLY | O_CREAT | O_EXCL, at("file"), AT_FDCWD, NULL));
    CHECK(!fails_first("open", O_WRONLY | O_TRUNC, at("file"), AT_FDCWD, NULL));
    CHECK(!fails_first("open", O_WRONLY | O_CREAT, at("new"), AT_FDCWD, NULL));
    CHECK(fails_first("open", O_WRONLY, at("new"), AT_FDCWD, NULL));
    CHECK(fails_first("open", O_WRONLY | O_CREAT, at("missing/new"), AT_FDCWD, NULL));
    /* O_TMPFILE names the directory the unnamed file is made in: no EISDIR */
    CHECK(!fails_first("open", O_WRONLY | O_TMPFILE, at("dir"), AT_FDCWD, NULL));
    CHECK(fails_first("open", O_WRONLY | O_TMPFILE, at("gone"), AT_FDCWD, NULL));
    CHECK(fails_first("open", O_WRONLY | O_TMPFILE, at("file"), AT_FDCWD, NULL));
    /* creating a name that exists, or in a directory that does not */
    CHECK(fails_first("mkdir", 0, at("dir"), AT_FDCWD, NULL));
    CHECK(fails_first("symlink", 0, at("dangling"), AT_FDCWD, NULL)); /* the link itself */
    CHECK(!fails_first("mkdir", 0, at("newdir"), AT_FDCWD, NULL));
    CHECK(fails_first("link", 0, at("missing/x"), AT_FDCWD, NULL));
    /* removing what is not there */
    CHECK(fails_first("unlink", 0, at("gone"), AT_FDCWD, NULL));
    CHECK(!fails_first("unlink", 0, at("file"), AT_FDCWD, NULL));
    CHECK(!fails_first("rmdir", 0, at("dir"), AT_FDCWD, NULL));
    CHECK(fails_first("truncate", 0, at("gone"), AT_FDCWD, NULL));
    /* rename: the old name missing, or the new one's directory */
    CHECK(fails_first("rename", 0, at("new"), AT_FDCWD, at("gone")));
    CHECK(!fails_first("rename", 0, at("new"), AT_FDCWD, at("file")));
    CHECK(fails_first("rename", 0, at("missing/new"), AT_FDCWD, at("file")));
    /* in doubt: no */
    CHECK(!fails_first("chmod", 0, at("gone"), AT_FDCWD, NULL));
    CHECK(!fails_first("open", O_WRONLY, "relative", AT_FDCWD, NULL));
    CHECK(!fails_first(NULL, 0, at("file"), AT_FDCWD, NULL));
    CHECK(!fails_first("unlink", 0, NULL, AT_FDCWD, NULL));

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        return 1;
    return check_done("test_failsfirst");
}
