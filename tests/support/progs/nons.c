/* nons: run a command to which namespaces are unavailable, as in a container whose seccomp
 * profile forbids them: unshare and clone asking for any new namespace fail with EPERM,
 * clone3 fails with ENOSYS (seccomp cannot read its struct; glibc then falls back to
 * clone). Only this process tree is affected, not the machine (no sysctl).
 * usage: nons COMMAND [ARG...] */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* Every CLONE_NEW* bit (all in the low 32 bits of the flags). clone() cannot take
 * CLONE_NEWTIME (that bit is part of its exit signal), unshare() can. */
#define NEW_NS                                                                                     \
    (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWIPC |     \
     CLONE_NEWCGROUP)
#define X32_BIT 0x40000000u

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define JSET(k, t, f) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), (t), (f))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define ERR(e) RET(SECCOMP_RET_ERRNO | ((e)&SECCOMP_RET_DATA))

/* The checks for one syscall table, 10 instructions: the syscall number is in A. */
#define TABLE(unshare_nr, clone_nr, clone3_nr)                                                     \
    JEQ(unshare_nr, 3, 0), JEQ(clone_nr, 4, 0), JEQ(clone3_nr, 0, 5), ERR(ENOSYS),                 \
        LD(offsetof(struct seccomp_data, args[0])), JSET(NEW_NS | CLONE_NEWTIME, 3, 2),            \
        LD(offsetof(struct seccomp_data, args[0])), JSET(NEW_NS, 1, 0), RET(SECCOMP_RET_ALLOW),    \
        ERR(EPERM)

int main(int argc, char **argv)
{
    struct sock_filter f[] = {
        LD(offsetof(struct seccomp_data, arch)),
        JEQ(AUDIT_ARCH_X86_64, 0, 12),
        /* x86_64 and x32 (same numbers for these three, plus the x32 bit). */
        LD(offsetof(struct seccomp_data, nr)),
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~X32_BIT),
        TABLE(272, 56, 435),
        /* i386 (int $0x80 from a 64-bit process too). */
        JEQ(AUDIT_ARCH_I386, 1, 0),
        RET(SECCOMP_RET_ALLOW),
        LD(offsetof(struct seccomp_data, nr)),
        TABLE(310, 120, 435),
    };
    struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
    if (argc < 2) {
        fprintf(stderr, "usage: nons COMMAND [ARG...]\n");
        return 2;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
        perror("nons: seccomp");
        return 2;
    }
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    return 127;
}
