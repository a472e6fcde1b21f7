/* test_dirlist: a directory's entries, every one exactly once, with its type, however many
 * reads of the kernel's listing it takes; errors said, the fd taken over. */
#include "check.h"

#include "core/dirlist.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];

enum { FILES = 700 }; /* names of ~60 bytes: about 60 KiB of records, several reads */

static int open_dir(void)
{
    return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void make_tree(void)
{
    char p[PATH_MAX];
    for (int i = 0; i < FILES; i++) {
        snprintf(p, sizeof p, "%s/file-%04d-padding-padding-padding-padding-padding-padding", dir,
                 i);
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        if (fd >= 0)
            close(fd);
    }
    snprintf(p, sizeof p, "%s/sub", dir);
    CHECK(mkdir(p, 0700) == 0);
    snprintf(p, sizeof p, "%s/link", dir);
    CHECK(symlink("sub", p) == 0);
}

static void every_entry_once(void)
{
    static char seen[FILES];
    memset(seen, 0, sizeof seen);
    struct dirlist *l = dirlist_open(open_dir());
    CHECK(l != NULL);
    if (!l)
        return;
    int dots = 0, files = 0, sub = 0, link = 0, other = 0;
    const struct dirlist_entry *e;
    while ((e = dirlist_next(l))) {
        int n;
        if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
            dots++;
        else if (sscanf(e->name, "file-%4d-", &n) == 1 && n >= 0 && n < FILES) {
            files++;
            seen[n]++;
            CHECK(e->type == DT_REG || e->type == DT_UNKNOWN);
        } else if (!strcmp(e->name, "sub"))
            sub += e->type == DT_DIR || e->type == DT_UNKNOWN;
        else if (!strcmp(e->name, "link"))
            link += e->type == DT_LNK || e->type == DT_UNKNOWN;
        else
            other++;
    }
    CHECK(errno == 0); /* the end, not an error */
    CHECK(dots == 2 && files == FILES && sub == 1 && link == 1 && other == 0);
    for (int i = 0; i < FILES; i++)
        CHECK(seen[i] == 1);
    /* The fd is the listing's: open while it lives, for *at calls on its entries. */
    struct stat st;
    CHECK(fstatat(dirlist_fd(l), "sub", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode));
    /* At the end it stays at the end. */
    CHECK(dirlist_next(l) == NULL && errno == 0);
    dirlist_close(l);
}

static void errors(void)
{
    /* Not a directory: the first read fails, and says why. */
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/file-0000-padding-padding-padding-padding-padding-padding", dir);
    struct dirlist *l = dirlist_open(open(p, O_RDONLY | O_CLOEXEC));
    CHECK(l != NULL);
    if (l) {
        CHECK(dirlist_next(l) == NULL && errno == ENOTDIR);
        dirlist_close(l);
    }
    dirlist_close(NULL); /* nothing to close: no crash */
}

int main(void)
{
    if (!check_tmpdir(dir, sizeof dir, "tf_dirlist"))
        return 1;
    make_tree();
    every_entry_once();
    errors();
    return check_done("test_dirlist");
}
