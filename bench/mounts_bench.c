/* mounts_bench: why each read-only bind of a protected file cost more than the last, and what
 * does not. In a fresh mount namespace, DIR is bound onto itself (as the run's writable copy
 * of tests/), then each of its N files d%03d/f%05d (100 per directory) gets a read-only copy of
 * itself, by one of four ways; the time of each fifth is printed. bench/protect_mounts.sh. */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

enum how { BIND, TREE, BENEATH, DETACHED };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* mount(MS_BIND) then mount_setattr, by path: testfence before. */
static int by_bind(const char *p)
{
    struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
    return mount(p, p, NULL, MS_BIND, NULL) < 0 || mount_setattr(AT_FDCWD, p, 0, &ro, sizeof ro) < 0
               ? -1
               : 0;
}

/* open_tree(OPEN_TREE_CLONE) of REL at FROM, read-only while detached, moved over P. */
static int by_tree(int from, const char *rel, const char *p)
{
    struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
    int fd = open_tree(from, rel, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = mount_setattr(fd, "", AT_EMPTY_PATH, &ro, sizeof ro) < 0 ||
                     move_mount(fd, "", AT_FDCWD, p, MOVE_MOUNT_F_EMPTY_PATH) < 0
                 ? -1
                 : 0;
    close(fd);
    return rc;
}

static int parse_how(const char *s)
{
    static const char *names[] = {"bind", "tree", "beneath", "detached"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    int how = argc == 4 ? parse_how(argv[1]) : -1;
    if (how < 0) {
        fprintf(stderr, "usage: mounts_bench bind|tree|beneath|detached DIR N (as root)\n");
        return 2;
    }
    const char *dir = argv[2];
    int n = atoi(argv[3]), from = AT_FDCWD;
    if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return perror("namespace"), 1;
    int beneath = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC); /* before DIR is covered */
    if (beneath < 0 || mount(dir, dir, NULL, MS_BIND, NULL) < 0)
        return perror(dir), 1;
    if (how == BENEATH)
        from = beneath;
    if (how == DETACHED && (from = open_tree(AT_FDCWD, dir, OPEN_TREE_CLONE)) < 0)
        return perror("open_tree"), 1;
    double t0 = now(), tk = t0;
    char p[4096], rel[64];
    for (int i = 0; i < n; i++) {
        snprintf(rel, sizeof rel, "d%03d/f%05d", i / 100, i);
        snprintf(p, sizeof p, "%s/%s", dir, rel);
        int rc = how == BIND ? by_bind(p) : by_tree(from, from == AT_FDCWD ? p : rel, p);
        if (rc < 0)
            return perror(p), 1;
        if (n >= 5 && (i + 1) % (n / 5) == 0) {
            double t = now();
            printf("%s: files %d-%d: %.3f s\n", argv[1], i + 2 - n / 5, i + 1, t - tk);
            tk = t;
        }
    }
    printf("%s: %d files: %.3f s\n", argv[1], n, now() - t0);
    return 0;
}
