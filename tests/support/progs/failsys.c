/* failsys: run a command on which the named syscalls fail with the named errno (seccomp), to
 * test what testfence does when the kernel says no: failsys close_range=ENOSYS -- CMD... */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
    const char *name;
    int nr;
} calls[] = {{"close_range", SYS_close_range}, {"poll", SYS_poll}, {"ppoll", SYS_ppoll}};

static const struct {
    const char *name;
    int err;
} errs[] = {{"ENOSYS", ENOSYS}, {"EIO", EIO}, {"EPERM", EPERM}, {"EINVAL", EINVAL}};

static int lookup(const char *spec, int *nr, int *err)
{
    const char *eq = strchr(spec, '=');
    *nr = *err = -1;
    for (size_t i = 0; eq && i < sizeof calls / sizeof calls[0]; i++)
        if (strlen(calls[i].name) == (size_t)(eq - spec) &&
            !strncmp(spec, calls[i].name, eq - spec))
            *nr = calls[i].nr;
    for (size_t i = 0; eq && i < sizeof errs / sizeof errs[0]; i++)
        if (!strcmp(eq + 1, errs[i].name))
            *err = errs[i].err;
    return *nr >= 0 && *err >= 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    struct sock_filter f[64];
    unsigned n = 0;
    int i = 1;
    f[n++] =
        (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (; i < argc && strcmp(argv[i], "--") && n < 60; i++) {
        int nr, err;
        if (lookup(argv[i], &nr, &err) < 0) {
            fprintf(stderr, "failsys: unknown syscall or errno in %s\n", argv[i]);
            return 2;
        }
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1);
        f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err);
    }
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    if (i + 1 >= argc) {
        fprintf(stderr, "usage: failsys SYSCALL=ERRNO... -- COMMAND [ARG...]\n");
        return 2;
    }
    struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
        perror("failsys: seccomp");
        return 2;
    }
    execvp(argv[i + 1], argv + i + 1);
    perror(argv[i + 1]);
    return 127;
}
