/* esc_open: try to change a file's content through one way of opening it for writing
 * (open/creat/fopen modes, openat from a dir fd, openat2, /proc reopen, truncate, fallocate). */
#include "esc.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Write the payload through FD, then close it; a failed write or close is a failure. */
static long write_close(int fd)
{
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, ESC_PAYLOAD, ESC_PAYLOAD_LEN);
    int saved = errno;
    if (close(fd) < 0)
        return -1;
    errno = saved;
    return n == (ssize_t)ESC_PAYLOAD_LEN ? 0 : -1;
}

/* Close FD without writing: the open itself (with O_TRUNC) is the damage. */
static long close_only(int fd)
{
    return fd < 0 ? -1 : close(fd);
}

static long do_fopen(const char *mode, const char *path)
{
    FILE *f = fopen(path, mode);
    if (!f)
        return -1;
    /* Buffered: the write reaches the kernel at fclose, whose result is what counts. */
    fputs(ESC_PAYLOAD, f);
    return fclose(f) == 0 ? 0 : -1;
}

/* "beneath,no-symlinks,..." -> RESOLVE_* bits; "none" is 0. */
static long resolve_flags(const char *s)
{
    static const struct {
        const char *name;
        unsigned long long bit;
    } names[] = {{"beneath", RESOLVE_BENEATH},
                 {"in-root", RESOLVE_IN_ROOT},
                 {"no-symlinks", RESOLVE_NO_SYMLINKS},
                 {"no-magiclinks", RESOLVE_NO_MAGICLINKS},
                 {"no-xdev", RESOLVE_NO_XDEV}};
    long bits = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t i;
        for (i = 0; i < sizeof names / sizeof names[0]; i++)
            if (!strcmp(t, names[i].name))
                break;
        if (i < sizeof names / sizeof names[0])
            bits |= (long)names[i].bit;
        else if (strcmp(t, "none"))
            return -1;
    }
    return bits;
}

static long op(int argc, char **argv)
{
    const char *o = argv[1], *p = argv[2];
    if (argc == 3 && !strcmp(o, "open-w"))
        return write_close(open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644));
    if (argc == 3 && !strcmp(o, "open-a"))
        return write_close(open(p, O_WRONLY | O_APPEND));
    if (argc == 3 && !strcmp(o, "open-rw"))
        return write_close(open(p, O_RDWR));
    if (argc == 3 && !strcmp(o, "open-trunc")) /* no write: the truncation is the damage */
        return close_only(open(p, O_WRONLY | O_TRUNC));
    if (argc == 3 && !strcmp(o, "rdonly-trunc")) /* truncates although opened read-only */
        return close_only(open(p, O_RDONLY | O_TRUNC));
    if (argc == 3 && !strcmp(o, "creat"))
        return write_close(creat(p, 0644));
    if (argc == 4 && !strcmp(o, "fopen"))
        return do_fopen(argv[2], argv[3]);
    if (argc == 4 && (!strcmp(o, "openat-dirfd") || !strcmp(o, "openat-opath"))) {
        /* The directory is opened first, then the file is reached relative to it. */
        int dfd = open(p, (o[7] == 'o' ? O_PATH : O_RDONLY) | O_DIRECTORY);
        if (dfd < 0)
            return -1;
        return write_close(openat(dfd, argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644));
    }
    if (argc == 4 && !strcmp(o, "openat2")) {
        long res = resolve_flags(argv[3]);
        if (res < 0)
            return -2;
        struct open_how how = {.flags = O_WRONLY | O_CREAT | O_TRUNC,
                               .mode = 0644,
                               .resolve = (unsigned long long)res};
        return write_close((int)syscall(SYS_openat2, AT_FDCWD, p, &how, sizeof how));
    }
    if (argc == 3 && !strcmp(o, "procfd")) {
        /* Opened read-only (allowed), then reopened for writing through the magic link. */
        int fd = open(p, O_RDONLY);
        if (fd < 0)
            return -2;
        char magic[64];
        snprintf(magic, sizeof magic, "/proc/self/fd/%d", fd);
        return write_close(open(magic, O_WRONLY | O_TRUNC));
    }
    if (argc == 3 && !strcmp(o, "truncate"))
        return truncate(p, 0);
    if (argc == 3 && !strcmp(o, "fallocate")) {
        /* Punching a hole zeroes the content; it needs an fd opened for writing. */
        int fd = open(p, O_WRONLY);
        if (fd < 0)
            return -1;
        struct stat st;
        if (fstat(fd, &st) < 0 ||
            fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, st.st_size) < 0)
            return -1;
        return close(fd);
    }
    if (argc == 4 && !strcmp(o, "copy-range")) {
        /* Copy from a file the fence allows reading into the target, in the kernel. */
        int in = open(p, O_RDONLY);
        if (in < 0)
            return -2;
        int out = open(argv[3], O_WRONLY);
        if (out < 0)
            return -1;
        struct stat st;
        loff_t off = 0;
        if (fstat(in, &st) < 0 || copy_file_range(in, NULL, out, &off, (size_t)st.st_size, 0) < 0)
            return -1;
        return close(out);
    }
    return -2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return esc_usage(argv[0], "open-w|open-a|open-rw|open-trunc|rdonly-trunc|creat|procfd|"
                                  "truncate|fallocate PATH | fopen MODE PATH | "
                                  "openat-dirfd|openat-opath DIR NAME | openat2 PATH RESOLVE,... | "
                                  "copy-range FROM TO");
    long r = op(argc, argv);
    int err = errno;
    if (r == -2) { /* misuse, or the setup before the attempt failed */
        fprintf(stderr, "%s: bad arguments or setup failed: %s\n", argv[1], strerror(err));
        return 2;
    }
    return esc_result(r, err);
}
